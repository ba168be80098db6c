// The PostgREST-compatible REST service at /rest/v1: table reads and writes and rpc calls,
// each request one transaction as the caller (so RLS decides), answering in PostgREST's
// shapes, headers and status codes.
import type { Context } from 'hono';
import { Hono } from 'hono';

import {
  checkApiKey,
  jsonNestsDeeperThan,
  MAX_JSON_DEPTH,
  resolveCaller,
  type Caller,
  type DevstackContext,
} from '../context';
import type { Claims } from '../keys';
import { runAsCaller, type ApiRole } from '../request-db';
import type { SqlParam, SqlRunner } from '../sql-engine';
import {
  matchFunction,
  SCHEMA_GENERATION_SELECT,
  SchemaCache,
  type Catalog,
  type TableInfo,
} from './catalog';
import { PgrstError, pgrstError, toPgrstError } from './errors';
import {
  ColumnResolver,
  compileFilters,
  compileOrder,
  compileSelect,
  nonNegativeInt,
  Params,
  quoteIdent,
  takeField,
} from './query';

const JSON_TYPE = 'application/json; charset=utf-8';
const SINGULAR_TYPE = 'application/vnd.pgrst.object+json';

interface Reply {
  status: number;
  body: string | null;
  headers: Record<string, string>;
}

interface Prefer {
  return: 'representation' | 'minimal' | 'headers-only' | undefined;
  count: boolean;
  resolution: 'merge-duplicates' | 'ignore-duplicates' | undefined;
  missingDefault: boolean;
}

function parsePrefer(header: string | undefined): Prefer {
  const prefer: Prefer = {
    return: undefined,
    count: false,
    resolution: undefined,
    missingDefault: false,
  };
  for (const part of (header ?? '').split(',')) {
    const [key = '', value = ''] = part.trim().split('=');
    if (
      key === 'return' &&
      (value === 'representation' || value === 'minimal' || value === 'headers-only')
    ) {
      prefer.return = value;
    } else if (key === 'count' && value === 'exact') {
      prefer.count = true;
    } else if (key === 'count' && (value === 'planned' || value === 'estimated')) {
      prefer.count = true;
    } else if (
      key === 'resolution' &&
      (value === 'merge-duplicates' || value === 'ignore-duplicates')
    ) {
      prefer.resolution = value;
    } else if (key === 'missing' && value === 'default') {
      prefer.missingDefault = true;
    }
  }
  return prefer;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const INVALID_BODY = (): PgrstError => pgrstError(400, 'PGRST102', 'Empty or invalid json');

/** The JSON request body; `emptyAs` stands in for an empty body when given. */
async function readJson(c: Context, emptyAs?: unknown): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') {
    if (emptyAs !== undefined) return emptyAs;
    throw INVALID_BODY();
  }
  // Postgres and JSON.stringify recurse per level: refuse what would overflow their stacks.
  if (jsonNestsDeeperThan(text)) {
    throw pgrstError(
      400,
      'PGRST102',
      'Empty or invalid json',
      `JSON nested deeper than ${MAX_JSON_DEPTH} levels`,
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw INVALID_BODY();
  }
}

/** Request media types the REST service reads (PostgREST also takes CSV and forms; we don't). */
const JSON_BODY_TYPES = new Set(['application/json', SINGULAR_TYPE]);

/** PostgREST's 415 for a body it cannot read; no Content-Type means JSON, as there. */
function checkContentType(c: Context): void {
  const header = c.req.header('content-type');
  if (header === undefined || header.trim() === '') return;
  const media = (header.split(';')[0] ?? '').trim().toLowerCase();
  if (!JSON_BODY_TYPES.has(media)) {
    throw pgrstError(415, 'PGRST107', `The request's Content-Type is not acceptable: ${header}`);
  }
}

function checkProfile(c: Context): void {
  const profile = c.req.header('accept-profile') ?? c.req.header('content-profile');
  if (profile !== undefined && profile !== 'public') {
    throw pgrstError(
      406,
      'PGRST106',
      `Invalid schema: ${profile}`,
      null,
      'Only the following schemas are exposed: public',
    );
  }
}

