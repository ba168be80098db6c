// PostgREST's write path: insert (with upsert and missing=default), update and delete, each
// ONE statement run as the caller, answered with the status, body and headers PostgREST
// sends for the `Prefer` given (return=, count=, max-affected=, Location, upsert 200 vs 201).
import type { Context } from 'hono';

import { isPlainObject, parseJsonText } from '../json';
import type { SqlRunner } from '../sql-engine';
import type { TableInfo } from './catalog';
import { PgrstError, pgrstError } from './errors';
import { bodyKind, bodySql, contentType, csvRows, isSingular, type Media } from './media';
import { maxAffectedError, withPreferenceApplied, type Prefer, type RequestKind } from './prefer';
import { ColumnResolver, compileFilters, compileSelect, Params, takeField } from './query';
import { quoteIdent } from '../sql-quote';

export interface Reply {
  status: number;
  body: string | null;
  headers: Record<string, string>;
}

/** What a write needs besides the table: the request, its preferences and media type. */
export interface WriteRequest {
  tx: SqlRunner;
  c: Context;
  table: TableInfo;
  search: URLSearchParams;
  prefer: Prefer;
  media: Media;
}

export const INVALID_BODY = (): PgrstError => pgrstError(400, 'PGRST102', 'Empty or invalid json');

/** The JSON request body; `emptyAs` stands in for an empty body when given. */
export async function readJson(c: Context, emptyAs?: unknown): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '' && emptyAs !== undefined) return emptyAs;
  return parseJsonBody(text);
}

/** A body's JSON, or PostgREST's PGRST102 (with details when it nests too deep to parse). */
export function parseJsonBody(text: string): unknown {
  const parsed = parseJsonText(text);
  if (parsed.ok) return parsed.value;
  if (parsed.reason === 'too-deep') {
    throw pgrstError(400, 'PGRST102', 'Empty or invalid json', parsed.message);
  }
  throw INVALID_BODY();
}

export function singularError(count: number): PgrstError {
  return pgrstError(
    406,
    'PGRST116',
    'Cannot coerce the result to a single JSON object',
    `The result contains ${count} rows`,
  );
}

/** The body as rows (JSON object or array, or CSV) and, for JSON, its raw text. */
async function readRows(
  c: Context,
): Promise<{ rows: Record<string, unknown>[]; json: string | undefined; array: boolean }> {
  if (bodyKind(c.req.header('content-type')) === 'csv') {
    const rows = csvRows(await c.req.text());
    return { rows, json: undefined, array: true };
  }
  const body = await readJson(c);
  const rows = Array.isArray(body) ? body : [body];
  if (!rows.every(isPlainObject)) throw INVALID_BODY();
  // The raw body, not a re-serialisation: big integers keep every digit.
  return { rows, json: (await c.req.text()).trim(), array: Array.isArray(body) };
}

interface Statement {
  /** The statement whose rows are the result; `<RET>` stands for its returning list. */
  main: string;
  /** An upsert that may update: count the rows it inserted (200 when none). */
  upsert?: boolean;
  /** Qualifies `*` in the returning list (an update's FROM names another relation too). */
  qualifier?: string;
}

const RET = '<RET>';

