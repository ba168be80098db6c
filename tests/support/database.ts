// Fresh databases for integration tests, on PGlite and on a throwaway Postgres 15 cluster,
// and a way to run SQL as a Supabase API caller (role + JWT claims, as PostgREST does).
import { openDevstackDatabase } from '../../devstack/database';
import { openPostgres, sqlState, type SqlEngine, type SqlRunner } from '../../devstack/sql-engine';
import { actAs, type Caller } from '../../sync/kit/sql';
import { freshPostgres } from './pg-databases';

export type EngineKind = 'pglite' | 'postgres';
export const ENGINE_KINDS: readonly EngineKind[] = ['pglite', 'postgres'];

export interface TestDatabase {
  readonly kind: EngineKind;
  readonly engine: SqlEngine;
  close(): Promise<void>;
}

/** A new database with bootstrap + migrations (+ seed) applied. */
export async function freshDatabase(
  kind: EngineKind,
  options = { seed: true },
): Promise<TestDatabase> {
  if (kind === 'pglite') {
    // In memory, from the devstack's cached snapshot of the same schema.
    const engine = await openDevstackDatabase({ seed: options.seed });
    return { kind, engine, close: () => engine.close() };
  }
  // A copy of a template on the run's one cluster: the schema is already there.
  const database = await freshPostgres(options.seed ? 'seeded' : 'schema');
  const engine = openPostgres(database.url, 20);
  return {
    kind,
    engine,
    close: async () => {
      await engine.close();
      await database.stop();
    },
  };
}

export { actAs, asCaller, type Caller } from '../../sync/kit/sql';

/** Runs `fn` as `caller` inside a transaction that is always rolled back. */
export async function asCallerThenRollback<T>(
  engine: SqlEngine,
  caller: Caller,
  fn: (tx: SqlRunner) => Promise<T>,
): Promise<T> {
  let result: T | undefined;
  let failure: { error: unknown } | undefined;
  const rollback = new Error('rollback');
  await engine
    .transaction(async (tx) => {
      await actAs(tx, caller);
      try {
        result = await fn(tx);
      } catch (error) {
        failure = { error };
      }
      throw rollback;
    })
    .catch((error: unknown) => {
      if (error !== rollback) throw error;
    });
  if (failure) throw failure.error;
  return result as T;
}

/** The SQLSTATE `fn` fails with, or undefined when it succeeds. */
export async function failureCode(fn: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await fn();
    return undefined;
  } catch (error) {
    const code = sqlState(error);
    if (code === undefined) throw error;
    return code;
  }
}

let counter = 0;
/** A valid, unique, readable uuid: `prefix` is up to 8 hex digits. */
export function testId(prefix: string): string {
  counter += 1;
  const tail = counter.toString(16).padStart(12, '0');
  return `${prefix.padEnd(8, '0').slice(0, 8)}-0000-4000-8000-${tail}`;
}

/** Creates auth users (profiles follow by trigger) as the superuser. */
export async function createUsers(engine: SqlRunner, users: Record<string, string>): Promise<void> {
  for (const [name, id] of Object.entries(users)) {
    await engine.query(
      `insert into auth.users (id, aud, role, email, raw_user_meta_data, created_at, updated_at)
       values ($1, 'authenticated', 'authenticated', $2, $3, now(), now())`,
      [id, `${name}-${id.slice(-6)}@example.com`, JSON.stringify({ display_name: name })],
    );
  }
}
