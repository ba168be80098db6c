// sync_pull as sync-design.md specifies it: keyset paging that returns every visible row exactly
// once, never misses a transaction that commits out of order (I3, on a real multi-connection
// Postgres), backfills newly visible lists, delivers only a membership tombstone on
// revocation (I5), and expires cursors older than purged tombstones.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { SqlRunner } from '../../devstack/sql-engine';
import {
  actAs,
  asCaller,
  createUsers,
  ENGINE_KINDS,
  failureCode,
  freshDatabase,
  testId,
  type TestDatabase,
} from '../support/database';
import { addMember } from '../support/memberships';
import { pull, pullAll, visibleVersions, type PullResponse } from '../support/sync-calls';
import { OUTPOST_SCHEMA_VERSION } from '../../src/data/tables';

const alice = testId('0a');
const bob = testId('0b');
const carol = testId('0c');
const dave = testId('0d');

/** A client's store: latest version of each `table/id` it was sent. */
function applyRows(store: Map<string, number>, rows: PullResponse['rows']): void {
  for (const { table, row } of rows) {
    const key = `${table}/${row.id}`;
    const known = store.get(key);
    if (known === undefined || Number(row.version) > known) store.set(key, Number(row.version));
  }
}

async function makeList(db: TestDatabase, owner: string, tasks: number): Promise<string> {
  const list = testId('11');
  await asCaller(db.engine, { uid: owner }, async (tx) => {
    await tx.query(`insert into lists (id, name) values ($1, 'List')`, [list]);
    for (let i = 0; i < tasks; i += 1) {
      await tx.query(`insert into tasks (id, list_id, title, position) values ($1, $2, $3, $4)`, [
        testId('7a'),
        list,
        `Task ${i}`,
        `a${i % 10}`,
      ]);
    }
  });
  return list;
}