/** Runs a write statement and builds PostgREST's reply to it. */
async function writeReply(
  req: WriteRequest,
  kind: RequestKind,
  statement: Statement,
  params: Params,
  resolutionApplies = false,
): Promise<Reply> {
  const { tx, c, table, prefer, media } = req;
  const search = new URL(c.req.url).searchParams;
  const cols = new ColumnResolver(table.name, table.columns);
  // return=minimal (PostgREST's default) reads nothing back: PostgREST writes `RETURNING 1`,
  // which needs no SELECT right, so a row the caller may write but not (yet) read is written
  // (a new list before its owner row exists). Returning the row would apply the SELECT
  // policies to it and refuse the write where hosted accepts it.
  const full = prefer.return === 'representation';
  const location = kind === 'insert' && prefer.return === 'headers-only';
  const returning = full || location ? `${statement.qualifier ?? ''}*` : '1';
  const inserted = statement.upsert ? ', (xmax = 0) as "pgrst.inserted"' : '';
  const ret = (sql: string) => sql.replaceAll(RET, `${returning}${inserted}`);
  const columnList = [...table.columns.keys()].map(quoteIdent).join(', ');
  const selectList = compileSelect(cols, search.get('select'));
  // `*` must not pick up the inserted flag.
  const picked = selectList === '*' ? columnList : selectList;
  const body = full
    ? bodySql(media, '_s', `select ${picked} from _r`)
    : location
      ? `coalesce((select json_agg(_s) from (select ${columnList} from _r) _s), '[]')::text`
      : `''`;
  const insertedSql = statement.upsert
    ? `(select count(*)::int from _r where "pgrst.inserted")`
    : 'null::int';
  const ctes = [`_r as (${ret(statement.main)})`];
  const fromSelected = full ? ` from (select ${picked} from _r) _s` : '';
  const { rows } = await tx.query<{ body: string; n: number; inserted: number | null }>(
    `with ${ctes.join(', ')}
     select ${body} as body, (select count(*)::int from _r) as n, ${insertedSql} as inserted${fromSelected}`,
    params.values,
  );
  const result = rows[0] ?? { body: '', n: 0, inserted: null };
  // PostgREST rolls back a singular write that touched other than one row.
  if (isSingular(media) && result.n !== 1) throw singularError(result.n);
  if (kind === 'update' || kind === 'delete') {
    const tooMany = maxAffectedError(prefer, result.n);
    if (tooMany) throw tooMany;
  }
  let headers: Record<string, string> = {};
  if (location && result.n === 1 && table.primaryKey.length > 0) {
    const row = (JSON.parse(result.body) as Record<string, unknown>[])[0] ?? {};
    const query = table.primaryKey
      .map((key) => {
        const value = row[key];
        const filter =
          value === null || value === undefined
            ? 'is.null'
            : `eq.${typeof value === 'string' ? value : JSON.stringify(value)}`;
        return `${encodeURIComponent(key)}=${encodeURIComponent(filter)}`;
      })
      .join('&');
    headers.Location = `/${table.name}?${query}`;
  }
  const counted = prefer.count === 'exact' || prefer.count === 'estimated';
  headers['Content-Range'] =
    kind === 'update'
      ? result.n > 0
        ? `0-${result.n - 1}/${counted ? result.n : '*'}`
        : `*/${counted ? result.n : '*'}`
      : `*/${counted ? String(result.n) : '*'}`;
  headers = withPreferenceApplied(headers, prefer, kind, resolutionApplies);
  let status = kind === 'insert' ? 201 : 204;
  if (kind === 'insert' && statement.upsert && prefer.resolution === 'merge-duplicates') {
    status = (result.inserted ?? 0) > 0 ? 201 : 200;
  }
  if (full) {
    headers['Content-Type'] = contentType(media);
    return { status: kind === 'insert' ? status : 200, body: result.body, headers };
  }
  return { status, body: null, headers };
}

function insertColumns(
  table: TableInfo,
  rows: Record<string, unknown>[],
  columnsParam: string | null,
): string[] {
  const names =
    columnsParam !== null
      ? columnsParam.split(',').map((s) => s.trim().replace(/^"(.*)"$/, '$1'))
      : [...new Set(rows.flatMap((r) => Object.keys(r)))];
  for (const name of names) {
    if (!table.columns.has(name)) {
      throw pgrstError(
        400,
        'PGRST204',
        `Could not find the '${name}' column of '${table.name}' in the schema cache`,
      );
    }
  }
  return names;
}

