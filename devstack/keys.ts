// The project's keys, as a Supabase project has them today, and the ONE verifier that REST,
// RPC, storage, realtime, functions and auth use: publishable and secret API keys (not JWTs),
// user sessions signed ES256 by the current signing key (with its `kid`), verified by kid
// against the current and previously used keys. The legacy model (anon/service_role JWT keys
// and HS256 tokens made with the shared JWT secret) is off unless the devstack is started
// with it (DEVSTACK_LEGACY_KEYS=true / `legacyKeys`), as on a project that has switched it off.
import {
  decodeProtectedHeader,
  errors,
  importJWK,
  jwtVerify,
  SignJWT,
  type JWK,
  type JWTPayload,
} from 'jose';

import { epochSeconds, realClock, type DevstackClock } from './clock';
import {
  ApiKeySet,
  LOCAL_PUBLISHABLE_KEY,
  LOCAL_SECRET_KEY,
  looksLikeApiKey,
  type ApiKey,
} from './keys-api';
import { SigningKeyRing, type SigningKeyInfo } from './keys-signing';

export { LOCAL_PUBLISHABLE_KEY, LOCAL_SECRET_KEY } from './keys-api';

/** The Supabase CLI's well-known local development JWT secret (public, not a secret). */
export const DEMO_JWT_SECRET = 'super-secret-jwt-token-with-at-least-32-characters-long';
/** Expiry of the CLI demo keys (2032-11-12). */
const DEMO_KEY_EXP = 1983812996;

export interface Claims extends JWTPayload {
  role?: string;
  sub?: string;
  email?: string;
  session_id?: string;
  is_anonymous?: boolean;
}

/** The legacy key model: only present when the devstack was started with it. */
export interface LegacyKeys {
  /** The HS256 shared secret (the CLI's demo one unless configured). */
  readonly jwtSecret: string;
  /** HS256 JWTs with role anon / service_role, as `supabase status` prints them. */
  readonly anonKey: string;
  readonly serviceRoleKey: string;
}

/**
 * Why a token was refused, so each service can answer in its own words:
 * - malformed: not three base64url parts with a JSON header
 * - unsecured: `alg: none`
 * - no-key: no key may verify it (unknown or revoked kid, HS256 with legacy off)
 * - algorithm: an algorithm the project does not sign with (RS256, HS512…)
 * - signature: a key was found but the signature does not match
 * - expired / claims: signature fine, but exp is past (or nbf/iat make no sense)
 */
export type VerifyFailure =
  'malformed' | 'unsecured' | 'no-key' | 'algorithm' | 'signature' | 'expired' | 'claims';

export type VerifyResult =
  | { ok: true; claims: Claims }
  | {
      ok: false;
      reason: 'expired' | 'invalid';
      kind: VerifyFailure;
      /** GoTrue's wording (golang-jwt's), which auth and realtime answer with. */
      message: string;
      /** Number of dot-separated parts of the token (PostgREST's "Expected 3 parts"). */
      parts: number;
    };

export interface Keys {
  /** The project's publishable key (the first, when several are configured). */
  readonly publishableKey: string;
  /** The project's secret key (the first, when several are configured). */
  readonly secretKey: string;
  /** Every publishable key, the default one first. */
  readonly publishableKeys: readonly string[];
  /** Every secret key, the default one first. */
  readonly secretKeys: readonly string[];
  /** The legacy keys, or null: the project has them switched off (the default). */
  readonly legacy: LegacyKeys | null;
  /**
   * What an `apikey` value is: a publishable or secret key, or (legacy on) one of the legacy
   * JWT keys, exactly. Anything else (a user's token included) is no API key.
   */
  apiKey(value: string): ApiKey | undefined;
  /**
   * With `jwtApiKeys` (a CLI-hosted project's model): verifies a JWT-shaped `apikey` and, when
   * it is a valid token of role anon or service_role, lets apiKey() take it as that role's key
   * until it expires. The gateway calls it before any service looks at the key.
   */
  admitJwtApiKey(value: string): Promise<void>;
  /** Signs with the current signing key (ES256, its kid in the header). With `expiresInSec`,
   * iat is the clock's now and exp that much later. */
  sign(claims: Claims, expiresInSec?: number): Promise<string>;
  /** Verifies a JWT: by kid against current and previously used keys; exp/nbf on the clock. */
  verify(token: string): Promise<VerifyResult>;
  /**
   * Verifies what a client presents as its credential where the gateway lets an API key
   * stand for its role (realtime's apikey and join token, a Bearer equal to the apikey):
   * a publishable/secret key gives `{ role }`, anything else must be a valid JWT.
   */
  verifyCredential(token: string): Promise<VerifyResult>;
  /** `/auth/v1/.well-known/jwks.json`. */
  jwks(): { keys: JWK[] };
  /** The signing keys and their states. */
  signingKeys(): SigningKeyInfo[];
  /** Creates a standby signing key; its kid. */
  addStandbyKey(): Promise<string>;
  /** Standby → current, current → previously used (creating a standby key if none); new kid. */
  rotate(): Promise<string>;
  /** Revokes a previously used or standby key: its tokens are refused from now on. */
  revoke(kid: string): void;
}

