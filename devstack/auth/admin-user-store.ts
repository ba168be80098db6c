// The writes behind GoTrue's admin user endpoints (models/user.go as admin.go uses it):
// duplicate checks, identities, confirmation, bans, the stored password hash, custom ids and
// the soft delete that obfuscates a user. admin-users.ts composes them into the handlers.
import { createHash, randomInt } from 'node:crypto';

import bcrypt from 'bcryptjs';

import type { DevstackContext } from '../context';
import type { SqlRunner } from '../sql-engine';
import {
  adminErrors,
  hasFactorTable,
  isUuid,
  mergeMetadata,
  NIL_UUID,
  stringField,
  stringPointerField,
} from './admin-auth';
import { authErrors } from './errors';
import { jsonObject, type JsonObject, type UserRow } from './users';

/** bcrypt's hash format, the only password_hash the devstack can verify at sign-in. */
const BCRYPT_HASH = /^\$2[abxy]?\$(\d\d)\$[./A-Za-z0-9]{53}$/;

/** Characters of the password GoTrue makes up for a user created without one. */
const GENERATED_PASSWORD_LENGTH = 64;
const PASSWORD_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

export function generatedPassword(): string {
  let out = '';
  for (let i = 0; i < GENERATED_PASSWORD_LENGTH; i += 1) {
    out += PASSWORD_ALPHABET[randomInt(PASSWORD_ALPHABET.length)];
  }
  return out;
}

/** GoTrue's IsDuplicatedEmail: an email identity or a user of the audience with the address. */
export async function emailTaken(
  db: SqlRunner,
  email: string,
  aud: string,
  exceptUserId?: string,
): Promise<boolean> {
  const { rows } = await db.query(
    `select 1 from auth.users u
     where u.aud = $2 and u.id::text <> $3 and (
       (lower(u.email) = lower($1) and u.is_sso_user = false)
       or exists (select 1 from auth.identities i where i.user_id = u.id and i.email = lower($1)))
     limit 1`,
    [email, aud, exceptUserId ?? NIL_UUID],
  );
  return rows.length > 0;
}

export async function phoneTaken(db: SqlRunner, phone: string, aud: string): Promise<boolean> {
  const { rows } = await db.query(
    `select 1 from auth.users where phone = $1 and aud = $2 and is_sso_user = false limit 1`,
    [phone, aud],
  );
  return rows.length > 0;
}

export async function insertIdentity(
  tx: SqlRunner,
  userId: string,
  provider: 'email' | 'phone',
  data: JsonObject,
  at: string,
): Promise<void> {
  await tx.query(
    `insert into auth.identities (provider_id, user_id, identity_data, provider,
       last_sign_in_at, created_at, updated_at)
     values ($1::text, $1::uuid, $2::jsonb, $3, $4::timestamptz, $4::timestamptz,
             $4::timestamptz)`,
    [userId, JSON.stringify(data), provider, at],
  );
}

/** User.Confirm: confirmed now, the confirmation token spent, email_verified in the metadata. */
export async function confirmEmail(tx: SqlRunner, user: UserRow, at: string): Promise<void> {
  const metadata = mergeMetadata(jsonObject(user.raw_user_meta_data), { email_verified: true });
  await tx.query(
    `update auth.users set email_confirmed_at = $2::timestamptz, confirmation_token = '',
       raw_user_meta_data = $3::jsonb, updated_at = $2::timestamptz where id::text = $1`,
    [user.id, at, JSON.stringify(metadata)],
  );
  user.raw_user_meta_data = metadata;
}

/** Sets banned_until from a ban duration in ms (0 lifts the ban), on the devstack's clock. */
export async function ban(
  ctx: DevstackContext,
  tx: SqlRunner,
  userId: string,
  ms: number,
  at: string,
) {
  const until = ms === 0 ? null : new Date(ctx.clock.now() + ms).toISOString();
  await tx.query(
    `update auth.users set banned_until = $2::timestamptz, updated_at = $3::timestamptz
     where id::text = $1`,
    [userId, until, at],
  );
}