function wantsSingular(c: Context): boolean {
  return (c.req.header('accept') ?? '').includes(SINGULAR_TYPE);
}

function singularError(count: number): PgrstError {
  return pgrstError(
    406,
    'PGRST116',
    'Cannot coerce the result to a single JSON object',
    `The result contains ${count} rows`,
  );
}

/** Turns a JSON array text into the single object when `singular`, else passes it through. */
function shapeRows(rowsJson: string, count: number, singular: boolean): string {
  if (!singular) return rowsJson;
  if (count !== 1) throw singularError(count);
  const rows = JSON.parse(rowsJson) as unknown[];
  return JSON.stringify(rows[0]);
}

function contentRange(offset: number, shown: number, total: number | undefined): string {
  const totalText = total === undefined ? '*' : String(total);
  return shown === 0 ? `*/${totalText}` : `${offset}-${offset + shown - 1}/${totalText}`;
}

async function requireTable(catalog: Catalog, name: string): Promise<TableInfo> {
  const table = await catalog.table(name);
  if (!table) {
    throw pgrstError(
      404,
      'PGRST205',
      `Could not find the table 'public.${name}' in the schema cache`,
    );
  }
  return table;
}

function rangeHeader(c: Context): { offset: number; limit: number | undefined } | undefined {
  const header = c.req.header('range');
  if (header === undefined) return undefined;
  const match = /^\s*(?:items=)?(\d{1,15})-(\d{0,15})\s*$/.exec(header);
  if (!match) return undefined;
  const from = Number(match[1]);
  const to = match[2] === '' || match[2] === undefined ? undefined : Number(match[2]);
  if (to !== undefined && to < from) {
    throw pgrstError(416, 'PGRST103', 'Requested range not satisfiable');
  }
  return { offset: from, limit: to === undefined ? undefined : to - from + 1 };
}

async function readTable(
  tx: SqlRunner,
  c: Context,
  table: TableInfo,
  search: URLSearchParams,
  head: boolean,
  maxRows: number,
): Promise<Reply> {
  const cols = new ColumnResolver(table.name, table.columns);
  const params = new Params();
  const selectList = compileSelect(cols, search.get('select'));
  const where = compileFilters(cols, search, params);
  const order = compileOrder(cols, search.get('order'));
  const range = rangeHeader(c);
  const offset = nonNegativeInt('offset', search.get('offset')) ?? range?.offset ?? 0;
  // max_rows caps every read, whatever `limit` or Range asks (PostgREST's db-max-rows).
  const asked = nonNegativeInt('limit', search.get('limit')) ?? range?.limit;
  const limit = asked === undefined ? maxRows : Math.min(asked, maxRows);
  const from = `public.${quoteIdent(table.name)}`;
  let sql = `select ${selectList} from ${from} where ${where}`;
  if (order) sql += ` order by ${order}`;
  sql += ` limit ${params.add(limit)}`;
  if (offset > 0) sql += ` offset ${params.add(offset)}`;
  const { rows } = await tx.query<{ body: string; n: number }>(
    `select coalesce(json_agg(_s), '[]')::text as body, count(*)::int as n from (${sql}) _s`,
    params.values,
  );
  const result = rows[0] ?? { body: '[]', n: 0 };
  let total: number | undefined;
  if (parsePrefer(c.req.header('prefer')).count) {
    const counted = await tx.query<{ n: string }>(
      `select count(*)::text as n from ${from} where ${where}`,
      params.values.slice(0, countParams(where)),
    );
    total = Number(counted.rows[0]?.n ?? 0);
  }
  const singular = wantsSingular(c);
  const body = shapeRows(result.body, result.n, singular);
  // PostgREST answers 206 when a known total holds more rows than the page shows.
  const partial = total !== undefined && result.n < total && !singular;
  return {
    status: partial ? 206 : 200,
    body: head ? null : body,
    headers: {
      'Content-Range': contentRange(offset, result.n, total),
      'Content-Type': singular ? `${SINGULAR_TYPE}; charset=utf-8` : JSON_TYPE,
    },
  };
}

/** How many leading parameters a WHERE clause uses (the filters are bound first). */
function countParams(where: string): number {
  let max = 0;
  for (const match of where.matchAll(/\$(\d+)/g)) max = Math.max(max, Number(match[1]));
  return max;
}

