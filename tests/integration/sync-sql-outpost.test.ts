// The generator's templates are Outpost's real sync code, generalised: applied with Outpost's
// own schema over Outpost's migrations, the generated migration changes nothing: not one
// function (definition, owner, privileges), trigger, policy, registry row, column,
// constraint, index or table privilege. So sync_push / sync_pull as any app gets them are
// the ones Outpost's suites test.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { SqlEngine } from '../../devstack/sql-engine';
import { ENGINE_KINDS, freshDatabase, type TestDatabase } from '../support/database';
import { OUTPOST_SCHEMA } from '../../src/data/tables';
import type { SyncSchema } from '../../sync/index';
import { loadSchema, syncSql } from '../../sync/sql/generate';

// Outpost's migrations name its realtime policies "outpost: …" and its epoch setting
// `outpost.realtime_epoch_bump`; the schema's `app` says so (src/data/tables.ts does not set it
// yet, so it is filled in here; once it does, this is OUTPOST_SCHEMA itself).
const OUTPOST: SyncSchema = { ...OUTPOST_SCHEMA, app: OUTPOST_SCHEMA.app ?? 'outpost' };

/** Everything of a database the sync migration could define or change, as comparable rows. */
async function snapshot(db: SqlEngine) {
  const q = async (sql: string) => (await db.query(sql)).rows;
  return {
    functions: await q(
      `select n.nspname || '.' || p.proname as name, p.oid::regprocedure::text as signature,
              pg_get_functiondef(p.oid) as definition,
              pg_get_userbyid(p.proowner) as owner, p.proacl::text as acl
       from pg_proc p join pg_namespace n on n.oid = p.pronamespace
       where n.nspname in ('public', 'private', 'realtime') order by 1, 2`,
    ),
    triggers: await q(
      `select c.relnamespace::regnamespace::text as schema, c.relname, t.tgname,
              pg_get_triggerdef(t.oid) as definition, t.tgenabled
       from pg_trigger t join pg_class c on c.oid = t.tgrelid
       where not t.tgisinternal order by 1, 2, 3`,
    ),
    policies: await q(
      `select schemaname, tablename, policyname, permissive, roles::text, cmd, qual, with_check
       from pg_policies order by 1, 2, 3`,
    ),
    registry: await q(`select * from public.sync_registry order by name`),
    state: await q(`select * from public.sync_state`),
    version: await q(`select public.sync_schema_version() as version`),
    columns: await q(
      `select c.relname, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod) as type,
              a.attnotnull, pg_get_expr(d.adbin, d.adrelid) as default
       from pg_attribute a join pg_class c on c.oid = a.attrelid
       left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
       where c.relnamespace = 'public'::regnamespace and c.relkind = 'r'
         and a.attnum > 0 and not a.attisdropped order by 1, 2`,
    ),
    constraints: await q(
      `select conrelid::regclass::text as tbl, conname, pg_get_constraintdef(oid) as definition
       from pg_constraint where connamespace = 'public'::regnamespace order by 1, 2`,
    ),
    indexes: await q(
      `select tablename, indexname, indexdef from pg_indexes
       where schemaname = 'public' order by 1, 2`,
    ),
    tables: await q(
      `select relname, relacl::text as acl, relrowsecurity, relforcerowsecurity from pg_class
       where relnamespace = 'public'::regnamespace and relkind = 'r' order by 1`,
    ),
  };
}

/** `schema.name` of every function the generated SQL defines. */
function definedFunctions(sql: string): string[] {
  return [...sql.matchAll(/^create or replace function ([a-z_]+\.[a-z_]+)\(/gm)].map(
    (m) => m[1] ?? '',
  );
}

describe.each(ENGINE_KINDS)('syncSql on %s', (kind) => {
  let fresh: TestDatabase;
  beforeAll(async () => {
    fresh = await freshDatabase(kind, { seed: false });
  });
  afterAll(() => fresh.close());

  it("applied with Outpost's schema over Outpost's migrations, changes no definition", async () => {
    const db = fresh.engine;
    const sql = syncSql(OUTPOST);
    const defined = definedFunctions(sql);
    expect(defined).toEqual(
      expect.arrayContaining(['public.sync_push', 'public.sync_pull', 'private.sync_scope']),
    );
    expect(defined).toHaveLength(23);

    const before = await snapshot(db);
    // Every function it defines is one Outpost's migrations define already.
    const existing = new Set(before.functions.map((f) => String(f.name)));
    for (const name of defined) expect(existing.has(name), name).toBe(true);

    await db.exec(sql);
    const after = await snapshot(db);
    expect(after.functions).toEqual(before.functions);
    expect(after.triggers).toEqual(before.triggers);
    expect(after.policies).toEqual(before.policies);
    expect(after.registry).toEqual(before.registry);
    expect(after.state).toEqual(before.state);
    expect(after.version).toEqual(before.version);
    expect(after.columns).toEqual(before.columns);
    expect(after.constraints).toEqual(before.constraints);
    expect(after.indexes).toEqual(before.indexes);
    expect(after.tables).toEqual(before.tables);
  });
});

describe('syncSql', () => {
  it('takes names only when they are safe identifiers', () => {
    const bad = (change: Partial<SyncSchema['access']>) =>
      syncSql({ ...OUTPOST, access: { ...OUTPOST.access, ...change } });
    expect(() => bad({ memberUser: 'user_id; drop table x' })).toThrow(/memberUser/);
    expect(() => bad({ memberScope: 'List_Id' })).toThrow(/memberScope/);
    expect(() => bad({ members: 'user' })).toThrow(/reserved/);
    expect(() =>
      syncSql({
        ...OUTPOST,
        tables: OUTPOST.tables.map((t) =>
          t.name === 'tasks' ? { ...t, patchColumns: ["title') --"] } : t,
        ),
      }),
    ).toThrow(/table tasks: column/);
    expect(() => syncSql({ ...OUTPOST, app: 'out-post' })).toThrow(/app/);
  });

  it('refuses an access model the registry does not carry', () => {
    expect(() => syncSql({ ...OUTPOST, access: { ...OUTPOST.access, scopes: 'tasks' } })).toThrow(
      /access.scopes tasks/,
    );
    expect(() =>
      syncSql({ ...OUTPOST, access: { ...OUTPOST.access, memberScope: 'task_id' } }),
    ).toThrow(/access.members memberships/);
    const { scopes, members, memberScope, memberUser } = OUTPOST.access;
    expect(() =>
      syncSql({ ...OUTPOST, access: { scopes, members, memberScope, memberUser } }),
    ).toThrow(/profiles is scoped 'peer'/);
  });

  it('finds the SyncSchema a module exports, by name or as its only one', async () => {
    expect(await loadSchema('src/data/tables.ts')).toBe(OUTPOST_SCHEMA);
    expect(await loadSchema('src/data/tables.ts', 'OUTPOST_SCHEMA')).toBe(OUTPOST_SCHEMA);
    await expect(loadSchema('src/data/tables.ts', 'OUTPOST_TABLES')).rejects.toThrow(
      /no SyncSchema/,
    );
    await expect(loadSchema('sync/registry.ts')).rejects.toThrow(/exports 0 SyncSchemas/);
  });

  it('prints the migration from the command line, as the example README runs it', async () => {
    const { stdout } = await promisify(execFile)('node_modules/.bin/tsx', [
      'sync/sql/generate.ts',
      'examples/notes/schema.ts',
    ]);
    expect(stdout).toBe(readFileSync('examples/notes/migrations/0002_sync.sql', 'utf8'));
  });
});
