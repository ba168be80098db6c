// The devstack's mail viewer, as the Supabase CLI's Mailpit (port 54324) is to a local stack:
// a page at /_devstack/mail/ listing every mail auth sent, links clickable, and a JSON API in
// Mailpit's shape under /_devstack/mail/api/v1 (messages, message/:id, search?query=to:…,
// DELETE messages) that tests read. The mails hold sign-in links, so the viewer answers only
// requests addressed to a loopback name (no DNS rebinding) and sends no CORS headers
// (server.ts mounts it before the gateway's CORS), so no web page can read it.
import { Hono, type Context, type Next } from 'hono';

import type { DevstackContext } from '../context';
import { mailboxFor, type StoredMail } from './mailbox';
import { escapeHtml } from './mail-templates';

export const MAIL_VIEWER_PATH = '/_devstack/mail';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

function hostAllowed(c: Context): boolean {
  const host = c.req.header('host') ?? '';
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0];
  return LOOPBACK_HOSTS.has(name ?? '');
}

function summary(mail: StoredMail) {
  return {
    ID: mail.id,
    MessageID: `${mail.id}@devstack`,
    Read: mail.read,
    From: mail.from,
    To: mail.to,
    Cc: [],
    Bcc: [],
    ReplyTo: [],
    Subject: mail.subject,
    Created: new Date(mail.createdMs).toISOString(),
    Tags: [],
    Size: Buffer.byteLength(mail.html),
    Attachments: 0,
    Snippet: mail.text.replace(/\s+/g, ' ').slice(0, 250),
  };
}

function listing(mails: readonly StoredMail[], total: number) {
  return {
    total,
    unread: mails.filter((mail) => !mail.read).length,
    count: mails.length,
    messages_count: mails.length,
    start: 0,
    tags: [],
    messages: mails.map(summary),
  };
}

/** Mailpit's search, the part tests use: `to:address` (quotes allowed) and plain words. */
function matches(mail: StoredMail, query: string): boolean {
  const terms = query.match(/(?:[^\s"]+:)?"[^"]*"|\S+/g) ?? [];
  return terms.every((term) => {
    const [field, ...rest] = term.includes(':') ? term.split(':') : ['', term];
    const value = rest.join(':').replace(/^"|"$/g, '').toLowerCase();
    if (field === 'to') return mail.to.some((to) => to.Address.toLowerCase().includes(value));
    if (field === 'subject') return mail.subject.toLowerCase().includes(value);
    const word = term.replace(/^"|"$/g, '').toLowerCase();
    return `${mail.subject} ${mail.text}`.toLowerCase().includes(word);
  });
}

function page(mails: readonly StoredMail[]): string {
  const items = mails
    .map(
      (mail) => `<li class="mail">
  <h2>${escapeHtml(mail.subject)}</h2>
  <p class="meta">To ${escapeHtml(mail.to.map((to) => to.Address).join(', '))} ·
    <time datetime="${new Date(mail.createdMs).toISOString()}">${escapeHtml(
      new Date(mail.createdMs).toISOString().replace('T', ' ').slice(0, 19),
    )} UTC</time></p>
  <ul class="links">${mail.links
    .map((link) => `<li><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></li>`)
    .join('')}</ul>
  <pre>${escapeHtml(mail.text)}</pre>
</li>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Devstack mail (${mails.length})</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; margin: 2rem auto; max-width: 60rem; padding: 0 1rem; }
.mail { border: 1px solid #ccc; border-radius: 8px; padding: 0 1rem 1rem; margin-bottom: 1rem; list-style: none; }
.meta { color: #555; margin: 0; }
.links a { word-break: break-all; }
pre { white-space: pre-wrap; background: #f5f5f5; padding: 0.5rem; }
ol { padding: 0; }
</style>
</head>
<body>
<h1>Mail sent by the devstack</h1>
<p>Every mail auth sent since the devstack started, newest first. Nothing is delivered.
JSON (Mailpit's API): <a href="${MAIL_VIEWER_PATH}/api/v1/messages">${MAIL_VIEWER_PATH}/api/v1/messages</a></p>
${mails.length === 0 ? '<p>No mail yet.</p>' : `<ol aria-label="Mails">\n${items}\n</ol>`}
</body>
</html>`;
}

export function mailViewerRoutes(ctx: DevstackContext): Hono {
  const app = new Hono();
  const mailbox = () => mailboxFor(ctx);

  app.use('*', async (c: Context, next: Next) => {
    if (!hostAllowed(c))
      return c.json({ message: 'The mail viewer answers on 127.0.0.1 only' }, 403);
    c.header('Cache-Control', 'no-store');
    c.header('X-Content-Type-Options', 'nosniff');
    await next();
    return undefined;
  });

  const showPage = (c: Context) => {
    c.header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
    c.header('X-Frame-Options', 'DENY');
    return c.html(page(mailbox().list()));
  };
  app.get('/', showPage);
  app.get('/api/v1/messages', (c) => {
    const all = mailbox().list();
    return c.json(listing(all, all.length));
  });
  app.get('/api/v1/search', (c) => {
    const all = mailbox().list();
    const query = c.req.query('query') ?? '';
    return c.json(
      listing(
        all.filter((mail) => matches(mail, query)),
        all.length,
      ),
    );
  });
  app.get('/api/v1/message/:id', (c) => {
    const mail = mailbox().get(c.req.param('id'));
    if (!mail) return c.text('message not found', 404);
    mail.read = true;
    const { ID, MessageID, Read, From, To, Cc, Bcc, ReplyTo, Subject, Created, Tags, Size } =
      summary(mail);
    return c.json({
      ID,
      MessageID,
      Read,
      From,
      To,
      Cc,
      Bcc,
      ReplyTo,
      ReturnPath: mail.from.Address,
      Subject,
      Date: Created,
      Tags,
      Size,
      Text: mail.text,
      HTML: mail.html,
      Inline: [],
      Attachments: [],
    });
  });
  app.delete('/api/v1/messages', async (c) => {
    const text = await c.req.text();
    let ids: unknown;
    try {
      ids = text.trim() === '' ? undefined : (JSON.parse(text) as { IDs?: unknown }).IDs;
    } catch {
      return c.text('invalid JSON', 400);
    }
    if (Array.isArray(ids) && ids.every((id) => typeof id === 'string')) mailbox().delete(ids);
    else mailbox().clear();
    return c.text('ok');
  });
  app.all('*', (c) =>
    // The page's address with its trailing slash (the router's '/' is the bare path).
    c.req.method === 'GET' && c.req.path === `${MAIL_VIEWER_PATH}/`
      ? showPage(c)
      : c.text('not found', 404),
  );
  return app;
}
