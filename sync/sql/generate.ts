// Generates an app's sync migration from its SyncSchema: the registry rows, the sync
// bookkeeping tables, sync_push / sync_pull and their helpers, the stamp and realtime
// triggers of every synced table, the realtime topic function and policies. The client's
// TypeScript schema is thus the one source of the server's registry (sync/README.md).
//
//   npx tsx sync/sql/generate.ts <module-path> [exportName] > supabase/migrations/…_sync.sql
//
// prints the migration for the SyncSchema that module exports (by name, or its only one).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

import type { SyncSchema, TableSpec } from '../registry';
import { renderMigration, type Names, type RegistryRow, type ScopedGroups } from './templates';

/** A name the generated SQL may write unquoted: lower-case, not a reserved word, ≤ 63 bytes. */
const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

// Postgres' reserved key words (and the few non-reserved ones that still cannot name a
// column or table unquoted): such names would have to be quoted, which the templates do not.
const RESERVED = new Set(
  (
    'all analyse analyze and any array as asc asymmetric authorization binary both case cast check ' +
    'collate collation column concurrently constraint create cross current_catalog current_date ' +
    'current_role current_schema current_time current_timestamp current_user default deferrable ' +
    'desc distinct do else end except false fetch for foreign freeze from full grant group having ' +
    'ilike in initially inner intersect into is isnull join lateral leading left like limit ' +
    'localtime localtimestamp natural not notnull null offset on only or order outer overlaps ' +
    'placing primary references returning right select session_user similar some symmetric ' +
    'system_user table tablesample then to trailing true union unique user using variadic verbose ' +
    'when where window with'
  ).split(' '),
);

/** Throws unless `name` is a safe identifier (`what` says where it came from). */
function identifier(name: string, what: string, room = 0): string {
  if (!IDENTIFIER.test(name) || RESERVED.has(name) || name.length + room > 63) {
    throw new Error(
      `${what}: "${name}" must match [a-z_][a-z0-9_]*, not be a reserved word and fit 63 bytes` +
        (room ? ` with ${String(room)} to spare` : ''),
    );
  }
  return name;
}

function registryRow(spec: TableSpec): RegistryRow {
  const what = `table ${spec.name}`;
  identifier(spec.name, 'table name', '_sync_idx'.length);
  const scopeColumn = spec.scope.kind === 'list' ? spec.scope.column : 'id';
  identifier(scopeColumn, `${what}: scope column`);
  for (const c of [...spec.insertColumns, ...spec.patchColumns]) identifier(c, `${what}: column`);
  if (!Number.isInteger(spec.depth) || spec.depth < 0) {
    throw new Error(`${what}: depth must be a non-negative integer`);
  }
  return {
    name: spec.name,
    scope: spec.scope.kind,
    scopeColumn,
    insertColumns: spec.insertColumns,
    patchColumns: spec.patchColumns,
    deletable: spec.deletable ?? spec.scope.kind === 'list',
    depth: spec.depth,
  };
}

