// Issue 14, items 2–5, as an attacker with an API key would try them, on PGlite and on
// Postgres 15: memberships only by invite, server-owned columns (deleted_at first of all),
// sync bookkeeping only for one's own clients, and no answer that tells a stranger whether
// a row they cannot see exists.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { MIGRATIONS_DIR } from '../../devstack/schema-files';
import { sqlState, type SqlRunner } from '../../devstack/sql-engine';
import {
  actAs,
  asCaller,
  asCallerThenRollback,
  createUsers,
  ENGINE_KINDS,
  failureCode,
  freshDatabase,
  testId,
  type Caller,
  type TestDatabase,
} from '../support/database';
import { addMember } from '../support/memberships';
import { pull, pullAll, push, type Mutation } from '../support/sync-calls';

const owner = testId('0a');
const editor = testId('0e');
const viewer = testId('0f');
const stranger = testId('0b');
const victim = testId('0c');

const shared = testId('11');
const strangers = testId('12');
const deleted = testId('13');
const task = testId('7a');
const strangersTask = testId('7b');
const comment = testId('c0');
const attachment = testId('a7');
const item = testId('ce');
const objectPath = `${shared}/${task}/${attachment}.jpg`;
let viewerMembership = '';

const SECURITY_MIGRATION = '20261125000100_security.sql';

/** Runs `sql` as `caller` in a transaction that rolls back; its SQLSTATE or undefined. */
function codeOf(db: TestDatabase, caller: Caller, sql: string, params: readonly unknown[] = []) {
  return failureCode(() =>
    asCallerThenRollback(db.engine, caller, (tx) => tx.query(sql, params as readonly string[])),
  );
}

async function fixture(db: TestDatabase): Promise<void> {
  await createUsers(db.engine, { owner, editor, viewer, stranger, victim });
  await asCaller(db.engine, { uid: owner }, async (tx) => {
    await tx.query(`insert into lists (id, name) values ($1, 'Shared'), ($2, 'Gone')`, [
      shared,
      deleted,
    ]);
    await tx.query(`insert into tasks (id, list_id, title, position) values ($1, $2, 'T', 'a0')`, [
      task,
      shared,
    ]);
  });
  await addMember(db.engine, shared, owner, editor, 'editor');
  viewerMembership = await addMember(db.engine, shared, owner, viewer, 'viewer');
  await asCaller(db.engine, { uid: owner }, (tx) =>
    tx.query(`update lists set deleted_at = now() where id = $1`, [deleted]),
  );
  await asCaller(db.engine, { uid: editor }, async (tx) => {
    await tx.query(`insert into comments (id, task_id, list_id, body) values ($1, $2, $3, 'Hi')`, [
      comment,
      task,
      shared,
    ]);
    await tx.query(
      `insert into attachments (id, task_id, list_id, object_path, file_name, mime_type, size_bytes)
       values ($1, $2, $3, $4, 'photo.jpg', 'image/jpeg', 1234)`,
      [attachment, task, shared, objectPath],
    );
    await tx.query(
      `insert into checklist_items (id, task_id, list_id, text, position) values ($1, $2, $3, 'Step', 'a0')`,
      [item, task, shared],
    );
  });
  await asCaller(db.engine, { uid: stranger }, async (tx) => {
    await tx.query(`insert into lists (id, name) values ($1, 'Mine')`, [strangers]);
    await tx.query(`insert into tasks (id, list_id, title, position) values ($1, $2, 'S', 'a0')`, [
      strangersTask,
      strangers,
    ]);
  });
}

