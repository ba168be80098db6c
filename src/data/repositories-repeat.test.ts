// Repeating tasks in the repositories (product.md §4 "Repeat", sync-design.md I7): completing an
// occurrence makes exactly one next occurrence, with the id derived from it, the fields the
// series carries, the rule's next due date and the checklist copied unticked; reopening and
// completing again makes none, and neither does a device that holds the next one already,
// even as a tombstone.
import { describe, expect, it } from 'vitest';

import { clearQueueOf, typedRows } from '@sync/testing';
import { copiedItemId, successorId } from './recurrence';
import type { OutpostDeviceRows } from './rows';
import { createRepositories } from './repositories';
import { memoryDevice } from './testing/memory-device';
import { serverRow } from './testing/server-row';

const ME = '0a000000-0000-4000-8000-000000000001';
const FORMER = '0b000000-0000-4000-8000-000000000002';
const STILL = '0c000000-0000-4000-8000-000000000003';
/** Monday 9 March 2026, at noon where the test runs (the device's "today" is local). */
const MONDAY = new Date(2026, 2, 9, 12).getTime();

/** A device whose clock reads MONDAY, with one list of ME's, nothing queued. */
async function device(name: string) {
  const { db, repos } = memoryDevice(`repeat-${name}`, ME, () => MONDAY);
  const rows = typedRows<OutpostDeviceRows>(db);
  const listId = await repos.lists.create({ name: 'Chores', color: 'teal' });
  await clearQueueOf(db);
  /** Tasks of the list on the device, deleted ones too. */
  const tasks = () => rows('tasks').where('list_id').equals(listId).toArray();
  /** The tasks that follow `id` on the device. */
  const following = async (id: string) => (await tasks()).filter((t) => t.follows_id === id);
  /** Queued inserts, as [table, row id]. */
  const inserts = async () =>
    (await db._outbox.toArray())
      .filter((entry) => entry.op === 'insert')
      .map((entry) => [entry.table, entry.rowId]);
  return { db, rows, repos, listId, tasks, following, inserts };
}