/** Checks the schema against what the server's templates assume, and names their parts. */
function namesOf(schema: SyncSchema, registry: readonly RegistryRow[]): Names {
  const { access } = schema;
  const app = identifier(schema.app ?? 'sync', 'app');
  const scopes = identifier(access.scopes, 'access.scopes', '_realtime_epoch_guard'.length);
  const members = identifier(access.members, 'access.members', '_realtime_epoch'.length);
  const memberScope = identifier(access.memberScope, 'access.memberScope');
  const memberUser = identifier(access.memberUser, 'access.memberUser');
  const memberRole =
    access.memberRole === null
      ? null
      : identifier(access.memberRole ?? 'role', 'access.memberRole');
  const peers = access.peers === undefined ? null : identifier(access.peers, 'access.peers');

  const names = new Set<string>();
  for (const row of registry) {
    if (names.has(row.name)) throw new Error(`table ${row.name} is declared twice`);
    names.add(row.name);
  }
  const find = (name: string) => registry.find((r) => r.name === name);
  const scopesRow = find(scopes);
  if (scopesRow?.scope !== 'list' || scopesRow.scopeColumn !== 'id') {
    throw new Error(
      `access.scopes ${scopes} must be a synced table scoped { kind: 'list', column: 'id' }`,
    );
  }
  const membersRow = find(members);
  if (membersRow?.scope !== 'list' || membersRow.scopeColumn !== memberScope) {
    throw new Error(
      `access.members ${members} must be a synced table scoped { kind: 'list', column: '${memberScope}' }`,
    );
  }
  for (const row of registry) {
    if (row.scope === 'peer' && row.name !== peers) {
      throw new Error(
        `table ${row.name} is scoped 'peer' but access.peers is ${peers ?? 'not set'}`,
      );
    }
  }
  if (peers !== null && find(peers)?.scope !== 'peer') {
    throw new Error(`access.peers ${peers} must be a synced table scoped { kind: 'peer' }`);
  }
  return {
    app,
    scopes,
    members,
    memberScope,
    memberUser,
    memberRole,
    peers,
    scopesEpochGuard: `${scopes}_realtime_epoch_guard`,
    membersEpoch: `${members}_realtime_epoch`,
  };
}

/** The list-scoped tables other than the container and memberships, grouped by column. */
function groupsOf(names: Names, registry: readonly RegistryRow[]): ScopedGroups {
  const groups = new Map<string, string[]>();
  for (const row of registry) {
    if (row.scope !== 'list' || row.name === names.scopes || row.name === names.members) continue;
    const tables = groups.get(row.scopeColumn) ?? [];
    tables.push(row.name);
    groups.set(row.scopeColumn, tables);
  }
  return [...groups];
}

/** The sync migration for `schema`: one SQL script, safe to run again. */
export function syncSql(schema: SyncSchema): string {
  if (!Number.isInteger(schema.version) || schema.version < 0 || schema.version > 2 ** 31 - 1) {
    throw new Error('version must be a non-negative 32-bit integer');
  }
  const registry = schema.tables.map(registryRow);
  const names = namesOf(schema, registry);
  const header = `-- The sync library's server side for the app "${names.app}" (sync contract version ${String(
    schema.version,
  )}), generated
-- from its SyncSchema by sync/sql/generate.ts: do not edit, generate again. Run it after the
-- migrations that create the synced tables (${registry.map((r) => r.name).join(', ')}).
`;
  return renderMigration({
    names,
    version: schema.version,
    registry,
    groups: groupsOf(names, registry),
    header,
  });
}

function isSyncSchema(value: unknown): value is SyncSchema {
  return (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as SyncSchema).tables) &&
    typeof (value as SyncSchema).access === 'object'
  );
}

/** The SyncSchema a module exports: `exportName`, or the only export that is one. */
export async function loadSchema(modulePath: string, exportName?: string): Promise<SyncSchema> {
  const module = (await import(pathToFileURL(resolve(modulePath)).href)) as Record<string, unknown>;
  if (exportName !== undefined) {
    const value = module[exportName];
    if (!isSyncSchema(value)) throw new Error(`${modulePath} exports no SyncSchema ${exportName}`);
    return value;
  }
  const found = Object.entries(module).filter(([, value]) => isSyncSchema(value));
  const [only] = found;
  if (found.length !== 1 || !only) {
    throw new Error(
      `${modulePath} exports ${String(found.length)} SyncSchemas` +
        (found.length ? ` (${found.map(([k]) => k).join(', ')}): name one` : ''),
    );
  }
  return only[1] as SyncSchema;
}

const invoked = process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (invoked) {
  const [modulePath, exportName] = process.argv.slice(2);
  if (!modulePath) {
    process.stderr.write('usage: npx tsx sync/sql/generate.ts <module-path> [exportName]\n');
    process.exit(2);
  }
  loadSchema(modulePath, exportName)
    .then((schema) => process.stdout.write(syncSql(schema)))
    .catch((error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    });
}
