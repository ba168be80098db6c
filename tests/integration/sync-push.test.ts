// sync_push as sync-design.md specifies it: exactly once per (client, seq), per-mutation savepoints,
// results with SQLSTATE and the server row, and nothing changed by bad input. On PGlite and
// on Postgres 15 (where two connections also push concurrently).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  asCaller,
  createUsers,
  ENGINE_KINDS,
  failureCode,
  freshDatabase,
  testId,
  type TestDatabase,
} from '../support/database';
import { addMember } from '../support/memberships';
import { push, pushOn, type Mutation } from '../support/sync-calls';

const alice = testId('0a');
const vic = testId('0f');
const list = testId('11');

describe.each(ENGINE_KINDS)('sync_push on %s', (kind) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await freshDatabase(kind, { seed: false });
    await createUsers(db.engine, { alice, vic });
    await db.engine.query(`insert into lists (id, name, created_by) values ($1, 'Crew', $2)`, [
      list,
      alice,
    ]);
    await addMember(db.engine, list, alice, vic, 'viewer');
  });
  afterAll(() => db.close());

  const newTask = (
    seq: number,
    id = testId('7a'),
    data: Record<string, unknown> = {},
  ): Mutation => ({
    seq,
    table: 'tasks',
    op: 'insert',
    id,
    data: { list_id: list, title: `Task ${seq}`, position: `a${seq % 10}`, ...data },
  });

  async function taskRow(id: string) {
    const { rows } = await db.engine.query<{
      title: string;
      version: string;
      notes: string;
      priority: number;
      deleted_at: unknown;
    }>('select title, version::text, notes, priority, deleted_at from tasks where id = $1', [id]);
    return rows[0];
  }

  it('applies a batch once: replaying it applies nothing twice and answers the same', async () => {
    const client = testId('c1');
    const task = testId('7a');
    const batch: Mutation[] = [
      newTask(1, task),
      { seq: 2, table: 'tasks', op: 'patch', id: task, data: { notes: 'first' } },
      { seq: 3, table: 'tasks', op: 'patch', id: task, data: { title: '' } },
    ];
    const first = await push(db.engine, alice, client, batch);
    expect(first.last_seq).toBe(3);
    expect(first.results.map((r) => r.status)).toEqual(['applied', 'applied', 'rejected']);
    const before = await taskRow(task);
    expect(before?.version).toBe('2');

    const again = await push(db.engine, alice, client, batch);
    expect(again.last_seq).toBe(3);
    expect(again.results.map((r) => [r.status, r.code, r.replayed])).toEqual([
      ['applied', 'DUPLICATE', true],
      ['applied', 'DUPLICATE', true],
      ['rejected', '23514', true],
    ]);
    expect(await taskRow(task)).toEqual(before);

    // A longer retry (the lost batch plus newer entries) applies only the new part.
    const longer = await push(db.engine, alice, client, [
      ...batch,
      { seq: 4, table: 'tasks', op: 'patch', id: task, data: { notes: 'second' } },
    ]);
    expect(longer.results.at(-1)).toMatchObject({ seq: 4, status: 'applied' });
    expect(await taskRow(task)).toMatchObject({ notes: 'second', version: '3' });
  });

  it('applies the good mutations of a mixed batch and rejects the bad with SQLSTATE and server row', async () => {
    const client = testId('c2');
    const task = testId('7a');
    const res = await push(db.engine, alice, client, [
      newTask(10, task),
      { seq: 11, table: 'tasks', op: 'patch', id: task, data: { title: 'x'.repeat(201) } },
      { seq: 12, table: 'tasks', op: 'patch', id: task, data: { status: 'archived' } },
      { seq: 13, table: 'tasks', op: 'patch', id: task, data: { priority: 2 } },
      { seq: 14, table: 'tasks', op: 'patch', id: task, data: { title: null } },
      { seq: 15, table: 'tasks', op: 'patch', id: task, data: { assignee_id: testId('0b') } },
      { seq: 16, table: 'tasks', op: 'patch', id: task, data: { due_on: '2026-02-30' } },
      { seq: 17, table: 'tasks', op: 'patch', id: task, data: { status: 'done' } },
    ]);
    const byseq = new Map(res.results.map((r) => [r.seq, r]));
    expect(byseq.get(10)?.status).toBe('applied');
    expect(byseq.get(11)).toMatchObject({ status: 'rejected', code: '23514' });
    expect(byseq.get(12)).toMatchObject({ status: 'rejected', code: '23514' });
    expect(byseq.get(13)).toMatchObject({ status: 'applied', row: { priority: 2 } });
    expect(byseq.get(14)).toMatchObject({ status: 'rejected', code: '23502' });
    expect(byseq.get(15)).toMatchObject({
      status: 'rejected',
      code: 'P0001',
      column: 'assignee_id',
    });
    expect(byseq.get(16)).toMatchObject({ status: 'rejected', code: '22008' });
    expect(byseq.get(17)).toMatchObject({ status: 'applied', row: { status: 'done' } });
    expect(byseq.get(17)?.row?.completed_at).toBeTruthy();
    // The rejected ones carry the row as the server has it now, to revert to.
    expect(byseq.get(11)?.row).toMatchObject({
      id: task,
      title: 'Task 10',
      priority: 0,
      status: 'todo',
    });
    const row = await taskRow(task);
    expect(row).toMatchObject({ title: 'Task 10', priority: 2, version: '3' });
  });

  it('rejects a viewer edit with 42501 and returns the row to revert to', async () => {
    const task = testId('7a');
    await push(db.engine, alice, testId('c3'), [newTask(1, task)]);
    const res = await push(db.engine, vic, testId('c4'), [
      { seq: 1, table: 'tasks', op: 'patch', id: task, data: { title: 'Mine now' } },
      { seq: 2, table: 'tasks', op: 'delete', id: task },
      newTask(3),
      {
        seq: 4,
        table: 'comments',
        op: 'insert',
        id: testId('c0'),
        data: { task_id: task, list_id: list, body: 'Looks good' },
      },
    ]);
    expect(res.results.map((r) => [r.status, r.code ?? null])).toEqual([
      ['rejected', '42501'],
      ['rejected', '42501'],
      ['rejected', '42501'],
      ['applied', null],
    ]);
    expect(res.results[0]?.row).toMatchObject({ id: task, title: 'Task 1' });
  });

  it('rejects a patch on a deleted row as NOT_FOUND (P0002)', async () => {
    const task = testId('7a');
    const client = testId('c5');
    await push(db.engine, alice, client, [
      newTask(1, task),
      { seq: 2, table: 'tasks', op: 'delete', id: task },
    ]);
    const res = await push(db.engine, alice, client, [
      { seq: 3, table: 'tasks', op: 'patch', id: task, data: { title: 'Back?' } },
      { seq: 4, table: 'tasks', op: 'delete', id: task },
      { seq: 5, table: 'tasks', op: 'patch', id: testId('7f'), data: { title: 'Never was' } },
    ]);
    expect(res.results.map((r) => [r.status, r.code ?? null, r.hint ?? null])).toEqual([
      ['rejected', 'P0002', 'NOT_FOUND'],
      ['applied', null, null],
      ['rejected', 'P0002', 'NOT_FOUND'],
    ]);
    expect(res.results[0]?.row?.deleted_at).toBeTruthy();
  });

  it('rejects unknown tables and columns, wrong types, oversize values and identifier injection, changing nothing', async () => {
    const task = testId('7a');
    const client = testId('c6');
    await push(db.engine, alice, client, [newTask(1, task)]);
    const before = await db.engine.query('select * from tasks order by id');
    const evil: [Mutation, string][] = [
      [
        {
          seq: 2,
          table: 'tasks; drop table public.lists; --',
          op: 'patch',
          id: task,
          data: { title: 'x' },
        },
        '42P01',
      ],
      [{ seq: 3, table: 'secret_table', op: 'insert', id: testId('7a'), data: {} }, '42P01'],
      [
        { seq: 4, table: 'tasks', op: 'patch', id: task, data: { "title\" = 'pwned' --": 'x' } },
        '42703',
      ],
      [{ seq: 5, table: 'tasks', op: 'patch', id: task, data: { version: 99 } }, '42703'],
      [{ seq: 6, table: 'tasks', op: 'patch', id: task, data: { list_id: testId('11') } }, '42703'],
      [{ seq: 7, table: 'tasks', op: 'patch', id: task, data: { sync_xid: '1' } }, '42703'],
      [{ seq: 8, table: 'tasks', op: 'patch', id: task, data: { priority: 'high' } }, '42804'],
      [{ seq: 9, table: 'tasks', op: 'patch', id: task, data: { title: 42 } }, '42804'],
      [{ seq: 10, table: 'tasks', op: 'patch', id: task, data: { priority: 2.5 } }, '22P02'],
      [
        { seq: 11, table: 'tasks', op: 'patch', id: task, data: { notes: 'n'.repeat(10001) } },
        '23514',
      ],
      [
        { seq: 12, table: 'tasks', op: 'patch', id: task, data: { priority: 99999999999 } },
        '22003',
      ],
      [{ seq: 13, table: 'tasks', op: 'upsert' as Mutation['op'], id: task, data: {} }, '22023'],
      [{ seq: 14, table: 'tasks', op: 'patch', id: 'not-a-uuid', data: { title: 'x' } }, '22023'],
      [
        {
          seq: 15,
          table: 'tasks',
          op: 'patch',
          id: task,
          data: ['title'] as unknown as Record<string, unknown>,
        },
        '22023',
      ],
      [
        {
          seq: 16,
          table: 'profiles',
          op: 'insert',
          id: testId('0d'),
          data: { display_name: 'Ghost' },
        },
        '42501',
      ],
      [{ seq: 17, table: 'profiles', op: 'delete', id: alice }, '42501'],
      [
        {
          seq: 18,
          table: 'tasks',
          op: 'insert',
          id: testId('7a'),
          data: { id: testId('7b'), list_id: list, title: 'x', position: 'a0' },
        },
        '22023',
      ],
      [
        {
          seq: 19,
          table: 'tasks',
          op: 'insert',
          id: testId('7a'),
          data: { list_id: list, title: 'x', position: 'a0', created_by: vic },
        },
        '42703',
      ],
    ];
    const res = await push(
      db.engine,
      alice,
      client,
      evil.map(([m]) => m),
    );
    expect(res.results.map((r) => [r.seq, r.status, r.code])).toEqual(
      evil.map(([m, code]) => [m.seq, 'rejected', code]),
    );
    for (const r of res.results) expect(r.message, `seq ${r.seq}`).toBeTruthy();
    expect((await db.engine.query('select * from tasks order by id')).rows).toEqual(before.rows);
    expect((await db.engine.query('select count(*)::int as n from lists')).rows[0]).toEqual({
      n: 1,
    });
  });

  it('refuses malformed batches as a whole, before applying anything', async () => {
    const client = testId('c7');
    const calls: [unknown, string][] = [
      ['{"seq": 1}', '22023'],
      ['"just a string"', '22023'],
      [[{ table: 'tasks', op: 'delete', id: testId('7a') }], '22023'],
      [[{ seq: '1', table: 'tasks', op: 'delete', id: testId('7a') }], '22023'],
      [[newTask(2), newTask(1)], '22023'],
      [Array.from({ length: 501 }, (_, i) => newTask(i + 1)), '54000'],
      [
        [newTask(1, testId('7a'), { notes: 'n'.repeat(9000) })].concat(
          Array.from({ length: 120 }, (_, i) =>
            newTask(i + 2, testId('7a'), { notes: 'n'.repeat(9000) }),
          ),
        ),
        '54000',
      ],
    ];
    for (const [mutations, code] of calls) {
      expect(await failureCode(() => push(db.engine, alice, client, mutations))).toBe(code);
    }
    // Not JSON at all never reaches the function: the cast fails first.
    expect(await failureCode(() => push(db.engine, alice, client, '[{"seq":'))).toBe('22P02');
    const { rows } = await db.engine.query('select 1 from sync_clients where id = $1', [client]);
    expect(rows).toHaveLength(0);
  });

  it("refuses another user's client id and anonymous callers", async () => {
    const client = testId('c8');
    await push(db.engine, alice, client, [newTask(1)]);
    expect(await failureCode(() => push(db.engine, vic, client, [newTask(2)]))).toBe('42501');
    expect(
      await failureCode(() =>
        asCaller(db.engine, 'anon', (tx) => pushOn(tx, testId('c9'), [newTask(1)])),
      ),
    ).toBe('42501');
  });

  if (kind === 'postgres')
    it('keeps both of two concurrent patches to different fields of one task', async () => {
      const task = testId('7a');
      await push(db.engine, alice, testId('ca'), [newTask(1, task)]);
      for (let round = 0; round < 20; round += 1) {
        const a = push(db.engine, alice, testId('cb'), [
          { seq: 1, table: 'tasks', op: 'patch', id: task, data: { title: `Title ${round}` } },
        ]);
        const b = push(db.engine, alice, testId('cc'), [
          { seq: 1, table: 'tasks', op: 'patch', id: task, data: { notes: `Notes ${round}` } },
        ]);
        const [ra, rb] = await Promise.all([a, b]);
        expect(ra.results[0]?.status).toBe('applied');
        expect(rb.results[0]?.status).toBe('applied');
        expect(await taskRow(task)).toMatchObject({
          title: `Title ${round}`,
          notes: `Notes ${round}`,
        });
      }
    });

  if (kind === 'postgres')
    it('applies a batch exactly once when the same push races itself', async () => {
      const client = testId('cd');
      const task = testId('7a');
      await push(db.engine, alice, client, [newTask(1, task)]);
      const batch = Array.from({ length: 30 }, (_, i): Mutation => ({
        seq: i + 2,
        table: 'tasks',
        op: 'patch',
        id: task,
        data: { notes: `edit ${i}` },
      }));
      const results = await Promise.allSettled(
        [1, 2, 3, 4].map(() => push(db.engine, alice, client, batch)),
      );
      for (const r of results) expect(r.status).toBe('fulfilled');
      expect(await taskRow(task)).toMatchObject({ notes: 'edit 29', version: String(1 + 30) });
    });
});