export interface KeysOptions {
  clock?: DevstackClock;
  /** Private JWKs (ES256): the first signs, the others verify as previously used keys. */
  signingKeys: readonly JWK[];
  /** Publishable keys; default the CLI's well-known one. */
  publishableKeys?: readonly string[];
  /** Secret keys; default the CLI's well-known one. */
  secretKeys?: readonly string[];
  /** The legacy keys and HS256: off unless given (the secret, or true for the CLI's demo one). */
  legacy?: boolean | { jwtSecret: string };
  /**
   * Accept as an API key any JWT the project's keys verify whose role is anon or service_role
   * (what the Supabase CLI's gateway lets through: another project's suites send RS256 JWTs
   * signed with their signing key as `apikey`). Off by default: a hosted project with the new
   * keys accepts only its own keys.
   */
  jwtApiKeys?: boolean;
}

/** How many admitted JWT API keys are remembered (each is checked once, then looked up). */
const MAX_ADMITTED_JWT_API_KEYS = 256;

async function legacyKey(secret: Uint8Array, role: string): Promise<string> {
  return new SignJWT({ iss: 'supabase-demo', role, exp: DEMO_KEY_EXP })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(secret);
}

function failure(
  kind: VerifyFailure,
  message: string,
  token: string,
): Extract<VerifyResult, { ok: false }> {
  return {
    ok: false,
    reason: kind === 'expired' ? 'expired' : 'invalid',
    kind,
    message,
    parts: token.split('.').length,
  };
}

