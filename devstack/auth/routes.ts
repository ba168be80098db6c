// /auth/v1: the subset of GoTrue (supabase/auth) that supabase-js's email/password and
// anonymous flows use, configured by config.toml's [auth] (sign-ups, anonymous sign-ins,
// password rules, confirmations, rate limits). Wire shapes: supabase-wire.md §2.
import { randomUUID } from 'node:crypto';

import { getConnInfo } from '@hono/node-server/conninfo';
import bcrypt from 'bcryptjs';
import { Hono, type Context, type Next } from 'hono';

import { apiKeyOf, bearerToken, checkApiKey, type DevstackContext } from '../context';
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from '../json';
import { sqlNow } from '../clock';
import { isBanned, userBanned } from './admin-auth';
import { registerAdminRoutes } from './admin-routes';
import type { AuthConfig } from './config';
import {
  registerEmailRoutes,
  registerVerifyRoutes,
  requestEmailChange,
  sendSignupConfirmation,
  type EmailRouteHelpers,
} from './email';
import { withMailFields } from './email-tokens';
import { registerMfaRoutes } from './mfa';
import { registerPasskeyRoutes } from './passkeys';
import {
  disabledGrant,
  oauthErrorResponse,
  registerOpenProviderRoutes,
  registerProviderRoutes,
} from './providers';
import { registerIdentityRoutes } from './identities';
import { checkUserUpdate, registerReauthenticateRoutes } from './reauthenticate';
import { upsertEmailIdentity } from './email-verify';
import { sqlState, type SqlRunner } from '../sql-engine';
import {
  AuthApiError,
  authErrors,
  errorResponse,
  isAuthApiError,
  requestApiVersion,
  API_VERSION_HEADER,
} from './errors';
import { authLimiters, type RateLimiter } from './rate-limit';
import {
  createSession,
  refreshTokenReuseIntervalFromEnv,
  rotateRefreshToken,
  sessionResponse,
} from './sessions';
import {
  EMAIL_APP_METADATA,
  findUserByEmail,
  findUserById,
  isJsonObject,
  jsonObject,
  userJson,
  type JsonObject,
  type UserRow,
} from './users';

/** bcrypt cost GoTrue uses (and the seed's gen_salt('bf', 10)). */
export const BCRYPT_COST = 10;
/** bcrypt's least cost, for test suites that sign up dozens of users (~3 ms a hash, not ~100). */
export const BCRYPT_MIN_COST = 4;
/**
 * A bcrypt hash (cost 10) of a password nobody uses. A sign-in for an unknown email, or a user
 * without a password, is compared against it, so it costs what a real comparison costs and the
 * answer's timing does not tell registered addresses from unknown ones.
 */
const TIMING_EQUALISER_HASH = '$2b$10$VzZECwQS2dLjS7Bslo2g/O0nQorQPyta.aRvBCanKudwOS6H9Z.Xe';

/** The equaliser for new hashes of `cost` (made once, at start-up, for a cost other than 10). */
function timingEqualiserHash(cost: number): string {
  return cost === BCRYPT_COST ? TIMING_EQUALISER_HASH : bcrypt.hashSync(randomUUID(), cost);
}
/** GoTrue's character sets for each `password_requirements` value. */
const REQUIRED_CHARACTER_SETS: Readonly<Record<AuthConfig['passwordRequirements'], string[]>> = {
  '': [],
  letters_digits: ['abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ', '0123456789'],
  lower_upper_letters_digits: [
    'abcdefghijklmnopqrstuvwxyz',
    'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
    '0123456789',
  ],
  lower_upper_letters_digits_symbols: [
    'abcdefghijklmnopqrstuvwxyz',
    'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
    '0123456789',
    '!@#$%^&*()_+-=[]{};\'\\:"|<>?,./`~',
  ],
};
/** bcrypt ignores bytes past 72, so GoTrue refuses longer passwords. */
const MAX_PASSWORD_BYTES = 72;
const MAX_EMAIL_LENGTH = 255;
// GoTrue's email check is a syntax check like this one (no DNS lookups here).
const EMAIL_PATTERN =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
const ANONYMOUS_APP_METADATA = { provider: 'anonymous', providers: ['anonymous'] };

