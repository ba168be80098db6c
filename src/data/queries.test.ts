// The read API against a device on fake-indexeddb: stand-ins give way to the server's
// membership of their own list, a list the user has left is gone at once, counts (apart from
// the lists' summaries, which read no task) and queued changes per list, a rejection is linked to the list and task still on the device, and the
// tasks assigned and due are counted for the app's badge.
import { IDBCursor } from 'fake-indexeddb';
import { describe, expect, it, vi } from 'vitest';

import { liveRead } from '@sync/index';

import { memoryDevice } from './testing/memory-device';
import { createQueries, myLists } from './queries';
import type { Role } from './schema';
import { serverRow } from './testing/server-row';

const ME = 'user-1';

function device() {
  const { db, repos, reader } = memoryDevice('queries', ME);
  return { db, repos, reader, queries: createQueries(reader, () => Promise.resolve(ME)) };
}

/** The server's membership row, as a pull stores it. */
function serverMembership(listId: string, userId: string, role: Role, deleted = false) {
  const at = '2026-11-27T10:00:00.000Z';
  return serverRow('memberships', {
    id: `m-${listId}-${userId}`,
    list_id: listId,
    user_id: userId,
    role,
    version: 2,
    created_at: at,
    updated_at: at,
    deleted_at: deleted ? at : null,
  });
}

/**
 * The server's memberships of ME (owner of `kept`, gone from `left`) arriving as a pull of the
 * user's own memberships stores them: the stand-ins go.
 */
async function pullOwnMemberships(
  db: ReturnType<typeof device>['db'],
  kept: string,
  left: string,
): Promise<void> {
  await db
    .rows('memberships')
    .bulkPut([serverMembership(kept, ME, 'owner'), serverMembership(left, ME, 'editor', true)]);
  await db
    .rows('memberships')
    .filter((row) => Boolean(row._standIn))
    .delete();
}

