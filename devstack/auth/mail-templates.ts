// GoTrue's default mail templates (internal/mailer/templatemailer) and their variables, so a
// mail from the devstack reads and links as one from a hosted project: {{ .ConfirmationURL }},
// {{ .Token }}, {{ .TokenHash }}, {{ .SiteURL }}, {{ .RedirectTo }}, {{ .Email }},
// {{ .NewEmail }} and {{ .Data.<key> }}. Values are HTML-escaped, as Go's html/template does.

export type MailKind = 'signup' | 'recovery' | 'magiclink' | 'email_change' | 'invite';

interface Template {
  readonly subject: string;
  readonly body: string;
}

/** GoTrue's defaultTemplateSubjects / default*Mail bodies. */
export const DEFAULT_TEMPLATES: Readonly<Record<MailKind, Template>> = {
  invite: {
    subject: "You've been invited",
    body: `<h2>You've been invited</h2>

<p>You've been invited to create an account. Follow the link below to accept.</p>
<p><a href="{{ .ConfirmationURL }}">Accept invitation</a></p>`,
  },
  signup: {
    subject: 'Confirm your email address',
    body: `<h2>Confirm your email address</h2>

<p>Follow the link below to confirm this email address and finish signing up.</p>
<p><a href="{{ .ConfirmationURL }}">Confirm email address</a></p>
`,
  },
  recovery: {
    subject: 'Reset your password',
    body: `<h2>Reset your password</h2>

<p>We received a request to reset your password. Follow the link below to choose a new one.</p>
<p><a href="{{ .ConfirmationURL }}">Reset password</a></p>
<p>If you didn't request this, you can safely ignore this email.</p>`,
  },
  magiclink: {
    subject: 'Your sign-in link',
    body: `<h2>Your sign-in link</h2>

<p>Follow the link below to sign in. This link expires shortly and can only be used once.</p>
<p><a href="{{ .ConfirmationURL }}">Sign in</a></p>`,
  },
  email_change: {
    subject: 'Confirm your new email address',
    body: `<h2>Confirm your new email address</h2>

<p>Follow the link below to confirm {{ .NewEmail }} as your new email address.</p>
<p><a href="{{ .ConfirmationURL }}">Confirm new email address</a></p>
<p>If you didn't request this change, you can safely ignore this email.</p>`,
  },
};

/** The code the hosted templates leave out; the devstack adds it so OTP flows can be tried. */
const CODE_FOOTER = `
<p>Or enter this code: <code>{{ .Token }}</code></p>`;

export interface MailVariables {
  readonly ConfirmationURL: string;
  readonly Token: string;
  readonly TokenHash: string;
  readonly SiteURL: string;
  readonly RedirectTo: string;
  readonly Email: string;
  readonly NewEmail?: string;
  readonly Data: Readonly<Record<string, unknown>>;
}

export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&#34;')
    .replace(/'/g, '&#39;');
}

function variable(vars: MailVariables, path: string): string {
  const [head, ...rest] = path.split('.');
  if (head === 'Data') {
    let value: unknown = vars.Data;
    for (const key of rest) {
      value =
        typeof value === 'object' && value !== null && Object.hasOwn(value, key)
          ? (value as Record<string, unknown>)[key]
          : undefined;
    }
    if (value === undefined || value === null) return '';
    return typeof value === 'string' ? value : JSON.stringify(value);
  }
  if (rest.length > 0 || head === undefined) return '';
  const value = (vars as unknown as Record<string, unknown>)[head];
  return typeof value === 'string' ? value : '';
}

/** Fills `{{ .Name }}` / `{{ .Data.key }}` in `template` (escaped); unknown names are blank. */
export function renderTemplate(template: string, vars: MailVariables): string {
  return template.replace(/\{\{\s*\.([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}/g, (_, path: string) =>
    escapeHtml(variable(vars, path)),
  );
}

/** GoTrue's encodeRedirectURL: escaped only when it holds `&`, `=` or `#`. */
function encodeRedirect(redirectTo: string): string {
  return /[&=#]/.test(redirectTo) ? encodeURIComponent(redirectTo) : redirectTo;
}

/** The `{{ .ConfirmationURL }}`: GoTrue's /verify link for a token hash. */
export function confirmationUrl(
  apiUrl: string,
  tokenHash: string,
  type: MailKind,
  redirectTo: string,
): string {
  return (
    `${apiUrl}/auth/v1/verify?token=${encodeURIComponent(tokenHash)}` +
    `&type=${type}&redirect_to=${encodeRedirect(redirectTo)}`
  );
}

function unescapeHtml(value: string): string {
  return value
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&#34;|&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

/** The links of a mail's HTML, unescaped, in order. */
export function mailLinks(html: string): string[] {
  return [...html.matchAll(/href="([^"]*)"/g)].map((match) => unescapeHtml(match[1] ?? ''));
}

/** A plain-text version of a mail (Mailpit's `Text`): tags dropped, links written out. */
export function mailText(html: string): string {
  return unescapeHtml(
    html
      .replace(/<a [^>]*href="([^"]*)"[^>]*>([^<]*)<\/a>/g, '$2: $1')
      .replace(/<[^>]+>/g, '')
      .replace(/\n{3,}/g, '\n\n')
      .trim(),
  );
}

export interface RenderedMail {
  readonly subject: string;
  readonly html: string;
  readonly text: string;
  readonly links: readonly string[];
}

export function renderMail(kind: MailKind, vars: MailVariables): RenderedMail {
  const template = DEFAULT_TEMPLATES[kind];
  const html = renderTemplate(template.body.trimEnd() + CODE_FOOTER, vars);
  return {
    subject: renderTemplate(template.subject, vars),
    html,
    text: mailText(html),
    links: mailLinks(html),
  };
}
