// The server's side of repeating tasks and checklists (supabase/migrations/…_my_work.sql,
// sync-design.md "Derived rows: one next occurrence", I7), on PGlite and on Postgres 15:
// private.task_successor_id derives the id a device derives (src/data/recurrence.ts); a next
// occurrence with any other id, in another list, or a second one after the same occurrence is
// refused, and the same one sent twice is a replay (DUPLICATE, one row); follows_id never
// changes. Checklist items: owners and editors write them, 100 live per task, only under a
// task of their own list, and deletes of a task or list take them along.
import { randomUUID } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { copiedItemId, successorId } from '@/data/recurrence';
import { codeForSqlState } from '../../sync/errors';
import {
  asCallerThenRollback,
  createUsers,
  ENGINE_KINDS,
  failureCode,
  freshDatabase,
  testId,
  type TestDatabase,
} from '../support/database';
import { addMember } from '../support/memberships';
import { push, type Mutation, type PushResult } from '../support/sync-calls';

const owner = testId('0a');
const editor = testId('0e');
const viewer = testId('0f');

/** Random ids the server derives next-occurrence ids from, beside the extremes. */
const RANDOM_IDS = 300;

/** What a result says of a refusal, and how the app reads it (sync/errors.ts). */
function refusal(result: PushResult | undefined, table: string) {
  return {
    status: result?.status,
    code: result?.code,
    hint: result?.hint,
    column: result?.column,
    constraint: result?.constraint,
    reads: codeForSqlState(result?.code, {
      op: 'insert',
      table,
      constraint: result?.constraint,
    }),
  };
}

