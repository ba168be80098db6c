// What GoTrue's admin endpoints share (internal/api/admin.go, auth.go, middleware.go): the
// admin check every /admin/* and /invite request passes first, the strict parsing of admin
// bodies (GoTrue decodes them into typed Go structs, so a wrong type is bad_json), Go's
// duration syntax for ban_duration, E.164 phones, and the full user JSON an admin sees
// (models.User with every omitempty field, soft-deleted users included).
import type { Context } from 'hono';

import { apiKeyOf, bearerToken, type DevstackContext } from '../context';
import { sqlState, type SqlEngine, type SqlRunner } from '../sql-engine';
import { AuthApiError, authErrors, isAuthApiError } from './errors';
import {
  FACTOR_COLUMNS,
  isoTime,
  isJsonObject,
  userJson,
  type FactorRow,
  type JsonObject,
  type UserRow,
} from './users';

/** GoTrue's default `jwt.admin_roles`. */
const ADMIN_ROLES = new Set(['service_role', 'supabase_admin']);
/** GoTrue's default audience (`jwt.aud`). */
export const DEFAULT_AUD = 'authenticated';
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const NIL_UUID = '00000000-0000-0000-0000-000000000000';

export const adminErrors = {
  notAdmin: () => new AuthApiError(403, 'not_admin', 'User not allowed'),
  userNotFound: () => new AuthApiError(404, 'user_not_found', 'User not found'),
  badUserId: () => new AuthApiError(404, 'validation_failed', 'user_id must be an UUID'),
  emailExists: () => authErrors.emailExists(),
  phoneExists: () =>
    new AuthApiError(422, 'phone_exists', 'Phone number already registered by another user'),
  internal: (message: string) => new AuthApiError(500, 'unexpected_failure', message),
} as const;

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

/**
 * GoTrue's requireAdminCredentials: a Bearer token is required (401), it must verify (403
 * bad_jwt), a token naming a session must name a live one, and its role must be an admin
 * role (403 not_admin). As the API gateway does, a Bearer equal to the apikey stands for that
 * key's role: the secret key is service_role, the publishable key anon.
 */
export async function requireAdmin(ctx: DevstackContext, c: Context): Promise<void> {
  const token = bearerToken(c);
  if (!token) throw authErrors.noAuthorization();
  const verified =
    token === apiKeyOf(c) ? await ctx.keys.verifyCredential(token) : await ctx.keys.verify(token);
  if (!verified.ok) throw authErrors.badJwt(verified.message);
  const { sub, session_id: sessionId, role } = verified.claims;
  if (typeof sessionId === 'string' && sessionId !== '' && sessionId !== NIL_UUID) {
    if (typeof sub !== 'string' || sub === '') throw authErrors.missingSub();
    if (!isUuid(sub)) {
      throw new AuthApiError(400, 'bad_jwt', 'invalid claim: sub claim must be a UUID');
    }
    const { rows } = await ctx.db.query<{ user: boolean; session: boolean }>(
      `select exists (select 1 from auth.users where id::text = $1) as "user",
              exists (select 1 from auth.sessions where id::text = $2) as "session"`,
      [sub.toLowerCase(), sessionId.toLowerCase()],
    );
    if (!rows[0]?.user) throw authErrors.userNotFound();
    if (!rows[0].session) throw authErrors.sessionNotFound();
  }
  if (typeof role !== 'string' || !ADMIN_ROLES.has(role)) throw adminErrors.notAdmin();
}

/** GoTrue's requestAud for an admin: the X-JWT-AUD header, else the default audience. */
export function requestAud(c: Context): string {
  const header = c.req.header('x-jwt-aud');
  return header && header !== '' ? header : DEFAULT_AUD;
}

// ---- typed body fields (Go's json.Unmarshal into a struct) ----

function typeError(key: string, expected: string): AuthApiError {
  return authErrors.badJson(`field "${key}" must be ${expected}`);
}

