// PostgREST's /rpc/<fn>: which overload a request names (by its argument names, as findProc
// does), how the arguments reach it (a JSON body, query-string values, or the whole body as
// one unnamed parameter), and the result read like a table: select, filters, order, limit,
// Range and count apply to what the function returns, in one statement as the caller.
import { isPlainObject } from '../json';
import type { SqlRunner } from '../sql-engine';
import type { Catalog, FunctionInfo } from './catalog';
import { pgrstError } from './errors';
import { parseOpExpr, pgArrayLiteral } from './operators';
import { planRead } from './read-plan';
import { callable, matchesParams, overloadOrder, RAW_BODY_TYPES, resolve } from './rpc-resolve';
import { ColumnResolver, compileFilters, compileOrder, nonNegativeInt, Params } from './query';
import { quoteIdent } from '../sql-quote';
import { INVALID_BODY, parseJsonBody } from './writes';

const JSON_TYPE = 'application/json; charset=utf-8';
const SINGULAR_TYPE = 'application/vnd.pgrst.object+json; charset=utf-8';
/** The column a scalar function's result is read as (PostgREST's name for it). */
const SCALAR = 'pgrst_scalar';

/** Arguments as a form, read like a GET's query string. */
const FORM_TYPE = 'application/x-www-form-urlencoded';

const JSON_BODY_TYPES: ReadonlySet<string> = new Set([
  'application/json',
  'application/vnd.pgrst.object+json',
  'application/vnd.pgrst.object',
  'application/vnd.pgrst.array+json',
  'application/vnd.pgrst.array',
]);

/**
 * The media type an rpc POST's body is read as ('application/json' for JSON in any of its
 * forms, or one of RAW_BODY_TYPES); PostgREST's 415 for any other.
 */
export function rpcMediaType(method: string, header: string | undefined): string {
  if (method !== 'POST' || header === undefined || header.trim() === '') return 'application/json';
  const media = (header.split(';')[0] ?? '').trim().toLowerCase();
  if (JSON_BODY_TYPES.has(media)) return 'application/json';
  if (RAW_BODY_TYPES.has(media) || media === FORM_TYPE) return media;
  throw pgrstError(415, 'PGRST107', `The request's Content-Type is not acceptable: ${header}`);
}

export interface RpcRequest {
  name: string;
  method: string;
  search: URLSearchParams;
  /** A POST's body (read before the transaction): bytes for bytea, else text; GET: undefined. */
  body: string | Uint8Array | undefined;
  /** A POST's media type, lower case; JSON when the request names none. */
  mediaType: string;
  count: boolean;
  range: { offset: number; limit: number | undefined } | undefined;
  singular: boolean;
  maxRows: number;
}

export interface RpcReply {
  status: number;
  body: string | null;
  headers: Record<string, string>;
}

/** Whether a query key shapes the result (select, order …) rather than naming a column. */
function isReservedKey(key: string): boolean {
  const last = key.split('.').pop() ?? key;
  return (
    ['select', 'columns', 'on_conflict', 'apikey'].includes(key) ||
    ['order', 'limit', 'offset', 'and', 'or'].includes(last)
  );
}

/**
 * A GET's query string split as PostgREST splits it: a value that reads as a filter
 * (`eq.1`, `not.…`) filters the result, any other value is an argument (the last one given,
 * or all of them for a VARIADIC parameter). `not.`, `in.` and `is.` commit to a filter, so a
 * malformed one is an error rather than an argument.
 */
function splitQuery(search: URLSearchParams): {
  args: [string, string][];
  rest: URLSearchParams;
} {
  const args: [string, string][] = [];
  const rest = new URLSearchParams();
  for (const [key, value] of search) {
    if (!isReservedKey(key) && !/^(not|in|is)\./.test(value)) {
      try {
        parseOpExpr(value);
      } catch {
        args.push([key, value]);
        continue;
      }
    }
    rest.append(key, value);
  }
  return { args, rest };
}

/** The function call as a FROM item, its arguments bound in `params`. */
function callSql(
  fn: FunctionInfo,
  given: ReadonlyMap<string, string[]>,
  body: string | Uint8Array | undefined,
  wholeBody: boolean,
  params: Params,
): string {
  const target = `${quoteIdent(fn.schema)}.${quoteIdent(fn.name)}`;
  if (wholeBody) {
    const type = fn.args[0]?.type ?? 'json';
    return `${target}(${params.add(body ?? '')}::${type})`;
  }
  // The body is bound once, on the first argument that reads it (an unused one has no type).
  let bodyParam: string | undefined;
  const parts: string[] = [];
  fn.args.forEach((arg, i) => {
    const values = given.get(arg.name);
    if (values === undefined) return; // a default
    const variadic = fn.variadic && i === fn.args.length - 1;
    let value: string;
    if (body !== undefined) {
      bodyParam ??= params.add(body);
      // JSON values become the parameter's type as Postgres reads JSON into a record: strings
      // through the type's input, arrays into arrays, objects into composite (row) types.
      const key = params.add(arg.name);
      value = `(select _a.v from json_to_record(json_build_object('v', ${bodyParam}::json -> ${key})) as _a(v ${arg.type}))`;
    } else {
      const text = variadic ? pgArrayLiteral(values) : (values[values.length - 1] ?? '');
      value = `${params.add(text)}::${arg.type}`;
    }
    const named = arg.name === '' ? value : `${quoteIdent(arg.name)} => ${value}`;
    parts.push(variadic ? `variadic ${named}` : named);
  });
  return `${target}(${parts.join(', ')})`;
}

function contentRange(offset: number, shown: number, total: number | undefined): string {
  const totalText = total === undefined ? '*' : String(total);
  return shown === 0 ? `*/${totalText}` : `${offset}-${offset + shown - 1}/${totalText}`;
}

