// Typed calls of sync_push / sync_pull as a signed-in user, each in its own transaction,
// the way PostgREST runs an rpc.
import type { SqlEngine, SqlRunner } from '../../devstack/sql-engine';
import { actAs, asCaller } from './database';

export interface Mutation {
  seq: number;
  table: string;
  op: 'insert' | 'patch' | 'delete';
  id: string;
  data?: Record<string, unknown>;
}

export type Row = Record<string, unknown> & { id: string; version: number };

export interface PushResult {
  seq: number;
  status: 'applied' | 'rejected';
  code?: string;
  message?: string;
  column?: string;
  hint?: string;
  replayed?: boolean;
  row?: Row;
}

export interface PushResponse {
  last_seq: number;
  results: PushResult[];
}

export interface PullResponse {
  rows: { table: string; row: Row }[];
  cursor: string;
  has_more: boolean;
  schema_version: number;
}

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

export function pull(
  engine: SqlEngine,
  uid: string,
  cursor: string | null,
  maxRows = 1000,
): Promise<PullResponse> {
  return asCaller(engine, { uid }, (tx) => pullOn(tx, cursor, maxRows));
}

/** Pulls page after page until the server has nothing more below its horizon. */
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