describe.each(ENGINE_KINDS)('sync_pull on %s', (kind) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await freshDatabase(kind, { seed: false });
    await createUsers(db.engine, { alice, bob, carol, dave });
  });
  afterAll(() => db.close());

  it('pages through every visible row exactly once, whatever the page size', async () => {
    const list = await makeList(db, alice, 40);
    await addMember(db.engine, list, alice, bob, 'editor');
    // More writes in separate transactions, across tables, so rows have many xids.
    for (let i = 0; i < 15; i += 1) {
      await asCaller(db.engine, { uid: bob }, async (tx) => {
        const task = testId('7a');
        await tx.query(
          `insert into tasks (id, list_id, title, position) values ($1, $2, 'Bob task', 'b0')`,
          [task, list],
        );
        await tx.query(`insert into comments (task_id, list_id, body) values ($1, $2, 'On it')`, [
          task,
          list,
        ]);
        if (i % 3 === 0) await tx.query(`update tasks set status = 'doing' where id = $1`, [task]);
        if (i % 5 === 0)
          await tx.query(`update tasks set deleted_at = now() where id = $1`, [task]);
      });
    }
    const expected = await visibleVersions(db.engine, bob);
    expect(expected.size).toBeGreaterThan(70);
    for (const pageSize of [1, 7, 1000]) {
      const { rows, pages } = await pullAll(db.engine, bob, null, pageSize);
      const keys = rows.map((r) => `${r.table}/${r.row.id}`);
      expect(new Set(keys).size, `duplicates with page size ${pageSize}`).toBe(keys.length);
      const store = new Map<string, number>();
      applyRows(store, rows);
      expect(store).toEqual(expected);
      expect(pages).toBe(Math.floor(rows.length / pageSize) + 1);
    }
    // Internal columns never leave the server.
    const { rows } = await pullAll(db.engine, bob, null);
    for (const { row } of rows) {
      expect(row).not.toHaveProperty('sync_xid');
      expect(row).not.toHaveProperty('granted_xid');
    }
  });

  it('delivers a newly added member the whole list, old rows included (backfill)', async () => {
    const list = await makeList(db, alice, 25);
    await asCaller(db.engine, { uid: alice }, (tx) =>
      tx.query(
        `insert into comments (task_id, list_id, body) select id, list_id, 'Old note' from tasks where list_id = $1 limit 3`,
        [list],
      ),
    );
    const before = await pullAll(db.engine, carol, null);
    const store = new Map<string, number>();
    applyRows(store, before.rows);
    expect([...store.keys()].filter((k) => !k.startsWith('profiles/'))).toEqual([]);

    await addMember(db.engine, list, alice, carol, 'viewer');
    const after = await pullAll(db.engine, carol, before.cursor, 10);
    applyRows(store, after.rows);
    expect(store).toEqual(await visibleVersions(db.engine, carol));
    expect(after.rows.filter((r) => r.table === 'tasks')).toHaveLength(25);
    expect(after.rows.filter((r) => r.table === 'comments')).toHaveLength(3);
    expect(after.rows.some((r) => r.table === 'profiles' && r.row.id === alice)).toBe(true);
  });

  it('sends a removed member their membership tombstone and nothing else of the list', async () => {
    const list = await makeList(db, alice, 5);
    const kept = await makeList(db, dave, 2);
    await addMember(db.engine, list, alice, dave, 'editor');
    const synced = await pullAll(db.engine, dave, null);
    const store = new Map<string, number>();
    applyRows(store, synced.rows);

    await asCaller(db.engine, { uid: alice }, async (tx) => {
      await tx.query(`update tasks set title = 'Changed after' where list_id = $1`, [list]);
      await tx.query(`insert into tasks (list_id, title, position) values ($1, 'Secret', 'c0')`, [
        list,
      ]);
      await tx.query(
        `update memberships set deleted_at = now() where list_id = $1 and user_id = $2`,
        [list, dave],
      );
      await tx.query(`update tasks set notes = 'Later still' where list_id = $1`, [list]);
    });
    const after = await pullAll(db.engine, dave, synced.cursor);
    expect(after.rows).toHaveLength(1);
    expect(after.rows[0]).toMatchObject({
      table: 'memberships',
      row: { list_id: list, user_id: dave },
    });
    expect(after.rows[0]?.row.deleted_at).toBeTruthy();
    // From scratch, the revoked list shows up only as that tombstone.
    const fresh = await pullAll(db.engine, dave, null);
    const ofList = fresh.rows.filter((r) => r.row.list_id === list || r.row.id === list);
    expect(ofList.map((r) => r.table)).toEqual(['memberships']);
    expect(fresh.rows.some((r) => r.row.list_id === kept)).toBe(true);
  });

  it('answers CURSOR_EXPIRED (PT410) to a cursor older than purged tombstones', async () => {
    const list = await makeList(db, alice, 3);
    const old = await pullAll(db.engine, alice, null);
    await asCaller(db.engine, { uid: alice }, (tx) =>
      tx.query(`update tasks set deleted_at = now() where list_id = $1`, [list]),
    );
    // The tombstones age past retention, then the scheduled purge runs.
    await db.engine.query(`alter table tasks disable trigger a_sync_stamp`);
    await db.engine.query(
      `update tasks set deleted_at = now() - interval '91 days' where list_id = $1`,
      [list],
    );
    await db.engine.query(`alter table tasks enable trigger a_sync_stamp`);
    const purged = await asCaller(db.engine, 'service_role', (tx) =>
      tx.query<{ r: Record<string, number> }>('select public.sync_purge_tombstones() as r'),
    );
    expect(purged.rows[0]?.r.tasks).toBeGreaterThanOrEqual(3);

    expect(await failureCode(() => pull(db.engine, alice, old.cursor))).toBe('PT410');
    const again = await pullAll(db.engine, alice, null);
    expect(again.rows.length).toBeGreaterThan(0);
    expect(await failureCode(() => pull(db.engine, alice, again.cursor))).toBeUndefined();
    // Only the service role may purge.
    expect(
      await failureCode(() =>
        asCaller(db.engine, { uid: alice }, (tx) =>
          tx.query('select public.sync_purge_tombstones()'),
        ),
      ),
    ).toBe('42501');
  });

  it('says on the first page of a pull from scratch how many rows all its pages deliver', async () => {
    const erin = testId('0e');
    await createUsers(db.engine, { erin });
    // Rows in five tables: erin's own list, alice's list she joins (with rows from before and
    // after she joins), and dave's list she is removed from (only her tombstone reaches her).
    const own = await makeList(db, erin, 4);
    const shared = await makeList(db, alice, 12);
    await asCaller(db.engine, { uid: alice }, (tx) =>
      tx.query(
        `insert into comments (task_id, list_id, body)
         select id, list_id, 'Before erin' from tasks where list_id = $1 limit 5`,
        [shared],
      ),
    );
    await addMember(db.engine, shared, alice, erin, 'editor');
    await asCaller(db.engine, { uid: alice }, (tx) =>
      tx.query(`update tasks set status = 'doing' where list_id = $1`, [shared]),
    );
    await asCaller(db.engine, { uid: erin }, (tx) =>
      tx.query(`update tasks set notes = 'Mine' where list_id = $1`, [own]),
    );
    const gone = await makeList(db, dave, 3);
    await addMember(db.engine, gone, dave, erin, 'viewer');
    await asCaller(db.engine, { uid: dave }, (tx) =>
      tx.query(`update memberships set deleted_at = now() where list_id = $1 and user_id = $2`, [
        gone,
        erin,
      ]),
    );

    type Page = PullResponse & { expected?: number | undefined };
    const pages: Page[] = [];
    let cursor: string | null = null;
    do {
      const page: Page = await pull(db.engine, erin, cursor, 7);
      pages.push(page);
      cursor = page.cursor;
    } while (pages.at(-1)?.has_more);
    const delivered = pages.reduce((sum, p) => sum + p.rows.length, 0);
    const tables = new Set(pages.flatMap((p) => p.rows.map((r) => r.table)));
    expect([...tables].sort()).toEqual(['comments', 'lists', 'memberships', 'profiles', 'tasks']);
    expect(pages.length).toBeGreaterThan(3);
    expect(pages[0]?.expected).toBe(delivered);
    expect(delivered).toBe((await visibleVersions(db.engine, erin)).size);
    for (const later of pages.slice(1)) expect(later).not.toHaveProperty('expected');

    // Any pull with a cursor carries none, whether it delivers rows or not.
    expect(await pull(db.engine, erin, cursor)).not.toHaveProperty('expected');
    await asCaller(db.engine, { uid: erin }, (tx) =>
      tx.query(`update lists set name = 'Renamed' where id = $1`, [own]),
    );
    const next: Page = await pull(db.engine, erin, cursor);
    expect(next.rows).toHaveLength(1);
    expect(next).not.toHaveProperty('expected');
    // One page holding everything: expected is its length.
    const whole: Page = await pull(db.engine, erin, null);
    expect(whole.has_more).toBe(false);
    expect(whole.expected).toBe(whole.rows.length);
  });

  it('validates its arguments and reports the schema version', async () => {
    for (const bad of [
      '',
      'abc',
      '12/tasks',
      '1/nope/1/00000000-0000-4000-8000-000000000000',
      '1/tasks/x/y',
      "1/tasks'--/1/2",
    ]) {
      expect(await failureCode(() => pull(db.engine, alice, bad)), bad).toBe('22023');
    }
    expect(
      await failureCode(() =>
        asCaller(db.engine, 'anon', (tx) => tx.query('select public.sync_pull(null, 10)')),
      ),
    ).toBe('42501');
    const page = await pull(db.engine, alice, null, 100000);
    expect(page.schema_version).toBe(OUTPOST_SCHEMA_VERSION);
    expect(page.rows.length).toBeLessThanOrEqual(1000);
    const one = await pull(db.engine, alice, null, 0);
    expect(one.rows).toHaveLength(1);
  });

  if (kind === 'postgres') {
    it('never misses transactions that commit out of order (randomised, 300 rounds)', async () => {
      const ROUNDS = 300;
      const list = await makeList(db, alice, 1);
      const store = new Map<string, number>();
      let cursor: string | null = null;
      const catchUp = async (pageSize: number) => {
        const page = await pullAll(db.engine, alice, cursor, pageSize);
        applyRows(store, page.rows);
        cursor = page.cursor;
      };
      await catchUp(1000);

      let seed = 20261122;
      const random = () => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return seed / 2147483648;
      };
      const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
      const connections = await Promise.all([1, 2, 3].map(() => db.engine.connect()));
      const taskIds: string[] = [];
      const write = async (conn: SqlRunner, hold: number) => {
        await conn.query('begin');
        await actAs(conn, { uid: alice });
        const id = testId('7a');
        await conn.query(
          `insert into tasks (id, list_id, title, position) values ($1, $2, 'w', 'a0')`,
          [id, list],
        );
        const target = taskIds[Math.floor(random() * taskIds.length)];
        if (target)
          await conn.query(`update tasks set notes = $2 where id = $1 and deleted_at is null`, [
            target,
            `n${hold}`,
          ]);
        await pause(hold);
        if (random() < 0.1) {
          await conn.query('rollback');
        } else {
          await conn.query('commit');
          taskIds.push(id);
        }
      };
      try {
        for (let round = 0; round < ROUNDS; round += 1) {
          // A long transaction takes its xid first and commits last; the puller runs between.
          const writers = connections.map((conn, i) =>
            write(conn, i === 0 ? 4 + Math.floor(random() * 4) : Math.floor(random() * 2)),
          );
          await pause(1);
          await catchUp(1 + Math.floor(random() * 5));
          await Promise.all(writers);
          if (round % 10 === 0) await catchUp(3);
        }
      } finally {
        await Promise.all(connections.map((c) => c.release()));
      }
      await catchUp(1000);
      expect(store).toEqual(await visibleVersions(db.engine, alice));
      expect(taskIds.length).toBeGreaterThan(700);
    });
  }
});
