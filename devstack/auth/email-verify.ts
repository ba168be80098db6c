// GoTrue's /verify (internal/api/verify.go): a mailed link (GET, token hash in `token`) or a
// code or token hash (POST) is checked against auth.users, used once, and answered with a
// session: by redirect to `redirect_to` with the session (or GoTrue's error) in the fragment,
// or as JSON. Email changes with two links answer the first with a message. Registered
// before the gateway's API-key check: a link opened from a mail carries no key.
import type { Hono } from 'hono';

import { sqlNow } from '../clock';
import type { DevstackContext } from '../context';
import type { SqlRunner } from '../sql-engine';
import { AuthApiError, authErrors } from './errors';
import {
  emailErrors,
  mailRedirect,
  mailUserColumns,
  sameToken,
  tokenExpired,
  tokenHash,
  type MailUserRow,
} from './email-tokens';
import { RateLimiter } from './rate-limit';
import { limitOrThrow, optionalString, readJsonBody, validateEmail } from './route-kit';
import { createSession, sessionResponse, type SessionResponse } from './sessions';
import { EMAIL_APP_METADATA, findUserById } from './users';

const FIVE_MINUTES_MS = 5 * 60 * 1000;
/** GoTrue's singleConfirmationAccepted. */
export const SINGLE_CONFIRMATION_ACCEPTED =
  'Confirmation link accepted. Please proceed to confirm link sent to the other email';
/** GoTrue's oauthErrorMap for error redirects. */
const OAUTH_ERRORS: Readonly<Record<number, string>> = {
  400: 'invalid_request',
  401: 'unauthorized_client',
  403: 'access_denied',
  500: 'server_error',
  503: 'temporarily_unavailable',
};
const VERIFY_TYPES = ['signup', 'invite', 'recovery', 'magiclink', 'email_change', 'email'];

type VerifyOutcome =
  { kind: 'session'; session: SessionResponse } | { kind: 'single-confirmation' };

/** The user a token hash belongs to for `type` (GoTrue's verifyTokenHash). */
async function userByTokenHash(
  ctx: DevstackContext,
  tx: SqlRunner,
  type: string,
  hash: string,
): Promise<{ user: MailUserRow; type: string }> {
  const columns: Record<string, string[]> = {
    signup: ['confirmation_token'],
    invite: ['confirmation_token'],
    recovery: ['recovery_token'],
    magiclink: ['recovery_token'],
    email: ['confirmation_token', 'recovery_token'],
    email_change: ['email_change_token_new', 'email_change_token_current'],
  };
  const searched = columns[type];
  if (!searched) throw authErrors.validation('Invalid email verification type');
  const where = searched.map((column) => `(${column} = $1 and ${column} <> '')`).join(' or ');
  const { rows } = await tx.query<MailUserRow>(
    `select ${mailUserColumns(2)} from auth.users where (${where}) and deleted_at is null
     for update`,
    [hash, sqlNow(ctx.clock)],
  );
  const user = rows[0];
  if (!user) throw emailErrors.linkInvalid();
  if (user.banned) throw emailErrors.banned();
  let resolved = type;
  if (type === 'email') resolved = sameToken(user.recovery_token, hash) ? 'magiclink' : 'signup';
  const sentAt =
    resolved === 'signup' || resolved === 'invite'
      ? user.confirmation_sent_at
      : resolved === 'email_change'
        ? user.email_change_sent_at
        : user.recovery_sent_at;
  if (tokenExpired(ctx, sentAt)) throw emailErrors.linkInvalid();
  return { user, type: resolved };
}

/** The user an emailed code belongs to (GoTrue's verifyUserAndToken). */
async function userByCode(
  ctx: DevstackContext,
  tx: SqlRunner,
  type: string,
  email: string,
  otp: string,
): Promise<{ user: MailUserRow; type: string; hash: string }> {
  const hash = tokenHash(email, otp);
  const { rows } = await tx.query<MailUserRow>(
    type === 'email_change'
      ? `select ${mailUserColumns(2)} from auth.users where deleted_at is null and is_sso_user = false
           and (lower(email) = lower($1) or lower(email_change) = lower($1)) for update`
      : `select ${mailUserColumns(2)} from auth.users where deleted_at is null and is_sso_user = false
           and lower(email) = lower($1) for update`,
    [email, sqlNow(ctx.clock)],
  );
  const user = rows[0];
  if (!user) throw emailErrors.tokenInvalid();
  if (user.banned) throw emailErrors.banned();
  const valid = (stored: string | null, sentAt: Date | string | null) =>
    sameToken(stored, hash) && !tokenExpired(ctx, sentAt);
  let resolved: string | undefined;
  if (type === 'email') {
    if (valid(user.confirmation_token, user.confirmation_sent_at)) resolved = 'signup';
    else if (valid(user.recovery_token, user.recovery_sent_at)) resolved = 'magiclink';
  } else if (type === 'signup' || type === 'invite') {
    if (valid(user.confirmation_token, user.confirmation_sent_at)) resolved = type;
  } else if (type === 'recovery' || type === 'magiclink') {
    if (valid(user.recovery_token, user.recovery_sent_at)) resolved = type;
  } else if (
    valid(user.email_change_token_current, user.email_change_sent_at) ||
    valid(user.email_change_token_new, user.email_change_sent_at)
  ) {
    resolved = type;
  }
  if (!resolved) throw emailErrors.tokenInvalid();
  return { user, type: resolved, hash };
}

