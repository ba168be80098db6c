// auth.users / auth.identities rows and their JSON as GoTrue returns them (models.User).
// The auth server is privileged: it reads and writes these tables as the superuser.
import { isPlainObject } from '../json';
import type { SqlRunner } from '../sql-engine';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** app_metadata of a user who signs in with an email address, as GoTrue writes it. */
export const EMAIL_APP_METADATA = { provider: 'email', providers: ['email'] };

/** A plain object read from JSON text or a jsonb column, whose values are therefore JSON. */
export function isJsonObject(value: unknown): value is JsonObject {
  return isPlainObject(value);
}

export interface UserRow {
  id: string;
  aud: string | null;
  role: string | null;
  email: string | null;
  encrypted_password: string | null;
  email_confirmed_at: Date | string | null;
  confirmed_at: Date | string | null;
  last_sign_in_at: Date | string | null;
  raw_app_meta_data: unknown;
  raw_user_meta_data: unknown;
  phone: string | null;
  created_at: Date | string | null;
  updated_at: Date | string | null;
  is_anonymous: boolean;
  [key: string]: unknown;
}

interface IdentityRow {
  id: string;
  provider_id: string;
  user_id: string;
  identity_data: unknown;
  provider: string;
  last_sign_in_at: Date | string | null;
  created_at: Date | string | null;
  updated_at: Date | string | null;
  email: string | null;
  [key: string]: unknown;
}

const USER_COLUMNS = `id::text as id, aud, role, email, encrypted_password, email_confirmed_at,
  confirmed_at, last_sign_in_at, raw_app_meta_data, raw_user_meta_data, phone, created_at,
  updated_at, is_anonymous`;

/** RFC 3339 like Go's time.Time JSON, or undefined for SQL NULL. */
export function isoTime(value: Date | string | null | undefined): string | undefined {
  if (value === null || value === undefined) return undefined;
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : date.toISOString();
}

export function jsonObject(value: unknown): JsonObject {
  if (typeof value === 'string') {
    try {
      const parsed: unknown = JSON.parse(value);
      return isJsonObject(parsed) ? parsed : {};
    } catch {
      return {};
    }
  }
  return isJsonObject(value) ? value : {};
}

export async function findUserById(db: SqlRunner, id: string): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>(
    `select ${USER_COLUMNS} from auth.users where id::text = $1 and deleted_at is null`,
    [id],
  );
  return rows[0];
}

export async function findUserByEmail(db: SqlRunner, email: string): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>(
    `select ${USER_COLUMNS} from auth.users
     where lower(email) = lower($1) and is_sso_user = false and deleted_at is null`,
    [email],
  );
  return rows[0];
}

export interface FactorRow {
  id: string;
  friendly_name: string | null;
  factor_type: string;
  status: string;
  phone: string | null;
  created_at: Date | string | null;
  updated_at: Date | string | null;
  last_challenged_at: Date | string | null;
  [key: string]: unknown;
}

/** The columns factorJson reads, as auth.mfa_factors holds them. */
export const FACTOR_COLUMNS = `id::text as id, friendly_name, factor_type::text as factor_type,
  status::text as status, phone, created_at, updated_at, last_challenged_at`;

/** A factor as GoTrue's models.Factor JSON. */
export function factorJson(factor: FactorRow): JsonObject {
  const json: JsonObject = {
    id: factor.id,
    created_at: isoTime(factor.created_at) ?? '',
    updated_at: isoTime(factor.updated_at) ?? '',
    status: factor.status,
  };
  if (factor.friendly_name) json.friendly_name = factor.friendly_name;
  json.factor_type = factor.factor_type;
  json.phone = factor.phone ?? '';
  json.last_challenged_at = isoTime(factor.last_challenged_at) ?? null;
  return json;
}

/** The user's MFA factors as GoTrue's models.Factor JSON (mfa.ts keeps them). */
async function factorsJson(db: SqlRunner, userId: string): Promise<Json[]> {
  const { rows } = await db.query<FactorRow>(
    `select ${FACTOR_COLUMNS} from auth.mfa_factors where user_id::text = $1
     order by created_at, id`,
    [userId],
  );
  return rows.map(factorJson);
}

/** The user object of GoTrue's JSON (omitempty fields left out when NULL). */
export async function userJson(db: SqlRunner, user: UserRow): Promise<JsonObject> {
  const { rows } = await db.query<IdentityRow>(
    `select id::text as id, provider_id, user_id::text as user_id, identity_data, provider,
            last_sign_in_at, created_at, updated_at, email
     from auth.identities where user_id::text = $1 order by created_at, id`,
    [user.id],
  );
  const identities: Json[] = rows.map((identity) => {
    const json: JsonObject = {
      identity_id: identity.id,
      id: identity.provider_id,
      user_id: identity.user_id,
      identity_data: jsonObject(identity.identity_data),
      provider: identity.provider,
    };
    const optional: [string, string | undefined][] = [
      ['last_sign_in_at', isoTime(identity.last_sign_in_at)],
      ['created_at', isoTime(identity.created_at)],
      ['updated_at', isoTime(identity.updated_at)],
      ['email', identity.email ?? undefined],
    ];
    for (const [key, value] of optional) if (value !== undefined) json[key] = value;
    return json;
  });

  const json: JsonObject = {
    id: user.id,
    aud: user.aud ?? '',
    role: user.role ?? '',
    email: user.email ?? '',
  };
  const emailConfirmedAt = isoTime(user.email_confirmed_at);
  if (emailConfirmedAt) json.email_confirmed_at = emailConfirmedAt;
  json.phone = user.phone ?? '';
  const confirmedAt = isoTime(user.confirmed_at);
  if (confirmedAt) json.confirmed_at = confirmedAt;
  const lastSignInAt = isoTime(user.last_sign_in_at);
  if (lastSignInAt) json.last_sign_in_at = lastSignInAt;
  json.app_metadata = jsonObject(user.raw_app_meta_data);
  json.user_metadata = jsonObject(user.raw_user_meta_data);
  json.identities = identities;
  const factors = await factorsJson(db, user.id);
  if (factors.length > 0) json.factors = factors;
  json.created_at = isoTime(user.created_at) ?? '';
  json.updated_at = isoTime(user.updated_at) ?? '';
  json.is_anonymous = user.is_anonymous;
  return json;
}
