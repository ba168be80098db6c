// GoTrue's email endpoints (internal/api/recover.go, otp.go, magic_link.go, resend.go and
// user.go's email change): /recover, /otp and /resend with their statuses, bodies and limits,
// and the mails of sign-up and email change. The mails land in the devstack's mailbox
// (mailbox.ts). Registered by routes.ts: /verify (email-verify.ts) before the API-key check,
// as the CLI's API gateway leaves it open (a link opened from a mail carries no key), the
// rest after it.
import type { Context, Hono } from 'hono';

import { sqlNow } from '../clock';
import type { DevstackContext } from '../context';
import type { SqlRunner } from '../sql-engine';
import { AuthApiError, authErrors } from './errors';
import {
  mailRedirect,
  mailUserByEmail,
  mailUserById,
  sendEmailChange,
  sendUserToken,
} from './email-tokens';
import { RateLimiter } from './rate-limit';
import {
  limitOrThrow,
  optionalObject,
  optionalString,
  readJsonBody,
  validateEmail,
} from './route-kit';
import { EMAIL_APP_METADATA, type JsonObject } from './users';

export { registerVerifyRoutes, SINGLE_CONFIRMATION_ACCEPTED } from './email-verify';

const FIVE_MINUTES_MS = 5 * 60 * 1000;

function refusePkce(body: JsonObject): void {
  if (optionalString(body, 'code_challenge')) {
    throw authErrors.validation(
      'PKCE flow is not supported by the devstack; use the implicit flow',
    );
  }
}

/** A user for an address first seen by /otp (GoTrue signs them up without a password). */
async function createOtpUser(
  ctx: DevstackContext,
  tx: SqlRunner,
  email: string,
  data: JsonObject,
): Promise<string> {
  const at = sqlNow(ctx.clock);
  const confirmed = !ctx.settings.auth.enableConfirmations;
  const { rows } = await tx.query<{ id: string }>(
    `insert into auth.users (instance_id, id, aud, role, email, encrypted_password,
       email_confirmed_at, raw_app_meta_data, raw_user_meta_data, created_at, updated_at,
       confirmation_token, recovery_token, email_change_token_new, email_change, is_anonymous)
     values ('00000000-0000-0000-0000-000000000000', gen_random_uuid(), 'authenticated',
       'authenticated', $1, null, case when $4 then $5::timestamptz end, $2::jsonb, $3::jsonb,
       $5::timestamptz, $5::timestamptz, '', '', '', '', false)
     returning id::text as id`,
    [email, JSON.stringify(EMAIL_APP_METADATA), JSON.stringify(data), confirmed, at],
  );
  const id = rows[0]?.id;
  if (!id) throw new Error('user insert returned no row');
  await tx.query(
    `insert into auth.identities (provider_id, user_id, identity_data, provider,
       created_at, updated_at)
     values ($1::text, $1::uuid, $2::jsonb, 'email', $3::timestamptz, $3::timestamptz)`,
    [id, JSON.stringify({ sub: id, email, email_verified: confirmed, phone_verified: false }), at],
  );
  return id;
}

