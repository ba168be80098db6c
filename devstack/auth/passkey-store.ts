// auth.webauthn_credentials as passkeys.ts reads it: a user's passkeys, one of them by id,
// the JSON GoTrue answers for one (PasskeyListItem) and the credential the verifier needs.
import type { SqlRunner } from '../sql-engine';
import { isUuid } from './admin-auth';
import { AuthApiError } from './errors';
import type { JsonObject } from './users';
import { isoTime } from './users';

export interface PasskeyRow {
  id: string;
  user_id: string;
  credential_id: string;
  public_key: string;
  sign_count: string | number;
  transports: unknown;
  friendly_name: string;
  created_at: Date | string;
  last_used_at: Date | string | null;
  [key: string]: unknown;
}

export const PASSKEY_COLUMNS = `id::text as id, user_id::text as user_id,
  encode(credential_id, 'hex') as credential_id, encode(public_key, 'hex') as public_key,
  sign_count, transports, friendly_name, created_at, last_used_at`;

export const notFound = () => new AuthApiError(404, 'validation_failed', 'Passkey not found');

/** PasskeyListItem: friendly_name and last_used_at left out when empty (omitempty). */
export function passkeyJson(row: PasskeyRow): JsonObject {
  const out: JsonObject = { id: row.id };
  if (row.friendly_name !== '') out.friendly_name = row.friendly_name;
  out.created_at = isoTime(row.created_at) ?? null;
  const lastUsed = isoTime(row.last_used_at);
  if (lastUsed) out.last_used_at = lastUsed;
  return out;
}

export async function userPasskeys(db: SqlRunner, userId: string): Promise<PasskeyRow[]> {
  const { rows } = await db.query<PasskeyRow>(
    `select ${PASSKEY_COLUMNS} from auth.webauthn_credentials where user_id::text = $1
     order by created_at, id`,
    [userId],
  );
  return rows;
}

export async function ownPasskey(
  db: SqlRunner,
  userId: string,
  rawId: string,
): Promise<PasskeyRow> {
  if (!isUuid(rawId)) throw notFound();
  const { rows } = await db.query<PasskeyRow>(
    `select ${PASSKEY_COLUMNS} from auth.webauthn_credentials
     where id::text = $1 and user_id::text = $2`,
    [rawId.toLowerCase(), userId],
  );
  const row = rows[0];
  if (!row) throw notFound();
  return row;
}

export function credentialOf(row: PasskeyRow) {
  return {
    id: Buffer.from(row.credential_id, 'hex').toString('base64url'),
    publicKey: new Uint8Array(Buffer.from(row.public_key, 'hex')),
    counter: Number(row.sign_count),
  };
}