export async function insertRows(req: WriteRequest): Promise<Reply> {
  const { table, search, prefer } = req;
  const { rows, json, array } = await readRows(req.c);
  const columns = insertColumns(table, rows, search.get('columns'));
  const target = `${quoteIdent(table.schema)}.${quoteIdent(table.name)}`;
  const params = new Params();
  const onConflictParam = search.get('on_conflict');
  let conflict = '';
  if (prefer.resolution) {
    const keys = onConflictParam
      ? onConflictParam.split(',').map((s) => {
          const field = takeField(s.trim(), '');
          if (!field || field.rest !== '') {
            throw pgrstError(400, 'PGRST100', `failed to parse on_conflict (${onConflictParam})`);
          }
          return field.name;
        })
      : table.primaryKey;
    const cols = new ColumnResolver(table.name, table.columns);
    const keyRefs = keys.map((k) => cols.ref(k));
    // As PostgREST: every column of the body is set again, the conflict keys too, so a body
    // of keys alone still updates (and returns) the row it meets.
    const updates = columns;
    conflict =
      prefer.resolution === 'ignore-duplicates' || updates.length === 0
        ? ` on conflict (${keyRefs.join(', ')}) do nothing`
        : ` on conflict (${keyRefs.join(', ')}) do update set ${updates
            .map((col) => `${quoteIdent(col)} = excluded.${quoteIdent(col)}`)
            .join(', ')}`;
  }
  // Resolution is reported applied only where it can apply: a primary key or on_conflict.
  const resolutionApplies = table.primaryKey.length > 0 || onConflictParam !== null;
  const upsert = prefer.resolution === 'merge-duplicates' && conflict !== '';
  let statement: Statement;
  if (rows.length === 0) {
    statement = { main: `select ${RET} from ${target} where false` };
  } else if (columns.length === 0) {
    // `{}`: every column takes its default.
    statement = { main: `insert into ${target} default values${conflict} returning ${RET}` };
  } else if (prefer.missing === 'default') {
    // As PostgREST: one statement; each row starts from the listed columns' defaults (every
    // default evaluated for every row, so a sequence advances once per row and column, as on
    // hosted), then its own keys, null included, replace them. A column without a default
    // gets null; a generated one gets nothing, so naming it fails as Postgres says.
    const list = columns.map(quoteIdent).join(', ');
    const defaults = columns
      .filter((col) => !table.generated.has(col))
      .map((col) => `${params.add(col)}::text, ${table.defaults.get(col) ?? 'null'}`)
      .join(', ');
    const p = params.add(json === undefined ? JSON.stringify(rows) : array ? json : `[${json}]`);
    const picked = columns.map((col) => `_b.${quoteIdent(col)}`).join(', ');
    statement = {
      main: `insert into ${target} (${list}) select ${picked} from jsonb_array_elements(${p}::jsonb) with ordinality _e(v, i), lateral jsonb_populate_record(null::${target}, jsonb_build_object(${defaults}) || _e.v) _b order by _e.i${conflict} returning ${RET}`,
    };
  } else {
    const list = columns.map(quoteIdent).join(', ');
    const p = params.add(json === undefined ? JSON.stringify(rows) : array ? json : `[${json}]`);
    statement = {
      main: `insert into ${target} (${list}) select ${list} from json_populate_recordset(null::${target}, ${p}::json)${conflict} returning ${RET}`,
    };
  }
  return writeReply(req, 'insert', { ...statement, upsert }, params, resolutionApplies);
}

export async function updateRows(req: WriteRequest): Promise<Reply> {
  const { table, search } = req;
  const body = await readJson(req.c);
  if (!isPlainObject(body)) throw INVALID_BODY();
  const columns = insertColumns(table, [body], search.get('columns'));
  const target = `${quoteIdent(table.schema)}.${quoteIdent(table.name)}`;
  const cols = new ColumnResolver(table.name, table.columns, `${quoteIdent(table.name)}.`);
  const params = new Params();
  const where = compileFilters(cols, search, params);
  if (columns.length === 0) {
    // Nothing to set: PostgREST answers as if no row matched.
    return writeReply(
      req,
      'update',
      { main: `select ${RET} from ${target} where false` },
      new Params(),
    );
  }
  const p = params.add(await req.c.req.text());
  const sets = columns.map((col) => `${quoteIdent(col)} = _b.${quoteIdent(col)}`).join(', ');
  const main = `update ${target} set ${sets} from (select * from json_populate_record(null::${target}, ${p}::json)) _b where ${where} returning ${RET}`;
  // `*` must mean the table's columns, not the body's too.
  return writeReply(req, 'update', { main, qualifier: `${quoteIdent(table.name)}.` }, params);
}

export async function deleteRows(req: WriteRequest): Promise<Reply> {
  const { table, search } = req;
  const cols = new ColumnResolver(table.name, table.columns);
  const params = new Params();
  const where = compileFilters(cols, search, params);
  const main = `delete from ${quoteIdent(table.schema)}.${quoteIdent(table.name)} where ${where} returning ${RET}`;
  return writeReply(req, 'delete', { main }, params);
}
