// The bulk bar's writes (issue 40, bulk-writes.ts through the repositories): one property for a
// whole selection, a delete and a move to another list, each in one transaction, each undone
// by what it returned; the status through the allowed transitions, done as completeMany does
// it (making next occurrences); a move copies each task into the other list (the server
// keeps a task's list for good) and leaves tasks with comments or files where they are.
import { describe, expect, it } from 'vitest';

import {
  clearQueueOf,
  freezeQueueOf,
  memoryDatabase,
  typedRows,
  type SyncDatabase,
} from '@sync/testing';
import { successorId } from './recurrence';
import type { OutpostDeviceRows } from './rows';
import { createRepositories } from './repositories';
import { OUTPOST_SCHEMA } from './tables';
import { memoryDevice } from './testing/memory-device';
import { serverRow } from './testing/server-row';

const ME = '0a000000-0000-4000-8000-000000000001';
const ALICE = '0b000000-0000-4000-8000-000000000002';
const BOB = '0c000000-0000-4000-8000-000000000003';
/** Monday 9 March 2026, at noon where the test runs. */
const MONDAY = new Date(2026, 2, 9, 12).getTime();

/** A device of ME's with two lists (Crew, Home) and three tasks in Crew, nothing queued. */
async function device(name: string) {
  const { db, repos } = memoryDevice(`bulk-${name}`, ME, () => MONDAY);
  const rows = typedRows<OutpostDeviceRows>(db);
  const crew = await repos.lists.create({ name: 'Crew', color: 'teal' });
  const home = await repos.lists.create({ name: 'Home', color: 'red' });
  const a = await repos.tasks.create(crew, { title: 'Alpha' });
  const b = await repos.tasks.create(crew, { title: 'Bravo', priority: 1 });
  const c = await repos.tasks.create(crew, { title: 'Charlie', status: 'done' });
  await clearQueueOf(db);
  const task = async (id: string) => (await rows('tasks').get(id))!;
  /** Live tasks of a list, in order. */
  const titles = async (listId: string) =>
    (
      await rows('tasks')
        .where('[list_id+position]')
        .between([listId, ''], [listId, '\uffff'])
        .toArray()
    )
      .filter((t) => !t.deleted_at)
      .map((t) => t.title);
  return { db, rows, repos, crew, home, a, b, c, task, titles };
}

/** Queued changes as [op, table, row id], in order. */
const queue = async (db: SyncDatabase) =>
  (await db._outbox.toArray()).map((entry) => [entry.op, entry.table, entry.rowId]);

/** Makes `userId` a live member of `listId`, as a pull would. */
async function addMember(db: SyncDatabase, listId: string, userId: string) {
  await typedRows<OutpostDeviceRows>(db)('memberships').put(
    serverRow('memberships', {
      id: crypto.randomUUID(),
      list_id: listId,
      user_id: userId,
      role: 'editor',
    }),
  );
}

