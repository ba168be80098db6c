// Runs one API request's SQL the way hosted Supabase does: one transaction that sets the
// role from the JWT, `request.jwt.claims` (what auth.uid() reads) and the request settings,
// so row-level security decides what the caller may do.
import type { Claims } from './keys';
import type { SqlEngine, SqlRunner } from './sql-engine';

export interface RequestInfo {
  method: string;
  path: string;
  headers?: Record<string, string>;
}

/** The database roles an API caller may act as. */
export const API_ROLES = ['anon', 'authenticated', 'service_role'] as const;
export type ApiRole = (typeof API_ROLES)[number];

export function isApiRole(role: unknown): role is ApiRole {
  return typeof role === 'string' && (API_ROLES as readonly string[]).includes(role);
}

/**
 * Sets role, claims and request settings for the rest of the current transaction, and with
 * `readOnly` makes it read-only (a write then fails with 25006, as PostgREST's GET does). With
 * `also`, a scalar SQL expression read in the same statement (one round trip), its text is
 * returned.
 */
export async function setRequestContext(
  tx: SqlRunner,
  role: ApiRole,
  claims: Claims,
  request?: RequestInfo,
  also?: string,
  readOnly = false,
): Promise<string | undefined> {
  // Read-only in the same statement: a second query sent before this one's answer is one the
  // pg client queues with a deprecation warning (it will refuse it in pg 9).
  const { rows } = await tx.query<{ also: string | null }>(
    `select ${also ?? 'null::text'} as also,${readOnly ? "\n            set_config('transaction_read_only', 'on', true)," : ''}
            set_config('role', $1, true),
            set_config('request.jwt.claims', $2, true),
            set_config('request.jwt.claim.sub', $3, true),
            set_config('request.jwt.claim.role', $1, true),
            set_config('request.method', $4, true),
            set_config('request.path', $5, true),
            set_config('request.headers', $6, true),
            set_config('search_path', 'public, extensions', true)`,
    [
      role,
      JSON.stringify(claims),
      typeof claims.sub === 'string' ? claims.sub : '',
      request?.method ?? '',
      request?.path ?? '',
      JSON.stringify(request?.headers ?? {}),
    ],
  );
  return rows[0]?.also ?? undefined;
}

/**
 * Runs `fn` in one transaction as the caller; commits unless it throws. `readOnly` makes it a
 * READ ONLY transaction, as PostgREST runs GET and HEAD (rpc included): a write in it fails
 * with 25006. `also` is read with the settings (setRequestContext) and handed to `fn`.
 */
export function runAsCaller<T>(
  db: SqlEngine,
  role: ApiRole,
  claims: Claims,
  request: RequestInfo | undefined,
  fn: (tx: SqlRunner, also: string | undefined) => Promise<T>,
  options: { readOnly?: boolean; also?: string } = {},
): Promise<T> {
  return db.transaction(async (tx) => {
    const also = await setRequestContext(tx, role, claims, request, options.also, options.readOnly);
    return fn(tx, also);
  });
}