export async function createKeys(options: KeysOptions): Promise<Keys> {
  const clock = options.clock ?? realClock;
  const publishable = options.publishableKeys ?? [LOCAL_PUBLISHABLE_KEY];
  const secret = options.secretKeys ?? [LOCAL_SECRET_KEY];
  if (publishable.length === 0 || secret.length === 0) {
    throw new Error('a project needs at least one publishable and one secret key');
  }
  const apiKeys = new ApiKeySet(publishable, secret);
  const ring = await SigningKeyRing.fromJwks(options.signingKeys, clock);

  const legacySecretText =
    options.legacy === true
      ? DEMO_JWT_SECRET
      : typeof options.legacy === 'object'
        ? options.legacy.jwtSecret
        : undefined;
  if (legacySecretText !== undefined && legacySecretText.length < 32) {
    throw new Error('the legacy JWT secret must be at least 32 characters (as GoTrue requires)');
  }
  const legacySecret =
    legacySecretText === undefined ? undefined : new TextEncoder().encode(legacySecretText);
  const legacy: LegacyKeys | null =
    legacySecret && legacySecretText
      ? {
          jwtSecret: legacySecretText,
          anonKey: await legacyKey(legacySecret, 'anon'),
          serviceRoleKey: await legacyKey(legacySecret, 'service_role'),
        }
      : null;
  const legacyApiKeys = legacy
    ? new Map<string, ApiKey>([
        [legacy.anonKey, { kind: 'publishable', role: 'anon' }],
        [legacy.serviceRoleKey, { kind: 'secret', role: 'service_role' }],
      ])
    : undefined;

  /** Imported public keys by kid (whether a kid may verify is asked of the ring each time). */
  const publicKeys = new Map<string, CryptoKey>();

  async function verify(token: string): Promise<VerifyResult> {
    let header;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      return failure('malformed', 'token is malformed: could not JSON decode header', token);
    }
    if (token.split('.').length !== 3) {
      return failure(
        'malformed',
        'token is malformed: token contains an invalid number of segments',
        token,
      );
    }
    const alg = header.alg;
    let key: Uint8Array | CryptoKey | undefined;
    if (alg === 'none') {
      return failure(
        'unsecured',
        "token is unverifiable: 'none' signature type is not allowed",
        token,
      );
    } else if (alg === 'HS256') {
      // HS256 is the legacy model's: with it switched off no key can verify such a token.
      if (!legacySecret) {
        return failure(
          'no-key',
          'token signature is invalid: signing method HS256 is invalid',
          token,
        );
      }
      key = legacySecret;
    } else if (alg === 'ES256' || (alg === 'RS256' && ring.holds('RS256'))) {
      const kid = typeof header.kid === 'string' ? header.kid : '';
      const jwk = kid ? ring.verificationKey(kid) : undefined;
      if (!jwk) {
        return failure(
          'no-key',
          `token is unverifiable: error while executing keyfunc: invalid kid: ${kid}`,
          token,
        );
      }
      if (jwk.alg !== alg) {
        return failure(
          'algorithm',
          `token signature is invalid: signing method ${alg} is invalid`,
          token,
        );
      }
      let imported = publicKeys.get(kid);
      if (!imported) {
        const made = await importJWK(jwk, alg);
        if (made instanceof Uint8Array) throw new Error('a public key imported as bytes');
        imported = made;
        publicKeys.set(kid, imported);
      }
      key = imported;
    } else {
      return failure(
        'algorithm',
        `token signature is invalid: signing method ${String(alg)} is invalid`,
        token,
      );
    }
    try {
      const { payload } = await jwtVerify<Claims>(token, key, {
        algorithms: [alg],
        currentDate: new Date(clock.now()),
      });
      return { ok: true, claims: payload };
    } catch (error) {
      if (error instanceof errors.JWTExpired) {
        return failure('expired', 'token has invalid claims: token is expired', token);
      }
      if (error instanceof errors.JWSSignatureVerificationFailed) {
        const detail =
          alg === 'ES256'
            ? 'crypto/ecdsa: verification error'
            : alg === 'RS256'
              ? 'crypto/rsa: verification error'
              : 'signature is invalid';
        return failure('signature', `token signature is invalid: ${detail}`, token);
      }
      if (error instanceof errors.JWTClaimValidationFailed) {
        return failure('claims', `token has invalid claims: ${error.message}`, token);
      }
      return failure('malformed', 'token is malformed: could not JSON decode claim', token);
    }
  }

  /** JWT-shaped API keys admitted by admitJwtApiKey, with their expiry (epoch s, or none). */
  const admitted = new Map<string, { key: ApiKey; exp: number | undefined }>();

  return {
    publishableKey: publishable[0] ?? LOCAL_PUBLISHABLE_KEY,
    secretKey: secret[0] ?? LOCAL_SECRET_KEY,
    publishableKeys: [...publishable],
    secretKeys: [...secret],
    legacy,
    apiKey(value) {
      if (looksLikeApiKey(value)) return apiKeys.find(value);
      const legacyKey = legacyApiKeys?.get(value);
      if (legacyKey) return legacyKey;
      const jwtKey = admitted.get(value);
      if (jwtKey && (jwtKey.exp === undefined || jwtKey.exp > epochSeconds(clock))) {
        return jwtKey.key;
      }
      return undefined;
    },
    async admitJwtApiKey(value) {
      if (!options.jwtApiKeys || looksLikeApiKey(value) || admitted.has(value)) return;
      const verified = await verify(value);
      if (!verified.ok) return;
      const role = verified.claims.role;
      if (role !== 'anon' && role !== 'service_role') return;
      if (admitted.size >= MAX_ADMITTED_JWT_API_KEYS) admitted.clear();
      admitted.set(value, {
        key: { kind: role === 'anon' ? 'publishable' : 'secret', role },
        exp: verified.claims.exp,
      });
    },
    async sign(claims, expiresInSec) {
      let payload: Claims = claims;
      if (expiresInSec !== undefined) {
        const now = epochSeconds(clock);
        payload = { ...claims, iat: now, exp: now + expiresInSec };
      }
      return ring.sign(payload);
    },
    verify,
    async verifyCredential(token) {
      if (looksLikeApiKey(token)) {
        const key = apiKeys.find(token);
        if (key) return { ok: true, claims: { role: key.role } };
        return failure('malformed', 'Invalid API key', token);
      }
      return verify(token);
    },
    jwks: () => ring.jwks(),
    signingKeys: () => ring.list(),
    addStandbyKey: () => ring.addStandby(),
    rotate: () => ring.rotate(),
    revoke: (kid) => {
      ring.revoke(kid);
      // A JWT API key that key signed must not outlive it: each is checked again when next sent.
      admitted.clear();
    },
  };
}
