// What PostgREST settles about a request before and after its statement: the schema profile
// it names (Accept-/Content-Profile, PGRST106), the search_path, its Prefer header read under
// the database's in-database config (db-tx-end, db-plan-enabled), the timezone it prefers,
// and how its transaction ends (tx=rollback answers, then rolls back).
import type { Context } from 'hono';

import type { SqlRunner } from '../sql-engine';
import { quoteIdent } from '../sql-quote';
import type { Catalog } from './catalog';
import { allowsTxOverride, DEFAULT_DB_CONFIG, readDbConfig, shouldRollback } from './db-config';
import { pgrstError } from './errors';
import { parsePrefer, type Prefer } from './prefer';
import type { Reply } from './writes';

/**
 * The schema a request names, as PostgREST's getSchema reads it: `Accept-Profile` on GET and
 * HEAD, `Content-Profile` on writes, PGRST106 (listing config.toml's `[api] schemas`) for one
 * not exposed; without a profile, the first schema listed. Only exposed schemas are ever
 * chosen, so `auth`, `storage` or any private schema stay unreachable through a profile.
 * `negotiated`: answer with a Content-Profile header (a profile was named, or several
 * schemas are exposed).
 */
export function requestProfile(
  c: Context,
  schemas: readonly string[],
): { schema: string; negotiated: boolean } {
  const method = c.req.method;
  const write = method === 'POST' || method === 'PATCH' || method === 'PUT' || method === 'DELETE';
  const profile = c.req.header(write ? 'content-profile' : 'accept-profile');
  const fallback = schemas[0];
  if ((profile !== undefined && !schemas.includes(profile)) || fallback === undefined) {
    throw pgrstError(
      406,
      'PGRST106',
      `Invalid schema: ${profile ?? ''}`,
      null,
      `Only the following schemas are exposed: ${schemas.join(', ')}`,
    );
  }
  return { schema: profile ?? fallback, negotiated: profile !== undefined || schemas.length !== 1 };
}

// How many rows a Content-Range (`0-2/*` three, `*/0` none) says a reply holds.
export function rowsInRange(contentRange: string | undefined): number {
  const match = /^(\d+)-(\d+)\//.exec(contentRange ?? '');
  return match ? Number(match[2]) - Number(match[1]) + 1 : 0;
}

/**
 * PostgREST's search_path: the request's schema, then config.toml's `extra_search_path`, each
 * quoted. Undefined when it is `public` with the CLI's default (`public, extensions`), which
 * every request's settings already set (request-db.ts), so most requests pay no extra statement.
 */
export function apiSearchPath(
  schema: string,
  extra: readonly string[] | undefined,
): string | undefined {
  const rest = extra ?? ['public', 'extensions'];
  if (
    schema === 'public' &&
    rest.length === 2 &&
    rest[0] === 'public' &&
    rest[1] === 'extensions'
  ) {
    return undefined;
  }
  return [schema, ...rest].map(quoteIdent).join(', ');
}

/** PostgREST names the schema of a negotiated profile beside the Content-Type of a body. */
export function withProfile(reply: Reply, negotiated: boolean, schema: string): Reply {
  if (!negotiated || reply.headers['Content-Type'] === undefined) return reply;
  return { ...reply, headers: { ...reply.headers, 'Content-Profile': schema } };
}

/** The request's preferences, read inside its transaction (db-tx-end decides `tx=`). */
export interface RequestPrefs {
  prefer: Prefer;
  /** db-plan-enabled: whether `application/vnd.pgrst.plan` may be negotiated. */
  planEnabled: boolean;
}

export type Handler = (tx: SqlRunner, catalog: Catalog, prefs: RequestPrefs) => Promise<Reply>;

/** Carries a finished reply out of a transaction that must roll back (`Prefer: tx=rollback`). */
export class RolledBack extends Error {
  constructor(readonly reply: Reply) {
    super('rolled back as the request preferred');
  }
}

/**
 * Runs the handler with the request's preferences, then ends the transaction as PostgREST
 * would: rolled back (constraints checked first) when the preferences or db-tx-end say so.
 * The in-database config is read only when the request could be affected by it.
 */
export async function handleWithPrefs(
  tx: SqlRunner,
  catalog: Catalog,
  c: Context,
  handler: Handler,
  searchPath: string | undefined,
): Promise<Reply> {
  const header = c.req.header('prefer');
  const accept = c.req.header('accept') ?? '';
  const needsConfig = /\btx=/.test(header ?? '') || /vnd\.pgrst\.plan/i.test(accept);
  const dbConfig = needsConfig ? await readDbConfig(tx) : DEFAULT_DB_CONFIG;
  const prefer = parsePrefer(header, allowsTxOverride(dbConfig));
  if (searchPath !== undefined) {
    await tx.query(`select set_config('search_path', $1, true)`, [searchPath]);
  }
  if (prefer.timezone !== undefined) {
    // As PostgREST: set for the transaction; Postgres refuses an unknown zone (22023).
    await tx.query(`select set_config('timezone', $1, true)`, [prefer.timezone]);
  }
  const reply = await handler(tx, catalog, { prefer, planEnabled: dbConfig.planEnabled });
  if (shouldRollback(dbConfig, prefer.tx)) {
    await tx.query('set constraints all immediate');
    throw new RolledBack(reply);
  }
  return reply;
}
