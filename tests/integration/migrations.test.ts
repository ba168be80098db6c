// The migrations apply cleanly on PGlite and on Postgres 15 after the Supabase bootstrap,
// twice on one cluster (roles are cluster-wide), and leave what sync and the app rely on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startPgCluster, type PgCluster } from '../../devstack/pg-cluster';
import { migrationNames } from '../../devstack/schema-files';
import { applySchema, openPostgres } from '../../devstack/sql-engine';
import { ENGINE_KINDS, freshDatabase, type TestDatabase } from '../support/database';

const SYNCED = [
  'attachments',
  'checklist_items',
  'comments',
  'lists',
  'memberships',
  'profiles',
  'tasks',
];

describe.each(ENGINE_KINDS)('migrations on %s', (kind) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase(kind, { seed: true });
  });
  afterAll(() => db.close());

  it('create every synced table with RLS on, in the realtime publication and the sync registry', async () => {
    const { rows } = await db.engine.query<{ relname: string; relrowsecurity: boolean }>(
      `select c.relname, c.relrowsecurity from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = 'public' and c.relkind = 'r' order by 1`,
    );
    for (const row of rows) expect(row.relrowsecurity, `${row.relname} has RLS`).toBe(true);
    const published = await db.engine.query<{ tablename: string }>(
      `select tablename from pg_publication_tables where pubname = 'supabase_realtime' order by 1`,
    );
    expect(published.rows.map((r) => r.tablename)).toEqual(SYNCED);
    const registry = await db.engine.query<{ name: string }>(
      'select name from sync_registry order by 1',
    );
    expect(registry.rows.map((r) => r.name)).toEqual(SYNCED);
  });

  it('give each synced table the sync columns and the (list_id, sync_xid) index', async () => {
    const { rows } = await db.engine.query<{
      table_name: string;
      column_name: string;
      data_type: string;
    }>(
      `select table_name, column_name, data_type from information_schema.columns
       where table_schema = 'public' and column_name in ('id','created_at','updated_at','deleted_at','version','sync_xid')`,
    );
    for (const table of SYNCED) {
      const cols = rows
        .filter((r) => r.table_name === table)
        .map((r) => r.column_name)
        .sort();
      expect(cols, table).toEqual([
        'created_at',
        'deleted_at',
        'id',
        'sync_xid',
        'updated_at',
        'version',
      ]);
    }
    const idx = await db.engine.query<{ indexdef: string }>(
      `select indexdef from pg_indexes where schemaname = 'public' and indexdef like '%(list_id, sync_xid%'`,
    );
    expect(idx.rows).toHaveLength(5);
  });

  it('expose only the sync, invite and attachment-cleanup functions as RPCs (helpers live in the private schema)', async () => {
    const { rows } = await db.engine.query<{ proname: string }>(
      `select p.proname from pg_proc p join pg_namespace n on n.oid = p.pronamespace
       where n.nspname = 'public' order by 1`,
    );
    expect(rows.map((r) => r.proname)).toEqual([
      'attachment_cleanup_done',
      'attachment_cleanup_take',
      'invite_accept',
      'invite_create',
      'invite_revoke',
      'sync_pull',
      'sync_purge_tombstones',
      'sync_push',
      'sync_schema_version',
    ]);
  });

  it('seed two demo users whose passwords verify as bcrypt, a shared list and 30 tasks', async () => {
    const users = await db.engine.query<{ email: string; ok: boolean }>(
      `select email, encrypted_password = extensions.crypt('outpost-demo', encrypted_password) as ok
       from auth.users order by email`,
    );
    expect(users.rows).toEqual([
      { email: 'alice@example.com', ok: true },
      { email: 'bob@example.com', ok: true },
    ]);
    const counts = await db.engine.query<{ tasks: number; members: number; profiles: number }>(
      `select (select count(*)::int from tasks) as tasks, (select count(*)::int from memberships) as members,
              (select count(*)::int from profiles) as profiles`,
    );
    expect(counts.rows[0]).toEqual({ tasks: 30, members: 2, profiles: 2 });
    const bucket = await db.engine.query(
      `select public, file_size_limit::int as limit from storage.buckets where id = 'attachments'`,
    );
    expect(bucket.rows[0]).toEqual({ public: false, limit: 10485760 });
  });
});

describe('migrations on one Postgres 15 cluster, twice', () => {
  let cluster: PgCluster;
  beforeAll(async () => {
    cluster = await startPgCluster();
  });
  afterAll(() => cluster.stop());

  it('apply to a second database where the Supabase roles already exist', async () => {
    const first = openPostgres(cluster.url);
    await applySchema(first, { seed: false });
    await first.query('create database second');
    await first.close();
    const second = openPostgres(cluster.urlFor('second'));
    await applySchema(second, { seed: true });
    const { rows } = await second.query<{ n: number }>('select count(*)::int as n from tasks');
    expect(rows[0]?.n).toBe(30);
    await second.close();
    expect(migrationNames().length).toBeGreaterThanOrEqual(5);
  });
});
