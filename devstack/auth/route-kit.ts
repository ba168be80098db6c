// What every /auth/v1 route file needs, in one place (GoTrue keeps these in internal/api's
// helpers, middleware and password checks): reading a JSON body and its fields, the caller's
// address and rate limits, the signed-in user behind a Bearer token, and password rules.
import { randomUUID } from 'node:crypto';

import { getConnInfo } from '@hono/node-server/conninfo';
import bcrypt from 'bcryptjs';
import type { Context } from 'hono';

import { apiKeyOf, bearerToken, type DevstackContext } from '../context';
import { MAX_JSON_DEPTH, parseJsonText } from '../json';
import type { SqlRunner } from '../sql-engine';
import { isBanned, userBanned } from './admin-auth';
import type { AuthConfig } from './config';
import { AuthApiError, authErrors } from './errors';
import type { RateLimiter } from './rate-limit';
import { findUserById, isJsonObject, type JsonObject, type UserRow } from './users';

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
/** Equalisers made for costs other than 10, one per cost (hashing one takes bcrypt's time). */
const equalisers = new Map<number, string>([[BCRYPT_COST, TIMING_EQUALISER_HASH]]);

/**
 * The equaliser for new hashes of `cost`. routes.ts asks for it at start-up, so a request
 * never pays for making one and every comparison afterwards costs the same.
 */
export function timingEqualiserHash(cost: number): string {
  let hash = equalisers.get(cost);
  if (hash === undefined) {
    hash = bcrypt.hashSync(randomUUID(), cost);
    equalisers.set(cost, hash);
  }
  return hash;
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

/** A request's JSON object body; an empty body is `{}`, anything else not an object bad_json. */
export async function readJsonBody(c: Context): Promise<JsonObject> {
  const parsed = parseJsonText(await c.req.text());
  if (!parsed.ok) {
    if (parsed.reason === 'empty') return {};
    throw authErrors.badJson(
      parsed.reason === 'too-deep' ? `nested deeper than ${MAX_JSON_DEPTH} levels` : parsed.message,
    );
  }
  if (!isJsonObject(parsed.value)) throw authErrors.badJson('expected a JSON object');
  return parsed.value;
}

/** A string field, undefined when absent or null; other types are a bad request. */
export function optionalString(body: JsonObject, key: string): string | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    throw authErrors.badJson(`field "${key}" must be a string`);
  }
  return value;
}

/** An object field, undefined when absent or null; other types are a bad request. */
export function optionalObject(body: JsonObject, key: string): JsonObject | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (!isJsonObject(value)) throw authErrors.badJson(`field "${key}" must be an object`);
  return value;
}

/** The address trimmed and lower-cased, or 422 when it is too long or not an address. */
export function validateEmail(raw: string): string {
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
export function checkPasswordStrength(config: AuthConfig, password: string): void {
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
 * Compares with the user's hash, or with the equaliser of the project's hash cost, so both
 * take bcrypt's time. bcrypt reads only a password's first 72 bytes; Go's bcrypt (GoTrue's)
 * refuses a longer one outright, so a longer password never matches here either, or
 * `password + anything` would sign in.
 */
export async function passwordMatches(
  ctx: DevstackContext,
  user: UserRow | undefined,
  password: string,
): Promise<boolean> {
  const hash = user?.encrypted_password;
  const real =
    typeof hash === 'string' &&
    hash.startsWith('$2') &&
    Buffer.byteLength(password, 'utf8') <= MAX_PASSWORD_BYTES;
  const equaliser = timingEqualiserHash(ctx.settings.passwordHashCost);
  try {
    const matches = await bcrypt.compare(password, real ? hash : equaliser);
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

/** Takes a token from the caller's bucket, or answers 429 over_request_rate_limit. */
export function limitOrThrow(limiter: RateLimiter, c: Context): void {
  if (!limiter.take(clientAddress(c))) throw authErrors.overRequestRateLimit();
}

/** The signed-in caller: their user row and, when the token names one, their session. */
export interface SignedInUser {
  user: UserRow;
  sessionId: string | undefined;
}

/** The user and session behind a request's Bearer token (GoTrue's requireAuthentication). */
export async function requireUser(ctx: DevstackContext, c: Context): Promise<SignedInUser> {
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

/** A user row read back inside a write (a missing one is user_not_found). */
export async function requireUserRow(db: SqlRunner, id: string): Promise<UserRow> {
  const user = await findUserById(db, id);
  if (!user) throw authErrors.userNotFound();
  return user;
}
