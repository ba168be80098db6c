// Who is calling an Outpost edge function, checked by the function itself. On a current
// Supabase project sessions are signed with an asymmetric key (ES256, with a `kid`) and the
// gateway's `verify_jwt` check answers 401 "Invalid JWT" to them, so every function runs with
// `verify_jwt = false` (supabase/config.toml) and calls `verifyCaller` first: a user's session
// is verified with supabase-js `auth.getClaims()` (signature against the project's JWKS, which
// it fetches and caches; exp), a service caller by an exact match with one of the project's
// secret keys. Works on both key models: legacy HS256 sessions fall back to auth's /user.
import {
  createClient,
  isAuthRetryableFetchError,
  type SupabaseClient,
} from '@supabase/supabase-js';

import type { Database } from '../../database.types.ts';
import { fail } from './http.ts';

/** The verified claims of a signed-in user's session that the functions rely on. */
export interface UserClaims {
  /** The user's id (the token's `sub`). */
  readonly sub: string;
  readonly role: 'authenticated';
  readonly email?: string;
  readonly session_id?: string;
  readonly exp: number;
}

/** A signed-in user, and a client that acts as them (RLS applies). */
export interface UserCaller {
  readonly kind: 'user';
  readonly claims: UserClaims;
  readonly client: SupabaseClient<Database>;
}

/** A server holding one of the project's secret keys (a scheduler, another backend). */
export interface ServiceCaller {
  readonly kind: 'service';
}

export type Caller = UserCaller | ServiceCaller;

function env(name: string): string | undefined {
  const value = Deno.env.get(name)?.trim();
  return value ? value : undefined;
}

function required(name: string): string {
  const value = env(name);
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

/**
 * The values of a key dictionary the platform hands functions (`SUPABASE_PUBLISHABLE_KEYS`,
 * `SUPABASE_SECRET_KEYS`: JSON objects from a key's name to the key, `default` first). A
 * malformed one throws: a broken platform variable must fail closed, never open.
 */
export function keyDictionary(name: string): { default?: string; all: string[] } {
  const raw = env(name);
  if (!raw) return { all: [] };
  const parsed: unknown = JSON.parse(raw);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`${name} is not a JSON object`);
  }
  const entries = Object.entries(parsed as Record<string, unknown>).filter(
    (entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1] !== '',
  );
  const all = entries.map(([, key]) => key);
  const named = entries.find(([keyName]) => keyName === 'default')?.[1];
  return { default: named ?? all[0], all };
}

/**
 * The project's secret keys. The legacy service_role key counts only when the project hands
 * functions no secret keys at all (an existing project before its migration): once it has
 * them, the legacy key is no longer a way in, here or anywhere.
 */
export function secretKeys(): string[] {
  const { all } = keyDictionary('SUPABASE_SECRET_KEYS');
  if (all.length > 0) return all;
  const legacy = env('SUPABASE_SERVICE_ROLE_KEY');
  return legacy ? [legacy] : [];
}

/** The key a browser would use: the default publishable key, else the legacy anon key. */
export function publishableKey(): string {
  return keyDictionary('SUPABASE_PUBLISHABLE_KEYS').default ?? required('SUPABASE_ANON_KEY');
}

const clientOptions = { auth: { persistSession: false, autoRefreshToken: false } } as const;

/**
 * Service access (bypasses RLS), with the project's default secret key; the legacy
 * service_role key only when there is no secret key (see secretKeys).
 */
export function serviceClient(): SupabaseClient<Database> {
  const key =
    keyDictionary('SUPABASE_SECRET_KEYS').default ?? required('SUPABASE_SERVICE_ROLE_KEY');
  return createClient<Database>(required('SUPABASE_URL'), key, clientOptions);
}

/**
 * The client whose getClaims verifies tokens. One per worker, so the JWKS it caches (for ten
 * minutes, then fetched again; a key unknown to the cache is fetched at once) is shared.
 */
let verifier: SupabaseClient | undefined;
function verifierClient(): SupabaseClient {
  verifier ??= createClient(required('SUPABASE_URL'), publishableKey(), clientOptions);
  return verifier;
}

/** Equal without an early exit: digests first, so neither content nor length leaks by time. */
async function sameKey(a: string, b: string): Promise<boolean> {
  const digest = (text: string) =>
    crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)).then((d) => new Uint8Array(d));
  const [x, y] = await Promise.all([digest(a), digest(b)]);
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

async function isSecretKey(candidate: string | undefined): Promise<boolean> {
  if (!candidate) return false;
  let found = false;
  // Every key is compared, so how long this takes says nothing of which one matched.
  for (const key of secretKeys()) found = (await sameKey(candidate, key)) || found;
  return found;
}

/** The token of `Authorization: Bearer <token>`, or undefined. */
function bearer(req: Request): string | undefined {
  const header = req.headers.get('Authorization');
  return header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
}

function refuse(message: string): Response {
  return fail(401, 'AUTH_EXPIRED', message);
}

function isUserClaims(
  claims: Record<string, unknown>,
): claims is Record<string, unknown> & UserClaims {
  return (
    claims.role === 'authenticated' &&
    typeof claims.sub === 'string' &&
    claims.sub !== '' &&
    typeof claims.exp === 'number'
  );
}

/**
 * The verified caller of a request, or the answer refusing it: 401 AUTH_EXPIRED (no session,
 * or one that is expired, forged, signed by an unknown or revoked key, or not a user's), 503
 * SERVER_ERROR when auth could not be asked. With `allowService`, a request carrying one of
 * the project's secret keys, in `apikey` (as Supabase documents) or as the Bearer token (what
 * supabase-js sends for a client made with the key), is the service caller.
 */
export async function verifyCaller(
  req: Request,
  options: { allowService?: boolean } = {},
): Promise<Caller | Response> {
  const token = bearer(req);
  if (options.allowService) {
    const [byApikey, byBearer] = await Promise.all([
      isSecretKey(req.headers.get('apikey') ?? undefined),
      isSecretKey(token),
    ]);
    if (byApikey || byBearer) return { kind: 'service' };
  }
  if (!token) return refuse('Sign in to do this.');
  // An API key (sb_publishable_…: supabase-js sends it when nobody is signed in) names no user.
  if (token.startsWith('sb_')) return refuse('Sign in to do this.');

  let claims: Record<string, unknown>;
  try {
    const { data, error } = await verifierClient().auth.getClaims(token);
    if (error || !data) {
      if (error && isAuthRetryableFetchError(error)) {
        console.error('getClaims could not reach auth:', error.message);
        return fail(503, 'SERVER_ERROR', 'Could not check your sign-in just now. Try again.');
      }
      return refuse('Your session is not valid any more. Sign in again to do this.');
    }
    claims = data.claims as Record<string, unknown>;
  } catch {
    // getClaims throws (rather than answers) for some forgeries: an unknown `alg` with a known
    // kid, a key that does not fit the alg, undecodable JSON. All are simply not a session.
    return refuse('Your session is not valid any more. Sign in again to do this.');
  }
  // The legacy anon/service_role keys and other project-signed tokens verify too: only a
  // signed-in user's session names someone.
  if (!isUserClaims(claims)) return refuse('Sign in to do this.');

  const client = createClient<Database>(required('SUPABASE_URL'), publishableKey(), {
    ...clientOptions,
    global: { headers: { Authorization: `Bearer ${token}` } },
  });
  return { kind: 'user', claims, client };
}