/** A Go `string` field: absent or null is "", another type is bad_json. */
export function stringField(body: JsonObject, key: string): string {
  const value = body[key];
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw typeError(key, 'a string');
  return value;
}

/** A Go `*string` field: absent or null is undefined. */
export function stringPointerField(body: JsonObject, key: string): string | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw typeError(key, 'a string');
  return value;
}

/** A Go `bool` field: absent or null is false. */
export function boolField(body: JsonObject, key: string): boolean {
  const value = body[key];
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw typeError(key, 'a boolean');
  return value;
}

/** A Go `map[string]interface{}` field: absent or null is undefined. */
export function mapField(body: JsonObject, key: string): JsonObject | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (!isJsonObject(value)) throw typeError(key, 'an object');
  return value;
}

/** GoTrue's UpdateUserMetaData / UpdateAppMetaData: null deletes a key, others overwrite. */
export function mergeMetadata(current: JsonObject, updates: JsonObject): JsonObject {
  const merged: JsonObject = { ...current };
  for (const [key, value] of Object.entries(updates)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

// ---- ban_duration: Go's time.ParseDuration ----

const DURATION_UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Go's time.ParseDuration, in ms; throws Go's message for bad input. */
export function parseGoDuration(text: string): number {
  const quoted = `"${text}"`;
  const invalid = () => new Error(`time: invalid duration ${quoted}`);
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') throw invalid();
  let total = 0;
  while (rest !== '') {
    const number = /^(\d*)(?:\.(\d*))?/.exec(rest);
    const whole = number?.[1] ?? '';
    const fraction = number?.[2] ?? '';
    if (!number || (whole === '' && fraction === '')) throw invalid();
    rest = rest.slice(number[0].length);
    const unit = /^[^\d.]*/.exec(rest)?.[0] ?? '';
    if (unit === '') throw new Error(`time: missing unit in duration ${quoted}`);
    const scale = DURATION_UNIT_MS[unit];
    if (scale === undefined) {
      throw new Error(`time: unknown unit "${unit}" in duration ${quoted}`);
    }
    rest = rest.slice(unit.length);
    total += Number(`${whole || '0'}.${fraction || '0'}`) * scale;
  }
  // Go's Duration is an int64 of nanoseconds (about 292 years).
  if (total > 9_223_372_036_854) throw invalid();
  return sign * total;
}

/** `ban_duration`: undefined when not given, 0 for "none" (unban), else the length in ms. */
export function banDuration(body: JsonObject): number | undefined {
  const raw = stringField(body, 'ban_duration');
  if (raw === '') return undefined;
  if (raw === 'none') return 0;
  try {
    return parseGoDuration(raw);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw authErrors.validation(`invalid format for ban duration: ${detail}`);
  }
}

/** GoTrue's validatePhone: "+" and spaces dropped, then E.164 digits. */
export function validatePhone(raw: string): string {
  const phone = raw.replace(/^\+/, '').replaceAll(' ', '');
  if (!/^[1-9][0-9]{1,14}$/.test(phone)) {
    throw authErrors.validation('Invalid phone number format (E.164 required)');
  }
  return phone;
}

// ---- the user as an admin sees it ----

const ADMIN_USER_COLUMNS = `id::text as id, aud, role, email, encrypted_password,
  email_confirmed_at, confirmed_at, last_sign_in_at, raw_app_meta_data, raw_user_meta_data,
  coalesce(phone, '') as phone, created_at, updated_at, is_anonymous, invited_at,
  phone_confirmed_at, confirmation_sent_at, recovery_sent_at, email_change,
  email_change_sent_at, phone_change, phone_change_sent_at, reauthentication_sent_at,
  banned_until, deleted_at`;

/** A user by id, soft-deleted ones too (GoTrue's FindUserByID). */
export async function findAdminUser(db: SqlRunner, id: string): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>(
    `select ${ADMIN_USER_COLUMNS} from auth.users where id::text = $1`,
    [id.toLowerCase()],
  );
  return rows[0];
}

/** GoTrue's loadUser: the `:user_id` of the path, 404 when not a UUID or not a user. */
export async function loadUser(db: SqlRunner, rawId: string): Promise<UserRow> {
  if (!isUuid(rawId)) throw adminErrors.badUserId();
  const user = await findAdminUser(db, rawId);
  if (!user) throw adminErrors.userNotFound();
  return user;
}

/**
 * An admin write in one transaction, as GoTrue's: its own errors and invalid values
 * (SQLSTATE class 22) answer as they are; any other database failure is GoTrue's 500 with
 * `failure` as its message.
 */
export async function adminTransaction<T>(
  db: SqlEngine,
  failure: string,
  fn: (tx: SqlRunner) => Promise<T>,
): Promise<T> {
  try {
    return await db.transaction(fn);
  } catch (error) {
    if (isAuthApiError(error) || sqlState(error)?.startsWith('22')) throw error;
    throw adminErrors.internal(failure);
  }
}

/** Whether auth.mfa_factors exists yet (the MFA slice owns it). */
export async function hasFactorTable(db: SqlRunner): Promise<boolean> {
  const { rows } = await db.query<{ present: boolean }>(
    `select to_regclass('auth.mfa_factors') is not null as present`,
  );
  return rows[0]?.present === true;
}

/** A user's factors, oldest first ([] while no factor table exists). */
export async function userFactors(db: SqlRunner, userId: string): Promise<FactorRow[]> {
  if (!(await hasFactorTable(db))) return [];
  const { rows } = await db.query<FactorRow>(
    `select ${FACTOR_COLUMNS} from auth.mfa_factors where user_id::text = $1
     order by created_at, id`,
    [userId],
  );
  return rows;
}

/** models.User's JSON with every field GoTrue may send (omitempty ones only when set). */
export async function adminUserJson(db: SqlRunner, user: UserRow): Promise<JsonObject> {
  const base = await userJson(db, user);
  const time = (key: string) => isoTime(user[key] as Date | string | null | undefined);
  const text = (key: string) => {
    const value = user[key];
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  const optional: [string, string | undefined][] = [
    ['invited_at', time('invited_at')],
    ['phone_confirmed_at', time('phone_confirmed_at')],
    ['confirmation_sent_at', time('confirmation_sent_at')],
    ['recovery_sent_at', time('recovery_sent_at')],
    ['new_email', text('email_change')],
    ['email_change_sent_at', time('email_change_sent_at')],
    ['new_phone', text('phone_change')],
    ['phone_change_sent_at', time('phone_change_sent_at')],
    ['reauthentication_sent_at', time('reauthentication_sent_at')],
  ];
  const json: JsonObject = {};
  // Keep GoTrue's field order: the optional timestamps sit among the base fields.
  for (const [key, value] of Object.entries(base)) {
    json[key] = value;
    if (key === 'email') {
      for (const [k, v] of optional) if (v !== undefined) json[k] = v;
    }
  }
  // Factors (when the user has any) come with userJson, as models.User's omitempty field.
  const bannedUntil = time('banned_until');
  if (bannedUntil) json.banned_until = bannedUntil;
  const deletedAt = time('deleted_at');
  if (deletedAt) json.deleted_at = deletedAt;
  json.is_anonymous = user.is_anonymous;
  return json;
}

/** Whether a user's ban (banned_until, set by an admin) holds at the devstack's time. */
export async function isBanned(ctx: DevstackContext, userId: string): Promise<boolean> {
  const { rows } = await ctx.db.query<{ banned: boolean }>(
    `select coalesce(banned_until > $2::timestamptz, false) as banned from auth.users
     where id::text = $1`,
    [userId, new Date(ctx.clock.now()).toISOString()],
  );
  return rows[0]?.banned === true;
}

export const userBanned = (status: 400 | 403) =>
  new AuthApiError(status, 'user_banned', 'User is banned');
