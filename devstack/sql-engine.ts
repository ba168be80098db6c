// One small interface over the two Postgres engines the devstack runs on: PGlite (in
// process, one connection) and a real server through `pg`. Tests and the devstack speak
// only this, so every suite can run on both.
import { PGlite } from '@electric-sql/pglite';
import { pgcrypto } from '@electric-sql/pglite/contrib/pgcrypto';
import { uuid_ossp } from '@electric-sql/pglite/contrib/uuid_ossp';
import pg from 'pg';

import { schemaFiles, type SqlFile } from './schema-files';
import { quoteIdent } from './sql-quote';

export type SqlParam = string | number | boolean | null | Date | Uint8Array;
export type Row = Record<string, unknown>;

export interface QueryResult<R extends Row = Row> {
  rows: R[];
  /** Rows changed by INSERT/UPDATE/DELETE, 0 otherwise. */
  affected: number;
}

/** A connection (or transaction) that runs SQL. */
export interface SqlRunner {
  query<R extends Row = Row>(sql: string, params?: readonly SqlParam[]): Promise<QueryResult<R>>;
  /** Runs several statements (no parameters), e.g. a migration file. */
  exec(sql: string): Promise<void>;
}

export interface SqlEngine extends SqlRunner {
  readonly kind: 'pglite' | 'postgres';
  /** Runs `fn` in one transaction on one connection; rolls back if it throws. */
  transaction<T>(fn: (tx: SqlRunner) => Promise<T>): Promise<T>;
  /** A separate connection where the engine has more than one (real Postgres only). */
  connect(): Promise<SqlRunner & { release(): Promise<void> }>;
  /** Calls `onPayload` for each NOTIFY on `channel`; resolves to an unsubscribe function. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/**
 * Runs DDL that another start-up task may run on another connection at the same moment. Two
 * `create schema if not exists` of one name racing on Postgres fail the later with 23505
 * (`pg_namespace_nspname_index`); once the first has committed, a second try passes. The
 * devstack's change capture and its database-broadcast relay both make `devstack_realtime`.
 */
export async function execRacingDdl(db: SqlRunner, sql: string): Promise<void> {
  try {
    await db.exec(sql);
  } catch (error) {
    if (sqlState(error) !== '23505') throw error;
    await db.exec(sql);
  }
}

/** The SQLSTATE of a database error from either engine, if it is one. */
export function sqlState(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = error.code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

// PGlite has a single connection: transactions must not interleave, so they queue here.
class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

function pgliteRunner(db: Pick<PGlite, 'query' | 'exec'>): SqlRunner {
  return {
    async query<R extends Row>(sql: string, params: readonly SqlParam[] = []) {
      const res = await db.query<R>(sql, [...params]);
      return { rows: res.rows, affected: res.affectedRows ?? 0 };
    },
    async exec(sql: string) {
      await db.exec(sql);
    },
  };
}

class PgliteEngine implements SqlEngine {
  readonly kind = 'pglite' as const;
  private readonly queue = new SerialQueue();
  private readonly runner: SqlRunner;

  constructor(readonly db: PGlite) {
    this.runner = pgliteRunner(db);
  }

  query<R extends Row = Row>(sql: string, params?: readonly SqlParam[]) {
    return this.queue.run(() => this.runner.query<R>(sql, params));
  }
  exec(sql: string) {
    return this.queue.run(() => this.runner.exec(sql));
  }
  transaction<T>(fn: (tx: SqlRunner) => Promise<T>): Promise<T> {
    return this.queue.run(() => this.db.transaction((tx) => fn(pgliteRunner(tx))));
  }
  connect(): Promise<SqlRunner & { release(): Promise<void> }> {
    return Promise.reject(new Error('PGlite has a single connection; use transaction()'));
  }
  async listen(channel: string, onPayload: (payload: string) => void) {
    const unsubscribe = await this.queue.run(() => this.db.listen(channel, onPayload));
    return () => this.queue.run(() => unsubscribe());
  }
  close() {
    return this.db.close();
  }
}

function clientRunner(client: pg.PoolClient | pg.Pool): SqlRunner {
  return {
    async query<R extends Row>(sql: string, params: readonly SqlParam[] = []) {
      const res = await client.query<R>(sql, [...params]);
      return { rows: res.rows, affected: res.rowCount ?? 0 };
    },
    async exec(sql: string) {
      await client.query(sql);
    },
  };
}

class PostgresEngine implements SqlEngine {
  readonly kind = 'postgres' as const;
  private readonly runner: SqlRunner;

  constructor(private readonly pool: pg.Pool) {
    this.runner = clientRunner(pool);
  }

  query<R extends Row = Row>(sql: string, params?: readonly SqlParam[]) {
    return this.runner.query<R>(sql, params);
  }
  exec(sql: string) {
    return this.runner.exec(sql);
  }
  async transaction<T>(fn: (tx: SqlRunner) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      // Not awaited alone: pg sends queries in order, so `fn`'s first statement follows the
      // BEGIN without a turn of its own (if BEGIN fails, so does everything after it).
      const [, result] = await Promise.all([client.query('begin'), fn(clientRunner(client))]);
      await client.query('commit');
      return result;
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
  async connect() {
    const client = await this.pool.connect();
    return {
      ...clientRunner(client),
      release: () => {
        client.release();
        return Promise.resolve();
      },
    };
  }
  async listen(channel: string, onPayload: (payload: string) => void) {
    // LISTEN holds its connection for as long as the subscription lives.
    const client = await this.pool.connect();
    const handler = (msg: pg.Notification) => {
      if (msg.channel === channel) onPayload(msg.payload ?? '');
    };
    client.on('notification', handler);
    // A checked-out client's error has no pool handler: without this, a database dropped or
    // restarted under a listening devstack (a test suite's `drop database … with (force)`,
    // 57P01) is an uncaught exception. The subscription just ends.
    let lost = false;
    const onError = (error: Error) => {
      lost = true;
      console.warn(`[db] the connection listening on ${channel} ended: ${error.message}`);
    };
    client.on('error', onError);
    await client.query(`listen ${quoteIdent(channel)}`);
    return async () => {
      client.off('notification', handler);
      await client.query(`unlisten ${quoteIdent(channel)}`).catch(() => undefined);
      client.off('error', onError);
      // A lost connection is destroyed, not handed to the next caller.
      client.release(lost);
    };
  }
  close() {
    return this.pool.end();
  }
}

// xid8 and int8 arrive as strings from both engines; keep them exact.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => v);

/** A PGlite database in memory (or at `dataDir`), with the extensions Supabase has. */
export async function openPglite(dataDir?: string): Promise<SqlEngine> {
  const db = await PGlite.create({
    ...(dataDir === undefined ? {} : { dataDir }),
    extensions: { pgcrypto, uuid_ossp },
  });
  return new PgliteEngine(db);
}

/** The engine interface over an already open PGlite. */
export function wrapPglite(db: PGlite): SqlEngine {
  return new PgliteEngine(db);
}

/** A pool onto a real Postgres server. */
export function openPostgres(connectionString: string, max = 10): SqlEngine {
  const pool = new pg.Pool({ connectionString, max });
  // An idle connection the server ends (a restart, a test suite's `drop database … with
  // (force)`: 57P01) is re-emitted on the pool, and an unheard 'error' is an uncaught
  // exception. The pool drops that connection and opens another when next asked.
  pool.on('error', (error) => {
    console.warn(`[db] an idle connection ended: ${error.message}`);
  });
  return new PostgresEngine(pool);
}

/** Runs SQL files in order, naming the file that failed. */
export async function applySqlFiles(engine: SqlRunner, files: readonly SqlFile[]): Promise<void> {
  for (const file of files) {
    try {
      await engine.exec(file.sql);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(`${file.name}: ${message}`, { cause: error });
    }
  }
}

/** Bootstrap + migrations (+ seed) onto an empty database. */
export async function applySchema(engine: SqlRunner, options: { seed: boolean }): Promise<void> {
  await applySqlFiles(engine, schemaFiles(options));
}
