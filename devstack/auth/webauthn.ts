// The relying party that WebAuthn MFA (mfa-webauthn.ts) and passkeys (passkeys.ts) share, as
// GoTrue's go-webauthn instance: [auth.webauthn]'s rp_id, rp_origins and display name. The
// ceremonies themselves are @simplewebauthn/server's; this file only shapes hostile client
// JSON for it and turns every failure into GoTrue's answer.
import type {
  AuthenticationResponseJSON,
  RegistrationResponseJSON,
  WebAuthnCredential,
} from '@simplewebauthn/server';
import { verifyAuthenticationResponse, verifyRegistrationResponse } from '@simplewebauthn/server';

import type { AuthConfig } from './config';
import { AuthApiError } from './errors';
import type { Json, JsonObject, UserRow } from './users';
import { isJsonObject, jsonObject } from './users';

/** GoTrue's WebAuthn ChallengeExpiryDuration default (5m). */
export const WEBAUTHN_CHALLENGE_EXPIRY_SEC = 300;

export interface RelyingParty {
  id: string;
  name: string;
  origins: string[];
}

export function relyingParty(config: AuthConfig): RelyingParty {
  return {
    id: config.webauthnRpId,
    name: config.webauthnRpDisplayName,
    origins: [...config.webauthnRpOrigins],
  };
}

/** GoTrue's User.WebAuthnID: the user's UUID as text, so a userHandle names the user. */
export function userHandle(user: UserRow): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(user.id, 'utf8'));
}

/** webAuthnUser's WebAuthnName / WebAuthnDisplayName. */
export function userNames(user: UserRow): { name: string; displayName: string } {
  const name = user.email ?? user.phone ?? '';
  const meta = jsonObject(user.raw_user_meta_data);
  const displayName = typeof meta.name === 'string' && meta.name !== '' ? meta.name : name;
  return { name, displayName };
}

export const webauthnErrors = {
  challengeNotFound: () =>
    new AuthApiError(400, 'webauthn_challenge_not_found', 'Challenge not found or already used'),
  challengeExpired: () =>
    new AuthApiError(400, 'webauthn_challenge_expired', 'Challenge has expired'),
  invalidResponse: () =>
    new AuthApiError(400, 'webauthn_verification_failed', 'Invalid credential response'),
  failed: () =>
    new AuthApiError(400, 'webauthn_verification_failed', 'Credential verification failed'),
} as const;

/** The transports a registration may name (unknown ones are dropped, as go-webauthn does). */
const TRANSPORTS = new Set(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']);

const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;

function base64urlField(value: Json | undefined, required: boolean): boolean {
  if (value === undefined || value === null) return !required;
  return typeof value === 'string' && BASE64URL.test(value) && (!required || value !== '');
}

/**
 * Protocol's ParsedCredential checks, common to both ceremonies: id, rawId and type, then
 * the response's base64url fields (`required` ones present and non-empty, `optional` ones
 * base64url when present).
 */
function parseCredential(
  raw: Json | undefined,
  required: string[],
  optional: string[] = [],
): { id: string; rawId: string; response: JsonObject } {
  if (!isJsonObject(raw) || !isJsonObject(raw.response)) throw webauthnErrors.invalidResponse();
  const response = raw.response;
  if (
    typeof raw.id !== 'string' ||
    !base64urlField(raw.id, true) ||
    !base64urlField(raw.rawId ?? raw.id, true) ||
    raw.type !== 'public-key' ||
    required.some((field) => !base64urlField(response[field], true)) ||
    optional.some((field) => !base64urlField(response[field], false))
  ) {
    throw webauthnErrors.invalidResponse();
  }
  return { id: raw.id, rawId: typeof raw.rawId === 'string' ? raw.rawId : raw.id, response };
}

/** A parsed credential as @simplewebauthn takes it: no extension results are read. */
function credentialJson<Response>(id: string, rawId: string, response: Response) {
  return { id, rawId, type: 'public-key' as const, clientExtensionResults: {}, response };
}

/** Protocol's CredentialCreationResponse.Parse: the shape, before any cryptography. */
export function parseRegistration(raw: Json | undefined): RegistrationResponseJSON {
  const { id, rawId, response } = parseCredential(raw, ['clientDataJSON', 'attestationObject']);
  return credentialJson(id, rawId, {
    clientDataJSON: response.clientDataJSON as string,
    attestationObject: response.attestationObject as string,
  });
}

/** Protocol's CredentialAssertionResponse.Parse. */
export function parseAssertion(raw: Json | undefined): AuthenticationResponseJSON {
  const { id, rawId, response } = parseCredential(
    raw,
    ['clientDataJSON', 'authenticatorData', 'signature'],
    ['userHandle'],
  );
  return credentialJson(id, rawId, {
    clientDataJSON: response.clientDataJSON as string,
    authenticatorData: response.authenticatorData as string,
    signature: response.signature as string,
    ...(typeof response.userHandle === 'string' && response.userHandle !== ''
      ? { userHandle: response.userHandle }
      : {}),
  });
}

/** The transports a registration names (unknown ones dropped), kept with the credential. */
export function registrationTransports(raw: Json | undefined): string[] {
  const response = isJsonObject(raw) && isJsonObject(raw.response) ? raw.response : {};
  if (!Array.isArray(response.transports)) return [];
  return response.transports.filter(
    (item): item is string => typeof item === 'string' && TRANSPORTS.has(item),
  );
}

export interface NewCredential {
  credential: WebAuthnCredential;
  aaguid: string;
  fmt: string;
  backupEligible: boolean;
  backedUp: boolean;
}

/** A ceremony's check: whatever it throws (a bad signature, a malformed CBOR) is GoTrue's one answer. */
async function failedUnlessVerified<T>(check: () => Promise<T>): Promise<T> {
  try {
    return await check();
  } catch {
    throw webauthnErrors.failed();
  }
}

/** What both ceremonies expect of a response: this challenge, from this relying party. */
function expectedFrom(rp: RelyingParty, challenge: string) {
  return {
    expectedChallenge: challenge,
    expectedOrigin: rp.origins,
    expectedRPID: rp.id,
    // userVerification "preferred", as GoTrue asks for it.
    requireUserVerification: false,
  };
}

/** webAuthn.CreateCredential: the attestation checked against the stored challenge. */
export async function verifyRegistration(
  rp: RelyingParty,
  response: RegistrationResponseJSON,
  challenge: string,
): Promise<NewCredential> {
  return failedUnlessVerified(async () => {
    const result = await verifyRegistrationResponse({ response, ...expectedFrom(rp, challenge) });
    if (!result.verified) throw webauthnErrors.failed();
    const info = result.registrationInfo;
    return {
      credential: info.credential,
      aaguid: info.aaguid,
      fmt: info.fmt,
      backupEligible: info.credentialDeviceType === 'multiDevice',
      backedUp: info.credentialBackedUp,
    };
  });
}

/** webAuthn.ValidateLogin: the assertion's signature by a known credential. */
export async function verifyAssertion(
  rp: RelyingParty,
  response: AuthenticationResponseJSON,
  challenge: string,
  credential: WebAuthnCredential,
): Promise<number> {
  return failedUnlessVerified(async () => {
    const result = await verifyAuthenticationResponse({
      response,
      credential,
      ...expectedFrom(rp, challenge),
    });
    if (!result.verified) throw webauthnErrors.failed();
    return result.authenticationInfo.newCounter;
  });
}