describe('updateMany', () => {
  it('sets a priority on every task in one write, leaving out those that have it', async () => {
    const { db, repos, a, b, c, task } = await device('priority');
    const result = await repos.tasks.updateMany([a, b, c], { priority: 1 });

    expect(result).toEqual({
      updated: [
        { id: a, before: { priority: 0 }, after: { priority: 1 } },
        { id: c, before: { priority: 0 }, after: { priority: 1 } },
      ],
      refused: [],
    });
    expect([(await task(a)).priority, (await task(b)).priority, (await task(c)).priority]).toEqual([
      1, 1, 1,
    ]);
    expect(await queue(db)).toEqual([
      ['patch', 'tasks', a],
      ['patch', 'tasks', c],
    ]);
  });

  it('sets and clears a due date and an assignee', async () => {
    const { db, repos, crew, a, b, task } = await device('fields');
    await addMember(db, crew, ALICE);
    await repos.tasks.updateMany([a, b], { due_on: '2026-03-12' });
    await repos.tasks.updateMany([a, b], { assignee_id: ALICE });
    expect(await task(a)).toMatchObject({ due_on: '2026-03-12', assignee_id: ALICE });
    expect(await task(b)).toMatchObject({ due_on: '2026-03-12', assignee_id: ALICE });

    const cleared = await repos.tasks.updateMany([a, b], { due_on: null });
    expect(cleared.updated.map((u) => u.before)).toEqual([
      { due_on: '2026-03-12' },
      { due_on: '2026-03-12' },
    ]);
    expect((await task(b)).due_on).toBeNull();
  });

  it('refuses a bad value, or more than one property, before anything is written', async () => {
    const { db, repos, a, b, task } = await device('invalid');
    await expect(repos.tasks.updateMany([a, b], { due_on: '12 March' })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    await expect(
      repos.tasks.updateMany([a], { priority: 2, due_on: null } as unknown as { priority: 2 }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    expect((await task(a)).due_on).toBeNull();
    expect((await task(a)).priority).toBe(0);
    expect(await db._outbox.count()).toBe(0);
  });

  it('moves the status only where the transition is allowed (done can’t go to doing)', async () => {
    const { repos, a, b, c, task } = await device('transitions');
    const result = await repos.tasks.updateMany([a, b, c], { status: 'doing' });
    expect(result.refused).toEqual([c]);
    expect(result.updated.map((u) => u.id)).toEqual([a, b]);
    expect((await task(c)).status).toBe('done');

    // Back to To do: the done one is reopened, its completion time cleared.
    await repos.tasks.updateMany([a, c], { status: 'todo' });
    expect(await task(a)).toMatchObject({ status: 'todo', completed_at: null });
    expect(await task(c)).toMatchObject({ status: 'todo', completed_at: null });
  });

  it('completes as completeMany does: the next occurrence of a repeating task is made', async () => {
    const { repos, rows, crew, a, b, task } = await device('done');
    const daily = await repos.tasks.create(crew, {
      title: 'Water',
      due_on: '2026-03-09',
      repeat: 'daily',
    });
    const result = await repos.tasks.updateMany([a, daily, b], { status: 'done' });
    expect(result.updated).toEqual([
      { id: a, before: { status: 'todo' }, after: { status: 'done' } },
      { id: daily, before: { status: 'todo' }, after: { status: 'done' } },
      { id: b, before: { status: 'todo' }, after: { status: 'done' } },
    ]);
    expect((await task(a)).completed_at).toEqual(expect.any(String));
    const next = await rows('tasks').get(await successorId(daily));
    expect(next).toMatchObject({ follows_id: daily, due_on: '2026-03-10', status: 'todo' });
  });
});

describe('undoUpdateMany', () => {
  it('gives each task the value it had, unless it changed since', async () => {
    const { repos, a, b, c, task } = await device('undo-fields');
    const { updated } = await repos.tasks.updateMany([a, b, c], { priority: 3 });
    await repos.tasks.update(b, { priority: 2 });

    expect(await repos.tasks.undoUpdateMany(updated)).toBe(2);
    expect([(await task(a)).priority, (await task(b)).priority, (await task(c)).priority]).toEqual([
      0, 2, 0,
    ]);
  });

  it('puts statuses back, completing again a task that was done (no second next occurrence)', async () => {
    const { repos, rows, crew, a, c, task } = await device('undo-status');
    const daily = await repos.tasks.create(crew, { title: 'Water', repeat: 'daily' });
    await repos.tasks.setStatus(daily, 'done');
    await repos.tasks.setStatus(a, 'doing');
    const { updated } = await repos.tasks.updateMany([a, c, daily], { status: 'todo' });

    expect(await repos.tasks.undoUpdateMany(updated)).toBe(3);
    expect((await task(a)).status).toBe('doing');
    expect((await task(c)).status).toBe('done');
    expect(typeof (await task(c)).completed_at).toBe('string');
    expect((await task(daily)).status).toBe('done');
    const following = (await rows('tasks').toArray()).filter((t) => t.follows_id === daily);
    expect(following).toHaveLength(1);
  });

  it('reopens what a bulk Done completed, back to each one’s status', async () => {
    const { repos, a, b, task } = await device('undo-done');
    await repos.tasks.setStatus(b, 'doing');
    const { updated } = await repos.tasks.updateMany([a, b], { status: 'done' });
    expect(await repos.tasks.undoUpdateMany(updated)).toBe(2);
    expect(await task(a)).toMatchObject({ status: 'todo', completed_at: null });
    expect(await task(b)).toMatchObject({ status: 'doing', completed_at: null });
  });
});

describe('deleteMany', () => {
  it('deletes the tasks with their checklists in one write, and Undo brings them back', async () => {
    const { db, repos, crew, a, b, titles } = await device('delete');
    const item = await repos.checklist.add(a, 'Gloves');
    await clearQueueOf(db);

    expect(await repos.tasks.deleteMany([a, b])).toEqual([a, b]);
    expect(await titles(crew)).toEqual(['Charlie']);
    expect((await db.rows('checklist_items').get(item))?.deleted_at).toEqual(expect.any(String));
    expect(await queue(db)).toEqual([
      ['delete', 'tasks', a],
      ['delete', 'tasks', b],
    ]);

    expect(await repos.tasks.undoDeleteMany([a, b])).toBe(2);
    expect(await titles(crew)).toEqual(['Alpha', 'Bravo', 'Charlie']);
    expect((await db.rows('checklist_items').get(item))?.deleted_at).toBeNull();
    expect(await db._outbox.count()).toBe(0);
  });

  it('skips tasks already gone, and Undo after the deletes were sent brings none back', async () => {
    const { db, repos, crew, a, b } = await device('delete-late');
    await repos.tasks.delete(b);
    expect(await repos.tasks.deleteMany([a, b])).toEqual([a]);
    await freezeQueueOf(db);
    expect(await repos.tasks.undoDeleteMany([a])).toBe(0);
    expect(await (await device('delete-late-2')).titles(crew)).toEqual([]);
  });
});

describe('moveMany', () => {
  it('makes each task anew at the end of the other list, with its checklist, and deletes it here', async () => {
    const { db, rows, repos, crew, home, a, b, titles } = await device('move');
    await repos.tasks.create(home, { title: 'Already home' });
    await repos.tasks.update(a, {
      notes: 'Both gates',
      status: 'doing',
      priority: 3,
      due_on: '2026-03-12',
      repeat: 'weekly:1',
    });
    await repos.checklist.update(await repos.checklist.add(a, 'Oil'), { done: true });
    await repos.checklist.add(a, 'Paint');
    await clearQueueOf(db);

    const result = await repos.tasks.moveMany([a, b], home);

    expect(result.skipped).toEqual([]);
    expect(result.moved.map((m) => m.id)).toEqual([a, b]);
    expect(await titles(crew)).toEqual(['Charlie']);
    expect(await titles(home)).toEqual(['Already home', 'Alpha', 'Bravo']);
    const copy = await rows('tasks').get(result.moved[0]!.copyId);
    expect(copy).toMatchObject({
      list_id: home,
      title: 'Alpha',
      notes: 'Both gates',
      status: 'doing',
      priority: 3,
      due_on: '2026-03-12',
      repeat: 'weekly:1',
      follows_id: null,
      created_by: ME,
      deleted_at: null,
    });
    const copied = (await rows('checklist_items').toArray())
      .filter((i) => i.task_id === copy?.id)
      .sort((x, y) => (x.position < y.position ? -1 : 1));
    expect(copied.map((i) => [i.text, i.done, i.list_id])).toEqual([
      ['Oil', true, home],
      ['Paint', false, home],
    ]);
    // The copies are inserts the server takes; the originals' deletes wait for Undo's window.
    const queued = await queue(db);
    expect(queued.filter(([op]) => op === 'delete')).toEqual([
      ['delete', 'tasks', a],
      ['delete', 'tasks', b],
    ]);
    expect(queued.filter(([op, table]) => op === 'insert' && table === 'tasks')).toHaveLength(2);
    expect(
      queued.filter(([op, table]) => op === 'insert' && table === 'checklist_items'),
    ).toHaveLength(2);
  });

  it('keeps the assignee only where they are a member, and a done task’s completion', async () => {
    const { db, rows, repos, crew, home, a, b, c } = await device('move-assignee');
    await addMember(db, crew, ALICE);
    await addMember(db, crew, BOB);
    await addMember(db, home, ALICE);
    await repos.tasks.update(a, { assignee_id: ALICE });
    await repos.tasks.update(b, { assignee_id: BOB });
    const { moved } = await repos.tasks.moveMany([a, b, c], home);
    const copies = await Promise.all(moved.map((m) => rows('tasks').get(m.copyId)));
    expect(copies.map((t) => t?.assignee_id)).toEqual([ALICE, null, null]);
    expect(copies[2]?.status).toBe('done');
    expect(typeof copies[2]?.completed_at).toBe('string');
  });

  it('leaves tasks with comments or files where they are', async () => {
    const { repos, crew, home, a, b, c, titles } = await device('move-threads');
    await repos.comments.create(a, 'Done by Friday?');
    const file = new Blob([new Uint8Array([1])], { type: 'image/png' });
    await repos.attachments.add(b, file, 'gate.png');
    const result = await repos.tasks.moveMany([a, b, c], home);
    expect(result.skipped).toEqual([a, b]);
    expect(result.moved.map((m) => m.id)).toEqual([c]);
    expect(await titles(crew)).toEqual(['Alpha', 'Bravo']);
    expect(await titles(home)).toEqual(['Charlie']);
  });

  it('writes nothing when the other list is gone', async () => {
    const { db, repos, crew, home, a, titles } = await device('move-gone');
    await repos.lists.delete(home);
    await clearQueueOf(db);
    await expect(repos.tasks.moveMany([a], home)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await titles(crew)).toEqual(['Alpha', 'Bravo', 'Charlie']);
    expect(await db._outbox.count()).toBe(0);
  });

  it('is undone: the originals come back with their checklists, the copies go', async () => {
    const { db, rows, repos, crew, home, a, b, titles } = await device('move-undo');
    const item = await repos.checklist.add(a, 'Oil');
    await clearQueueOf(db);
    const { moved } = await repos.tasks.moveMany([a, b], home);

    expect(await repos.tasks.undoMoveMany(moved)).toBe(2);
    expect(await titles(crew)).toEqual(['Alpha', 'Bravo', 'Charlie']);
    expect(await titles(home)).toEqual([]);
    expect((await rows('checklist_items').get(item))?.deleted_at).toBeNull();
    // The originals' deletes are taken back; the copies' inserts are followed by deletes.
    const queued = await queue(db);
    expect(queued.filter(([, table, id]) => table === 'tasks' && (id === a || id === b))).toEqual(
      [],
    );
    expect(queued.filter(([op, table]) => op === 'delete' && table === 'tasks')).toEqual(
      moved.map((m) => ['delete', 'tasks', m.copyId]),
    );
  });

  it('keeps the copy of an original whose delete was sent: no task is lost', async () => {
    const { db, repos, crew, home, a, titles } = await device('move-late');
    const { moved } = await repos.tasks.moveMany([a], home);
    await freezeQueueOf(db);
    expect(await repos.tasks.undoMoveMany(moved)).toBe(0);
    expect(await titles(crew)).toEqual(['Bravo', 'Charlie']);
    expect(await titles(home)).toEqual(['Alpha']);
  });
});

describe('one transaction', () => {
  it('wakes the engine once, after the whole bulk write has committed', async () => {
    const db = memoryDatabase('bulk-queued', OUTPOST_SCHEMA);
    const rows = typedRows<OutpostDeviceRows>(db);
    const woken: number[] = [];
    const repos = createRepositories({
      db,
      rows,
      now: () => MONDAY,
      userId: () => ME,
      newId: () => crypto.randomUUID(),
      ready: Promise.resolve(),
      // What is committed by then: the engine reads the outbox when it wakes.
      onQueued: () => void db._outbox.count().then((n) => woken.push(n)),
    });
    const crew = await repos.lists.create({ name: 'Crew', color: 'teal' });
    const home = await repos.lists.create({ name: 'Home', color: 'red' });
    const a = await repos.tasks.create(crew, { title: 'Alpha' });
    const b = await repos.tasks.create(crew, { title: 'Bravo' });
    await clearQueueOf(db);
    woken.length = 0;

    await repos.tasks.moveMany([a, b], home);
    await repos.tasks.deleteMany(await rows('tasks').where('list_id').equals(home).primaryKeys());
    await db._outbox.count();
    // Two copies and two deletes, then two more deletes: one wake-up per write.
    expect(woken).toEqual([4, 6]);
  });
});