/** /recover, /otp, /resend (behind the API-key check). */
export function registerEmailRoutes(app: Hono, ctx: DevstackContext) {
  const config = ctx.settings.auth;
  // GoTrue keeps one bucket per endpoint, each at the sign-in/sign-up rate (RateLimitOtp).
  const bucket = () =>
    new RateLimiter(config.rateLimits.signInSignUps, FIVE_MINUTES_MS, () => ctx.clock.now());
  const limiters = { recover: bucket(), otp: bucket(), resend: bucket() };
  const emailProviderOn = () => {
    if (!config.emailSignup) {
      throw new AuthApiError(422, 'email_provider_disabled', 'Email logins are disabled');
    }
  };

  app.post('/recover', async (c) => {
    limitOrThrow(limiters.recover, c);
    emailProviderOn();
    const body = await readJsonBody(c);
    const raw = optionalString(body, 'email') ?? '';
    if (raw === '') throw authErrors.validation('Password recovery requires an email');
    const email = validateEmail(raw);
    refusePkce(body);
    const redirectTo = mailRedirect(config, c);
    // An unknown address is answered as a known one: no account oracle.
    await ctx.db.transaction(async (tx) => {
      const user = await mailUserByEmail(ctx, tx, email);
      if (user) await sendUserToken(ctx, tx, user, 'recovery', redirectTo);
    });
    return c.json({});
  });

  app.post('/otp', async (c) => {
    limitOrThrow(limiters.otp, c);
    const body = await readJsonBody(c);
    const raw = optionalString(body, 'email') ?? '';
    const data = optionalObject(body, 'data') ?? {};
    const createUser = body.create_user === undefined ? true : body.create_user;
    if (typeof createUser !== 'boolean') {
      throw authErrors.badJson('field "create_user" must be a boolean');
    }
    const phone = optionalString(body, 'phone') ?? '';
    if (raw !== '' && phone !== '') {
      throw authErrors.validation('Only an email address or phone number should be provided');
    }
    // GoTrue's SmsOtp with the phone provider off (the devstack sends no SMS).
    if (phone !== '') {
      if (!createUser) {
        throw new AuthApiError(422, 'otp_disabled', 'Signups not allowed for otp');
      }
      throw new AuthApiError(400, 'phone_provider_disabled', 'Unsupported phone provider');
    }
    if (raw === '') throw authErrors.validation('One of email or phone must be set');
    const email = validateEmail(raw);
    refusePkce(body);
    const redirectTo = mailRedirect(config, c);
    await ctx.db.transaction(async (tx) => {
      let user = await mailUserByEmail(ctx, tx, email);
      if (!user && !createUser) {
        throw new AuthApiError(422, 'otp_disabled', 'Signups not allowed for otp');
      }
      emailProviderOn();
      if (!user) {
        if (!config.enableSignup) throw authErrors.signupDisabled();
        const id = await createOtpUser(ctx, tx, email, data);
        user = await mailUserByEmail(ctx, tx, email);
        if (!user || user.id !== id) throw new Error('new user not found');
      }
      // An unconfirmed address gets the sign-up confirmation instead (GoTrue's MagicLink).
      const kind = user.email_confirmed_at ? 'magiclink' : 'signup';
      await sendUserToken(ctx, tx, user, kind, redirectTo);
    });
    return c.json({});
  });

  app.post('/resend', async (c) => {
    limitOrThrow(limiters.resend, c);
    const body = await readJsonBody(c);
    const type = optionalString(body, 'type') ?? '';
    const raw = optionalString(body, 'email') ?? '';
    if (type !== 'signup' && type !== 'email_change' && type !== 'sms' && type !== 'phone_change') {
      throw authErrors.validation(
        'Missing one of these types: signup, email_change, sms, phone_change',
      );
    }
    if (type === 'sms' || type === 'phone_change' || optionalString(body, 'phone')) {
      throw new AuthApiError(400, 'phone_provider_disabled', 'Phone logins are disabled');
    }
    if (raw === '') {
      throw authErrors.validation(
        type === 'signup'
          ? 'Type provided requires an email address'
          : 'Missing email address or phone number',
      );
    }
    if (!config.emailSignup) {
      throw new AuthApiError(400, 'email_provider_disabled', 'Email logins are disabled');
    }
    const email = validateEmail(raw);
    refusePkce(body);
    const redirectTo = mailRedirect(config, c);
    await ctx.db.transaction(async (tx) => {
      const user = await mailUserByEmail(ctx, tx, email);
      if (!user) return;
      if (type === 'signup') {
        if (!user.email_confirmed_at) await sendUserToken(ctx, tx, user, 'signup', redirectTo);
        return;
      }
      if (user.email_change) {
        await sendEmailChange(ctx, tx, user, user.email_change, redirectTo);
      }
    });
    return c.json({});
  });
}

/** Sign-up with confirmations on: mails the new user their confirmation (signup.ts). */
export async function sendSignupConfirmation(
  ctx: DevstackContext,
  tx: SqlRunner,
  userId: string,
  c: Context,
): Promise<void> {
  const user = await mailUserById(ctx, tx, userId);
  if (!user) throw authErrors.userNotFound();
  await sendUserToken(ctx, tx, user, 'signup', mailRedirect(ctx.settings.auth, c), true);
}

/**
 * PUT /user with a new address (current-user.ts). A permanent user's address changes only once
 * confirmed (mails sent here, true returned); an anonymous user's changes at once while
 * confirmations are off, as GoTrue does (false: the caller updates it).
 */
export async function requestEmailChange(
  ctx: DevstackContext,
  tx: SqlRunner,
  userId: string,
  newEmail: string,
  c: Context,
): Promise<boolean> {
  const user = await mailUserById(ctx, tx, userId);
  if (!user) throw authErrors.userNotFound();
  if (user.is_anonymous && !ctx.settings.auth.enableConfirmations) return false;
  await sendEmailChange(ctx, tx, user, newEmail, mailRedirect(ctx.settings.auth, c));
  return true;
}
