// Another project's supabase/ directory, read as the Supabase CLI reads it, so the devstack can
// host that project instead of Outpost (DEVSTACK_PROJECT_DIR, startDevstack's `projectDir`):
// its config.toml, its migrations/ and the seed files `[db.seed] sql_paths` names, its signing
// keys when `[auth] signing_keys_path` names some, else the legacy HS256 secret (`jwt_secret`,
// default the CLI's demo one) as a CLI project without signing keys has.
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { parse } from 'smol-toml';

import { isPlainObject } from './json';
import { DEMO_JWT_SECRET } from './keys';
import { loadSigningKeys } from './keys-config';
import type { SchemaSource } from './schema-files';

/** What a devstack takes from a project directory. */
export interface ProjectDir {
  /** The directory itself (the one holding config.toml). */
  readonly dir: string;
  readonly configPath: string;
  readonly configText: string;
  /** Its migrations and seed files. */
  readonly schema: SchemaSource;
  /** Whether `[db.seed] enabled` (default true, as the CLI). */
  readonly seed: boolean;
  /** The signing keys `[auth] signing_keys_path` names; empty when it names none. */
  readonly signingKeys: JWK[];
  /** `[auth] jwt_secret`, or the CLI's demo secret. */
  readonly jwtSecret: string;
  /** Whether config.toml sets `[auth] jwt_secret` itself. */
  readonly jwtSecretSet: boolean;
  /** `[api] schemas`: the schemas the REST API exposes, in order (the first is the default). */
  readonly schemas: readonly string[];
  /** `[api] extra_search_path`: on the search_path of every API request. */
  readonly extraSearchPath: readonly string[];
  /** `[storage] file_size_limit` in bytes (the CLI's default 50 MiB). */
  readonly storageFileSizeLimit: number;
  /** supabase/functions of that project. */
  readonly functionsDir: string;
}

/** The CLI's defaults for what a config.toml leaves out. */
const DEFAULT_SCHEMAS = ['public', 'graphql_public'];
const DEFAULT_EXTRA_SEARCH_PATH = ['public', 'extensions'];
const DEFAULT_FILE_SIZE_LIMIT = 50 * 1024 * 1024;

type Table = Record<string, unknown>;

function table(value: unknown): Table {
  return isPlainObject(value) ? value : {};
}

function stringList(value: unknown, where: string, fallback: readonly string[]): string[] {
  if (value === undefined) return [...fallback];
  if (!Array.isArray(value) || !value.every((v): v is string => typeof v === 'string')) {
    throw new Error(`${where} must be a list of strings`);
  }
  return value;
}

/** A size as config.toml writes it ("50MiB", "10MB", "1024", 1024) in bytes. */
export function parseConfigSize(value: unknown, where: string): number {
  if (typeof value === 'number' || typeof value === 'bigint') return Number(value);
  const match =
    typeof value === 'string' ? /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?i?b)?\s*$/i.exec(value) : null;
  if (!match?.[1]) throw new Error(`${where} must be a size such as "50MiB"`);
  const unit = (match[2] ?? 'b').toLowerCase();
  // The CLI reads sizes with go-units' RAMInBytes: KB, MB and KiB, MiB alike are powers of 1024.
  const power = { b: 0, kb: 1, kib: 1, mb: 2, mib: 2, gb: 3, gib: 3, tb: 4, tib: 4 }[unit];
  if (power === undefined) throw new Error(`${where}: unknown unit ${unit}`);
  return Math.round(Number(match[1]) * 1024 ** power);
}

/**
 * The seed files `sql_paths` names, relative to the directory, in order; a glob's `*` matches
 * within one path segment, and its matches are sorted, as the CLI expands them.
 */
