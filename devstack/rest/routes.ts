// The PostgREST-compatible REST service at /rest/v1: table reads and writes and rpc calls,
// each request one transaction as the caller (so RLS decides), answering in PostgREST's
// shapes, headers and status codes.
import type { Context } from 'hono';
import { Hono } from 'hono';

import { checkApiKey, resolveCaller, type Caller, type DevstackContext } from '../context';
import type { Claims } from '../keys';
import { runAsCaller, type ApiRole } from '../request-db';
import type { SqlRunner } from '../sql-engine';
import { SCHEMA_GENERATION_SELECT, SchemaCache, type Catalog, type TableInfo } from './catalog';
import { PgrstError, pgrstError, toPgrstError } from './errors';
import { bodyKind, bodySql, contentType, isSingular, negotiate, type Media } from './media';
import { checkStrict, maxAffectedError, withPreferenceApplied, type Prefer } from './prefer';
import { countTotal, explainBody, rangeHeader, rangeStatus } from './read-reply';
import {
  apiSearchPath,
  handleWithPrefs,
  requestProfile,
  RolledBack,
  rowsInRange,
  withProfile,
  type Handler,
} from './request-prefs';
import { callRpc, rpcMediaType } from './rpc';
import { planRead } from './read-plan';
import { nonNegativeInt, Params } from './query';
import { quoteIdent } from '../sql-quote';
import {
  deleteRows,
  insertRows,
  singularError,
  updateRows,
  type Reply,
  type WriteRequest,
} from './writes';

const JSON_TYPE = 'application/json; charset=utf-8';
const SINGULAR_TYPE = 'application/vnd.pgrst.object+json';

function wantsSingular(c: Context): boolean {
  return (c.req.header('accept') ?? '').includes(SINGULAR_TYPE);
}

async function requireTable(catalog: Catalog, name: string): Promise<TableInfo> {
  const table = await catalog.table(name);
  if (!table) {
    throw pgrstError(
      404,
      'PGRST205',
      `Could not find the table '${catalog.schema}.${name}' in the schema cache`,
    );
  }
  return table;
}

/** What every table or rpc handler gets besides the transaction: the Prefer and Accept read. */
export interface RequestShape {
  prefer: Prefer;
  media: Media;
}