/** Marks the address confirmed (User.Confirm) and its identity verified. */
async function confirmUser(tx: SqlRunner, user: MailUserRow, at: string): Promise<void> {
  await tx.query(
    `update auth.users set email_confirmed_at = coalesce(email_confirmed_at, $2::timestamptz),
       confirmation_token = '', updated_at = $2::timestamptz where id::text = $1`,
    [user.id, at],
  );
  await tx.query(
    `update auth.identities set identity_data = identity_data || '{"email_verified": true}'::jsonb,
       updated_at = $2::timestamptz
     where user_id::text = $1 and provider = 'email'`,
    [user.id, at],
  );
}

/** GoTrue's emailChangeVerify: the first of two links only records itself. */
async function confirmEmailChange(
  ctx: DevstackContext,
  tx: SqlRunner,
  user: MailUserRow,
  hash: string,
  at: string,
): Promise<boolean> {
  const config = ctx.settings.auth;
  if (
    config.enableConfirmations &&
    config.doubleConfirmChanges &&
    (user.email_change_confirm_status ?? 0) === 0 &&
    user.email
  ) {
    const column = sameToken(user.email_change_token_current, hash)
      ? 'email_change_token_current'
      : 'email_change_token_new';
    await tx.query(
      `update auth.users set email_change_confirm_status = 1, ${column} = '' where id::text = $1`,
      [user.id],
    );
    return false;
  }
  const newEmail = user.email_change ?? '';
  try {
    await tx.query(
      `update auth.users set email = $2, email_change = '', email_change_token_new = '',
         email_change_token_current = '', email_change_confirm_status = 0,
         email_confirmed_at = coalesce(email_confirmed_at, $3::timestamptz), is_anonymous = false,
         updated_at = $3::timestamptz
       where id::text = $1`,
      [user.id, newEmail, at],
    );
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === '23505') throw authErrors.emailExists();
    throw error;
  }
  const patch = { email: newEmail, email_verified: true };
  if (await upsertEmailIdentity(tx, user.id, newEmail, at, patch)) {
    await tx.query(`update auth.users set raw_app_meta_data = $2::jsonb where id::text = $1`, [
      user.id,
      JSON.stringify(EMAIL_APP_METADATA),
    ]);
  }
  return true;
}

/**
 * Brings the user's email identity in step with a new address: `patch` is merged into its
 * identity_data (as GoTrue's UpdateIdentity), and a user without one (anonymous until now)
 * gets one. Returns whether it was inserted.
 */
export async function upsertEmailIdentity(
  tx: SqlRunner,
  userId: string,
  email: string,
  at: string,
  patch: Readonly<Record<string, unknown>>,
): Promise<boolean> {
  const changed = await tx.query(
    `update auth.identities set identity_data = identity_data || $2::jsonb,
       updated_at = $3::timestamptz
     where user_id::text = $1 and provider = 'email'`,
    [userId, JSON.stringify(patch), at],
  );
  if (changed.affected !== 0) return false;
  const identity = { sub: userId, email, email_verified: true, phone_verified: false };
  await tx.query(
    `insert into auth.identities (provider_id, user_id, identity_data, provider,
       last_sign_in_at, created_at, updated_at)
     values ($1::text, $1::uuid, $2::jsonb, 'email', $3::timestamptz, $3::timestamptz,
             $3::timestamptz)`,
    [userId, JSON.stringify(identity), at],
  );
  return true;
}

/** Uses a verified token: confirms, recovers or changes the address, then signs in. */
async function useToken(
  ctx: DevstackContext,
  tx: SqlRunner,
  user: MailUserRow,
  type: string,
  hash: string,
): Promise<VerifyOutcome> {
  const at = sqlNow(ctx.clock);
  if (type === 'signup' || type === 'invite') {
    await confirmUser(tx, user, at);
  } else if (type === 'recovery' || type === 'magiclink') {
    await tx.query(`update auth.users set recovery_token = '' where id::text = $1`, [user.id]);
    await confirmUser(tx, user, at);
  } else if (!(await confirmEmailChange(ctx, tx, user, hash, at))) {
    return { kind: 'single-confirmation' };
  }
  await tx.query(`update auth.users set last_sign_in_at = $2::timestamptz where id::text = $1`, [
    user.id,
    at,
  ]);
  const fresh = await findUserById(tx, user.id);
  if (!fresh) throw authErrors.userNotFound();
  // GoTrue's issueRefreshToken(…, models.OTP): the session's amr method is "otp".
  const { sessionId, refreshToken } = await createSession(ctx, tx, user.id, 'otp');
  return {
    kind: 'session',
    session: await sessionResponse(ctx, tx, fresh, sessionId, refreshToken),
  };
}