/** The final reply of a write: representation, minimal or headers-only. */
async function writeReply(
  tx: SqlRunner,
  c: Context,
  table: TableInfo,
  cteSql: string,
  params: Params,
  successStatus: number,
  // Data-modifying CTEs must sit at the top level, so extra ones come separately.
  before: readonly string[] = [],
): Promise<Reply> {
  const prefer = parsePrefer(c.req.header('prefer'));
  const search = new URL(c.req.url).searchParams;
  const cols = new ColumnResolver(table.name, table.columns);
  const selectList = compileSelect(cols, search.get('select'));
  // return=minimal (PostgREST's default) reads nothing back: PostgREST writes `RETURNING 1`,
  // which needs no SELECT right, so a row the caller may write but not (yet) read is written
  // (a new list before its owner row exists). Returning the row would apply the SELECT
  // policies to it and refuse the write where hosted accepts it.
  const minimal = prefer.return !== 'representation' && prefer.return !== 'headers-only';
  const returningOne = (sql: string) =>
    minimal ? sql.replace(/ returning (?:"(?:[^"]|"")*"\.)?\*(\)?)$/, ' returning 1$1') : sql;
  const body = minimal
    ? `'[]'`
    : `coalesce((select json_agg(_s) from (select ${selectList} from _r) _s), '[]')::text`;
  const { rows } = await tx.query<{ body: string; n: number }>(
    `with ${[...before.map(returningOne), `_r as (${returningOne(cteSql)})`].join(', ')}
     select ${body} as body, (select count(*)::int from _r) as n`,
    params.values,
  );
  const result = rows[0] ?? { body: '[]', n: 0 };
  const singular = wantsSingular(c);
  // PostgREST rolls back a singular write that touched other than one row.
  if (singular && result.n !== 1) throw singularError(result.n);
  const headers: Record<string, string> = {
    'Content-Range': `*/${prefer.count ? String(result.n) : '*'}`,
  };
  if (prefer.return === 'representation') {
    headers['Content-Type'] = singular ? `${SINGULAR_TYPE}; charset=utf-8` : JSON_TYPE;
    const status = successStatus === 201 ? 201 : 200;
    return { status, body: shapeRows(result.body, result.n, singular), headers };
  }
  return { status: successStatus === 201 ? 201 : 204, body: null, headers };
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

async function insertRows(
  tx: SqlRunner,
  c: Context,
  table: TableInfo,
  search: URLSearchParams,
): Promise<Reply> {
  const body = await readJson(c);
  const rows = Array.isArray(body) ? body : [body];
  if (!rows.every(isPlainObject)) throw INVALID_BODY();
  const prefer = parsePrefer(c.req.header('prefer'));
  const columns = insertColumns(table, rows, search.get('columns'));
  const target = `public.${quoteIdent(table.name)}`;
  const params = new Params();
  let conflict = '';
  if (prefer.resolution) {
    const onConflictParam = search.get('on_conflict');
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
    const updates = columns.filter((col) => !keys.includes(col));
    conflict =
      prefer.resolution === 'ignore-duplicates' || updates.length === 0
        ? ` on conflict (${keyRefs.join(', ')}) do nothing`
        : ` on conflict (${keyRefs.join(', ')}) do update set ${updates
            .map((col) => `${quoteIdent(col)} = excluded.${quoteIdent(col)}`)
            .join(', ')}`;
  }
  let sql: string;
  if (rows.length === 0) {
    sql = `select * from ${target} where false`;
  } else if (columns.length === 0) {
    // `{}`: every column takes its default.
    sql = `insert into ${target} default values${conflict} returning *`;
  } else if (prefer.missingDefault && rows.length > 1) {
    // Each row names its own columns so the absent ones take their defaults.
    const parts = rows.map((row, i) => {
      const own = columns.filter((col) => Object.hasOwn(row, col));
      const p = params.add(JSON.stringify(row));
      const list = own.map(quoteIdent).join(', ');
      return own.length === 0
        ? `_i${i} as (insert into ${target} default values${conflict} returning *)`
        : `_i${i} as (insert into ${target} (${list}) select ${list} from json_populate_record(null::${target}, ${p}::json)${conflict} returning *)`;
    });
    const union = rows.map((_, i) => `select * from _i${i}`).join(' union all ');
    return writeReply(tx, c, table, union, params, 201, parts);
  } else {
    const list = columns.map(quoteIdent).join(', ');
    // The raw body, not a re-serialisation: big integers keep every digit.
    const text = (await c.req.text()).trim();
    const p = params.add(Array.isArray(body) ? text : `[${text}]`);
    sql = `insert into ${target} (${list}) select ${list} from json_populate_recordset(null::${target}, ${p}::json)${conflict} returning *`;
  }
  return writeReply(tx, c, table, sql, params, 201);
}

async function updateRows(
  tx: SqlRunner,
  c: Context,
  table: TableInfo,
  search: URLSearchParams,
): Promise<Reply> {
  const body = await readJson(c);
  if (!isPlainObject(body)) throw INVALID_BODY();
  const columns = insertColumns(table, [body], search.get('columns'));
  const target = `public.${quoteIdent(table.name)}`;
  const cols = new ColumnResolver(table.name, table.columns, `${quoteIdent(table.name)}.`);
  const params = new Params();
  const where = compileFilters(cols, search, params);
  if (columns.length === 0) {
    // Nothing to set: PostgREST answers as if no row matched.
    return writeReply(tx, c, table, `select * from ${target} where false`, new Params(), 204);
  }
  const p = params.add(await c.req.text());
  const sets = columns.map((col) => `${quoteIdent(col)} = _b.${quoteIdent(col)}`).join(', ');
  const sql = `update ${target} set ${sets} from (select * from json_populate_record(null::${target}, ${p}::json)) _b where ${where} returning ${quoteIdent(table.name)}.*`;
  return writeReply(tx, c, table, sql, params, 204);
}

async function deleteRows(
  tx: SqlRunner,
  c: Context,
  table: TableInfo,
  search: URLSearchParams,
): Promise<Reply> {
  const cols = new ColumnResolver(table.name, table.columns);
  const params = new Params();
  const where = compileFilters(cols, search, params);
  const sql = `delete from public.${quoteIdent(table.name)} where ${where} returning *`;
  return writeReply(tx, c, table, sql, params, 204);
}

/** Query parameters that shape an rpc result rather than name an argument. */
const RPC_RESERVED = new Set(['select', 'order', 'limit', 'offset', 'columns', 'apikey']);

async function callFunction(
  tx: SqlRunner,
  catalog: Catalog,
  c: Context,
  name: string,
  args: Record<string, unknown>,
  fromJson: boolean,
  maxRows: number,
): Promise<Reply> {
  const keys = Object.keys(args);
  const fn = matchFunction(await catalog.functions(name), keys);
  if (!fn) {
    const sorted = [...keys].sort();
    const signature = sorted.length === 0 ? ' without parameters' : `(${sorted.join(', ')})`;
    throw pgrstError(
      404,
      'PGRST202',
      `Could not find the function public.${name}${signature} in the schema cache`,
      `Searched for the function public.${name} with parameter${sorted.length === 0 ? 's' : 's ' + sorted.join(', ')} or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.`,
    );
  }
  const params = new Params();
  const named = fn.args
    .filter((a) => keys.includes(a.name))
    .map((a) => {
      const bound = bindArgument(args[a.name], a.type, fromJson);
      return `${quoteIdent(a.name)} => ${params.add(bound)}::${a.type}`;
    });
  const call = `public.${quoteIdent(name)}(${named.join(', ')})`;
  if (fn.returnsVoid) {
    await tx.query(`select ${call}`, params.values);
    return { status: 204, body: null, headers: {} };
  }
  if (fn.returnsSet) {
    // A set is a read like any other: at most max_rows of it, the total only when counted.
    const limitAt = params.add(maxRows);
    const { rows } = await tx.query<{ body: string; n: number }>(
      `select coalesce(json_agg(_r.v), '[]')::text as body, count(*)::int as n
         from (select _f as v from ${call} _f limit ${limitAt}) _r`,
      params.values,
    );
    const result = rows[0] ?? { body: '[]', n: 0 };
    let total: number | undefined;
    if (parsePrefer(c.req.header('prefer')).count) {
      const counted = await tx.query<{ n: string }>(
        `select count(*)::text as n from ${call} _f`,
        params.values.slice(0, -1),
      );
      total = Number(counted.rows[0]?.n ?? 0);
    }
    const singular = wantsSingular(c);
    const partial = total !== undefined && result.n < total && !singular;
    return {
      status: partial ? 206 : 200,
      body: shapeRows(result.body, result.n, singular),
      headers: { 'Content-Type': JSON_TYPE, 'Content-Range': contentRange(0, result.n, total) },
    };
  }
  const { rows } = await tx.query<{ body: string | null }>(
    `select to_json(_r)::text as body from ${call} _r`,
    params.values,
  );
  return {
    status: 200,
    body: rows[0]?.body ?? 'null',
    headers: { 'Content-Type': JSON_TYPE },
  };
}

/**
 * An rpc argument as a text literal of its SQL type. JSON arguments keep their JSON form (a
 * string stays a JSON string); query-string values (GET) are already literals.
 */
function bindArgument(value: unknown, type: string, fromJson: boolean): SqlParam {
  if (value === null || value === undefined) return null;
  if (/^jsonb?$/.test(type)) {
    return fromJson || typeof value !== 'string' ? JSON.stringify(value) : value;
  }
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return pgArrayLiteral(value);
  return JSON.stringify(value);
}

/** A JSON array as a Postgres array literal, for array-typed arguments. */
function pgArrayLiteral(values: unknown[]): string {
  const items = values.map((v) => {
    if (v === null) return 'NULL';
    const text = typeof v === 'string' ? v : JSON.stringify(v);
    return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  });
  return `{${items.join(',')}}`;
}

function send(c: Context, reply: Reply): Response {
  const headers = new Headers(reply.headers);
  if (reply.body !== null && !headers.has('Content-Type')) headers.set('Content-Type', JSON_TYPE);
  return new Response(reply.body, { status: reply.status, headers });
}

function errorReply(error: PgrstError): Reply {
  return {
    status: error.status,
    body: JSON.stringify(error.body),
    headers: { 'Content-Type': JSON_TYPE, ...error.headers },
  };
}

type Handler = (tx: SqlRunner, catalog: Catalog) => Promise<Reply>;

/** PostgREST's answer (13+, as hosted runs it) to a token it cannot accept: code, words, details. */
function postgrestJwtError(caller: Extract<Caller, { ok: false }>): {
  code: string;
  message: string;
  details: string | null;
} {
  switch (caller.kind) {
    case 'expired':
      return { code: 'PGRST303', message: 'JWT expired', details: null };
    case 'claims':
      return { code: 'PGRST303', message: 'JWT not yet valid', details: null };
    case 'malformed':
      return caller.parts !== undefined && caller.parts !== 3
        ? {
            code: 'PGRST301',
            message: `Expected 3 parts in JWT; got ${caller.parts}`,
            details: null,
          }
        : { code: 'PGRST301', message: 'JWT cryptographic operation failed', details: null };
    case 'unsecured':
      return {
        code: 'PGRST301',
        message: 'Wrong or unsupported encoding algorithm',
        details: "JWT is unsecured but expected 'alg' was not 'none'",
      };
    case 'no-key':
    case 'algorithm':
      return {
        code: 'PGRST301',
        message: 'No suitable key or wrong key type',
        details: 'No suitable key was found to decode the JWT',
      };
    case 'signature':
      return { code: 'PGRST301', message: 'JWT cryptographic operation failed', details: null };
    default:
      // A verified token whose role is no database role.
      return { code: 'PGRST301', message: caller.message, details: null };
  }
}

async function serve(
  ctx: DevstackContext,
  schema: SchemaCache,
  c: Context,
  handler: Handler,
): Promise<Response> {
  // The gateway's key rule first (Kong on hosted): no project key, no PostgREST.
  const key = checkApiKey(ctx, c);
  if (!key.ok) {
    return send(c, { status: 401, body: JSON.stringify({ message: key.message }), headers: {} });
  }
  const caller = await resolveCaller(ctx, c);
  if (!caller.ok) {
    if (caller.reason === 'missing') {
      // The API gateway (Kong on hosted) answers this one, in its own shape.
      return send(c, {
        status: 401,
        body: JSON.stringify({ message: caller.message }),
        headers: {},
      });
    }
    const { code, message, details } = postgrestJwtError(caller);
    const error = pgrstError(401, code, message, details);
    return send(c, {
      ...errorReply(error),
      headers: {
        'Content-Type': JSON_TYPE,
        'WWW-Authenticate': `Bearer error="invalid_token", error_description="${message.replace(/"/g, "'")}"`,
      },
    });
  }
  const role: ApiRole = caller.role;
  const claims: Claims = { ...caller.claims, role };
  try {
    checkProfile(c);
    if (c.req.method === 'POST' || c.req.method === 'PATCH') checkContentType(c);
    const cached = await schema.ready;
    const reply = await runAsCaller(
      ctx.db,
      role,
      claims,
      { method: c.req.method, path: new URL(c.req.url).pathname, headers: requestHeaders(c) },
      (tx, generation) => handler(tx, schema.forRequest(tx, generation)),
      {
        // PostgREST runs GET and HEAD (rpc too) in a READ ONLY transaction: writes get 25006.
        readOnly: c.req.method === 'GET' || c.req.method === 'HEAD',
        ...(cached ? { also: SCHEMA_GENERATION_SELECT } : {}),
      },
    );
    return send(c, reply);
  } catch (error) {
    return send(c, errorReply(toPgrstError(error, role === 'anon')));
  }
}

function requestHeaders(c: Context): Record<string, string> {
  const headers: Record<string, string> = {};
  c.req.raw.headers.forEach((value, key) => {
    if (key !== 'authorization' && key !== 'apikey') headers[key] = value;
  });
  return headers;
}

export function restRoutes(ctx: DevstackContext): Hono {
  const app = new Hono();
  const schema = new SchemaCache(ctx.db);

  app.on(['GET', 'HEAD', 'POST'], '/rpc/:fn', async (c) => {
    const name = c.req.param('fn');
    const method = c.req.method;
    let args: Record<string, unknown> | undefined;
    let bodyError: PgrstError | undefined;
    if (method === 'POST') {
      try {
        const body = await readJson(c, {});
        if (isPlainObject(body)) args = body;
        else bodyError = INVALID_BODY();
      } catch (error) {
        bodyError = error instanceof PgrstError ? error : INVALID_BODY();
      }
    } else {
      args = {};
      for (const [key, value] of new URL(c.req.url).searchParams) {
        if (!RPC_RESERVED.has(key)) args[key] = value;
      }
    }
    return serve(ctx, schema, c, async (tx, catalog) => {
      if (bodyError || !args) throw bodyError ?? INVALID_BODY();
      const reply = await callFunction(
        tx,
        catalog,
        c,
        name,
        args,
        method === 'POST',
        ctx.settings.maxRows,
      );
      return method === 'HEAD' ? { ...reply, body: null } : reply;
    });
  });

  app.all('/rpc/:fn', (c) =>
    send(
      c,
      errorReply(pgrstError(405, 'PGRST101', 'Only GET and POST verbs are allowed for functions')),
    ),
  );

  app.all('/:table', async (c) => {
    const name = c.req.param('table');
    const search = new URL(c.req.url).searchParams;
    const method = c.req.method;
    // Read the body before the transaction starts: PGlite has one connection, and a slow
    // upload must not hold it. Hono caches the text for readJson.
    if (method === 'POST' || method === 'PATCH') await c.req.text();
    return serve(ctx, schema, c, async (tx, catalog) => {
      const table = await requireTable(catalog, name);
      switch (method) {
        case 'GET':
          return readTable(tx, c, table, search, false, ctx.settings.maxRows);
        case 'HEAD':
          return readTable(tx, c, table, search, true, ctx.settings.maxRows);
        case 'POST':
          return insertRows(tx, c, table, search);
        case 'PATCH':
          return updateRows(tx, c, table, search);
        case 'DELETE':
          return deleteRows(tx, c, table, search);
        default:
          throw pgrstError(405, 'PGRST117', `Unsupported HTTP method: ${method}`);
      }
    });
  });

  return app;
}