/** The stored hash for a new user: of `password`, or a given bcrypt hash, or of a random one. */
export async function passwordHashFor(ctx: DevstackContext, body: JsonObject): Promise<string> {
  const password = stringPointerField(body, 'password');
  const given = stringField(body, 'password_hash');
  if (password !== undefined && given !== '') {
    throw authErrors.validation('Only a password or a password hash should be provided');
  }
  if (given !== '') {
    const cost = Number(BCRYPT_HASH.exec(given)?.[1] ?? NaN);
    // GoTrue accepts bcrypt (and argon2/scrypt, which the devstack cannot verify); a hash it
    // cannot parse fails creating the user.
    if (!(cost >= 4 && cost <= 31)) throw adminErrors.internal('Error creating user');
    return given;
  }
  const chosen = password === undefined || password === '' ? generatedPassword() : password;
  if (Buffer.byteLength(chosen, 'utf8') > 72) {
    throw authErrors.validation('bcrypt: password length exceeds 72 bytes');
  }
  return bcrypt.hash(chosen, ctx.settings.passwordHashCost);
}

/** Go's uuid.FromString for `id`: canonical UUIDs only here, never the nil one. */
export function customId(body: JsonObject): string | undefined {
  const raw = stringField(body, 'id');
  if (raw === '') return undefined;
  if (!isUuid(raw)) throw authErrors.validation('ID must conform to the uuid v4 format');
  if (raw === NIL_UUID) throw authErrors.validation('ID cannot be a nil uuid');
  return raw.toLowerCase();
}

/** GoTrue's obfuscateValue: base64url(sha256(id + value)) without padding. */
function obfuscate(id: string, value: string): string {
  return createHash('sha256')
    .update(id + value)
    .digest('base64url');
}

/** User.SoftDeleteUser and SoftDeleteUserIdentities, with the factors and sessions gone. */
export async function softDelete(tx: SqlRunner, user: UserRow, at: string): Promise<void> {
  const { rows } = await tx.query<{ email_change: string | null; phone_change: string | null }>(
    `select email_change, phone_change from auth.users where id::text = $1`,
    [user.id],
  );
  const emailChange = rows[0]?.email_change ?? '';
  const phoneChange = rows[0]?.phone_change ?? '';
  await tx.query(
    `update auth.users set email = $2, phone = $3, email_change = $4, phone_change = $5,
       encrypted_password = null, confirmation_token = '', recovery_token = '',
       email_change_token_current = '', email_change_token_new = '', phone_change_token = '',
       deleted_at = $6::timestamptz, raw_user_meta_data = '{}'::jsonb,
       raw_app_meta_data = '{}'::jsonb, updated_at = $6::timestamptz
     where id::text = $1`,
    [
      user.id,
      obfuscate(user.id, user.email ?? ''),
      obfuscate(user.id, user.phone ?? '').slice(0, 15),
      obfuscate(user.id, emailChange),
      obfuscate(user.id, phoneChange).slice(0, 15),
      at,
    ],
  );
  const identities = await tx.query<{ id: string; provider: string; provider_id: string }>(
    `select id::text as id, provider, provider_id from auth.identities where user_id::text = $1`,
    [user.id],
  );
  for (const identity of identities.rows) {
    await tx.query(
      `update auth.identities set identity_data = '{}'::jsonb, provider_id = $2,
         updated_at = $3::timestamptz where id::text = $1`,
      [identity.id, obfuscate(user.id, `${identity.provider}:${identity.provider_id}`), at],
    );
  }
  if (await hasFactorTable(tx)) {
    await tx.query(`delete from auth.mfa_factors where user_id::text = $1`, [user.id]);
  }
  await tx.query(`delete from auth.sessions where user_id::text = $1`, [user.id]);
}
