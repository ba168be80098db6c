// GoTrue's reauthentication (internal/api/reauthenticate.go, mail.go, user.go): GET
// /reauthenticate mails a signed-in user a nonce, and PUT /user with a new password asks for
// it when `secure_password_change` is on and the session is older than 24 hours. The nonce
// is kept as GoTrue keeps it (sha224 of email + code in reauthentication_token), is good for
// `otp_expiry` and works once. Also GoTrue's rule that a user with a verified factor changes
// email or password only from an aal2 session.
import type { Hono } from 'hono';

import { sqlNow } from '../clock';
import type { DevstackContext } from '../context';
import type { SqlRunner } from '../sql-engine';
import { AuthApiError, authErrors } from './errors';
import {
  checkFrequency,
  newOtp,
  sameToken,
  takeEmailAllowance,
  tokenExpired,
  tokenHash,
} from './email-tokens';
import { mailboxFor } from './mailbox';
import { requireUser } from './route-kit';
import { escapeHtml, mailLinks, mailText } from './mail-templates';
import type { UserRow } from './users';

/** How recent a sign-in must be for a password change without a nonce (GoTrue: 24 h). */
const RECENT_SIGN_IN_MS = 24 * 60 * 60 * 1000;
const INVALID_NONCE = 'Nonce has expired or is invalid';

interface ReauthRow {
  email: string | null;
  email_confirmed_at: Date | string | null;
  reauthentication_token: string | null;
  reauthentication_sent_at: Date | string | null;
  [key: string]: unknown;
}

async function reauthRow(db: SqlRunner, userId: string): Promise<ReauthRow | undefined> {
  const { rows } = await db.query<ReauthRow>(
    `select email, email_confirmed_at, reauthentication_token, reauthentication_sent_at
     from auth.users where id::text = $1`,
    [userId],
  );
  return rows[0];
}

/** GET /reauthenticate (behind requireAuthentication). */
export function registerReauthenticateRoutes(app: Hono, ctx: DevstackContext): void {
  app.get('/reauthenticate', async (c) => {
    const { user } = await requireUser(ctx, c);
    const email = user.email ?? '';
    const phone = user.phone ?? '';
    if (email === '' && phone === '') {
      throw authErrors.validation(
        'Reauthentication requires the user to have an email or a phone number',
      );
    }
    if (email === '') {
      // Phone users: GoTrue texts the nonce; there is no SMS provider here.
      throw new AuthApiError(500, 'unexpected_failure', 'Failed to get SMS provider');
    }
    if (!user.email_confirmed_at) {
      throw new AuthApiError(422, 'email_not_confirmed', 'Please verify your email first.');
    }
    await ctx.db.transaction(async (tx) => {
      const row = await reauthRow(tx, user.id);
      checkFrequency(ctx, row?.reauthentication_sent_at ?? null);
      takeEmailAllowance(ctx);
      const otp = newOtp(ctx.settings.auth.emailOtpLength);
      await tx.query(
        `update auth.users set reauthentication_token = $2,
           reauthentication_sent_at = $3::timestamptz where id::text = $1`,
        [user.id, tokenHash(email, otp), sqlNow(ctx.clock)],
      );
      // GoTrue's default reauthentication template.
      const html = `<h2>Confirm reauthentication</h2>\n\n<p>Enter the code: ${escapeHtml(otp)}</p>`;
      mailboxFor(ctx).deliver({
        to: [{ Name: '', Address: email }],
        kind: 'reauthentication',
        subject: 'Confirm reauthentication',
        html,
        text: mailText(html),
        links: mailLinks(html),
      });
    });
    return c.json({});
  });
}

/**
 * PUT /user's checks before a password or email change (current-user.ts calls it with the parsed
 * body): aal2 when the user has a verified factor, and the nonce when secure password change
 * asks for one. A good nonce is used up here.
 */
export async function checkUserUpdate(
  ctx: DevstackContext,
  user: UserRow,
  sessionId: string | undefined,
  change: { password: string | undefined; email: string | undefined; nonce: string | undefined },
): Promise<void> {
  const changesPassword = change.password !== undefined && change.password !== '';
  const changesEmail = change.email !== undefined && change.email !== user.email;
  if (changesPassword || changesEmail) {
    const { rows } = await ctx.db.query<{ verified: boolean; aal: string | null }>(
      `select exists (select 1 from auth.mfa_factors where user_id::text = $1
                        and status = 'verified') as verified,
              (select aal from auth.sessions where id::text = $2) as aal`,
      [user.id, sessionId ?? ''],
    );
    if (rows[0]?.verified && rows[0].aal !== 'aal2') {
      throw new AuthApiError(
        401,
        'insufficient_aal',
        'AAL2 session is required to update email or password when MFA is enabled.',
      );
    }
  }
  if (user.is_anonymous && changesPassword && !change.email) {
    throw new AuthApiError(
      422,
      'validation_failed',
      'Updating password of an anonymous user without an email or phone is not allowed',
    );
  }
  if (change.password === undefined || !ctx.settings.auth.securePasswordChange) return;
  const { rows } = await ctx.db.query<{ created_at: Date | string | null }>(
    `select created_at from auth.sessions where id::text = $1`,
    [sessionId ?? ''],
  );
  const created = rows[0]?.created_at;
  const createdMs = created ? new Date(created).getTime() : undefined;
  if (createdMs !== undefined && ctx.clock.now() <= createdMs + RECENT_SIGN_IN_MS) return;
  if (!change.nonce) {
    throw new AuthApiError(
      400,
      'reauthentication_needed',
      'Password update requires reauthentication',
    );
  }
  const row = await reauthRow(ctx.db, user.id);
  const email = row?.email ?? '';
  if (!row?.reauthentication_token || !row.reauthentication_sent_at || email === '') {
    throw new AuthApiError(422, 'reauthentication_not_valid', INVALID_NONCE);
  }
  const valid =
    sameToken(row.reauthentication_token, tokenHash(email, change.nonce)) &&
    !tokenExpired(ctx, row.reauthentication_sent_at);
  if (!valid) throw new AuthApiError(422, 'reauthentication_not_valid', INVALID_NONCE);
  // GoTrue's ConfirmReauthentication: the nonce is used up.
  await ctx.db.query(
    `update auth.users set reauthentication_token = '', reauthentication_sent_at = null
     where id::text = $1`,
    [user.id],
  );
}