describe('completing an occurrence of a repeating task', () => {
  it('makes exactly one next occurrence: the series’ fields, the next due date, the derived id', async () => {
    const { rows, db, repos, listId, tasks, inserts } = await device('fields');
    const id = await repos.tasks.create(listId, {
      title: 'Water the plants',
      notes: 'The ones on the balcony too',
      priority: 2,
      due_on: '2026-03-09',
      assignee_id: ME,
      repeat: 'weekly:1,4',
    });
    await clearQueueOf(db);

    await repos.tasks.setStatus(id, 'done');

    const next = await successorId(id);
    expect((await tasks()).map((t) => t.id).sort()).toEqual([id, next].sort());
    const made = await rows('tasks').get(next);
    expect(made).toMatchObject({
      list_id: listId,
      title: 'Water the plants',
      notes: 'The ones on the balcony too',
      priority: 2,
      status: 'todo',
      due_on: '2026-03-12',
      assignee_id: ME,
      repeat: 'weekly:1,4',
      follows_id: id,
      completed_at: null,
      created_by: ME,
      deleted_at: null,
    });
    // After the occurrence in the list's order, and queued with whom it follows.
    expect(made && made.position > ((await rows('tasks').get(id))?.position ?? '')).toBe(true);
    expect(await inserts()).toEqual([['tasks', next]]);
    const queued = await db._outbox.filter((e) => e.rowId === next).first();
    expect(queued?.data).toMatchObject({ follows_id: id, repeat: 'weekly:1,4' });
    const done = await rows('tasks').get(id);
    expect(done?.status).toBe('done');
    expect(typeof done?.completed_at).toBe('string');
  });

  it.each([
    ['daily', '2026-03-02', '2026-03-09'],
    ['monthly:31', '2026-02-28', '2026-03-31'],
    ['after:3', '2026-03-20', '2026-03-12'],
    ['after:3', null, '2026-03-12'],
    ['weekly:1,4', null, '2026-03-12'],
  ])('due by %s after %s on Monday 9 March: %s', async (repeat, due, expected) => {
    const { repos, listId, following } = await device(`due-${repeat}`);
    const id = await repos.tasks.create(listId, { title: 'Again', due_on: due, repeat });
    await repos.tasks.update(id, { status: 'done' });
    expect((await following(id)).map((t) => t.due_on)).toEqual([expected]);
  });

  it('makes none when completed again after a reopen, or after an undo of the complete', async () => {
    const { rows, db, repos, listId, following, inserts } = await device('again');
    const id = await repos.tasks.create(listId, { title: 'Bins out', repeat: 'daily' });
    await repos.tasks.setStatus(id, 'done');
    const next = await successorId(id);
    expect((await following(id)).map((t) => t.id)).toEqual([next]);
    await clearQueueOf(db);

    await repos.tasks.setStatus(id, 'todo');
    await repos.tasks.setStatus(id, 'done');
    await repos.tasks.setStatus(id, 'todo');
    await repos.tasks.setStatus(id, 'doing');
    await repos.tasks.update(id, { status: 'done', title: 'Bins out tonight' });
    const completed = await repos.tasks.completeMany([id]);
    expect(completed).toEqual([]);
    await repos.tasks.setStatus(id, 'todo');
    const again = await repos.tasks.completeMany([id]);
    expect(await repos.tasks.undoComplete(again)).toBe(1);
    await repos.tasks.completeMany([id]);

    // Reopening keeps the next one; completing again adds none and queues no insert.
    expect((await following(id)).map((t) => [t.id, t.deleted_at])).toEqual([[next, null]]);
    expect(await inserts()).toEqual([]);
    expect(await rows('tasks').get(id)).toMatchObject({ status: 'done' });
  });

  it('makes none when only another field changes, or the status moves without completing', async () => {
    const { repos, listId, tasks } = await device('no-complete');
    const id = await repos.tasks.create(listId, { title: 'Stretch', repeat: 'daily' });
    await repos.tasks.update(id, { title: 'Stretch well', due_on: '2026-03-10' });
    await repos.tasks.setStatus(id, 'doing');
    await repos.tasks.setStatus(id, 'todo');
    expect((await tasks()).map((t) => t.id)).toEqual([id]);
  });

  it('makes one per repeating task when several are completed at once', async () => {
    const { repos, listId, tasks, following } = await device('many');
    const daily = await repos.tasks.create(listId, { title: 'Feed the cat', repeat: 'daily' });
    const weekly = await repos.tasks.create(listId, { title: 'Laundry', repeat: 'weekly:7' });
    const monthly = await repos.tasks.create(listId, { title: 'Rent', repeat: 'monthly:1' });
    const once = await repos.tasks.create(listId, { title: 'Fix the tap' });
    const doneAlready = await repos.tasks.create(listId, {
      title: 'Clean the gutter',
      repeat: 'after:30',
      status: 'done',
    });

    const completed = await repos.tasks.completeMany([daily, weekly, monthly, once, doneAlready]);

    expect(completed.map((c) => c.id)).toEqual([daily, weekly, monthly, once]);
    for (const [id, due] of [
      [daily, '2026-03-10'],
      [weekly, '2026-03-15'],
      [monthly, '2026-04-01'],
    ] as const) {
      expect((await following(id)).map((t) => [t.id, t.due_on])).toEqual([
        [await successorId(id), due],
      ]);
    }
    expect(await following(once)).toEqual([]);
    expect(await following(doneAlready)).toEqual([]);
    expect(await tasks()).toHaveLength(8);
  });

  it('makes none for a task that does not repeat, or no longer does', async () => {
    const { repos, listId, tasks, inserts, db } = await device('once');
    const once = await repos.tasks.create(listId, { title: 'Call the plumber' });
    const stopped = await repos.tasks.create(listId, { title: 'Gym', repeat: 'daily' });
    await repos.tasks.update(stopped, { repeat: null });
    await clearQueueOf(db);
    await repos.tasks.setStatus(once, 'done');
    await repos.tasks.completeMany([stopped]);
    expect((await tasks()).map((t) => t.id).sort()).toEqual([once, stopped].sort());
    expect(await inserts()).toEqual([]);
  });

  it('makes the next one of the next one, each following its own occurrence', async () => {
    const { repos, listId, following } = await device('chain');
    const first = await repos.tasks.create(listId, {
      title: 'Standup notes',
      repeat: 'weekly:1,4',
      due_on: '2026-03-09',
    });
    await repos.tasks.setStatus(first, 'done');
    const second = await successorId(first);
    await repos.tasks.setStatus(second, 'done');
    const third = await successorId(second);
    expect((await following(second)).map((t) => [t.id, t.due_on])).toEqual([[third, '2026-03-16']]);
    expect((await following(first)).map((t) => t.id)).toEqual([second]);
  });

  it('carries the assignee only while they are still a member of the list', async () => {
    const { rows, repos, listId, following } = await device('assignee');
    await rows('memberships').bulkPut([
      serverRow('memberships', {
        id: crypto.randomUUID(),
        list_id: listId,
        user_id: FORMER,
        role: 'editor',
        deleted_at: '2026-03-01T10:00:00.000Z',
      }),
      serverRow('memberships', {
        id: crypto.randomUUID(),
        list_id: listId,
        user_id: STILL,
        role: 'viewer',
      }),
    ]);
    const left = await repos.tasks.create(listId, {
      title: 'Mow',
      repeat: 'daily',
      assignee_id: FORMER,
    });
    const stayed = await repos.tasks.create(listId, {
      title: 'Sweep',
      repeat: 'daily',
      assignee_id: STILL,
    });
    await repos.tasks.completeMany([left, stayed]);
    expect((await following(left)).map((t) => t.assignee_id)).toEqual([null]);
    expect((await following(stayed)).map((t) => t.assignee_id)).toEqual([STILL]);
  });

  it('copies the live checklist unticked, with ids derived from the next occurrence and each item', async () => {
    const { rows, db, repos, listId } = await device('checklist');
    const id = await repos.tasks.create(listId, { title: 'Pack', repeat: 'weekly:5' });
    const socks = await repos.checklist.add(id, 'Socks');
    const charger = await repos.checklist.add(id, 'Charger');
    const gone = await repos.checklist.add(id, 'Old ticket');
    await repos.checklist.update(socks, { done: true });
    await repos.checklist.delete(gone);
    await clearQueueOf(db);

    await repos.tasks.setStatus(id, 'done');

    const next = await successorId(id);
    const items = await rows('checklist_items').toArray();
    const copies = items.filter((item) => item.task_id === next);
    const originals = new Map(items.map((item) => [item.id, item]));
    const expected = await Promise.all(
      [socks, charger].map(async (itemId) => {
        const original = originals.get(itemId);
        return {
          id: await copiedItemId(next, itemId),
          task_id: next,
          list_id: listId,
          text: original?.text,
          position: original?.position,
          done: false,
          created_by: ME,
          deleted_at: null,
        };
      }),
    );
    const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
    expect(copies).toHaveLength(expected.length);
    expect(copies.sort(byId)).toMatchObject(expected.sort(byId));
    // The occurrence keeps its own checklist as it was.
    expect(originals.get(socks)).toMatchObject({ task_id: id, done: true });
    const queued = await db._outbox.toArray();
    expect(
      queued
        .filter((e) => e.op === 'insert')
        .map((e) => [e.table, e.rowId])
        .sort(),
    ).toEqual([['tasks', next], ...expected.map((item) => ['checklist_items', item.id])].sort());
    // The copy's id differs from what the next occurrence's own completion would give it.
    await repos.tasks.setStatus(next, 'done');
    const third = await successorId(next);
    const thirds = (await rows('checklist_items').toArray()).filter((i) => i.task_id === third);
    expect(thirds.map((i) => i.id).sort()).toEqual(
      (await Promise.all(expected.map((item) => copiedItemId(third, item.id)))).sort(),
    );
    expect(thirds.every((i) => !i.done)).toBe(true);
  });

  it('makes none when the device holds the next occurrence already, live or as a tombstone', async () => {
    for (const deleted of [null, '2026-03-08T09:00:00.000Z']) {
      const { rows, db, repos, listId, tasks, inserts } = await device(`held-${String(deleted)}`);
      const id = await repos.tasks.create(listId, { title: 'Read', repeat: 'daily' });
      const item = await repos.checklist.add(id, 'A chapter');
      const next = await successorId(id);
      // Made by another device that completed this occurrence, and pulled here.
      const theirs = serverRow('tasks', {
        id: next,
        list_id: listId,
        title: 'Read',
        notes: '',
        status: 'todo',
        priority: 0,
        due_on: '2026-03-20',
        assignee_id: null,
        repeat: 'daily',
        follows_id: id,
        position: 'a5',
        completed_at: null,
        created_by: FORMER,
        version: deleted ? 2 : 1,
        deleted_at: deleted,
      });
      await rows('tasks').put(theirs);
      await clearQueueOf(db);

      await repos.tasks.setStatus(id, 'done');

      expect(await inserts(), `deleted: ${String(deleted)}`).toEqual([]);
      expect((await tasks()).filter((t) => t.follows_id === id)).toEqual([theirs]);
      expect(
        await rows('checklist_items').get(await copiedItemId(next, item)),
        'no copy of the checklist either',
      ).toBeUndefined();
      expect(await rows('tasks').get(id)).toMatchObject({ status: 'done' });
    }
  });
});