/** Calls the function a request names and answers with its result as PostgREST does. */
export async function callRpc(tx: SqlRunner, catalog: Catalog, req: RpcRequest): Promise<RpcReply> {
  const isPost = req.method === 'POST';
  let readSearch = req.search;
  const given = new Map<string, string[]>();
  let keys = new Set<string>();
  let jsonBody: string | undefined;
  const form = isPost && req.mediaType === FORM_TYPE;
  const bodyText =
    typeof req.body === 'string'
      ? req.body
      : new TextDecoder().decode(req.body ?? new Uint8Array());
  if (!isPost || form) {
    // A form's fields are arguments as a GET's are; its query string holds only filters.
    const split = form
      ? { args: [...new URLSearchParams(bodyText)], rest: req.search }
      : splitQuery(req.search);
    readSearch = split.rest;
    for (const [key, value] of split.args) given.set(key, [...(given.get(key) ?? []), value]);
    keys = new Set(given.keys());
  } else if (!RAW_BODY_TYPES.has(req.mediaType)) {
    const text = bodyText.trim() === '' ? '{}' : bodyText;
    const parsed = parseJsonBody(text);
    if (isPlainObject(parsed)) {
      keys = new Set(Object.keys(parsed));
      for (const key of keys) given.set(key, []);
    } else if (!Array.isArray(parsed)) {
      throw INVALID_BODY();
    }
    jsonBody = text;
  }
  const candidates = (await catalog.functions(req.name)).filter(callable).sort(overloadOrder);
  const fn = await resolve(tx, catalog.schema, candidates, req, keys);
  const wholeBody = isPost && !matchesParams(fn, keys, RAW_BODY_TYPES.has(req.mediaType));
  const params = new Params();
  const argsBody = form ? undefined : isPost ? (jsonBody ?? req.body) : undefined;
  const call = callSql(fn, given, argsBody, wholeBody, params);
  // PostgREST runs a POST to a stable or immutable function read-only, as it runs every GET.
  if (isPost && fn.volatility !== 'v') await tx.query('set transaction read only');
  if (fn.returnsVoid) {
    await tx.query(`select from ${call} _f`, params.values);
    return { status: 204, body: null, headers: {} };
  }
  const offset = nonNegativeInt('offset', readSearch.get('offset')) ?? req.range?.offset ?? 0;
  const asked = nonNegativeInt('limit', readSearch.get('limit')) ?? req.range?.limit;
  const limit = asked === undefined ? req.maxRows : Math.min(asked, req.maxRows);
  const scalar = fn.returnColumns === undefined;
  let sql: string;
  let matchSql: string;
  let matchParams: number;
  if (fn.returnColumns === undefined) {
    // A scalar (or a set of them) is one column; filters and order may name it pgrst_scalar.
    const from = `${call} as _f(${SCALAR})`;
    const cols = new ColumnResolver(fn.name, new Map([[SCALAR, fn.returnType]]));
    const where = compileFilters(cols, readSearch, params);
    const order = compileOrder(cols, readSearch.get('order'));
    matchSql = `select 1 from ${from} where ${where}`;
    matchParams = params.values.length;
    sql = `select ${quoteIdent(SCALAR)} from ${from} where ${where}`;
    if (order) sql += ` order by ${order}`;
    sql += ` limit ${params.add(limit)}`;
    if (offset > 0) sql += ` offset ${params.add(offset)}`;
  } else {
    // Rows are read like a table's (select, embeds from the returned table, filters, order):
    // the read planner, with the call as its FROM item.
    const plan = await planRead({
      tx,
      catalog,
      from: call,
      relation: fn.returnTable ?? fn.name,
      columns: fn.returnColumns,
      search: readSearch,
      params,
      offset,
      limit,
      maxRows: req.maxRows,
    });
    sql = plan.sql;
    matchSql = plan.matchSql;
    matchParams = plan.matchParams;
  }
  const agg = scalar ? `json_agg(_s.${quoteIdent(SCALAR)})` : 'json_agg(_s)';
  // The first item is cut out in SQL: a JSON round trip in JS would lose big integers' digits.
  const { rows } = await tx.query<{ body: string | null; first: string | null; n: number }>(
    `select ${agg}::text as body, (${agg} -> 0)::text as first, count(*)::int as n
       from (${sql}) _s`,
    params.values,
  );
  const n = rows[0]?.n ?? 0;
  const items = rows[0]?.body ?? '[]';
  const first = rows[0]?.first ?? 'null';
  let total: number | undefined;
  if (req.count) {
    const counted = await tx.query<{ n: string }>(
      `select count(*)::text as n from (${matchSql}) _c`,
      params.values.slice(0, matchParams),
    );
    total = Number(counted.rows[0]?.n ?? 0);
  }
  const headers: Record<string, string> = { 'Content-Range': contentRange(offset, n, total) };
  let body: string;
  if (req.singular) {
    if (n !== 1) {
      throw pgrstError(
        406,
        'PGRST116',
        'Cannot coerce the result to a single JSON object',
        `The result contains ${n} rows`,
      );
    }
    body = first;
    headers['Content-Type'] = SINGULAR_TYPE;
  } else if (!fn.returnsSet) {
    // One value (or row): the value itself, `null` when filters took it away.
    body = first;
    headers['Content-Type'] = JSON_TYPE;
  } else {
    body = items;
    headers['Content-Type'] = JSON_TYPE;
  }
  const partial = total !== undefined && n < total && !req.singular;
  return { status: partial ? 206 : 200, body: req.method === 'HEAD' ? null : body, headers };
}