describe('queries', () => {
  it('count a list’s open and done tasks by index, tombstones left out', async () => {
    const { repos, queries } = device();
    const listId = await repos.lists.create({ name: 'Crew', color: 'teal' });
    const other = await repos.lists.create({ name: 'Other', color: 'red' });
    const ids = [];
    for (let i = 0; i < 6; i++) ids.push(await repos.tasks.create(listId, { title: `T${i}` }));
    await repos.tasks.create(other, { title: 'Elsewhere', status: 'done' });
    await repos.tasks.update(ids[0]!, { status: 'done' });
    await repos.tasks.update(ids[1]!, { status: 'done' });
    await repos.tasks.update(ids[2]!, { status: 'doing' });
    expect(await queries.taskCounts(listId)).toEqual({ open: 4, done: 2 });
    // A deleted done task and a deleted open one: tombstones are not counted.
    await repos.tasks.delete(ids[0]!);
    await repos.tasks.delete(ids[3]!);
    expect(await queries.taskCounts(listId)).toEqual({ open: 3, done: 1 });
    await repos.tasks.undoDelete(ids[3]!);
    expect(await queries.taskCounts(listId)).toEqual({ open: 4, done: 1 });
    expect(await queries.taskCounts(other)).toEqual({ open: 0, done: 1 });
    // The same as counting the rows themselves.
    const live = await queries.tasks(listId);
    expect(live.filter((t) => t.status !== 'done').length).toBe(4);
  });

  it('summarise the lists without reading a task: a task written by a pull reads none of them again', async () => {
    const { db, repos, queries } = device();
    const listId = await repos.lists.create({ name: 'Crew', color: 'teal' });
    const taskId = await repos.tasks.create(listId, { title: 'Mine' });
    let reads = 0;
    const answers: string[][] = [];
    let answered = (): void => undefined;
    const next = () => new Promise<void>((resolve) => (answered = resolve));
    const first = next();
    const subscription = liveRead(() => {
      reads += 1;
      return queries.lists(ME);
    }).subscribe({
      next: (lists) => {
        answers.push(lists.map(({ list }) => list.name));
        answered();
      },
    });
    await first;

    // A pull writes the task over the device's copy, done now.
    const stored = await db.rows('tasks').get(taskId);
    await db.rows('tasks').bulkPut([{ ...stored!, status: 'done' }]);
    // The list renamed: the summaries are read again, and only now.
    const renamed = next();
    await repos.lists.rename(listId, 'Crew, renamed');
    await renamed;
    subscription.unsubscribe();
    expect(answers).toEqual([['Crew'], ['Crew, renamed']]);
    expect(reads).toBe(2);
  });

  it('read the first tasks of a list in position order, live ones only', async () => {
    const { repos, queries } = device();
    const listId = await repos.lists.create({ name: 'Crew', color: 'teal' });
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await repos.tasks.create(listId, { title: `T${i}` }));
    await repos.tasks.delete(ids[1]!);
    const first = await queries.firstTasks(listId, 3);
    // The first three by position, the deleted one left out; more follow.
    expect(first.tasks.map((t) => t.title)).toEqual(['T0', 'T2']);
    expect(first.whole).toBe(false);
    expect(first.tasks).toEqual((await queries.tasks(listId)).slice(0, 2));
    const all = await queries.firstTasks(listId, 10);
    expect(all.whole).toBe(true);
    expect(all.tasks.map((t) => t.title)).toEqual(['T0', 'T2', 'T3', 'T4']);
  });

  it('name the live tasks either side of a place in a list, tombstones and other lists left out', async () => {
    const { repos, queries } = device();
    const listId = await repos.lists.create({ name: 'Crew', color: 'teal' });
    const other = await repos.lists.create({ name: 'Other', color: 'red' });
    await repos.tasks.create(other, { title: 'Elsewhere' });
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await repos.tasks.create(listId, { title: `T${i}` }));
    await repos.tasks.delete(ids[1]!);
    await repos.tasks.delete(ids[3]!);
    const tasks = await queries.tasks(listId);
    const at = (id: string) => tasks.find((t) => t.id === id)!.position;
    expect(await queries.neighbours(listId, at(ids[2]!))).toEqual({
      before: ids[0],
      after: ids[4],
    });
    expect(await queries.neighbours(listId, at(ids[0]!))).toEqual({ before: null, after: ids[2] });
    expect(await queries.neighbours(listId, at(ids[4]!))).toEqual({ before: ids[2], after: null });
  });

  it('answer a new list by its stand-in membership until the server’s arrives', async () => {
    const { db, repos, queries } = device();
    const listId = await repos.lists.create({ name: 'Crew', color: 'teal' });
    expect(await queries.role(listId, ME)).toBe('owner');
    expect((await queries.members(listId)).map((m) => m.standIn)).toEqual([true]);

    await db.rows('memberships').put(serverMembership(listId, ME, 'editor'));
    expect(await queries.role(listId, ME)).toBe('editor');
    const members = await queries.members(listId);
    expect(members.map((m) => [m.membership.role, m.standIn])).toEqual([['editor', false]]);
  });

  it('keep a stand-in until its own list’s membership arrives, not another list’s', async () => {
    const { db, repos, queries, reader } = device();
    const synced = await repos.lists.create({ name: 'Synced', color: 'teal' });
    const offline = await repos.lists.create({ name: 'Made offline', color: 'red' });
    // The server's membership of ME on one list arrives; the other list's is still to come.
    await db.rows('memberships').put(serverMembership(synced, ME, 'owner'));
    await db
      .rows('memberships')
      .filter((row) => row.list_id === synced && Boolean(row._standIn))
      .delete();

    const lists = await queries.lists(ME);
    expect(
      lists
        .map(({ list, role, members }) => [list.name, role, members.map((m) => m.standIn)])
        .sort(),
    ).toEqual([
      ['Made offline', 'owner', [true]],
      ['Synced', 'owner', [false]],
    ]);
    // The lists whose tasks My work and the palette read, each with the user's role.
    const mine = await myLists(reader, ME);
    expect([mine.get(synced)?.role, mine.get(offline)?.role]).toEqual(['owner', 'owner']);
  });

  it('drop a list the user has left, and count each list’s tasks and queued changes', async () => {
    const { db, repos, queries } = device();
    const kept = await repos.lists.create({ name: 'Kept', color: 'teal' });
    const left = await repos.lists.create({ name: 'Left', color: 'red' });
    const done = await repos.tasks.create(kept, { title: 'Done one' });
    await repos.tasks.create(kept, { title: 'Open one' });
    await repos.tasks.update(done, { status: 'done' });
    await pullOwnMemberships(db, kept, left);

    expect(await queries.list(left, ME)).toBeNull();
    expect((await queries.list(kept, ME))?.name).toBe('Kept');
    const lists = await queries.lists(ME);
    expect(lists.map(({ list, role }) => [list.name, role])).toEqual([['Kept', 'owner']]);
    expect(await queries.taskCounts(kept)).toEqual({ open: 1, done: 1 });
    expect(lists[0]?.pending).toBe(await db._outbox.where('listId').equals(kept).count());
    expect(lists[0]?.pending).toBeGreaterThan(0);
    expect((await queries.tasks(kept)).map((task) => task.title)).toEqual(['Done one', 'Open one']);
    expect(await queries.pendingRows(kept)).toContain(done);
  });

  it('find lists and tasks by a part of their name, live ones of lists the user has not left', async () => {
    const { db, repos, queries } = device();
    const kept = await repos.lists.create({ name: 'Roof crew', color: 'teal' });
    const left = await repos.lists.create({ name: 'Roof left', color: 'red' });
    const gone = await repos.lists.create({ name: 'Roof gone', color: 'red' });
    const beams = await repos.tasks.create(kept, { title: 'Check ROOF beams' });
    await repos.tasks.create(kept, { title: 'Order nails' });
    const deleted = await repos.tasks.create(kept, { title: 'Roof deleted' });
    await repos.tasks.delete(deleted);
    await repos.tasks.create(left, { title: 'Roof of a list I left' });
    await repos.tasks.create(gone, { title: 'Roof of a deleted list' });
    await repos.lists.delete(gone);
    await pullOwnMemberships(db, kept, left);

    const attic = await repos.lists.create({ name: 'Attic roof', color: 'blue' });
    const found = await queries.find(ME, '  roof ');
    // In name order (ids are random, so only the sort makes it so).
    expect(found.lists.map((list) => list.name)).toEqual(['Attic roof', 'Roof crew']);
    expect(found.tasks.map(({ task, list }) => [task.id, task.title, list.name])).toEqual([
      [beams, 'Check ROOF beams', 'Roof crew'],
    ]);
    // No text: every list the user has, and no task.
    expect(await queries.find(ME, '')).toEqual({ lists: found.lists, tasks: [] });
    expect(found.lists[0]?.id).toBe(attic);
    expect(await queries.find(ME, 'nothing like it')).toEqual({ lists: [], tasks: [] });
  });

  it('find at most `limit` tasks, and stop reading at the last one', async () => {
    const { repos, queries } = device();
    const listId = await repos.lists.create({ name: 'Big', color: 'teal' });
    for (let i = 0; i < 60; i++) await repos.tasks.create(listId, { title: `Task ${i}` });
    const advances = vi.spyOn(IDBCursor.prototype, 'continue');
    try {
      const found = await queries.find(ME, 'task', 5);
      expect(found.tasks).toHaveLength(5);
      // A cursor that read every task would have moved ~60 times.
      expect(advances.mock.calls.length).toBeLessThan(10);
    } finally {
      advances.mockRestore();
    }
    expect((await queries.find(ME, 'task')).tasks).toHaveLength(20);
  });

  it('link a rejection to its task while the task is here, to its list once it is gone', async () => {
    const { db, repos, queries } = device();
    const listId = await repos.lists.create({ name: 'Crew', color: 'teal' });
    const taskId = await repos.tasks.create(listId, { title: 'Fix the gate' });
    const logged = await db._rejections.add({
      table: 'tasks',
      rowId: taskId,
      op: 'patch',
      data: { title: 'x' },
      code: 'PERMISSION_DENIED',
      message: 'refused',
      at: 1,
      listId,
    });
    expect(await queries.newestRejection()).toBe(logged);
    const [first] = await queries.rejections();
    expect([first?.listId, first?.taskId, first?.row?.title]).toEqual([
      listId,
      taskId,
      'Fix the gate',
    ]);

    await repos.tasks.delete(taskId);
    const [after] = await queries.rejections();
    expect([after?.listId, after?.taskId]).toEqual([listId, null]);
    expect(await queries.rejections(logged)).toEqual([]);
  });

  it('count the tasks assigned to a person that are due or overdue, not done and not deleted', async () => {
    const { repos, queries } = device();
    const me = '0e000000-0000-4000-8000-000000000001';
    const other = '0e000000-0000-4000-8000-000000000002';
    const listId = await repos.lists.create({ name: 'Crew', color: 'teal' });
    const task = (title: string, fields: { assignee_id?: string; due_on?: string } = {}) =>
      repos.tasks.create(listId, { title, ...fields });
    const today = '2026-12-02';
    await task('Due today', { assignee_id: me, due_on: today });
    await task('Overdue', { assignee_id: me, due_on: '2026-11-30' });
    const doing = await task('Overdue, doing', { assignee_id: me, due_on: '2026-11-01' });
    await repos.tasks.update(doing, { status: 'doing' });
    // Not counted: tomorrow, no date, someone else's, nobody's, done, deleted.
    await task('Tomorrow', { assignee_id: me, due_on: '2026-12-03' });
    await task('Some day', { assignee_id: me });
    await task('Theirs', { assignee_id: other, due_on: today });
    await task('Nobody’s', { due_on: today });
    const done = await task('Done', { assignee_id: me, due_on: today });
    await repos.tasks.update(done, { status: 'done' });
    const gone = await task('Deleted', { assignee_id: me, due_on: today });
    await repos.tasks.delete(gone);

    expect(await queries.assignedDueCount(me, today)).toBe(3);
    expect(await queries.assignedDueCount(other, today)).toBe(1);
    // The next day, tomorrow's task is due too.
    expect(await queries.assignedDueCount(me, '2026-12-03')).toBe(4);
    expect(await queries.assignedDueCount(me, '2026-11-29')).toBe(1);
  });
});