describe.each(ENGINE_KINDS)('repeating tasks and checklists on %s', (kind) => {
  let db: TestDatabase;
  /** A list the owner shares with an editor and a viewer, and one of the owner's alone. */
  const list = testId('11');
  const otherList = testId('12');

  beforeAll(async () => {
    db = await freshDatabase(kind, { seed: false });
    await createUsers(db.engine, { owner, editor, viewer });
    await db.engine.query(
      `insert into lists (id, name, created_by) values ($1, 'Home', $3), ($2, 'Work', $3)`,
      [list, otherList, owner],
    );
    await addMember(db.engine, list, owner, editor, 'editor');
    await addMember(db.engine, list, owner, viewer, 'viewer');
  });
  afterAll(() => db.close());

  /** Pushes `mutations` as `uid` from a new client (a device of its own). */
  const pushAs = (uid: string, mutations: Mutation[]) =>
    push(db.engine, uid, randomUUID(), mutations);

  /** A repeating task made by the owner in `listId`: an occurrence. */
  async function occurrence(listId = list): Promise<string> {
    const id = randomUUID();
    const pushed = await pushAs(owner, [
      {
        seq: 1,
        table: 'tasks',
        op: 'insert',
        id,
        data: { list_id: listId, title: 'Bins out', position: 'a0', repeat: 'weekly:1,4' },
      },
    ]);
    expect(pushed.results[0]?.status).toBe('applied');
    return id;
  }

  /** The insert a device sends for the next occurrence of `follows` (repositories.ts). */
  const nextInsert = (
    seq: number,
    id: string,
    follows: string,
    fields: Record<string, unknown> = {},
  ): Mutation => ({
    seq,
    table: 'tasks',
    op: 'insert',
    id,
    data: {
      list_id: list,
      title: 'Bins out',
      position: 'a1',
      due_on: '2026-03-12',
      repeat: 'weekly:1,4',
      follows_id: follows,
      ...fields,
    },
  });

  /** Ids of the rows (deleted or not) that follow `id`. */
  async function following(id: string): Promise<string[]> {
    const { rows } = await db.engine.query<{ id: string }>(
      'select id from tasks where follows_id = $1',
      [id],
    );
    return rows.map((row) => row.id);
  }

  it('derives the next occurrence’s id as a device does', async () => {
    const ids = [
      '00000000-0000-0000-0000-000000000000',
      'ffffffff-ffff-ffff-ffff-ffffffffffff',
      ...Array.from({ length: RANDOM_IDS }, () => randomUUID()),
    ];
    const { rows } = await db.engine.query<{ id: string; next: string }>(
      `select value as id, private.task_successor_id(value::uuid)::text as next
         from jsonb_array_elements_text($1::jsonb)`,
      [JSON.stringify(ids.map((id) => id.toUpperCase()))],
    );
    expect(rows).toHaveLength(ids.length);
    const mismatches: string[] = [];
    for (const [i, row] of rows.entries()) {
      const device = await successorId(ids[i] ?? '');
      if (row.next !== device) mismatches.push(`${ids[i]}: server ${row.next}, device ${device}`);
    }
    expect(mismatches).toEqual([]);
  });

  it('takes the next occurrence a device makes, and refuses one with any other id', async () => {
    const id = await occurrence();
    const random = randomUUID();
    const refused = await pushAs(editor, [nextInsert(1, random, id)]);
    expect(refusal(refused.results[0], 'tasks')).toMatchObject({
      status: 'rejected',
      code: 'P0001',
      hint: 'NOT_A_SUCCESSOR',
      column: 'follows_id',
      reads: 'VALIDATION_FAILED',
    });
    expect(await following(id)).toEqual([]);

    const next = await successorId(id);
    const taken = await pushAs(editor, [nextInsert(1, next, id)]);
    expect(taken.results[0]).toMatchObject({
      status: 'applied',
      row: { id: next, follows_id: id, repeat: 'weekly:1,4', created_by: editor },
    });
    expect(await following(id)).toEqual([next]);
  });

  it('refuses a next occurrence in another list than its occurrence’s, or of no task', async () => {
    const id = await occurrence();
    const inOther = await pushAs(owner, [
      nextInsert(1, await successorId(id), id, { list_id: otherList }),
    ]);
    expect(refusal(inOther.results[0], 'tasks')).toMatchObject({
      status: 'rejected',
      hint: 'NOT_A_SUCCESSOR',
    });
    // Nor does the occurrence of the other list get one in this list.
    const theirs = await occurrence(otherList);
    const intoThis = await pushAs(owner, [nextInsert(1, await successorId(theirs), theirs)]);
    expect(refusal(intoThis.results[0], 'tasks')).toMatchObject({ hint: 'NOT_A_SUCCESSOR' });
    const nowhere = randomUUID();
    const ofNothing = await pushAs(owner, [nextInsert(1, await successorId(nowhere), nowhere)]);
    expect(refusal(ofNothing.results[0], 'tasks')).toMatchObject({ hint: 'NOT_A_SUCCESSOR' });
    expect([
      ...(await following(id)),
      ...(await following(theirs)),
      ...(await following(nowhere)),
    ]).toEqual([]);
  });

  it('answers the same next occurrence from a second device as a replay, and keeps one row', async () => {
    const id = await occurrence();
    const next = await successorId(id);
    const ownerClient = randomUUID();
    const first = await push(db.engine, owner, ownerClient, [
      nextInsert(1, next, id, { title: 'First', due_on: '2026-03-12' }),
    ]);
    expect(first.results[0]?.status).toBe('applied');

    // The editor completed the same occurrence offline, on another day: the same insert, but
    // for its fields. The server keeps the first; the device takes the server's row.
    const second = await pushAs(editor, [
      nextInsert(1, next, id, { title: 'Second', due_on: '2026-03-16', position: 'zz' }),
    ]);
    expect(refusal(second.results[0], 'tasks')).toMatchObject({
      code: '23505',
      constraint: 'tasks_pkey',
      reads: 'DUPLICATE',
    });
    expect(second.results[0]?.row).toMatchObject({
      id: next,
      title: 'First',
      due_on: '2026-03-12',
      created_by: owner,
    });
    // The first device's answer was lost: its replay is answered as applied.
    const replay = await push(db.engine, owner, ownerClient, [nextInsert(1, next, id)]);
    expect(replay.results[0]).toMatchObject({ status: 'applied', replayed: true });
    const { rows } = await db.engine.query<{ title: string; version: string }>(
      'select title, version::text from tasks where follows_id = $1',
      [id],
    );
    expect(rows).toEqual([{ title: 'First', version: '1' }]);

    // A viewer's device never makes one: refused before it could be a replay.
    const fromViewer = await pushAs(viewer, [nextInsert(1, next, id)]);
    expect(refusal(fromViewer.results[0], 'tasks')).toMatchObject({ reads: 'PERMISSION_DENIED' });

    // A device that completed its copy before sending it sends it done (the insert and the
    // completion are one queued insert): still a replay of the primary key, not a refusal.
    const doneCopy = await pushAs(editor, [nextInsert(1, next, id, { status: 'done' })]);
    expect(refusal(doneCopy.results[0], 'tasks')).toMatchObject({
      constraint: 'tasks_pkey',
      reads: 'DUPLICATE',
    });
  });

  it('refuses a second next occurrence of the same occurrence', async () => {
    const id = await occurrence();
    const next = await successorId(id);
    await pushAs(owner, [nextInsert(1, next, id)]);
    const again = await pushAs(owner, [nextInsert(1, randomUUID(), id, { title: 'Twin' })]);
    expect(refusal(again.results[0], 'tasks')).toMatchObject({ hint: 'NOT_A_SUCCESSOR' });
    // Even a deleted next occurrence stands for its occurrence.
    await pushAs(owner, [{ seq: 1, table: 'tasks', op: 'delete', id: next }]);
    const afterDelete = await pushAs(owner, [nextInsert(1, next, id)]);
    expect(refusal(afterDelete.results[0], 'tasks')).toMatchObject({ reads: 'DUPLICATE' });
    expect(await following(id)).toEqual([next]);
    // Below the trigger, the unique follows_id holds on its own (here with triggers off).
    const code = await failureCode(() =>
      db.engine.transaction(async (tx) => {
        await tx.query(`set local session_replication_role = replica`);
        await tx.query(
          `insert into tasks (id, list_id, title, position, created_by, follows_id)
           values ($1, $2, 'Twin', 'b0', $3, $4)`,
          [randomUUID(), list, owner, id],
        );
        throw new Error('not refused');
      }),
    );
    expect(code).toBe('23505');
  });

  it('never changes whom a task follows', async () => {
    const id = await occurrence();
    const next = await successorId(id);
    await pushAs(owner, [nextInsert(1, next, id)]);
    const other = await occurrence();
    const patched = await pushAs(owner, [
      { seq: 1, table: 'tasks', op: 'patch', id: next, data: { follows_id: other } },
    ]);
    expect(patched.results[0]).toMatchObject({ status: 'rejected', code: '42703' });
    for (const value of [other, null]) {
      expect(
        await failureCode(() =>
          asCallerThenRollback(db.engine, { uid: owner }, (tx) =>
            tx.query('update tasks set follows_id = $2 where id = $1', [next, value]),
          ),
        ),
        String(value),
      ).toBe('42501');
    }
    // Nor can a task made without one be given one later.
    expect(
      await failureCode(() =>
        asCallerThenRollback(db.engine, { uid: owner }, (tx) =>
          tx.query('update tasks set follows_id = $2 where id = $1', [other, id]),
        ),
      ),
    ).toBe('42501');
    expect(await following(id)).toEqual([next]);
  });

  it('keeps rules as the device writes them', async () => {
    const id = await occurrence();
    const results = await pushAs(owner, [
      { seq: 1, table: 'tasks', op: 'patch', id, data: { repeat: 'weekly:4,1' } },
      { seq: 2, table: 'tasks', op: 'patch', id, data: { repeat: 'after:366' } },
      { seq: 3, table: 'tasks', op: 'patch', id, data: { repeat: 'monthly:31' } },
      { seq: 4, table: 'tasks', op: 'patch', id, data: { repeat: null } },
    ]);
    expect(results.results.map((r) => [r.status, r.constraint])).toEqual([
      ['rejected', 'tasks_repeat_check'],
      ['rejected', 'tasks_repeat_check'],
      ['applied', undefined],
      ['applied', undefined],
    ]);
  });

  describe('checklist items', () => {
    const item = (
      seq: number,
      taskId: string,
      fields: Record<string, unknown> = {},
      id: string = randomUUID(),
    ): Mutation => ({
      seq,
      table: 'checklist_items',
      op: 'insert',
      id,
      data: { task_id: taskId, list_id: list, text: `Item ${seq}`, position: `a${seq}`, ...fields },
    });

    async function liveItems(taskId: string): Promise<number> {
      const { rows } = await db.engine.query<{ n: number }>(
        'select count(*)::int as n from checklist_items where task_id = $1 and deleted_at is null',
        [taskId],
      );
      return rows[0]?.n ?? -1;
    }

    it('are added and edited by owners and editors, not by viewers', async () => {
      const taskId = await occurrence();
      const mine = randomUUID();
      const added = await pushAs(editor, [
        item(1, taskId, {}, mine),
        { seq: 2, table: 'checklist_items', op: 'patch', id: mine, data: { done: true } },
      ]);
      expect(added.results.map((r) => r.status)).toEqual(['applied', 'applied']);
      const byViewer = await pushAs(viewer, [
        item(1, taskId),
        { seq: 2, table: 'checklist_items', op: 'patch', id: mine, data: { text: 'Mine now' } },
        { seq: 3, table: 'checklist_items', op: 'delete', id: mine },
      ]);
      expect(
        byViewer.results.map((r) =>
          codeForSqlState(r.code, { op: r.seq === 1 ? 'insert' : 'patch', table: 'x' }),
        ),
      ).toEqual(['PERMISSION_DENIED', 'PERMISSION_DENIED', 'PERMISSION_DENIED']);
      const { rows } = await db.engine.query(
        'select text, done, deleted_at from checklist_items where task_id = $1',
        [taskId],
      );
      expect(rows).toEqual([{ text: 'Item 1', done: true, deleted_at: null }]);
    });

    it('are at most 100 live ones on a task (CHECKLIST_LIMIT)', async () => {
      const taskId = await occurrence();
      const ids = Array.from({ length: 100 }, () => randomUUID());
      const hundred = await pushAs(
        editor,
        ids.map((id, i) => item(i + 1, taskId, {}, id)),
      );
      expect(hundred.results.every((r) => r.status === 'applied')).toBe(true);
      const oneMore = await pushAs(editor, [item(1, taskId)]);
      expect(refusal(oneMore.results[0], 'checklist_items')).toMatchObject({
        status: 'rejected',
        code: 'P0001',
        hint: 'CHECKLIST_LIMIT',
        reads: 'VALIDATION_FAILED',
      });
      expect(await liveItems(taskId)).toBe(100);
      // A deleted one no longer counts.
      const freed = await pushAs(editor, [
        { seq: 1, table: 'checklist_items', op: 'delete', id: ids[0] ?? '' },
        item(2, taskId),
      ]);
      expect(freed.results.map((r) => r.status)).toEqual(['applied', 'applied']);
      expect(await liveItems(taskId)).toBe(100);
    });

    it('sit only under a live task of their own list', async () => {
      const theirs = await occurrence(otherList);
      // The owner sees both lists: told the list is wrong.
      const crossed = await pushAs(owner, [item(1, theirs)]);
      expect(crossed.results[0]).toMatchObject({
        status: 'rejected',
        code: '23514',
        column: 'list_id',
      });
      // The editor does not see the other list: as if the task were not there.
      const blind = await pushAs(editor, [item(1, theirs)]);
      expect(blind.results[0]).toMatchObject({ status: 'rejected', code: 'P0002' });
      // Nor under a task of this list filed in the other list.
      const here = await occurrence();
      const misfiled = await pushAs(owner, [item(1, here, { list_id: otherList })]);
      expect(misfiled.results[0]).toMatchObject({ status: 'rejected', code: '23514' });
      expect((await liveItems(theirs)) + (await liveItems(here))).toBe(0);
      // A task that was deleted takes no more.
      await pushAs(owner, [{ seq: 1, table: 'tasks', op: 'delete', id: here }]);
      const late = await pushAs(owner, [item(1, here)]);
      expect(late.results[0]).toMatchObject({
        status: 'rejected',
        code: 'P0002',
        hint: 'NOT_FOUND',
      });
      // Nor can one be moved to another task or list.
      const kept = await occurrence();
      const movable = randomUUID();
      await pushAs(owner, [item(1, kept, {}, movable)]);
      for (const [column, value] of [
        ['task_id', here],
        ['list_id', otherList],
      ] as const) {
        expect(
          await failureCode(() =>
            asCallerThenRollback(db.engine, { uid: owner }, (tx) =>
              tx.query(`update checklist_items set ${column} = $2 where id = $1`, [movable, value]),
            ),
          ),
          column,
        ).toBe('42501');
      }
    });

    it('are deleted with their task, and with their list', async () => {
      const taskId = await occurrence();
      const sibling = await occurrence();
      await pushAs(editor, [item(1, taskId), item(2, taskId), item(3, sibling)]);
      const deleted = await pushAs(editor, [{ seq: 1, table: 'tasks', op: 'delete', id: taskId }]);
      expect(deleted.results[0]?.status).toBe('applied');
      const { rows } = await db.engine.query<{ same: boolean }>(
        `select i.deleted_at = t.deleted_at as same
           from checklist_items i join tasks t on t.id = i.task_id where i.task_id = $1`,
        [taskId],
      );
      expect(rows).toEqual([{ same: true }, { same: true }]);
      expect(await liveItems(sibling)).toBe(1);

      const left = await asCallerThenRollback(db.engine, { uid: owner }, async (tx) => {
        await tx.query('update lists set deleted_at = now() where id = $1', [list]);
        const { rows: live } = await tx.query<{ n: number }>(
          `select count(*)::int as n from checklist_items where list_id = $1 and deleted_at is null`,
          [list],
        );
        return live[0]?.n;
      });
      expect(left).toBe(0);
    });

    it('copied to a next occurrence, are made once however many devices copy them', async () => {
      const id = await occurrence();
      const original = randomUUID();
      await pushAs(owner, [item(1, id, { text: 'Rinse' }, original)]);
      const next = await successorId(id);
      const copy = await copiedItemId(next, original);
      const completion = (seq: number): Mutation[] => [
        nextInsert(seq, next, id),
        item(seq + 1, next, { text: 'Rinse', position: 'a1' }, copy),
      ];
      const first = await pushAs(owner, completion(1));
      expect(first.results.map((r) => r.status)).toEqual(['applied', 'applied']);
      const second = await pushAs(editor, completion(1));
      expect(
        second.results.map((r) => refusal(r, r.seq === 1 ? 'tasks' : 'checklist_items')),
      ).toEqual([
        expect.objectContaining({ constraint: 'tasks_pkey', reads: 'DUPLICATE' }),
        expect.objectContaining({ constraint: 'checklist_items_pkey', reads: 'DUPLICATE' }),
      ]);
      expect(await liveItems(next)).toBe(1);

      // The next occurrence is deleted; a device that completed the occurrence offline sends
      // the same rows still: both are replays (their primary keys), not refusals to show.
      const deleted = await pushAs(owner, [
        { seq: 1, table: 'tasks', op: 'delete', id: next, data: {} },
      ]);
      expect(deleted.results[0]?.status).toBe('applied');
      const late = await pushAs(editor, completion(1));
      expect(
        late.results.map((r) => refusal(r, r.seq === 1 ? 'tasks' : 'checklist_items').reads),
      ).toEqual(['DUPLICATE', 'DUPLICATE']);
    });
  });

  it('ends the series of an occurrence deleted on another device: its next one is NOT_FOUND', async () => {
    const id = await occurrence();
    const next = await successorId(id);
    const removed = await pushAs(owner, [{ seq: 1, table: 'tasks', op: 'delete', id, data: {} }]);
    expect(removed.results[0]?.status).toBe('applied');
    // The editor completed it offline before it heard of the delete.
    const completed = await pushAs(editor, [
      { seq: 1, table: 'tasks', op: 'patch', id, data: { status: 'done' } },
      nextInsert(2, next, id),
    ]);
    expect(completed.results.map((r) => refusal(r, 'tasks').reads)).toEqual([
      'NOT_FOUND',
      'NOT_FOUND',
    ]);
    expect(await following(id)).toEqual([]);
  });
});