function seedPaths(dir: string, patterns: readonly string[]): string[] {
  const files: string[] = [];
  for (const pattern of patterns) {
    const path = resolve(dir, pattern);
    if (!pattern.includes('*')) {
      if (existsSync(path)) files.push(path);
      continue;
    }
    const folder = dirname(path);
    const glob = new RegExp(
      `^${basename(path)
        .split('*')
        .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]*')}$`,
    );
    if (!existsSync(folder)) continue;
    for (const name of readdirSync(folder).sort()) {
      if (glob.test(name)) files.push(join(folder, name));
    }
  }
  return [...new Set(files)];
}

/** The `[api]` and `[storage]` settings of any config.toml (Outpost's own too). */
export function configSettings(
  configText: string,
  configPath: string,
): Pick<ProjectDir, 'schemas' | 'extraSearchPath' | 'storageFileSizeLimit'> {
  const config = table(parse(configText));
  const api = table(config.api);
  const storage = table(config.storage);
  return {
    schemas: stringList(api.schemas, `${configPath}: [api] schemas`, DEFAULT_SCHEMAS),
    extraSearchPath: stringList(
      api.extra_search_path,
      `${configPath}: [api] extra_search_path`,
      DEFAULT_EXTRA_SEARCH_PATH,
    ),
    storageFileSizeLimit:
      storage.file_size_limit === undefined
        ? DEFAULT_FILE_SIZE_LIMIT
        : parseConfigSize(storage.file_size_limit, `${configPath}: [storage] file_size_limit`),
  };
}

/** Reads a project's supabase/ directory (the folder holding its config.toml). */
export function readProjectDir(projectDir: string): ProjectDir {
  const dir = resolve(projectDir);
  const configPath = join(dir, 'config.toml');
  if (!existsSync(configPath))
    throw new Error(`${dir}: no config.toml (not a supabase/ directory)`);
  const configText = readFileSync(configPath, 'utf8');
  const config = table(parse(configText));
  const auth = table(config.auth);
  const db = table(config.db);
  const seedConfig = table(db.seed);

  const signingKeys =
    typeof auth.signing_keys_path === 'string' && auth.signing_keys_path !== ''
      ? loadSigningKeys(configText, configPath)
      : [];
  const jwtSecret = typeof auth.jwt_secret === 'string' ? auth.jwt_secret : DEMO_JWT_SECRET;
  const seed = seedConfig.enabled !== false;
  const sqlPaths = stringList(seedConfig.sql_paths, `${configPath}: [db.seed] sql_paths`, [
    './seed.sql',
  ]);
  return {
    dir,
    configPath,
    configText,
    schema: { migrationsDir: join(dir, 'migrations'), seedFiles: seedPaths(dir, sqlPaths) },
    seed,
    signingKeys,
    jwtSecret,
    jwtSecretSet: typeof auth.jwt_secret === 'string',
    ...configSettings(configText, configPath),
    functionsDir: join(dir, 'functions'),
  };
}

/** The key model a hosted project gets (keys.ts's KeysOptions, in part). */
export interface ProjectKeyOptions {
  readonly signingKeys: JWK[];
  readonly legacy: false | { jwtSecret: string };
  readonly jwtApiKeys: true;
}

/**
 * The keys a CLI project has: its signing keys (sessions are signed by the first), else a key
 * made for this run (the CLI signs sessions HS256 then; tokens only this devstack reads, so any
 * key it verifies will do). HS256 with the project's secret verifies when the project has no
 * signing keys, names its `jwt_secret`, or DEVSTACK_LEGACY_KEYS=true. JWT-shaped API keys of
 * role anon or service_role are accepted, as the CLI's gateway passes them to the services.
 */
export async function projectKeyOptions(
  project: ProjectDir,
  legacyFromEnv: boolean,
): Promise<ProjectKeyOptions> {
  let signingKeys = project.signingKeys;
  if (signingKeys.length === 0) {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    signingKeys = [{ ...(await exportJWK(privateKey)), kid: randomUUID(), alg: 'ES256' }];
  }
  const legacyOn = project.signingKeys.length === 0 || project.jwtSecretSet || legacyFromEnv;
  return {
    signingKeys,
    legacy: legacyOn ? { jwtSecret: project.jwtSecret } : false,
    jwtApiKeys: true,
  };
}
