// The devstack's database: PGlite (in memory, or persistent in a data dir) or a real
// Postgres through DATABASE_URL, brought up to date with bootstrap + migrations (+ seed).
// A fresh in-memory PGlite starts from a snapshot of the bootstrapped data dir, kept on disk
// and keyed by the SQL it was made from, so every test suite after the first starts fast.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, isAbsolute, join } from 'node:path';

import { PGlite } from '@electric-sql/pglite';
import { pgcrypto } from '@electric-sql/pglite/contrib/pgcrypto';
import { uuid_ossp } from '@electric-sql/pglite/contrib/uuid_ossp';

import {
  bootstrapFiles,
  migrationNames,
  REPO_ROOT,
  schemaFiles,
  type SchemaSource,
  type SqlFile,
} from './schema-files';
import { applySqlFiles, openPostgres, wrapPglite, type SqlEngine } from './sql-engine';

export interface DatabaseOptions {
  /** postgres:// URL of a real server; PGlite when absent. */
  databaseUrl?: string | undefined;
  /** PGlite data dir to persist in; in memory when absent. */
  dataDir?: string | undefined;
  /** Load supabase/seed.sql into a new database. */
  seed: boolean;
  /** Start an in-memory PGlite from the cached snapshot (default true; false measures a cold start). */
  useSnapshot?: boolean | undefined;
  /**
   * Another schema than the repository's: a directory of migrations and a seed file (the
   * sync kit's backends for an app's own schema). The snapshot is keyed by these files too.
   */
  schema?: SchemaSource | undefined;
}

const SNAPSHOT_DIR = join(REPO_ROOT, 'node_modules', '.cache', 'outpost-devstack');

const TRACKING_SQL = `
  create schema if not exists supabase_migrations;
  create table if not exists supabase_migrations.schema_migrations (
    version text primary key,
    name text,
    statements text[]
  );`;

function versionOf(fileName: string): string {
  return fileName.split('_')[0] ?? fileName;
}

async function pendingMigrations(db: SqlEngine, source: SchemaSource): Promise<SqlFile[]> {
  await db.exec(TRACKING_SQL);
  const { rows } = await db.query<{ version: string }>(
    'select version from supabase_migrations.schema_migrations',
  );
  const applied = new Set(rows.map((r) => r.version));
  return schemaFiles({ ...source, seed: false })
    .filter((f) => f.kind === 'migration')
    .filter((f) => !applied.has(versionOf(f.name.split('/').pop() ?? '')));
}

async function recordMigrations(db: SqlEngine, files: readonly SqlFile[]): Promise<void> {
  for (const file of files) {
    const name = file.name.split('/').pop() ?? file.name;
    await db.query(
      `insert into supabase_migrations.schema_migrations (version, name) values ($1, $2)
       on conflict (version) do nothing`,
      [versionOf(name), name],
    );
  }
}

/**
 * A database bootstrapped before the bootstrap had the realtime schema (a persistent
 * .devstack/ data dir) gets the bootstrap's re-runnable parts, which are safe to run again.
 */
async function addRerunnableParts(db: SqlEngine): Promise<void> {
  const { rows } = await db.query<{ ok: boolean }>(
    // auth.mfa_amr_claims, auth.webauthn_challenges: the MFA and WebAuthn tables came after
    // the realtime schema (re-runnable parts too).
    `select to_regclass('realtime.messages') is not null
              and to_regclass('auth.mfa_amr_claims') is not null
              and to_regclass('auth.webauthn_challenges') is not null as ok`,
  );
  if (rows[0]?.ok) return;
  await applySqlFiles(db, bootstrapFiles('rerunnable'));
}

/**
 * The `postgres` role's search_path on every Supabase database (`alter role postgres set
 * search_path = "$user", public, extensions`): migrations and seeds run with it, so a seed
 * that calls pgcrypto's gen_salt() unqualified works as under `supabase db reset`. Set in each
 * file's own text (a pooled Postgres may run two files on two connections) and reset after.
 */