/** GET /verify's redirect after an error (prepErrorRedirectURL): the error in the fragment. */
function errorRedirect(target: string, error: AuthApiError): string {
  const url = new URL(target);
  const fragment = new URLSearchParams();
  const oauth = OAUTH_ERRORS[error.status];
  if (oauth) fragment.set('error', oauth);
  fragment.set('error_code', error.code);
  fragment.set('error_description', error.message);
  fragment.set('sb', '');
  url.hash = fragment.toString();
  return url.toString();
}

/** GET /verify's redirect with a session (AccessTokenResponse.AsRedirectURL, keys sorted). */
function sessionRedirect(target: string, session: SessionResponse, type: string): string {
  const fragment = new URLSearchParams([
    ['access_token', session.access_token],
    ['expires_at', String(session.expires_at)],
    ['expires_in', String(session.expires_in)],
    ['refresh_token', session.refresh_token],
    ['sb', ''],
    ['token_type', session.token_type],
    ['type', type],
  ]);
  return `${target}#${fragment.toString()}`;
}

/** /verify: open to links without an API key (register before the key check). */
export function registerVerifyRoutes(app: Hono, ctx: DevstackContext) {
  const config = ctx.settings.auth;
  const limiter = new RateLimiter(config.rateLimits.tokenVerifications, FIVE_MINUTES_MS, () =>
    ctx.clock.now(),
  );

  app.get('/verify', async (c) => {
    limitOrThrow(limiter, c);
    const type = c.req.query('type') ?? '';
    const token = c.req.query('token') ?? '';
    const redirectTo = mailRedirect(config, c);
    if (type === '') throw authErrors.validation('Verify requires a verification type');
    if (token === '') throw authErrors.validation('Verify requires a token or a token hash');
    let target: string;
    try {
      if (!VERIFY_TYPES.includes(type) || type === 'email') {
        throw authErrors.validation('Unsupported verification type');
      }
      const outcome = await ctx.db.transaction(async (tx) => {
        const found = await userByTokenHash(ctx, tx, type, token);
        return useToken(ctx, tx, found.user, found.type, token);
      });
      target =
        outcome.kind === 'session'
          ? sessionRedirect(redirectTo, outcome.session, type)
          : `${redirectTo}#${new URLSearchParams([
              ['message', SINGLE_CONFIRMATION_ACCEPTED],
              ['sb', ''],
            ]).toString()}`;
    } catch (error) {
      if (!(error instanceof AuthApiError)) throw error;
      target = errorRedirect(redirectTo, error);
    }
    return c.redirect(target, 303);
  });

  app.post('/verify', async (c) => {
    limitOrThrow(limiter, c);
    const body = await readJsonBody(c);
    const type = optionalString(body, 'type') ?? '';
    const token = optionalString(body, 'token') ?? '';
    const hash = optionalString(body, 'token_hash') ?? '';
    const rawEmail = optionalString(body, 'email') ?? '';
    if (type === '') throw authErrors.validation('Verify requires a verification type');
    if ((token === '') === (hash === '')) {
      throw authErrors.validation('Verify requires either a token or a token hash');
    }
    const phone = optionalString(body, 'phone') ?? '';
    if (token !== '' && (type === 'sms' || type === 'phone_change') && phone !== '') {
      // GoTrue checks the number, then finds no user whose phone holds this code: the
      // devstack sends no SMS, so no phone code is ever outstanding.
      if (!/^[1-9]\d{1,14}$/.test(phone.replace(/^\+/, '').replaceAll(' ', ''))) {
        throw authErrors.validation('Invalid phone number format (E.164 required)');
      }
      throw emailErrors.tokenInvalid();
    }
    let email = '';
    if (token !== '') {
      if (rawEmail === '') {
        throw authErrors.validation(
          'Only an email address or phone number should be provided on verify',
        );
      }
      try {
        email = validateEmail(rawEmail);
      } catch {
        throw new AuthApiError(422, 'validation_failed', 'Invalid email format');
      }
    } else if (rawEmail !== '' || phone !== '' || optionalString(body, 'redirect_to')) {
      throw authErrors.validation('Only the token_hash and type should be provided');
    }
    if (!VERIFY_TYPES.includes(type)) throw authErrors.validation('Unsupported verification type');
    const outcome = await ctx.db.transaction(async (tx) => {
      const found =
        hash !== ''
          ? { ...(await userByTokenHash(ctx, tx, type, hash)), hash }
          : await userByCode(ctx, tx, type, email, token);
      return useToken(ctx, tx, found.user, found.type, found.hash);
    });
    if (outcome.kind === 'single-confirmation') {
      return c.json({ msg: SINGLE_CONFIRMATION_ACCEPTED, code: '200' });
    }
    return c.json(outcome.session);
  });
}
