// The tables change capture watches: the trigger the devstack (never the migrations) puts on
// every table of the `supabase_realtime` publication, each table's columns and primary key
// as read from the catalog, and reading changed rows back by key under a subscriber's role.
import { isPlainObject } from '../json';
import { execRacingDdl, type Row, type SqlEngine, type SqlRunner } from '../sql-engine';
import { quoteIdent, quoteLiteral } from '../sql-quote';
import type { Json, JsonObject } from './protocol';
import { triggerFunctionSql } from './trigger-function-sql';

export const NOTIFY_CHANNEL = 'devstack_realtime';
const TRIGGER_NAME = 'devstack_realtime_capture';

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

const CAPTURE_FUNCTION_SQL = triggerFunctionSql(
  'capture_change',
  `declare
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
end`,
);

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

export function tableKey(schema: string, table: string): string {
  return `${schema}.${table}`;
}

export function isString(value: unknown): value is string {
  return typeof value === 'string';
}

/** A json column as the engine hands it over: parsed already, or still its text. */
export function parseJsonValue(value: string): Json | undefined;
export function parseJsonValue(value: unknown): unknown;
export function parseJsonValue(value: unknown): unknown {
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
    if (isPlainObject(c) && isString(c.name) && isString(c.type)) {
      cols.push({ name: c.name, type: c.type });
    }
  }
  const keyCols: TableInfo['key'] = [];
  for (const k of key as unknown[]) {
    if (isPlainObject(k) && isString(k.name) && isString(k.sqlType)) {
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

export function qualified(info: TableInfo): string {
  return `${quoteIdent(info.schema)}.${quoteIdent(info.table)}`;
}

/** A row's primary key as one string, to find it again among rows read back. */
export function keyString(info: TableInfo, record: Record<string, unknown>): string {
  return JSON.stringify(info.key.map((k) => record[k.name] ?? null));
}

/**
 * (Re)installs the capture function and one trigger per published table, dropping those
 * left on tables that left the publication; the captured tables by tableKey.
 */
export async function installCaptureTriggers(db: SqlEngine): Promise<Map<string, TableInfo>> {
  await execRacingDdl(db, CAPTURE_FUNCTION_SQL);
  const stale = await db.query(STALE_TRIGGERS_SQL);
  for (const row of stale.rows) {
    if (!isString(row.schema) || !isString(row.table)) continue;
    await db.exec(
      `drop trigger if exists ${TRIGGER_NAME} on ${quoteIdent(row.schema)}.${quoteIdent(row.table)}`,
    );
  }
  const tables = new Map<string, TableInfo>();
  for (const row of (await db.query(TABLES_SQL)).rows) {
    const info = toTableInfo(row);
    if (!info) continue;
    if (info.key.length === 0) {
      // Without a primary key a row cannot be read back under the subscriber's role.
      console.warn(`[realtime] ${info.schema}.${info.table} has no primary key; not captured`);
      continue;
    }
    const args = info.key.map((k) => quoteLiteral(k.name)).join(', ');
    await db.exec(
      `create or replace trigger ${TRIGGER_NAME}
         after insert or update or delete on ${quoteIdent(info.schema)}.${quoteIdent(info.table)}
         for each row execute function devstack_realtime.capture_change(${args})`,
    );
    tables.set(tableKey(info.schema, info.table), info);
  }
  return tables;
}

/** The rows with these keys that the current role may see, by key string. */
export async function readRows(
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
    if (isPlainObject(row)) found.set(keyString(info, row), row);
  }
  return found;
}
