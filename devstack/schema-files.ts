// The SQL a devstack database is built from, in order: what hosted Supabase provides
// (devstack/bootstrap/'s parts), then every migration of supabase/migrations/ (or of another
// directory: an app testing its own schema with the sync kit), then optionally the seed.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const MIGRATIONS_DIR = join(REPO_ROOT, 'supabase', 'migrations');
export const SEED_FILE = join(REPO_ROOT, 'supabase', 'seed.sql');

export interface SqlFile {
  /** Path relative to the repository root (absolute when outside it), for error messages. */
  readonly name: string;
  readonly sql: string;
  /** What the file is: the bootstrap, a migration or the seed. */
  readonly kind?: 'bootstrap' | 'migration' | 'seed';
}

/**
 * Where a database's own schema comes from. Both default to the repository's (Outpost's):
 * supabase/migrations/ and supabase/seed.sql. Relative paths are from the current directory.
 */
export interface SchemaSource {
  /** A directory of .sql migrations, applied in name order after the bootstrap. */
  migrationsDir?: string | undefined;
  /** The seed file loaded into a new database when seeding (false: none). */
  seedFile?: string | false | undefined;
  /**
   * Several seed files, loaded in this order (another project's `[db.seed] sql_paths`);
   * when given, `seedFile` is not read.
   */
  seedFiles?: readonly string[] | undefined;
}

function read(path: string, kind: NonNullable<SqlFile['kind']>): SqlFile {
  const absolute = isAbsolute(path) ? path : join(REPO_ROOT, path);
  const inRepo = relative(REPO_ROOT, absolute);
  const name = inRepo.startsWith('..') || isAbsolute(inRepo) ? absolute : inRepo;
  return { name: name.split('\\').join('/'), sql: readFileSync(absolute, 'utf8'), kind };
}

/**
 * devstack/bootstrap/'s parts in the order they run. From the first re-runnable one on, every
 * part may run again on a database that has the rest (database.ts: an older data dir).
 */
const BOOTSTRAP_PARTS = [
  { file: 'roles.sql', rerunnable: false },
  { file: 'auth-schema.sql', rerunnable: false },
  { file: 'storage-schema.sql', rerunnable: false },
  { file: 'realtime-schema.sql', rerunnable: true },
  { file: 'auth-mfa.sql', rerunnable: true },
  { file: 'auth-oauth-clients.sql', rerunnable: true },
] as const;

const BOOTSTRAP_DIR = join(REPO_ROOT, 'devstack', 'bootstrap');

/** The bootstrap's parts in order (only the re-runnable ones when asked). */
export function bootstrapFiles(only?: 'rerunnable'): SqlFile[] {
  // A part added to the directory but not to the list would silently never run.
  const unlisted = readdirSync(BOOTSTRAP_DIR).filter(
    (f) => f.endsWith('.sql') && !BOOTSTRAP_PARTS.some((part) => part.file === f),
  );
  if (unlisted.length > 0)
    throw new Error(`devstack/bootstrap/ parts not in BOOTSTRAP_PARTS: ${unlisted.join(', ')}`);
  return BOOTSTRAP_PARTS.filter((part) => only === undefined || part.rerunnable).map((part) =>
    read(join(BOOTSTRAP_DIR, part.file), 'bootstrap'),
  );
}

function migrationsDirOf(source: SchemaSource = {}): string {
  return source.migrationsDir === undefined ? MIGRATIONS_DIR : resolve(source.migrationsDir);
}

/** Migration file names, applied in lexical order like `supabase db push`. */
export function migrationNames(source: SchemaSource = {}): string[] {
  const dir = migrationsDirOf(source);
  // Another project's supabase/ may have no migrations/ at all (the CLI then applies none).
  if (source.migrationsDir !== undefined && !existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort();
}

/** Every file a fresh database runs, in order. */
export function schemaFiles(options: { seed: boolean } & SchemaSource): SqlFile[] {
  const dir = migrationsDirOf(options);
  const files = [
    ...bootstrapFiles(),
    ...migrationNames(options).map((f) => read(join(dir, f), 'migration')),
  ];
  const seedFile = options.seedFile === undefined ? SEED_FILE : options.seedFile;
  if (options.seed && options.seedFiles !== undefined) {
    for (const file of options.seedFiles) files.push(read(resolve(file), 'seed'));
  } else if (options.seed && seedFile !== false) {
    files.push(read(resolve(seedFile), 'seed'));
  }
  return files;
}