function withPostgresSearchPath(files: readonly SqlFile[]): SqlFile[] {
  return files.map((file) => ({
    ...file,
    sql: `set search_path = "$user", public, extensions;\n${file.sql}\n;\nreset search_path;`,
  }));
}

/** Brings an empty or older database up to date; returns true if it was empty. */
async function migrate(db: SqlEngine, seed: boolean, source: SchemaSource = {}): Promise<boolean> {
  const { rows } = await db.query<{ ready: boolean }>(
    `select exists (select 1 from pg_namespace where nspname = 'auth') as ready`,
  );
  const empty = !rows[0]?.ready;
  if (empty) {
    await applySqlFiles(db, bootstrapFiles());
  } else {
    await addRerunnableParts(db);
  }
  const pending = await pendingMigrations(db, source);
  await applySqlFiles(db, withPostgresSearchPath(pending));
  await recordMigrations(db, pending);
  if (empty && seed) {
    await applySqlFiles(
      db,
      withPostgresSearchPath(
        schemaFiles({ ...source, seed: true }).filter((f) => f.kind === 'seed'),
      ),
    );
  }
  return empty;
}

function snapshotKey(seed: boolean, source: SchemaSource): string {
  const hash = createHash('sha256');
  for (const file of schemaFiles({ ...source, seed })) {
    // A file outside the repository by its own name, not where it happens to be.
    hash.update(isAbsolute(file.name) ? basename(file.name) : file.name).update(file.sql);
  }
  hash.update(String(migrationNames(source).length));
  // Snapshots made before they were checkpointed (freshPglite) resume sequences 31 ahead.
  hash.update('checkpointed');
  return hash.digest('hex').slice(0, 16);
}

async function createPglite(options: { dataDir?: string; loadDataDir?: Blob }): Promise<PGlite> {
  return PGlite.create({
    ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
    ...(options.loadDataDir === undefined ? {} : { loadDataDir: options.loadDataDir }),
    extensions: { pgcrypto, uuid_ossp },
  });
}

/** An in-memory PGlite with the schema (and seed), from a snapshot when one exists. */
async function freshPglite(
  seed: boolean,
  useSnapshot: boolean,
  source: SchemaSource,
): Promise<SqlEngine> {
  const file = join(SNAPSHOT_DIR, `${snapshotKey(seed, source)}.tar.gz`);
  if (useSnapshot && existsSync(file)) {
    try {
      const blob = new Blob([readFileSync(file)]);
      return wrapPglite(await createPglite({ loadDataDir: blob }));
    } catch {
      // A damaged snapshot is rebuilt below.
    }
  }
  const pglite = await createPglite({});
  const db = wrapPglite(pglite);
  await migrate(db, seed, source);
  // A checkpoint first, so the snapshot's pages hold every sequence's real position: restored
  // from WAL instead, each sequence would resume past the 32 values Postgres logs ahead
  // (an identity column's next id jumping from 3 to 34).
  await db.exec('checkpoint');
  const dump = await pglite.dumpDataDir('gzip');
  mkdirSync(SNAPSHOT_DIR, { recursive: true });
  // Write then rename, so a parallel suite never reads half a snapshot.
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()));
  renameSync(tmp, file);
  return db;
}

/** Opens the devstack database described by `options`, migrated and ready. */
export async function openDevstackDatabase(options: DatabaseOptions): Promise<SqlEngine> {
  if (options.databaseUrl) {
    const db = openPostgres(options.databaseUrl, 20);
    await migrate(db, options.seed, options.schema);
    return db;
  }
  if (options.dataDir) {
    mkdirSync(options.dataDir, { recursive: true });
    const db = wrapPglite(await createPglite({ dataDir: options.dataDir }));
    await migrate(db, options.seed, options.schema);
    return db;
  }
  return freshPglite(options.seed, options.useSnapshot ?? true, options.schema ?? {});
}
