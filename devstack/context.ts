// What every devstack service gets: the database, the keys, settings, and a way to find out
// who is calling. Services are Hono apps mounted by server.ts under their Supabase prefix.
import type { Context } from 'hono';

import type { Claims, Keys } from './keys';
import { isApiRole, type ApiRole } from './request-db';
import type { SqlEngine } from './sql-engine';

export interface DevstackSettings {
  /** Access token lifetime in seconds (≥ 120, or supabase-js refresh-storms). */
  readonly accessTokenTtlSec: number;
  /** Where storage keeps object bytes. */
  readonly storageDir: string;
  /** supabase/functions, where the edge functions live. */
  readonly functionsDir: string;
}

export interface DevstackContext {
  readonly db: SqlEngine;
  readonly keys: Keys;
  readonly settings: DevstackSettings;
  /** Base URL, e.g. http://127.0.0.1:54321 (set once the server listens). */
  url(): string;
  /** Registers cleanup to run when the devstack stops (processes, timers, sockets). */
  onStop(fn: () => Promise<void> | void): void;
}

export type Caller =
  | { ok: true; role: ApiRole; claims: Claims; token: string }
  | { ok: false; reason: 'missing' | 'expired' | 'invalid'; message: string };

/** The bearer token of a request, or undefined. */
export function bearerToken(c: Context): string | undefined {
  const header = c.req.header('authorization');
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}

/**
 * Who is calling: the verified JWT from `Authorization: Bearer`, else the `apikey` header
 * (or `?apikey=`), as the API gateway of a hosted project decides.
 */
export async function resolveCaller(ctx: DevstackContext, c: Context): Promise<Caller> {
  const token = bearerToken(c) ?? c.req.header('apikey') ?? c.req.query('apikey');
  if (!token) return { ok: false, reason: 'missing', message: 'No API key found in request' };
  const verified = await ctx.keys.verify(token);
  if (!verified.ok) return { ok: false, reason: verified.reason, message: verified.message };
  const role = verified.claims.role;
  if (!isApiRole(role)) {
    return { ok: false, reason: 'invalid', message: `role "${String(role)}" does not exist` };
  }
  return { ok: true, role, claims: verified.claims, token };
}
