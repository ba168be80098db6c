// Change capture for postgres_changes without logical replication (PGlite has none): at
// start-up the devstack (never the migrations) puts an AFTER ROW trigger on every table in
// the `supabase_realtime` publication. It NOTIFYs only schema, table, operation, time and
// primary key (NOTIFY payloads stop at 8000 bytes); each subscriber's copy of the row is
// then read under that subscriber's role and claims, so RLS decides who hears what.
import type { Claims } from '../keys';
import { runAsCaller, type ApiRole } from '../request-db';
import { execRacingDdl, type Row, type SqlEngine, type SqlRunner } from '../sql-engine';
import { BatchQueue } from './batch-queue';
import { rowMatches, type Condition } from './filters';
import { isJsonObject, type JsonObject } from './protocol';

export const NOTIFY_CHANNEL = 'devstack_realtime';
const TRIGGER_NAME = 'devstack_realtime_capture';
/** Changes handled per round of reads; bigger bursts are taken in several rounds. */
const MAX_BATCH_CHANGES = 500;

export type ChangeType = 'INSERT' | 'UPDATE' | 'DELETE';

export interface Change {
  schema: string;
  table: string;
  type: ChangeType;
  commitTimestamp: string;
  /** Primary key of the new row (INSERT, UPDATE). */
  key: JsonObject | undefined;
  /** Primary key of the old row (UPDATE, DELETE). */
  oldKey: JsonObject | undefined;
}

export interface Column {
  name: string;
  type: string;
}

export interface TableInfo {
  schema: string;
  table: string;
  columns: Column[];
  columnTypes: Map<string, string>;
  /** Primary-key columns and their SQL types (for casting keys back). */
  key: { name: string; sqlType: string }[];
}

export interface PgBinding {
  id: number;
  event: '*' | ChangeType;
  schema: string;
  /** '*' for every published table of the schema. */
  table: string;
  conditions: Condition[];
}

/** A joined channel with postgres_changes bindings, as the dispatcher sees it. */
export interface ChangeSubscriber {
  readonly role: ApiRole;
  readonly claims: Claims;
  /** Identifies role + claims: subscribers with the same token share their reads. */
  readonly token: string;
  readonly bindings: readonly PgBinding[];
  deliver(ids: number[], data: JsonObject): void;
}

const CAPTURE_FUNCTION_SQL = `
create schema if not exists devstack_realtime;
comment on schema devstack_realtime is
  'Added by the Outpost devstack (not the migrations): change capture for realtime.';
create or replace function devstack_realtime.capture_change() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $fn$
declare
  new_key jsonb;
  old_key jsonb;
  msg text;
begin
  -- Trigger arguments are the primary-key columns.
  if tg_op in ('INSERT', 'UPDATE') then
    select jsonb_object_agg(k, to_jsonb(new) -> k) into new_key from unnest(tg_argv) as k;
  end if;
  if tg_op in ('UPDATE', 'DELETE') then
    select jsonb_object_agg(k, to_jsonb(old) -> k) into old_key from unnest(tg_argv) as k;
  end if;
  msg := jsonb_build_object(
    's', tg_table_schema, 't', tg_table_name, 'o', tg_op,
    'ts', to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'k', new_key, 'ok', old_key)::text;
  -- Never fail the write: a key too big for NOTIFY (8000 bytes) is simply not announced.
  if octet_length(msg) <= 7900 then
    perform pg_notify('${NOTIFY_CHANNEL}', msg);
  end if;
  return null;
end
$fn$;`;

