// The SQL a devstack database is built from, in order: what hosted Supabase provides
// (bootstrap.sql), then every migration of supabase/migrations/, then optionally the seed.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const MIGRATIONS_DIR = join(REPO_ROOT, 'supabase', 'migrations');

export interface SqlFile {
  /** Path relative to the repository root, for error messages. */
  readonly name: string;
  readonly sql: string;
}

function read(relativePath: string): SqlFile {
  return { name: relativePath, sql: readFileSync(join(REPO_ROOT, relativePath), 'utf8') };
}

/** Migration file names, applied in lexical order like `supabase db push`. */
export function migrationNames(): string[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith('.sql'))
    .sort();
}

/** Every file a fresh database runs, in order. */
export function schemaFiles(options: { seed: boolean }): SqlFile[] {
  const files = [
    read('devstack/bootstrap.sql'),
    ...migrationNames().map((f) => read(`supabase/migrations/${f}`)),
  ];
  if (options.seed) files.push(read('supabase/seed.sql'));
  return files;
}
