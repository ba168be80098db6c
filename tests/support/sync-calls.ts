// Typed calls of sync_push / sync_pull as a signed-in user, each in its own transaction,
// the way PostgREST runs an rpc.
import type { SqlEngine, SqlRunner } from '../../devstack/sql-engine';
import type { PushResponse } from '../../sync/remote';
import { actAs, asCaller, type ServerRow } from '../../sync/kit/sql';

export { pull, pullAll, pullOn, type PullResponse } from '../../sync/kit/sql';

export interface Mutation {
  seq: number;
  table: string;
  op: 'insert' | 'patch' | 'delete';
  id: string;
  data?: Record<string, unknown>;
}

export type Row = ServerRow;
export type { PushResponse, PushResult } from '../../sync/remote';

export async function pushOn(
  tx: SqlRunner,
  clientId: string,
  mutations: unknown,
): Promise<PushResponse> {
  const { rows } = await tx.query<{ r: PushResponse }>(
    'select public.sync_push($1, $2::jsonb) as r',
    [clientId, typeof mutations === 'string' ? mutations : JSON.stringify(mutations)],
  );
  const response = rows[0]?.r;
  if (!response) throw new Error('sync_push returned nothing');
  return response;
}

export function push(
  engine: SqlEngine,
  uid: string,
  clientId: string,
  mutations: unknown,
): Promise<PushResponse> {
  return asCaller(engine, { uid }, (tx) => pushOn(tx, clientId, mutations));
}

/** What a user may see right now, read directly under RLS: `table/id` → version. */
export async function visibleVersions(
  engine: SqlEngine,
  uid: string,
): Promise<Map<string, number>> {
  return asCaller(engine, { uid }, async (tx) => {
    await actAs(tx, { uid });
    const { rows: tables } = await tx.query<{ name: string }>(
      'select name from public.sync_registry',
    );
    const result = new Map<string, number>();
    for (const { name } of tables) {
      // Names come from the registry; quote them anyway.
      const { rows } = await tx.query<{ id: string; version: number }>(
        `select id, version from public.${'"' + name.replace(/"/g, '""') + '"'}`,
      );
      for (const row of rows) result.set(`${name}/${row.id}`, Number(row.version));
    }
    return result;
  });
}
