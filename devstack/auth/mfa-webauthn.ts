// GoTrue's WebAuthn MFA factor (internal/api/mfa.go: enrollWebAuthnFactor,
// challengeWebAuthnFactor, verifyWebAuthnFactor). An unverified factor's challenge answers
// creation options ("create"), its verify registers the credential into
// auth.mfa_factors.web_authn_credential; a verified factor's challenge answers request options
// ("request") and its verify checks the assertion. mfa.ts owns the routes and the aal2 session.
import { randomUUID } from 'node:crypto';

import type { WebAuthnCredential } from '@simplewebauthn/server';
import { generateAuthenticationOptions, generateRegistrationOptions } from '@simplewebauthn/server';

import { sqlNow } from '../clock';
import type { DevstackContext } from '../context';
import type { SqlRunner } from '../sql-engine';
import { AuthApiError, authErrors } from './errors';
import { validateNewFactor } from './mfa-factors';
import type { Json, JsonObject, UserRow } from './users';
import { isJsonObject } from './users';
import {
  parseAssertion,
  parseRegistration,
  registrationTransports,
  relyingParty,
  userHandle,
  userNames,
  verifyAssertion,
  verifyRegistration,
} from './webauthn';

/** GoTrue's MFA challenge lifetime (GOTRUE_MFA_CHALLENGE_EXPIRY_DURATION, s). */
const CHALLENGE_EXPIRY_SEC = 300;

interface WebAuthnFactor {
  id: string;
  status: 'verified' | 'unverified';
}

export interface WebAuthnParams {
  type: 'create' | 'request';
  credentialResponse: Json;
}

/** A verified factor's stored credential (go-webauthn's Credential, bytes as base64). */
interface StoredCredential {
  id: string;
  publicKey: string;
  attestationType: string;
  transport: string[];
  authenticator: { AAGUID: string; signCount: number };
}

const unexpected = () =>
  new AuthApiError(
    500,
    'unexpected_failure',
    'Unexpected failure, please check server logs for more information',
  );

const assertionFailed = () =>
  new AuthApiError(500, 'unexpected_failure', 'Failed to validate WebAuthn MFA response');

export async function enrollWebAuthn(
  ctx: DevstackContext,
  userId: string,
  friendlyName: string,
  sessionId: string,
): Promise<JsonObject> {
  const id = randomUUID();
  await ctx.db.transaction(async (tx) => {
    await validateNewFactor(ctx, tx, userId, friendlyName, sessionId);
    await tx.query(
      `insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at,
         updated_at)
       values ($1::uuid, $2::uuid, $3, 'webauthn', 'unverified', $4::timestamptz, $4::timestamptz)`,
      [id, userId, friendlyName, sqlNow(ctx.clock)],
    );
  });
  return { id, type: 'webauthn', friendly_name: friendlyName };
}

/** The user's verified WebAuthn credentials (User.WebAuthnCredentials). */
async function userCredentials(
  db: SqlRunner,
  userId: string,
): Promise<{ factorId: string; credential: StoredCredential }[]> {
  const { rows } = await db.query<{ id: string; web_authn_credential: unknown }>(
    `select id::text as id, web_authn_credential from auth.mfa_factors
     where user_id::text = $1 and factor_type = 'webauthn' and status = 'verified'
       and web_authn_credential is not null`,
    [userId],
  );
  return rows.flatMap((row) => {
    const value = row.web_authn_credential;
    if (!isJsonObject(value) || typeof value.id !== 'string') return [];
    return [{ factorId: row.id, credential: value as unknown as StoredCredential }];
  });
}

const toBase64url = (std: string) => Buffer.from(std, 'base64').toString('base64url');

export async function challengeWebAuthn(
  ctx: DevstackContext,
  user: UserRow,
  factor: WebAuthnFactor,
  ipAddress: string,
): Promise<JsonObject> {
  const rp = relyingParty(ctx.settings.auth);
  const existing = await userCredentials(ctx.db, user.id);
  let type: 'create' | 'request';
  let publicKey: JsonObject;
  if (factor.status === 'unverified') {
    type = 'create';
    const names = userNames(user);
    const options = await generateRegistrationOptions({
      rpName: rp.name,
      rpID: rp.id,
      userID: userHandle(user),
      userName: names.name,
      userDisplayName: names.displayName,
      attestationType: 'none',
      excludeCredentials: existing.map(({ credential }) => ({
        id: toBase64url(credential.id),
        transports: ['usb', 'nfc'],
      })),
    });
    publicKey = JSON.parse(JSON.stringify(options)) as JsonObject;
  } else {
    type = 'request';
    // BeginLogin fails for a user with no credential (a 500 in GoTrue).
    if (existing.length === 0) throw unexpected();
    const options = await generateAuthenticationOptions({
      rpID: rp.id,
      allowCredentials: existing.map(({ credential }) => ({
        id: toBase64url(credential.id),
        transports: credential.transport,
      })),
      userVerification: 'preferred',
    });
    publicKey = JSON.parse(JSON.stringify(options)) as JsonObject;
  }
  const id = randomUUID();
  const at = sqlNow(ctx.clock);
  await ctx.db.transaction(async (tx) => {
    await tx.query(
      `insert into auth.mfa_challenges (id, factor_id, created_at, ip_address,
         web_authn_session_data)
       values ($1::uuid, $2::uuid, $3::timestamptz, $4, $5::jsonb)`,
      [id, factor.id, at, ipAddress, JSON.stringify({ challenge: publicKey.challenge, type })],
    );
    await tx.query(
      `update auth.mfa_factors set last_challenged_at = $2::timestamptz where id = $1::uuid`,
      [factor.id, at],
    );
  });
  const expiresAt = Math.floor(ctx.clock.now() / 1000) + CHALLENGE_EXPIRY_SEC;
  return {
    id,
    type: 'webauthn',
    expires_at: expiresAt,
    webauthn: { type, credential_options: { publicKey } },
  };
}

