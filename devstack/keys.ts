// JWTs as a Supabase project signs them: HS256 with the project's secret. The defaults are
// the Supabase CLI's public demo secret and keys, so local tooling and habits carry over.
import { errors, jwtVerify, SignJWT, type JWTPayload } from 'jose';

import { epochSeconds, realClock, type DevstackClock } from './clock';

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

export interface Keys {
  readonly secret: Uint8Array;
  readonly anonKey: string;
  readonly serviceRoleKey: string;
  /** Signs `claims`; with `expiresInSec`, iat is the clock's now and exp that much later. */
  sign(claims: Claims, expiresInSec?: number): Promise<string>;
  /** Checks the signature, and exp/nbf against the clock (not the wall clock). */
  verify(token: string): Promise<VerifyResult>;
}

export type VerifyResult =
  { ok: true; claims: Claims } | { ok: false; reason: 'expired' | 'invalid'; message: string };

async function signKey(secret: Uint8Array, role: string): Promise<string> {
  return new SignJWT({ iss: 'supabase-demo', role, exp: DEMO_KEY_EXP })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(secret);
}

export async function createKeys(
  jwtSecret = DEMO_JWT_SECRET,
  clock: DevstackClock = realClock,
): Promise<Keys> {
  const secret = new TextEncoder().encode(jwtSecret);
  const [anonKey, serviceRoleKey] = await Promise.all([
    signKey(secret, 'anon'),
    signKey(secret, 'service_role'),
  ]);
  return {
    secret,
    anonKey,
    serviceRoleKey,
    async sign(claims, expiresInSec) {
      let jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' });
      if (expiresInSec !== undefined) {
        const now = epochSeconds(clock);
        jwt = jwt.setIssuedAt(now).setExpirationTime(now + expiresInSec);
      }
      return jwt.sign(secret);
    },
    async verify(token) {
      try {
        const { payload } = await jwtVerify<Claims>(token, secret, {
          algorithms: ['HS256'],
          currentDate: new Date(clock.now()),
        });
        return { ok: true, claims: payload };
      } catch (error) {
        if (error instanceof errors.JWTExpired) {
          return { ok: false, reason: 'expired', message: 'JWT expired' };
        }
        const message = error instanceof Error ? error.message : 'invalid JWT';
        return { ok: false, reason: 'invalid', message };
      }
    },
  };
}