const TABLES_SQL = `
select p.schemaname as schema, p.tablename as table,
  coalesce((select json_agg(json_build_object('name', a.attname, 'type', t.typname)
                            order by a.attnum)
            from pg_attribute a join pg_type t on t.oid = a.atttypid
            where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped), '[]'::json)
    as columns,
  coalesce((select json_agg(json_build_object('name', a.attname,
                                              'sqlType', format_type(a.atttypid, a.atttypmod))
                            order by array_position(i.indkey::int2[], a.attnum))
            from pg_index i
            join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey::int2[])
            where i.indrelid = c.oid and i.indisprimary), '[]'::json) as key
from pg_publication_tables p
join pg_namespace n on n.nspname = p.schemaname
join pg_class c on c.relnamespace = n.oid and c.relname = p.tablename
where p.pubname = 'supabase_realtime'`;

// Triggers left on tables that have since left the publication.
const STALE_TRIGGERS_SQL = `
select n.nspname as schema, c.relname as table
from pg_trigger g join pg_class c on c.oid = g.tgrelid join pg_namespace n on n.oid = c.relnamespace
where g.tgname = '${TRIGGER_NAME}'
  and not exists (select 1 from pg_publication_tables p
                  where p.pubname = 'supabase_realtime'
                    and p.schemaname = n.nspname and p.tablename = c.relname)`;

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function quoteLiteral(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

function tableKey(schema: string, table: string): string {
  return `${schema}.${table}`;
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

function parseJsonValue(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
}

function toTableInfo(row: Row): TableInfo | undefined {
  const columns = parseJsonValue(row.columns);
  const key = parseJsonValue(row.key);
  if (!isString(row.schema) || !isString(row.table) || !Array.isArray(columns)) return undefined;
  if (!Array.isArray(key)) return undefined;
  const cols: Column[] = [];
  for (const c of columns as unknown[]) {
    if (isJsonObject(c) && isString(c.name) && isString(c.type)) {
      cols.push({ name: c.name, type: c.type });
    }
  }
  const keyCols: TableInfo['key'] = [];
  for (const k of key as unknown[]) {
    if (isJsonObject(k) && isString(k.name) && isString(k.sqlType)) {
      keyCols.push({ name: k.name, sqlType: k.sqlType });
    }
  }
  return {
    schema: row.schema,
    table: row.table,
    columns: cols,
    columnTypes: new Map(cols.map((c) => [c.name, c.type])),
    key: keyCols,
  };
}

function parseChange(payload: string): Change | undefined {
  const value = parseJsonValue(payload);
  if (!isJsonObject(value)) return undefined;
  const { s, t, o, ts, k, ok } = value;
  if (!isString(s) || !isString(t) || !isString(ts)) return undefined;
  if (o !== 'INSERT' && o !== 'UPDATE' && o !== 'DELETE') return undefined;
  return {
    schema: s,
    table: t,
    type: o,
    commitTimestamp: ts,
    key: isJsonObject(k) ? k : undefined,
    oldKey: isJsonObject(ok) ? ok : undefined,
  };
}

function qualified(info: TableInfo): string {
  return `${quoteIdent(info.schema)}.${quoteIdent(info.table)}`;
}

function keyString(info: TableInfo, record: Record<string, unknown>): string {
  return JSON.stringify(info.key.map((k) => record[k.name] ?? null));
}

export function bindingMatchesTable(binding: PgBinding, schema: string, table: string): boolean {
  return (
    (binding.schema === '*' || binding.schema === schema) &&
    (binding.table === '*' || binding.table === table)
  );
}

function bindingMatchesChange(binding: PgBinding, change: Change): boolean {
  return (
    (binding.event === '*' || binding.event === change.type) &&
    bindingMatchesTable(binding, change.schema, change.table)
  );
}

/** What one subscriber group (same token) may see of one round of changes. */
interface GroupReads {
  /** tableKey → key string → row as the group's role reads it. */
  rows: Map<string, Map<string, Record<string, unknown>>>;
  /** tableKey → whether the role may SELECT from it (a DELETE has no row left to test). */
  selectable: Map<string, boolean>;
}

export class ChangeCapture {
  /** Resolves once triggers are in place and the listener runs. */
  readonly ready: Promise<void>;
  private tables = new Map<string, TableInfo>();
  private readonly queue = new BatchQueue<Change>(
    MAX_BATCH_CHANGES,
    (batch) => this.dispatch(batch),
    'delivering changes',
  );
  private unlisten: (() => Promise<void>) | undefined;
  private closed = false;

  constructor(
    private readonly db: SqlEngine,
    private readonly subscribers: () => Iterable<ChangeSubscriber>,
  ) {
    this.ready = this.start();
  }

  private async start(): Promise<void> {
    this.unlisten = await this.db.listen(NOTIFY_CHANNEL, (payload) => this.onNotify(payload));
    await this.installTriggers();
  }

  /** (Re)installs the capture function and one trigger per published table. */
  async installTriggers(): Promise<void> {
    await execRacingDdl(this.db, CAPTURE_FUNCTION_SQL);
    const stale = await this.db.query(STALE_TRIGGERS_SQL);
    for (const row of stale.rows) {
      if (!isString(row.schema) || !isString(row.table)) continue;
      await this.db.exec(
        `drop trigger if exists ${TRIGGER_NAME} on ${quoteIdent(row.schema)}.${quoteIdent(row.table)}`,
      );
    }
    const tables = new Map<string, TableInfo>();
    for (const row of (await this.db.query(TABLES_SQL)).rows) {
      const info = toTableInfo(row);
      if (!info) continue;
      if (info.key.length === 0) {
        // Without a primary key a row cannot be read back under the subscriber's role.
        console.warn(`[realtime] ${info.schema}.${info.table} has no primary key; not captured`);
        continue;
      }
      const args = info.key.map((k) => quoteLiteral(k.name)).join(', ');
      await this.db.exec(
        `create or replace trigger ${TRIGGER_NAME}
           after insert or update or delete on ${quoteIdent(info.schema)}.${quoteIdent(info.table)}
           for each row execute function devstack_realtime.capture_change(${args})`,
      );
      tables.set(tableKey(info.schema, info.table), info);
    }
    this.tables = tables;
  }

  /** Published, captured tables. */
  tableInfos(): Iterable<TableInfo> {
    return this.tables.values();
  }

  tableInfo(schema: string, table: string): TableInfo | undefined {
    return this.tables.get(tableKey(schema, table));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.ready.catch(() => undefined);
    await this.queue.close();
    await this.unlisten?.();
    this.unlisten = undefined;
  }

  private onNotify(payload: string): void {
    if (this.closed) return;
    const change = parseChange(payload);
    if (change) this.queue.push(change);
  }

  private async dispatch(batch: Change[]): Promise<void> {
    // Who cares about what, grouped by token so each group's reads happen once.
    const groups = new Map<string, { subscribers: ChangeSubscriber[]; needs: Change[] }>();
    for (const subscriber of this.subscribers()) {
      const needs = batch.filter((c) =>
        subscriber.bindings.some((b) => bindingMatchesChange(b, c)),
      );
      if (needs.length === 0) continue;
      const group = groups.get(subscriber.token);
      if (group) {
        group.subscribers.push(subscriber);
        for (const c of needs) if (!group.needs.includes(c)) group.needs.push(c);
      } else {
        groups.set(subscriber.token, { subscribers: [subscriber], needs });
      }
    }
    const wanted = [...groups.values()].flatMap((g) => g.needs);
    if (wanted.some((c) => !this.tables.has(tableKey(c.schema, c.table)))) {
      await this.installTriggers(); // a table joined the publication since start-up
    }
    for (const group of groups.values()) {
      if (this.closed) return;
      const first = group.subscribers[0];
      if (!first) continue;
      let reads: GroupReads;
      try {
        reads = await this.readAs(first.role, first.claims, group.needs);
      } catch (error) {
        // E.g. a role without SELECT on a column: that group hears nothing of this round.
        console.warn('[realtime] reading changed rows failed:', error);
        continue;
      }
      for (const change of batch) {
        if (!group.needs.includes(change)) continue;
        for (const subscriber of group.subscribers) this.deliver(subscriber, change, reads);
      }
    }
  }

  /** Reads the changed rows of one round under one role and claims (one transaction). */
  private readAs(role: ApiRole, claims: Claims, changes: Change[]): Promise<GroupReads> {
    const keysByTable = new Map<string, { info: TableInfo; keys: JsonObject[] }>();
    for (const change of changes) {
      const info = this.tableInfo(change.schema, change.table);
      if (!info) continue;
      const entry = keysByTable.get(tableKey(change.schema, change.table)) ?? { info, keys: [] };
      if (change.type !== 'DELETE' && change.key) entry.keys.push(change.key);
      keysByTable.set(tableKey(change.schema, change.table), entry);
    }
    return runAsCaller(this.db, role, claims, undefined, async (tx) => {
      const reads: GroupReads = { rows: new Map(), selectable: new Map() };
      // A role without SELECT hears nothing of a table (and would abort the reads below).
      const { rows: privileges } = await tx.query(
        `select name, has_table_privilege(current_user, name, 'SELECT') as ok
         from jsonb_array_elements_text($1::jsonb) as name`,
        [JSON.stringify([...keysByTable.values()].map(({ info }) => qualified(info)))],
      );
      const allowed = new Set(privileges.filter((p) => p.ok === true).map((p) => p.name));
      for (const [name, { info, keys }] of keysByTable) {
        const ok = allowed.has(qualified(info));
        reads.selectable.set(name, ok);
        if (ok && keys.length > 0) reads.rows.set(name, await readRows(tx, info, keys));
      }
      return reads;
    });
  }

  private deliver(subscriber: ChangeSubscriber, change: Change, reads: GroupReads): void {
    const info = this.tableInfo(change.schema, change.table);
    if (!info) return;
    const name = tableKey(change.schema, change.table);
    let record: Record<string, unknown> | undefined;
    let tested: Record<string, unknown>;
    if (change.type === 'DELETE') {
      // The row is gone: only its key is sent (as hosted does with RLS on).
      if (!change.oldKey || reads.selectable.get(name) !== true) return;
      tested = change.oldKey;
    } else {
      if (!change.key) return;
      record = reads.rows.get(name)?.get(keyString(info, change.key));
      if (!record) return; // not visible to this subscriber
      tested = record;
    }
    const ids = subscriber.bindings
      .filter(
        (b) =>
          bindingMatchesChange(b, change) && rowMatches(b.conditions, tested, info.columnTypes),
      )
      .map((b) => b.id);
    if (ids.length === 0) return;
    const data: JsonObject = {
      schema: change.schema,
      table: change.table,
      commit_timestamp: change.commitTimestamp,
      type: change.type,
      columns: info.columns.map((c) => ({ name: c.name, type: c.type })),
      errors: null,
    };
    if (record) data.record = record as JsonObject;
    if (change.type !== 'INSERT' && change.oldKey) data.old_record = change.oldKey;
    subscriber.deliver([...new Set(ids)], data);
  }
}

/** The rows with these keys that the current role may see, by key string. */
async function readRows(
  tx: SqlRunner,
  info: TableInfo,
  keys: JsonObject[],
): Promise<Map<string, Record<string, unknown>>> {
  const cols = info.key.map((k) => quoteIdent(k.name)).join(', ');
  const casts = info.key.map((k) => `(e->>${quoteLiteral(k.name)})::${k.sqlType}`).join(', ');
  const { rows } = await tx.query(
    `select to_jsonb(t) as row from ${qualified(info)} t
     where (${cols}) in (select ${casts} from jsonb_array_elements($1::jsonb) e)`,
    [JSON.stringify(keys)],
  );
  const found = new Map<string, Record<string, unknown>>();
  for (const r of rows) {
    const row = parseJsonValue(r.row);
    if (isJsonObject(row)) found.set(keyString(info, row), row);
  }
  return found;
}