export interface AuthOptions {
  /** Overrides config.toml's `refresh_token_reuse_interval` (s). */
  refreshTokenReuseIntervalSec?: number;
}

async function readJsonBody(c: Context): Promise<JsonObject> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  if (jsonNestsDeeperThan(text)) {
    throw authErrors.badJson(`nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw authErrors.badJson(error instanceof Error ? error.message : 'invalid JSON');
  }
  if (!isJsonObject(parsed)) throw authErrors.badJson('expected a JSON object');
  return parsed;
}

/** A string field, undefined when absent or null; other types are a bad request. */
function optionalString(body: JsonObject, key: string): string | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    throw authErrors.badJson(`field "${key}" must be a string`);
  }
  return value;
}

function optionalObject(body: JsonObject, key: string): JsonObject | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (!isJsonObject(value)) throw authErrors.badJson(`field "${key}" must be an object`);
  return value;
}

function validateEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (email.length > MAX_EMAIL_LENGTH) {
    throw authErrors.validation('An email address is too long');
  }
  if (!EMAIL_PATTERN.test(email)) {
    throw authErrors.validation('Unable to validate email address: invalid format');
  }
  return email;
}

/** GoTrue's checkPasswordStrength with the configured length and character rules. */
function checkPasswordStrength(config: AuthConfig, password: string): void {
  if (Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES) {
    throw authErrors.passwordTooLong();
  }
  const reasons: string[] = [];
  const messages: string[] = [];
  if ([...password].length < config.minimumPasswordLength) {
    reasons.push('length');
    messages.push(`Password should be at least ${config.minimumPasswordLength} characters.`);
  }
  const sets = REQUIRED_CHARACTER_SETS[config.passwordRequirements];
  if (!sets.every((set) => [...password].some((ch) => set.includes(ch)))) {
    reasons.push('characters');
    messages.push(`Password should contain at least one character of each: ${sets.join(', ')}.`);
  }
  if (reasons.length > 0) {
    throw new AuthApiError(422, 'weak_password', messages.join(' '), reasons);
  }
}

/**
 * Compares with the user's hash, or with a dummy one, so both take bcrypt's time. bcrypt reads
 * only a password's first 72 bytes; Go's bcrypt (GoTrue's) refuses a longer one outright, so
 * a longer password never matches here either, or `password + anything` would sign in.
 */
async function passwordMatches(
  user: UserRow | undefined,
  password: string,
  equaliserHash: string,
): Promise<boolean> {
  const hash = user?.encrypted_password;
  const real =
    typeof hash === 'string' &&
    hash.startsWith('$2') &&
    Buffer.byteLength(password, 'utf8') <= MAX_PASSWORD_BYTES;
  try {
    const matches = await bcrypt.compare(password, real ? hash : equaliserHash);
    return real && matches;
  } catch {
    return false; // not a bcrypt hash
  }
}

/**
 * The key of the caller's rate-limit buckets: their address as the socket has it (never a
 * header a client can forge), as hosted GoTrue keys its limits by the caller's address. An
 * IPv4 caller of a dual-stack listener shows as `::ffff:a.b.c.d`: the same caller, one key.
 * A request with no socket (the gateway app called in process, as some tests do) has no
 * address; those share one bucket, named so.
 */
export function clientAddress(c: Context): string {
  let address: string | undefined;
  try {
    address = getConnInfo(c).remote.address;
  } catch {
    address = undefined; // not served by @hono/node-server
  }
  if (!address) return 'in-process';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

function limitOrThrow(limiter: RateLimiter, c: Context): void {
  if (!limiter.take(clientAddress(c))) throw authErrors.overRequestRateLimit();
}

/** The user and session behind a request's Bearer token (GoTrue's requireAuthentication). */
async function requireUser(
  ctx: DevstackContext,
  c: Context,
): Promise<{ user: UserRow; sessionId: string | undefined }> {
  const token = bearerToken(c);
  if (!token) throw authErrors.noAuthorization();
  // A Bearer equal to the apikey (supabase-js with nobody signed in) is that key's role, as
  // the gateway hands GoTrue a token of that role: no sub, so missing-sub below.
  const verified =
    token === apiKeyOf(c) ? await ctx.keys.verifyCredential(token) : await ctx.keys.verify(token);
  if (!verified.ok) {
    throw authErrors.badJwt(
      verified.reason === 'expired'
        ? 'token has invalid claims: token is expired'
        : verified.message,
    );
  }
  const { sub, session_id: sessionId } = verified.claims;
  if (typeof sub !== 'string' || sub === '') throw authErrors.missingSub();
  const user = await findUserById(ctx.db, sub);
  if (!user) throw authErrors.userNotFound();
  // A token issued before an admin's ban no longer works (GoTrue's requireAuthentication).
  if (await isBanned(ctx, user.id)) throw userBanned(403);
  if (typeof sessionId === 'string' && sessionId !== '') {
    const { rows } = await ctx.db.query(`select 1 from auth.sessions where id::text = $1`, [
      sessionId,
    ]);
    if (rows.length === 0) throw authErrors.sessionNotFound();
    return { user, sessionId };
  }
  return { user, sessionId: undefined };
}

/**
 * What GoTrue answers a sign-up for a registered address when confirmations are on: a user
 * that looks new (random id, nothing stored), so sign-up does not reveal who has an account.
 */
function obfuscatedUser(email: string, data: JsonObject, now: string): JsonObject {
  return {
    id: randomUUID(),
    aud: 'authenticated',
    role: 'authenticated',
    email,
    phone: '',
    confirmation_sent_at: now,
    app_metadata: EMAIL_APP_METADATA,
    user_metadata: data,
    identities: [],
    created_at: now,
    updated_at: now,
    is_anonymous: false,
  };
}

async function requireUserRow(db: SqlRunner, id: string): Promise<UserRow> {
  const user = await findUserById(db, id);
  if (!user) throw authErrors.userNotFound();
  return user;
}

export function authRoutes(ctx: DevstackContext, options: AuthOptions = {}): Hono {
  const config = ctx.settings.auth;
  const reuseIntervalSec =
    options.refreshTokenReuseIntervalSec ??
    refreshTokenReuseIntervalFromEnv() ??
    config.refreshTokenReuseIntervalSec;
  const limiters = authLimiters(config.rateLimits, () => ctx.clock.now());
  const hashCost = ctx.settings.passwordHashCost;
  const equaliserHash = timingEqualiserHash(hashCost);
  /** Auth's timestamps come from the devstack's clock, as its tokens' iat/exp do. */
  const now = () => sqlNow(ctx.clock);
  const app = new Hono();

  // Hosted answers every auth error in the shape the request's API version asks for.
  app.onError((error, c) => {
    if (isAuthApiError(error)) return errorResponse(c, error);
    const oauth = oauthErrorResponse(c, error);
    if (oauth) return oauth;
    // Class 22 (data exception), e.g. a NUL character Postgres text cannot hold: bad input.
    if (sqlState(error)?.startsWith('22')) {
      return errorResponse(c, authErrors.validation('Invalid characters in request'));
    }
    console.error('[devstack auth] unexpected error:', error);
    return errorResponse(c, new AuthApiError(500, 'unexpected_failure', 'Unexpected failure'));
  });
  app.use('*', async (c: Context, next: Next) => {
    const version = requestApiVersion(c);
    if (version) c.header(API_VERSION_HEADER, version);
    await next();
  });

  // The email endpoints (email.ts). /verify comes first: the gateway leaves it open to links.
  const emailHelpers: EmailRouteHelpers = {
    clientAddress,
    readJsonBody,
    optionalString,
    optionalObject,
    validateEmail,
  };
  registerVerifyRoutes(app, ctx, emailHelpers);
  registerOpenProviderRoutes(app);

  // The API gateway in front of GoTrue: a request needs the project's anon or service_role
  // key in `apikey`; the Bearer (a user's token on /user and /logout) is GoTrue's business.
  app.use('*', async (c: Context, next: Next) => {
    const key = checkApiKey(ctx, c);
    if (!key.ok) return c.json({ message: key.message }, 401);
    await next();
    return undefined;
  });

  app.get('/health', (c) =>
    c.json({
      version: 'devstack',
      name: 'GoTrue',
      description: 'GoTrue is a user registration and authentication API',
    }),
  );

  registerProviderRoutes(app, ctx);

  app.post('/signup', async (c) => {
    const body = await readJsonBody(c);
    const rawEmail = optionalString(body, 'email');
    const password = optionalString(body, 'password');
    const phone = optionalString(body, 'phone');
    const data = optionalObject(body, 'data') ?? {};

    if (!config.enableSignup) throw authErrors.signupDisabled();
    if (phone) {
      // GoTrue's validateSignupParams, then the phone provider (off: no SMS here).
      if (!password) throw authErrors.validation('Signup requires a valid password');
      checkPasswordStrength(config, password);
      if (rawEmail) {
        throw authErrors.validation(
          'Only an email address or phone number should be provided on signup.',
        );
      }
      throw new AuthApiError(400, 'phone_provider_disabled', 'Phone signups are disabled');
    }
    // GoTrue: no email and no phone is an anonymous sign-in, with its own switch and limit.
    const anonymous = !rawEmail;
    let email: string | undefined;
    let hash: string | null = null;
    if (anonymous) {
      if (!config.enableAnonymousSignIns) throw authErrors.anonymousDisabled();
      limitOrThrow(limiters.anonymousUsers, c);
    } else {
      limitOrThrow(limiters.signInSignUps, c);
      if (!config.emailSignup) throw authErrors.emailSignupDisabled();
      email = validateEmail(rawEmail);
      if (!password) throw authErrors.validation('Signup requires a valid password');
      checkPasswordStrength(config, password);
      const existing = await findUserByEmail(ctx.db, email);
      if (existing) {
        // With confirmations on, GoTrue answers as for a new address (no account oracle).
        if (config.enableConfirmations) return c.json(obfuscatedUser(email, data, now()));
        throw authErrors.userExists();
      }
      // Hash outside the transaction: bcrypt takes ~70 ms and PGlite has one connection.
      hash = await bcrypt.hash(password, hashCost);
    }
    const confirmAtOnce = anonymous || !config.enableConfirmations;

    const at = now();
    let result;
    try {
      result = await ctx.db.transaction(async (tx) => {
        const { rows } = await tx.query<{ id: string }>(
          `insert into auth.users (instance_id, id, aud, role, email, encrypted_password,
             email_confirmed_at, raw_app_meta_data, raw_user_meta_data, created_at, updated_at,
             last_sign_in_at, confirmation_token, recovery_token, email_change_token_new,
             email_change, is_anonymous, confirmation_sent_at)
           values ('00000000-0000-0000-0000-000000000000', gen_random_uuid(), 'authenticated',
             'authenticated', $1, $2, $3::timestamptz, $4::jsonb, $5::jsonb,
             $8::timestamptz, $8::timestamptz, case when $7 then $8::timestamptz end,
             '', '', '', '', $6,
             case when $7 then null else $8::timestamptz end)
           returning id::text as id`,
          [
            email ?? null,
            hash,
            anonymous || !confirmAtOnce ? null : at,
            JSON.stringify(anonymous ? ANONYMOUS_APP_METADATA : EMAIL_APP_METADATA),
            JSON.stringify(data),
            anonymous,
            confirmAtOnce,
            at,
          ],
        );
        const userId = rows[0]?.id;
        if (!userId) throw new Error('user insert returned no row');
        if (email) {
          await tx.query(
            `insert into auth.identities (provider_id, user_id, identity_data, provider,
               last_sign_in_at, created_at, updated_at)
             values ($1::text, $1::uuid, $2::jsonb, 'email', $3::timestamptz, $3::timestamptz,
                     $3::timestamptz)`,
            [
              userId,
              JSON.stringify({
                sub: userId,
                email,
                email_verified: confirmAtOnce,
                phone_verified: false,
              }),
              at,
            ],
          );
        }
        const user = await requireUserRow(tx, userId);
        // Waiting for a confirmation: the user alone, no session (supabase-js: session null).
        if (!confirmAtOnce) {
          await sendSignupConfirmation(ctx, tx, userId, c);
          return { ...(await userJson(tx, user)), confirmation_sent_at: at };
        }
        const method = anonymous ? 'anonymous' : 'password';
        const { sessionId, refreshToken } = await createSession(ctx, tx, userId, method);
        return sessionResponse(ctx, tx, user, sessionId, refreshToken);
      });
    } catch (error) {
      if (isAuthApiError(error) || sqlState(error)?.startsWith('22')) throw error;
      // Two sign-ups for one address racing: the unique index decides.
      if (sqlState(error) === '23505') throw authErrors.userExists();
      console.error('[devstack auth] signup failed:', error);
      throw new AuthApiError(500, 'unexpected_failure', 'Database error saving new user');
    }
    return c.json(result);
  });

  app.post('/token', async (c) => {
    const grantType = c.req.query('grant_type');
    // GoTrue's limiter runs before the handler: every attempt counts, malformed ones too.
    limitOrThrow(grantType === 'refresh_token' ? limiters.tokenRefresh : limiters.signInSignUps, c);
    const body = await readJsonBody(c);

    if (grantType === 'password') {
      const rawEmail = optionalString(body, 'email');
      const password = optionalString(body, 'password') ?? '';
      if (optionalString(body, 'phone')) throw authErrors.invalidCredentials();
      if (!rawEmail) throw authErrors.validation('missing email or phone');
      const user = await findUserByEmail(ctx.db, rawEmail.trim());
      // Always one bcrypt comparison, known address or not.
      const matches = await passwordMatches(user, password, equaliserHash);
      // GoTrue refuses a banned user whatever the password (after the same bcrypt time here).
      if (user?.encrypted_password && (await isBanned(ctx, user.id))) throw userBanned(400);
      if (!user || !matches) throw authErrors.invalidCredentials();
      if (!user.email_confirmed_at) {
        throw new AuthApiError(400, 'email_not_confirmed', 'Email not confirmed');
      }
      const session = await ctx.db.transaction(async (tx) => {
        const at = now();
        await tx.query(
          `update auth.users set last_sign_in_at = $2::timestamptz, updated_at = $2::timestamptz
           where id::text = $1`,
          [user.id, at],
        );
        await tx.query(
          `update auth.identities set last_sign_in_at = $2::timestamptz
           where user_id::text = $1 and provider = 'email'`,
          [user.id, at],
        );
        const fresh = await requireUserRow(tx, user.id);
        const { sessionId, refreshToken } = await createSession(ctx, tx, user.id, 'password');
        return sessionResponse(ctx, tx, fresh, sessionId, refreshToken);
      });
      return c.json(session);
    }

    if (grantType === 'refresh_token') {
      const token = optionalString(body, 'refresh_token');
      if (!token) throw authErrors.refreshNotFound();
      const outcome = await ctx.db.transaction(async (tx) => {
        const rotated = await rotateRefreshToken(
          ctx,
          tx,
          token,
          reuseIntervalSec,
          config.refreshTokenRotation,
        );
        if (!rotated.ok) return rotated;
        const user = await findUserById(tx, rotated.userId);
        if (!user) return { ok: false as const, error: authErrors.refreshNotFound() };
        const session = await sessionResponse(
          ctx,
          tx,
          user,
          rotated.sessionId,
          rotated.refreshToken,
        );
        return { ok: true as const, session };
      });
      if (!outcome.ok) throw outcome.error;
      return c.json(outcome.session);
    }

    disabledGrant(grantType, body);
    throw authErrors.unsupportedGrant();
  });

  app.get('/user', async (c) => {
    const { user } = await requireUser(ctx, c);
    return c.json(await userJson(ctx.db, user));
  });

  app.put('/user', async (c) => {
    const { user, sessionId } = await requireUser(ctx, c);
    const body = await readJsonBody(c);
    const rawEmail = optionalString(body, 'email');
    const password = optionalString(body, 'password');
    const data = optionalObject(body, 'data');
    const email = rawEmail ? validateEmail(rawEmail) : undefined;
    // aal2 with a verified factor; the nonce of /reauthenticate (reauthenticate.ts).
    const nonce = optionalString(body, 'nonce');
    if (password !== undefined) checkPasswordStrength(config, password);
    await checkUserUpdate(ctx, user, sessionId, { password, email, nonce });

    let hash: string | undefined;
    if (password !== undefined) {
      checkPasswordStrength(config, password);
      if (await passwordMatches(user, password, equaliserHash)) throw authErrors.samePassword();
      hash = await bcrypt.hash(password, hashCost);
    }
    if (email && email !== user.email) {
      const other = await findUserByEmail(ctx.db, email);
      if (other && other.id !== user.id) throw authErrors.emailExists();
    }

    let updated;
    try {
      const at = now();
      updated = await ctx.db.transaction(async (tx) => {
        if (data) {
          // GoTrue merges: null values delete keys, others overwrite.
          const merged = jsonObject(user.raw_user_meta_data);
          for (const [key, value] of Object.entries(data)) {
            if (value === null) delete merged[key];
            else merged[key] = value;
          }
          await tx.query(
            `update auth.users set raw_user_meta_data = $2::jsonb, updated_at = $3::timestamptz
             where id::text = $1`,
            [user.id, JSON.stringify(merged), at],
          );
        }
        if (hash !== undefined) {
          await tx.query(
            `update auth.users set encrypted_password = $2, updated_at = $3::timestamptz
             where id::text = $1`,
            [user.id, hash, at],
          );
          // As GoTrue's UpdatePassword: every other session must sign in again.
          await tx.query(
            sessionId
              ? `delete from auth.sessions where user_id::text = $1 and id::text <> $2`
              : `delete from auth.sessions where user_id::text = $1`,
            sessionId ? [user.id, sessionId] : [user.id],
          );
        }
        // A permanent user's new address waits for its confirmation links (email.ts).
        if (
          email &&
          email !== user.email &&
          !(await requestEmailChange(ctx, tx, user.id, email, c))
        ) {
          // Autoconfirm: the new address takes effect at once; an anonymous user becomes
          // a permanent email user.
          await tx.query(
            `update auth.users set email = $2, email_confirmed_at = $4::timestamptz,
               updated_at = $4::timestamptz, is_anonymous = false,
               raw_app_meta_data = case when is_anonymous then $3::jsonb else raw_app_meta_data end
             where id::text = $1`,
            [user.id, email, JSON.stringify(EMAIL_APP_METADATA), at],
          );
          await upsertEmailIdentity(tx, user.id, email, at, { email });
        }
        return withMailFields(ctx, tx, await userJson(tx, await requireUserRow(tx, user.id)));
      });
    } catch (error) {
      if (isAuthApiError(error)) throw error;
      if (sqlState(error) === '23505') throw authErrors.emailExists();
      throw error;
    }
    return c.json(updated);
  });

  app.post('/logout', async (c) => {
    const scope = c.req.query('scope') ?? 'global';
    if (scope !== 'global' && scope !== 'local' && scope !== 'others') {
      throw authErrors.validation(`Unsupported logout scope "${scope}"`);
    }
    const { user, sessionId } = await requireUser(ctx, c);
    // Deleting sessions deletes their refresh tokens (on delete cascade), as GoTrue does.
    if (scope === 'global' || !sessionId) {
      await ctx.db.query(`delete from auth.sessions where user_id::text = $1`, [user.id]);
    } else if (scope === 'local') {
      await ctx.db.query(`delete from auth.sessions where id::text = $1`, [sessionId]);
    } else {
      await ctx.db.query(`delete from auth.sessions where user_id::text = $1 and id::text <> $2`, [
        user.id,
        sessionId,
      ]);
    }
    return c.body(null, 204);
  });

  registerEmailRoutes(app, ctx, emailHelpers);
  registerReauthenticateRoutes(app, ctx, (c) => requireUser(ctx, c));
  registerIdentityRoutes(app, ctx, (c) => requireUser(ctx, c));
  registerMfaRoutes(app, ctx, {
    clientAddress,
    readJsonBody,
    optionalString,
    requireUser: (c) => requireUser(ctx, c),
  });
  // Passkeys (passkeys.ts), before the admin group: its admin routes check the caller themselves.
  registerPasskeyRoutes(app, ctx, { readJsonBody, requireUser: (c) => requireUser(ctx, c) });
  // GoTrue's admin API (admin-routes.ts): a service_role caller only.
  registerAdminRoutes(app, ctx, {
    ...emailHelpers,
    checkPasswordStrength: (password) => checkPasswordStrength(config, password),
  });

  app.all('*', () => {
    throw authErrors.notFound();
  });

  return app;
}
