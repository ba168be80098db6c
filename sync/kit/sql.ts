// SQL as a Supabase API caller (role + JWT claims, as PostgREST sets them), and the sync
// contract's pull read that way: what a user may see, straight from the database, without
// the engine, supabase-js or the network.
import type { SqlEngine, SqlRunner } from '../../devstack/sql-engine';
import type { PullResponse } from '../remote';

export type { ServerRow } from '../apply';
export type { PullResponse };

/** Who a statement runs as: a signed-in user, the anon key, or the service role. */
export type Caller = { uid: string } | 'anon' | 'service_role';

/** Sets role and claims for the rest of the current transaction, like PostgREST. */
export async function actAs(tx: SqlRunner, caller: Caller): Promise<void> {
  const role = typeof caller === 'string' ? caller : 'authenticated';
  const claims =
    typeof caller === 'string'
      ? { role, iss: 'supabase-demo' }
      : { sub: caller.uid, role, aud: 'authenticated', email: `${caller.uid}@example.com` };
  await tx.query(
    `select set_config('role', $1, true), set_config('request.jwt.claims', $2, true),
            set_config('request.jwt.claim.sub', $3, true), set_config('request.jwt.claim.role', $1, true)`,
    [role, JSON.stringify(claims), typeof caller === 'string' ? '' : caller.uid],
  );
}

/** Runs `fn` as `caller` in a committed transaction. */
export function asCaller<T>(
  engine: SqlEngine,
  caller: Caller,
  fn: (tx: SqlRunner) => Promise<T>,
): Promise<T> {
  return engine.transaction(async (tx) => {
    await actAs(tx, caller);
    return fn(tx);
  });
}

/** One page of sync_pull, in the caller's transaction (set its caller first). */
export async function pullOn(
  tx: SqlRunner,
  cursor: string | null,
  maxRows = 1000,
): Promise<PullResponse> {
  const { rows } = await tx.query<{ r: PullResponse }>('select public.sync_pull($1, $2) as r', [
    cursor,
    maxRows,
  ]);
  const response = rows[0]?.r;
  if (!response) throw new Error('sync_pull returned nothing');
  return response;
}

/** One page of sync_pull as user `uid`, in its own transaction, as PostgREST runs an rpc. */
export function pull(
  engine: SqlEngine,
  uid: string,
  cursor: string | null,
  maxRows = 1000,
): Promise<PullResponse> {
  return asCaller(engine, { uid }, (tx) => pullOn(tx, cursor, maxRows));
}

/** Pulls page after page as `uid` until the server has nothing more below its horizon. */
export async function pullAll(
  engine: SqlEngine,
  uid: string,
  cursor: string | null,
  maxRows = 1000,
): Promise<{ rows: PullResponse['rows']; cursor: string; pages: number }> {
  const rows: PullResponse['rows'] = [];
  let pages = 0;
  let next = cursor;
  for (;;) {
    const page = await pull(engine, uid, next, maxRows);
    pages += 1;
    rows.push(...page.rows);
    next = page.cursor;
    if (!page.has_more) return { rows, cursor: next, pages };
  }
}
