// What every devstack service gets: the database, the keys, settings, and a way to find out
// who is calling. Services are Hono apps mounted by server.ts under their Supabase prefix.
import type { Context } from 'hono';

import type { AuthConfig } from './auth/config';
import type { DevstackClock } from './clock';
import type { Claims, Keys, VerifyFailure } from './keys';
import { isBrowserUserAgent, looksLikeApiKey } from './keys-api';
import { isApiRole, type ApiRole } from './request-db';
import type { SqlEngine } from './sql-engine';

export interface DevstackSettings {
  /** Access token lifetime in seconds (≥ 120, or supabase-js refresh-storms). */
  readonly accessTokenTtlSec: number;
  /** Where storage keeps object bytes. */
  readonly storageDir: string;
  /** supabase/functions, where the edge functions live. */
  readonly functionsDir: string;
  /** config.toml's [auth] settings (with any overrides the devstack was started with). */
  readonly auth: AuthConfig;
  /** config.toml's `api.max_rows`: no read answers more rows. */
  readonly maxRows: number;
  /** bcrypt cost of new password hashes: GoTrue's 10, or less in test suites. */
  readonly passwordHashCost: number;
  /**
   * config.toml's `[api] schemas` (the first is the default profile) and `extra_search_path`:
   * another project's may expose more schemas than Outpost's `public`.
   */
  readonly apiSchemas?: readonly string[];
  readonly extraSearchPath?: readonly string[];
  /** config.toml's `[storage] file_size_limit` (bytes), when it sets one. */
  readonly storageFileSizeLimit?: number;
}

export interface DevstackContext {
  readonly db: SqlEngine;
  readonly keys: Keys;
  readonly settings: DevstackSettings;
  /** Base URL, e.g. http://127.0.0.1:54321 (set once the server listens). */
  url(): string;
  /** The devstack's time: token expiry, refresh-token reuse, signed URLs, rate limits. */
  readonly clock: DevstackClock;
  /** Registers cleanup to run when the devstack stops (processes, timers, sockets). */
  onStop(fn: () => Promise<void> | void): void;
}

export type Caller =
  | { ok: true; role: ApiRole; claims: Claims; token: string }
  | {
      ok: false;
      reason: 'missing' | 'expired' | 'invalid';
      message: string;
      /** Why the token failed verification (absent: no token, or a role that does not exist). */
      kind?: VerifyFailure;
      parts?: number;
    };

/** The bearer token of a request, or undefined. */
export function bearerToken(c: Context): string | undefined {
  const header = c.req.header('authorization');
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}

/** The `apikey` of a request (header, else `?apikey=`), or undefined. */
export function apiKeyOf(c: Context): string | undefined {
  const key = c.req.header('apikey') ?? c.req.query('apikey');
  return key === '' ? undefined : key;
}

/**
 * Who is calling, as the API gateway of a hosted project decides: the `Authorization: Bearer`
 * token, else the `apikey`. A Bearer equal to the apikey (supabase-js sends its key as the
 * Bearer when nobody is signed in) stands for that key's role, as the gateway swaps it for a
 * token of that role; any other Bearer must be a JWT the project's keys verify.
 */
export async function resolveCaller(ctx: DevstackContext, c: Context): Promise<Caller> {
  const apikey = apiKeyOf(c);
  const bearer = bearerToken(c);
  const token = bearer ?? apikey;
  if (!token) return { ok: false, reason: 'missing', message: 'No API key found in request' };
  const verified =
    bearer !== undefined && bearer !== apikey
      ? await ctx.keys.verify(bearer)
      : await ctx.keys.verifyCredential(token);
  if (!verified.ok) {
    return {
      ok: false,
      reason: verified.reason,
      message: verified.message,
      kind: verified.kind,
      parts: verified.parts,
    };
  }
  const role = verified.claims.role;
  if (!isApiRole(role)) {
    return { ok: false, reason: 'invalid', message: `role "${String(role)}" does not exist` };
  }
  return { ok: true, role, claims: verified.claims, token };
}

export type ApiKeyCheck = { ok: true } | { ok: false; message: string };

/**
 * The API gateway's key rule: every request to /rest/v1 and /auth/v1 names one of the
 * project's API keys in `apikey` (header or query): a publishable or secret key, or a legacy
 * anon/service_role key while those are on. A Bearer token alone, or a user's access token as
 * the key, is refused before any service.
 */
export function checkApiKey(ctx: DevstackContext, c: Context): ApiKeyCheck {
  const apikey = apiKeyOf(c);
  if (apikey === undefined) return { ok: false, message: 'No API key found in request' };
  if (!ctx.keys.apiKey(apikey)) return { ok: false, message: 'Invalid API key' };
  return { ok: true };
}

/**
 * Whether a request sends a secret key (in `apikey` or as the Bearer) from a browser, which
 * the gateway refuses (401, SECRET_KEY_IN_BROWSER) before any service: a secret key in a web
 * page is a leaked key, and refusing it makes the leak visible at once.
 */
export function secretKeyFromBrowser(ctx: DevstackContext, c: Context): boolean {
  if (!isBrowserUserAgent(c.req.header('user-agent'))) return false;
  return [apiKeyOf(c), bearerToken(c)].some(
    (value) => value !== undefined && isSecretApiKey(ctx, value),
  );
}

/**
 * Whether `value` is one of the project's secret keys (`sb_secret_…`). The legacy
 * service_role JWT key is not one: the gateway's browser rule came with the new keys.
 */
export function isSecretApiKey(ctx: DevstackContext, value: string): boolean {
  return looksLikeApiKey(value) && ctx.keys.apiKey(value)?.kind === 'secret';
}