describe.each(ENGINE_KINDS)('security on %s', (kind) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase(kind, { seed: false });
    await fixture(db);
  });
  afterAll(() => db.close());

  describe('memberships arrive only by invite', () => {
    it('refuses a client inserting a membership, by insert, upsert or sync_push', async () => {
      const insert = `insert into memberships (list_id, user_id, role) values ($1, $2, $3)`;
      // The attack of the issue: a stranger makes a list and adds their victim to it.
      expect(await codeOf(db, { uid: stranger }, insert, [strangers, victim, 'viewer'])).toBe(
        '42501',
      );
      expect(
        await codeOf(
          db,
          { uid: stranger },
          `${insert} on conflict (list_id, user_id) do update set role = excluded.role`,
          [strangers, victim, 'owner'],
        ),
      ).toBe('42501');
      // Not an owner of a real list either, whatever the role.
      for (const role of ['viewer', 'editor', 'owner']) {
        expect(await codeOf(db, { uid: owner }, insert, [shared, victim, role]), role).toBe(
          '42501',
        );
      }
      const pushed = await push(db.engine, stranger, testId('cc'), [
        {
          seq: 1,
          table: 'memberships',
          op: 'insert',
          id: testId('30'),
          data: { list_id: strangers, user_id: victim, role: 'editor' },
        },
      ]);
      expect(pushed.results[0]).toMatchObject({ status: 'rejected', code: '42501' });
      expect(pushed.results[0]?.row).toBeUndefined();

      // Nothing reached the victim, and the stranger cannot read the victim's profile.
      const victimPull = await pullAll(db.engine, victim, null);
      expect(victimPull.rows.map((r) => r.table)).toEqual(['profiles']);
      const { rows } = await asCaller(db.engine, { uid: stranger }, (tx) =>
        tx.query('select 1 from profiles where id = $1', [victim]),
      );
      expect(rows).toHaveLength(0);
    });

    it('still makes the creator the owner, and an accepted invite a member', async () => {
      const list = testId('14');
      await asCaller(db.engine, { uid: stranger }, (tx) =>
        tx.query(`insert into lists (id, name) values ($1, 'Invites')`, [list]),
      );
      await addMember(db.engine, list, stranger, victim, 'viewer');
      const { rows } = await db.engine.query<{ user_id: string; role: string }>(
        'select user_id, role from memberships where list_id = $1 order by role',
        [list],
      );
      expect(rows).toEqual([
        { user_id: stranger, role: 'owner' },
        { user_id: victim, role: 'viewer' },
      ]);
      const victimPull = await pullAll(db.engine, victim, null);
      expect(victimPull.rows.some((r) => r.table === 'lists' && r.row.id === list)).toBe(true);
      // An owner still cannot revive a removed member's row: only a new invite can.
      await asCaller(db.engine, { uid: stranger }, (tx) =>
        tx.query(`update memberships set deleted_at = now() where list_id = $1 and user_id = $2`, [
          list,
          victim,
        ]),
      );
      expect(
        await codeOf(
          db,
          { uid: stranger },
          `update memberships set deleted_at = null where list_id = $1 and user_id = $2`,
          [list, victim],
        ),
      ).toBe('P0002');
    });
  });

  describe('the server owns deleted_at and every other server-owned column', () => {
    const deletable: [table: string, id: () => string, by: string][] = [
      ['lists', () => shared, owner],
      ['memberships', () => viewerMembership, owner],
      ['tasks', () => task, editor],
      ['comments', () => comment, editor],
      ['attachments', () => attachment, editor],
    ];

    it('stamps a client delete with the server time, whatever time the client sends', async () => {
      for (const [table, id, by] of deletable) {
        for (const sent of ['1970-01-01T00:00:00Z', '2999-01-01T00:00:00Z']) {
          const { rows } = await asCallerThenRollback(db.engine, { uid: by }, (tx) =>
            tx.query<{ stamped: boolean }>(
              `update ${table} set deleted_at = $2 where id = $1 returning deleted_at = now() as stamped`,
              [id(), sent],
            ),
          );
          expect(rows, `${table} ${sent}`).toEqual([{ stamped: true }]);
        }
      }
      // The list's cascade carries the server's time too.
      const { rows } = await asCallerThenRollback(db.engine, { uid: owner }, async (tx) => {
        await tx.query(`update lists set deleted_at = '1970-01-01' where id = $1`, [shared]);
        return tx.query<{ t: string; stamped: boolean }>(
          `select 'tasks' as t, bool_and(deleted_at = now()) as stamped from tasks where list_id = $1
           union all select 'comments', bool_and(deleted_at = now()) from comments where list_id = $1
           union all select 'attachments', bool_and(deleted_at = now()) from attachments where list_id = $1`,
          [shared],
        );
      });
      expect(rows.every((r) => r.stamped)).toBe(true);
    });

    it('keeps a tombstone dated 1970 by a client from being purged (no CURSOR_EXPIRED for all)', async () => {
      const doomed = testId('7c');
      await asCaller(db.engine, { uid: editor }, async (tx) => {
        await tx.query(
          `insert into tasks (id, list_id, title, position) values ($1, $2, 'Doomed', 'b0')`,
          [doomed, shared],
        );
      });
      const before = await pullAll(db.engine, viewer, null);
      await asCaller(db.engine, { uid: editor }, (tx) =>
        tx.query(`update tasks set deleted_at = '1970-01-01' where id = $1`, [doomed]),
      );
      const { rows } = await asCaller(db.engine, 'service_role', (tx) =>
        tx.query<{ r: Record<string, number> }>('select public.sync_purge_tombstones() as r'),
      );
      expect(rows[0]?.r.tasks).toBe(0);
      // The viewer's cursor is still good, and the tombstone reaches them.
      const after = await pull(db.engine, viewer, before.cursor);
      expect(after.rows.find((r) => r.row.id === doomed)?.row.deleted_at).toBeTruthy();
    });

    it('never lets a client undelete or re-date a tombstone, nor delete a profile', async () => {
      for (const value of [null, '1970-01-01', '2999-01-01']) {
        const code = await failureCode(() =>
          asCallerThenRollback(db.engine, { uid: editor }, async (tx) => {
            await tx.query(`update tasks set deleted_at = now() where id = $1`, [task]);
            await tx.query(`update tasks set deleted_at = $2 where id = $1`, [task, value]);
          }),
        );
        expect(code, String(value)).toBe('P0002');
      }
      expect(
        await codeOf(db, { uid: owner }, `update profiles set deleted_at = now() where id = $1`, [
          owner,
        ]),
      ).toBe('42501');
    });

    it('refuses deleted_at in a sync_push patch and stamps a delete op itself', async () => {
      const doomed = testId('7d');
      const res = await push(db.engine, editor, testId('cd'), [
        {
          seq: 1,
          table: 'tasks',
          op: 'insert',
          id: doomed,
          data: { list_id: shared, title: 'Pushed', position: 'b1' },
        },
        { seq: 2, table: 'tasks', op: 'patch', id: doomed, data: { deleted_at: '1970-01-01' } },
        { seq: 3, table: 'tasks', op: 'delete', id: doomed, data: { deleted_at: '1970-01-01' } },
      ]);
      expect(res.results.map((r) => [r.status, r.code ?? null])).toEqual([
        ['applied', null],
        ['rejected', '42703'],
        ['applied', null],
      ]);
      const { rows } = await db.engine.query<{ recent: boolean }>(
        `select deleted_at > now() - interval '1 hour' as recent from tasks where id = $1`,
        [doomed],
      );
      expect(rows).toEqual([{ recent: true }]);
    });

    /**
     * What a hostile client would write into each column it may not choose: every column of
     * every synced table that is not in the registry's patch_columns (nor deleted_at, above)
     * must be here, so a new column forces a decision.
     */
    const hostile = (column: string): string | undefined =>
      ({
        id: testId('ee'),
        created_at: '1970-01-01T00:00:00Z',
        updated_at: '1970-01-01T00:00:00Z',
        completed_at: '1970-01-01T00:00:00Z',
        version: '999',
        sync_xid: '1',
        granted_xid: '1',
        realtime_epoch: '7',
        created_by: victim,
        author_id: victim,
        user_id: victim,
        list_id: strangers,
        task_id: strangersTask,
        object_path: `${shared}/${task}/${attachment}.png`,
        mime_type: 'application/pdf',
        size_bytes: '7',
        width: '7',
        height: '7',
        follows_id: strangersTask,
      })[column];

    it('lets a client choose no server-owned column in an update, table by table', async () => {
      const targets: Record<string, [id: string, by: string]> = {
        profiles: [owner, owner],
        lists: [shared, owner],
        memberships: [viewerMembership, owner],
        tasks: [task, owner],
        comments: [comment, owner],
        attachments: [attachment, owner],
        checklist_items: [item, owner],
      };
      const { rows: registry } = await db.engine.query<{ name: string; patch_columns: string[] }>(
        'select name, patch_columns from sync_registry order by name',
      );
      expect(registry.map((r) => r.name).sort()).toEqual(Object.keys(targets).sort());
      const took: string[] = [];
      for (const { name, patch_columns } of registry) {
        const [id, by] = targets[name] ?? ['', ''];
        const { rows: columns } = await db.engine.query<{ column_name: string; udt: string }>(
          `select column_name, udt_name as udt from information_schema.columns
           where table_schema = 'public' and table_name = $1 order by ordinal_position`,
          [name],
        );
        for (const { column_name: column, udt } of columns) {
          if (patch_columns.includes(column) || column === 'deleted_at') continue;
          const value = hostile(column);
          expect(value, `a hostile value for ${name}.${column}`).toBeDefined();
          const where = column === 'id' ? 'id = $1 or id = $2' : 'id = $1';
          try {
            const result = await asCallerThenRollback(db.engine, { uid: by }, async (tx) => {
              await tx.query(`update ${name} set "${column}" = $2::${udt} where id = $1`, [
                id,
                value ?? '',
              ]);
              await actAs(tx, 'service_role');
              return tx.query<{ took: boolean }>(
                `select coalesce("${column}" = $2::${udt}, false) as took from ${name} where ${where}`,
                [id, value ?? ''],
              );
            });
            if (result.rows.some((r) => r.took)) took.push(`${name}.${column}`);
          } catch (error) {
            // Refused outright: what we want (any SQLSTATE; the value never landed).
            expect(sqlState(error), `${name}.${column}`).toBeDefined();
          }
        }
      }
      expect(took).toEqual([]);
    });

    it('stamps the server-owned columns of a client insert', async () => {
      const id = testId('7e');
      const { rows } = await asCallerThenRollback(db.engine, { uid: editor }, async (tx) => {
        await tx.query(
          `insert into tasks (id, list_id, title, position, status, version, created_at, updated_at,
                              deleted_at, sync_xid, completed_at)
           values ($1, $2, 'Forged', 'b2', 'todo', 99, '1970-01-01', '1970-01-01', '1970-01-01',
                   '1', '1970-01-01')`,
          [id, shared],
        );
        return tx.query<Record<string, boolean>>(
          `select version = 1 as version, created_at = now() as created_at,
                  updated_at = now() as updated_at, deleted_at is null as deleted_at,
                  sync_xid = pg_current_xact_id() as sync_xid, completed_at is null as completed_at,
                  created_by = $2 as created_by
           from tasks where id = $1`,
          [id, editor],
        );
      });
      expect(rows[0]).toEqual({
        version: true,
        created_at: true,
        updated_at: true,
        deleted_at: true,
        sync_xid: true,
        completed_at: true,
        created_by: true,
      });
    });

    it("keeps a profile picture's path in its user's own avatars folder", async () => {
      const set = `update profiles set avatar_path = $2 where id = $1`;
      expect(await codeOf(db, { uid: owner }, set, [owner, `${owner}/avatar-1.png`])).toBe(
        undefined,
      );
      for (const path of [
        `${victim}/avatar-1.png`,
        `${owner}/../${victim}/avatar-1.png`,
        `${owner}/..`,
        `../../rest/v1/tasks`,
      ]) {
        expect(await codeOf(db, { uid: owner }, set, [owner, path]), path).toBe('23514');
      }
    });
  });

  describe('sync bookkeeping only for the caller’s own clients', () => {
    it("refuses writing another device's rejections or seq, or any bookkeeping row", async () => {
      const victimClient = testId('cf');
      await push(db.engine, victim, victimClient, [
        { seq: 1, table: 'tasks', op: 'patch', id: testId('7f'), data: { title: 'x' } },
      ]);
      // The attack of the issue: a rejection at the victim's next seq.
      expect(
        await codeOf(
          db,
          { uid: stranger },
          `insert into sync_rejections (client_id, seq, code, message) values ($1, 2, 'x', 'x')`,
          [victimClient],
        ),
      ).toBe('42501');
      // No client writes bookkeeping directly, not even for its own device.
      for (const [sql, params] of [
        [
          `insert into sync_rejections (client_id, seq, code, message) values ($1, 9, 'x', 'x')`,
          [victimClient],
        ],
        [`update sync_clients set last_seq = 0 where id = $1`, [victimClient]],
        [`delete from sync_clients where id = $1`, [victimClient]],
        [`delete from sync_rejections where client_id = $1`, [victimClient]],
        [`insert into sync_clients (id) values ($1)`, [testId('ce')]],
      ] as const) {
        expect(await codeOf(db, { uid: victim }, sql, [...params]), sql).toBe('42501');
      }
      for (const [sql, params] of [
        [`update sync_clients set last_seq = 0 where id = $1`, [victimClient]],
        [`insert into sync_clients (id, user_id) values ($1, $2)`, [testId('ce'), victim]],
      ] as const) {
        expect(await codeOf(db, { uid: stranger }, sql, [...params]), sql).toBe('42501');
      }
      const seen = await asCaller(db.engine, { uid: stranger }, (tx) =>
        tx.query('select 1 from sync_clients where id = $1', [victimClient]),
      );
      expect(seen.rows).toHaveLength(0);
    });

    it('answers a replayed or forged rejection without failing the push (no wedged queue)', async () => {
      const victimClient = testId('cf');
      await push(db.engine, victim, victimClient, [
        { seq: 1, table: 'tasks', op: 'patch', id: testId('7f'), data: { title: 'x' } },
      ]);
      // A forged row already there (written before this was fixed) does not fail the push.
      // A forged row already there (written before this was fixed) does not fail the push.
      await db.engine.query(
        `insert into sync_rejections (client_id, seq, user_id, code, message) values ($1, 2, $2, '23505', 'forged')`,
        [victimClient, stranger],
      );
      const batch: Mutation[] = [
        { seq: 2, table: 'tasks', op: 'patch', id: task, data: { title: 'Not mine' } },
        {
          seq: 3,
          table: 'tasks',
          op: 'insert',
          id: testId('7f'),
          data: { list_id: strangers, title: 'x', position: 'a0' },
        },
      ];
      const first = await push(db.engine, victim, victimClient, batch);
      expect(first.results.map((r) => [r.status, r.code])).toEqual([
        ['rejected', 'P0002'],
        ['rejected', '42501'],
      ]);
      const replay = await push(db.engine, victim, victimClient, batch);
      expect(replay.results.map((r) => [r.status, r.code, r.replayed])).toEqual([
        ['rejected', 'P0002', true],
        ['rejected', '42501', true],
      ]);
    });

    it('drops forged rejections when the migration runs again, and runs again cleanly', async () => {
      const client = testId('cf');
      const batch: Mutation[] = [
        { seq: 1, table: 'lists', op: 'insert', id: testId('17'), data: { name: 'Mine' } },
        { seq: 2, table: 'tasks', op: 'patch', id: testId('7f'), data: { title: 'x' } },
      ];
      await push(db.engine, victim, client, batch);
      await db.engine.query(
        `insert into sync_rejections (client_id, seq, user_id, code, message)
         values ($1, 1, $2, '23505', 'not theirs'), ($1, 5, $3, '23505', 'ahead')`,
        [client, stranger, victim],
      );
      await db.engine.exec(readFileSync(join(MIGRATIONS_DIR, SECURITY_MIGRATION), 'utf8'));
      const { rows } = await db.engine.query<{ seq: string; code: string }>(
        'select seq::text, code from sync_rejections where client_id = $1 order by seq',
        [client],
      );
      expect(rows).toEqual([{ seq: '2', code: 'P0002' }]);
      const replay = await push(db.engine, victim, client, batch);
      expect(replay.results.map((r) => [r.status, r.code])).toEqual([
        ['applied', 'DUPLICATE'],
        ['rejected', 'P0002'],
      ]);
    });
  });

  describe('a non-member cannot tell "not yours" from "missing"', () => {
    const errorOf = async (caller: Caller, sql: string, params: readonly unknown[]) => {
      try {
        await asCallerThenRollback(db.engine, caller, (tx) =>
          tx.query(sql, params as readonly string[]),
        );
        return 'ok';
      } catch (error) {
        const e = error as { code?: string; hint?: string };
        return `${e.code ?? '?'} ${e.hint ?? ''}`.trim();
      }
    };

    it('answers a stranger the same whether or not the assignee is a member, the list deleted', async () => {
      const insert = `insert into tasks (id, list_id, title, position, assignee_id) values ($1, $2, 'x', 'a0', $3)`;
      const answers = [
        await errorOf({ uid: stranger }, insert, [testId('7a'), shared, viewer]),
        await errorOf({ uid: stranger }, insert, [testId('7a'), shared, victim]),
        await errorOf({ uid: stranger }, insert, [testId('7a'), shared, null]),
        await errorOf({ uid: stranger }, insert, [testId('7a'), deleted, null]),
        await errorOf({ uid: stranger }, insert, [testId('7a'), testId('15'), null]),
      ];
      expect(answers).toEqual(Array(answers.length).fill('42501'));
      // Members still learn why: their list, their members.
      expect(await errorOf({ uid: editor }, insert, [testId('7a'), shared, victim])).toBe(
        'P0001 ASSIGNEE_NOT_MEMBER',
      );
    });

    it("answers a stranger the same whether or not another list's task exists", async () => {
      const comment = `insert into comments (id, task_id, list_id, body) values ($1, $2, $3, 'x')`;
      const attach = (list: string, parent: string) => {
        const id = testId('a8');
        return [
          `insert into attachments (id, task_id, list_id, object_path, file_name, mime_type, size_bytes)
           values ($1, $2, $3, $4, 'a.png', 'image/png', 1)`,
          [id, parent, list, `${list}/${parent}/${id}.png`],
        ] as const;
      };
      const missing = testId('7f');
      // Into their own list, naming a task of someone else's list or none at all.
      const own = [
        await errorOf({ uid: stranger }, comment, [testId('c1'), task, strangers]),
        await errorOf({ uid: stranger }, comment, [testId('c1'), missing, strangers]),
        await errorOf({ uid: stranger }, ...attach(strangers, task)),
        await errorOf({ uid: stranger }, ...attach(strangers, missing)),
      ];
      expect(own).toEqual(Array(own.length).fill('P0002 NOT_FOUND'));
      // Into the other list.
      const other = [
        await errorOf({ uid: stranger }, comment, [testId('c1'), task, shared]),
        await errorOf({ uid: stranger }, comment, [testId('c1'), missing, shared]),
        await errorOf({ uid: stranger }, ...attach(shared, task)),
        await errorOf({ uid: stranger }, ...attach(shared, missing)),
      ];
      expect(other).toEqual(Array(other.length).fill('42501'));
      // A member of both lists is told the task is elsewhere.
      const both = testId('16');
      const answer = await failureCode(() =>
        asCallerThenRollback(db.engine, { uid: owner }, async (tx) => {
          await tx.query(`insert into lists (id, name) values ($1, 'Both')`, [both]);
          await tx.query(comment, [testId('c1'), task, both]);
        }),
      );
      expect(answer).toBe('23514');
    });

    it('answers a stranger the same about a full list as about any other', async () => {
      const insert = `insert into memberships (list_id, user_id, role) values ($1, $2, 'viewer')`;
      const answer = await failureCode(() =>
        asCallerThenRollback(db.engine, { uid: stranger }, async (tx: SqlRunner) => {
          // Fill the list to its 50 members, as the server (a rolled-back fixture).
          await tx.query(`set local role postgres`);
          await tx.query(
            `with u as (
               insert into auth.users (id, email)
               select gen_random_uuid(), 'filler-' || i || '@example.com' from generate_series(1, 47) i
               returning id)
             insert into memberships (list_id, user_id, role) select $1, id, 'viewer' from u`,
            [shared],
          );
          await actAs(tx, { uid: stranger });
          await tx.query(insert, [shared, victim]);
        }),
      );
      expect(answer).toBe('42501');
    });

    it('answers the same through sync_push, and returns no row the caller cannot read', async () => {
      const missing = testId('7f');
      const res = await push(db.engine, stranger, testId('c9'), [
        {
          seq: 1,
          table: 'comments',
          op: 'insert',
          id: testId('c1'),
          data: { task_id: task, list_id: strangers, body: 'x' },
        },
        {
          seq: 2,
          table: 'comments',
          op: 'insert',
          id: testId('c1'),
          data: { task_id: missing, list_id: strangers, body: 'x' },
        },
        { seq: 3, table: 'tasks', op: 'patch', id: task, data: { title: 'x' } },
        { seq: 4, table: 'tasks', op: 'patch', id: missing, data: { title: 'x' } },
        { seq: 5, table: 'tasks', op: 'delete', id: task },
        { seq: 6, table: 'tasks', op: 'delete', id: missing },
        {
          seq: 7,
          table: 'tasks',
          op: 'insert',
          id: testId('7a'),
          data: { list_id: shared, title: 'x', position: 'a0', assignee_id: viewer },
        },
        {
          seq: 8,
          table: 'tasks',
          op: 'insert',
          id: testId('7a'),
          data: { list_id: shared, title: 'x', position: 'a0', assignee_id: victim },
        },
        { seq: 9, table: 'comments', op: 'patch', id: comment, data: { body: 'x' } },
        { seq: 10, table: 'profiles', op: 'patch', id: victim, data: { display_name: 'x' } },
      ]);
      const got = res.results.map((r) => [r.seq, r.code, r.hint ?? null, r.row ?? null]);
      expect(got).toEqual([
        [1, 'P0002', 'NOT_FOUND', null],
        [2, 'P0002', 'NOT_FOUND', null],
        [3, 'P0002', 'NOT_FOUND', null],
        [4, 'P0002', 'NOT_FOUND', null],
        [5, 'P0002', 'NOT_FOUND', null],
        [6, 'P0002', 'NOT_FOUND', null],
        [7, '42501', null, null],
        [8, '42501', null, null],
        [9, 'P0002', 'NOT_FOUND', null],
        [10, 'P0002', 'NOT_FOUND', null],
      ]);
    });

    it('tells a non-member nothing about a list or an invite it names', async () => {
      const call = async (sql: string, params: string[]) => {
        const { rows } = await asCaller(db.engine, 'service_role', (tx) =>
          tx.query<{ r: { error?: string } }>(sql, params),
        );
        return rows[0]?.r.error;
      };
      const create = `select public.invite_create($1, 'viewer', $2) as r`;
      expect(await call(create, [shared, stranger])).toBe('NOT_FOUND');
      expect(await call(create, [testId('15'), stranger])).toBe('NOT_FOUND');
      expect(await call(create, [deleted, owner])).toBe('NOT_FOUND');
      expect(await call(create, [shared, editor])).toBe('PERMISSION_DENIED');
      const invite = await asCaller(db.engine, 'service_role', (tx) =>
        tx.query<{ r: { invite_id: string } }>(create, [shared, owner]),
      );
      const revoke = `select public.invite_revoke($1, $2) as r`;
      const inviteId = invite.rows[0]?.r.invite_id ?? '';
      expect(await call(revoke, [inviteId, stranger])).toBe('NOT_FOUND');
      expect(await call(revoke, [testId('1e'), stranger])).toBe('NOT_FOUND');
      expect(await call(revoke, [inviteId, editor])).toBe('PERMISSION_DENIED');
    });
  });
});