async function readTable(
  tx: SqlRunner,
  catalog: Catalog,
  c: Context,
  table: TableInfo,
  search: URLSearchParams,
  head: boolean,
  maxRows: number,
  { prefer, media }: RequestShape,
): Promise<Reply> {
  const params = new Params();
  const range = rangeHeader(c);
  const offset = nonNegativeInt('offset', search.get('offset')) ?? range?.offset ?? 0;
  // max_rows caps every read, whatever `limit` or Range asks (PostgREST's db-max-rows).
  const asked = nonNegativeInt('limit', search.get('limit')) ?? range?.limit;
  const limit = asked === undefined ? maxRows : Math.min(asked, maxRows);
  // select, embeds, filters and orders: read-plan.ts (one statement, RLS on every embed).
  const plan = await planRead({
    tx,
    catalog,
    from: `${quoteIdent(table.schema)}.${quoteIdent(table.name)}`,
    relation: table.name,
    columns: table.columns,
    search,
    params,
    offset,
    limit,
    maxRows,
  });
  const sql = plan.sql;
  const statement = `select ${bodySql(media, '_s', sql)} as body, count(*)::int as n from (${sql}) _s`;
  if (media.kind === 'plan') {
    const plan = await explainBody(tx, media, statement, params.values);
    return { status: 200, body: plan, headers: { 'Content-Type': contentType(media) } };
  }
  const { rows } = await tx.query<{ body: string; n: number }>(statement, params.values);
  const result = rows[0] ?? { body: '[]', n: 0 };
  const total = await countTotal(
    tx,
    prefer.count,
    plan.matchSql,
    params.values.slice(0, plan.matchParams),
    maxRows,
  );
  if (isSingular(media) && result.n !== 1) throw singularError(result.n);
  const { status, contentRange, error } = rangeStatus(offset, result.n, total);
  const headers = withPreferenceApplied(
    { 'Content-Range': contentRange, 'Content-Type': contentType(media) },
    prefer,
    'read',
  );
  return { status, body: error ?? (head ? null : result.body), headers };
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
  let negotiated = false;
  let profile = 'public';
  try {
    ({ schema: profile, negotiated } = requestProfile(c, ctx.settings.apiSchemas ?? ['public']));
    const searchPath = apiSearchPath(profile, ctx.settings.extraSearchPath);
    // rpc reads its own body types (text, xml, bytea for one unnamed parameter): rpc.ts.
    const rpc = /\/rpc\/[^/]*$/.test(c.req.path);
    if ((c.req.method === 'POST' && !rpc) || c.req.method === 'PATCH') {
      // CSV bodies are read for inserts only; everything else takes JSON.
      const kind = bodyKind(c.req.header('content-type'));
      if (kind === 'csv' && (c.req.method === 'PATCH' || c.req.path.includes('/rpc/'))) {
        throw pgrstError(
          415,
          'PGRST107',
          `The request's Content-Type is not acceptable: ${c.req.header('content-type') ?? ''}`,
        );
      }
    }
    const cached = await schema.ready;
    const reply = await runAsCaller(
      ctx.db,
      role,
      claims,
      { method: c.req.method, path: new URL(c.req.url).pathname, headers: requestHeaders(c) },
      (tx, generation) =>
        handleWithPrefs(tx, schema.forRequest(tx, generation, profile), c, handler, searchPath),
      {
        // PostgREST runs GET and HEAD (rpc too) in a READ ONLY transaction: writes get 25006.
        readOnly: c.req.method === 'GET' || c.req.method === 'HEAD',
        ...(cached ? { also: SCHEMA_GENERATION_SELECT } : {}),
      },
    );
    return send(c, withProfile(reply, negotiated, profile));
  } catch (error) {
    if (error instanceof RolledBack) return send(c, withProfile(error.reply, negotiated, profile));
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
    const method = c.req.method;
    // Read the body before the transaction starts: PGlite has one connection.
    // A bytea body stays bytes; every other body is text.
    const octet = /^\s*application\/octet-stream/i.test(c.req.header('content-type') ?? '');
    const body =
      method !== 'POST'
        ? undefined
        : octet
          ? new Uint8Array(await c.req.arrayBuffer())
          : await c.req.text();
    return serve(ctx, schema, c, async (tx, catalog, { prefer }) => {
      checkStrict(prefer);
      const reply = await callRpc(tx, catalog, {
        name: c.req.param('fn'),
        method,
        search: new URL(c.req.url).searchParams,
        body,
        mediaType: rpcMediaType(method, c.req.header('content-type')),
        count: prefer.count !== undefined,
        range: rangeHeader(c),
        singular: wantsSingular(c),
        maxRows: ctx.settings.maxRows,
      });
      // max-affected counts the rows the call returned (PostgREST's page total), which its
      // Content-Range states; thrown here, the call's writes roll back.
      const tooMany = maxAffectedError(prefer, rowsInRange(reply.headers['Content-Range']));
      if (tooMany) throw tooMany;
      return { ...reply, headers: withPreferenceApplied(reply.headers, prefer, 'rpc') };
    });
  });

  app.all('/rpc/:fn', (c) =>
    send(
      c,
      errorReply(pgrstError(405, 'PGRST101', `Cannot use the ${c.req.method} method on RPC`)),
    ),
  );

  app.all('/:table', async (c) => {
    const name = c.req.param('table');
    const search = new URL(c.req.url).searchParams;
    const method = c.req.method;
    // Read the body before the transaction starts: PGlite has one connection, and a slow
    // upload must not hold it. Hono caches the text for readJson.
    if (method === 'POST' || method === 'PATCH') await c.req.text();
    return serve(ctx, schema, c, async (tx, catalog, { prefer, planEnabled }) => {
      const table = await requireTable(catalog, name);
      const accept = c.req.header('accept');
      if (method === 'GET' || method === 'HEAD') {
        // PostgREST's order for reads: the table, then the media type, then strict handling.
        const media = negotiate(accept, planEnabled);
        checkStrict(prefer);
        return readTable(tx, catalog, c, table, search, method === 'HEAD', ctx.settings.maxRows, {
          prefer,
          media,
        });
      }
      checkStrict(prefer);
      const write: WriteRequest = {
        tx,
        c,
        table,
        search,
        prefer,
        media: negotiate(accept, planEnabled),
      };
      switch (method) {
        case 'POST':
          return insertRows(write);
        case 'PATCH':
          return updateRows(write);
        case 'DELETE':
          return deleteRows(write);
        default:
          throw pgrstError(405, 'PGRST117', `Unsupported HTTP method: ${method}`);
      }
    });
  });

  return app;
}