describe('a pull between a completion’s plan and its write', () => {
  it('still makes the next occurrence of a task that came to repeat in between', async () => {
    const { db, rows, listId, following } = await device('late-rule');
    const plain = createRepositories({
      db,
      rows: typedRows<OutpostDeviceRows>(db),
      now: () => MONDAY,
      userId: () => ME,
      newId: () => crypto.randomUUID(),
    });
    const id = await plain.tasks.create(listId, { title: 'Read the meters', due_on: '2026-03-09' });
    // The repositories read the task to plan the next occurrence, before their transaction;
    // right after that read, a pull (another device) makes it repeat.
    let pulled = false;
    const racing = createRepositories({
      db,
      rows: (name) => {
        const table = rows(name);
        if (name !== 'tasks' || pulled) return table;
        return new Proxy(table, {
          get(target, key, receiver) {
            const value: unknown = Reflect.get(target, key, receiver);
            if (key !== 'bulkGet' || typeof value !== 'function') return value;
            return async (keys: string[]) => {
              const read: unknown = await (value as (k: string[]) => Promise<unknown>).call(
                target,
                keys,
              );
              pulled = true;
              await rows('tasks').update(id, { repeat: 'daily' });
              return read;
            };
          },
        });
      },
      now: () => MONDAY,
      userId: () => ME,
      newId: () => crypto.randomUUID(),
    });

    await racing.tasks.setStatus(id, 'done');

    expect(pulled).toBe(true);
    const next = await following(id);
    expect(next.map((t) => [t.id, t.due_on])).toEqual([[await successorId(id), '2026-03-10']]);
  });
});