/** verifyWebAuthnFactor's checks of the `webauthn` body, before the challenge is looked up. */
export function webAuthnParams(body: JsonObject): WebAuthnParams {
  const raw = body.webauthn;
  if (raw === undefined || raw === null) throw authErrors.validation('WebAuthn config required');
  if (!isJsonObject(raw)) throw authErrors.badJson('Could not parse request body as JSON');
  if (raw.type !== 'create' && raw.type !== 'request') {
    throw authErrors.validation('WebAuthn type must be create or request');
  }
  if (raw.credential_response === undefined || raw.credential_response === null) {
    throw authErrors.validation('credential_response required');
  }
  return { type: raw.type, credentialResponse: raw.credential_response };
}

/**
 * The registration or assertion checked against the challenge's stored session data. Returns
 * what the verify transaction writes (saveWebAuthnProof).
 */
export async function verifyWebAuthn(
  ctx: DevstackContext,
  factor: WebAuthnFactor,
  challengeId: string,
  params: WebAuthnParams,
): Promise<StoredCredential | undefined> {
  const rp = relyingParty(ctx.settings.auth);
  const { rows } = await ctx.db.query<{ web_authn_session_data: unknown; credential: unknown }>(
    `select c.web_authn_session_data, f.web_authn_credential as credential
     from auth.mfa_challenges c join auth.mfa_factors f on f.id = c.factor_id
     where c.id = $1::uuid`,
    [challengeId],
  );
  const session = rows[0]?.web_authn_session_data;
  const challenge = isJsonObject(session) ? session.challenge : undefined;
  if (typeof challenge !== 'string') throw unexpected();
  // A response of the other kind than the challenge asked for fails as that kind's check
  // would: a verified factor cannot be passed by registering some new key ("create").
  if (isJsonObject(session) && session.type !== params.type) {
    throw params.type === 'create' ? unexpected() : assertionFailed();
  }
  const invalid = () => authErrors.validation('Invalid credential_response');
  if (params.type === 'create') {
    let response;
    try {
      response = parseRegistration(params.credentialResponse);
    } catch {
      throw invalid();
    }
    // CreateCredential's error is not an HTTP error in GoTrue: a 500.
    const created = await verifyRegistration(rp, response, challenge).catch(() => {
      throw unexpected();
    });
    // A verified factor keeps the credential it registered with (GoTrue saves it once).
    if (factor.status === 'verified') return undefined;
    return {
      id: Buffer.from(created.credential.id, 'base64url').toString('base64'),
      publicKey: Buffer.from(created.credential.publicKey).toString('base64'),
      attestationType: created.fmt,
      transport: registrationTransports(params.credentialResponse),
      authenticator: {
        AAGUID: Buffer.from(created.aaguid.replaceAll('-', ''), 'hex').toString('base64'),
        signCount: created.credential.counter,
      },
    };
  }
  let response;
  try {
    response = parseAssertion(params.credentialResponse);
  } catch {
    throw invalid();
  }
  const failed = assertionFailed;
  const stored = rows[0]?.credential;
  if (!isJsonObject(stored) || typeof stored.id !== 'string') throw failed();
  const credential = stored as unknown as StoredCredential;
  if (toBase64url(credential.id) !== response.rawId) throw failed();
  const known: WebAuthnCredential = {
    id: toBase64url(credential.id),
    publicKey: new Uint8Array(Buffer.from(credential.publicKey, 'base64')),
    counter: credential.authenticator.signCount,
  };
  await verifyAssertion(rp, response, challenge, known).catch(() => {
    throw failed();
  });
  return undefined;
}

/** Inside the verify transaction: the challenge consumed, a new credential saved. */
export async function saveWebAuthnProof(
  tx: SqlRunner,
  factorId: string,
  challengeId: string,
  type: 'create' | 'request',
  credential: StoredCredential | undefined,
  at: string,
): Promise<void> {
  await tx.query(`delete from auth.mfa_challenges where id = $1::uuid`, [challengeId]);
  if (credential) {
    await tx.query(
      `update auth.mfa_factors set web_authn_credential = $2::jsonb,
         web_authn_aaguid = $3::uuid, updated_at = $4::timestamptz where id = $1::uuid`,
      [
        factorId,
        JSON.stringify(credential),
        Buffer.from(credential.authenticator.AAGUID, 'base64').toString('hex'),
        at,
      ],
    );
  }
  await tx.query(
    `update auth.mfa_factors set last_webauthn_challenge_data = $2::jsonb where id = $1::uuid`,
    [factorId, JSON.stringify({ challenge_id: challengeId, type })],
  );
}
