// GoTrue's sign-up (internal/api/signup.go, and anonymous.go for a body with neither email
// nor phone): POST /signup with the project's switches, password rules and rate limits; with
// confirmations on the user waits for their mail, otherwise the answer is a session.
import { randomUUID } from 'node:crypto';

import bcrypt from 'bcryptjs';
import type { Hono } from 'hono';

import { sqlNow } from '../clock';
import type { DevstackContext } from '../context';
import { sqlState } from '../sql-engine';
import { sendSignupConfirmation } from './email';
import { AuthApiError, authErrors, isAuthApiError } from './errors';
import type { AuthLimiters } from './rate-limit';
import {
  checkPasswordStrength,
  limitOrThrow,
  optionalObject,
  optionalString,
  readJsonBody,
  requireUserRow,
  validateEmail,
} from './route-kit';
import { createSession, sessionResponse } from './sessions';
import { EMAIL_APP_METADATA, findUserByEmail, userJson, type JsonObject } from './users';

const ANONYMOUS_APP_METADATA = { provider: 'anonymous', providers: ['anonymous'] };

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

/** POST /signup; its sign-in/sign-up bucket is the password grant's too (routes.ts). */
export function registerSignupRoutes(
  app: Hono,
  ctx: DevstackContext,
  limiters: AuthLimiters,
): void {
  const config = ctx.settings.auth;
  const hashCost = ctx.settings.passwordHashCost;

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
        if (config.enableConfirmations)
          return c.json(obfuscatedUser(email, data, sqlNow(ctx.clock)));
        throw authErrors.userExists();
      }
      // Hash outside the transaction: bcrypt takes ~70 ms and PGlite has one connection.
      hash = await bcrypt.hash(password, hashCost);
    }
    const confirmAtOnce = anonymous || !config.enableConfirmations;

    const at = sqlNow(ctx.clock);
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
}
