// Task positions made on several devices (product.md §3: a fractional-index string): keys made
// offline for the same spot must not tie, every device must show a tie in the same order,
// and a move between tied neighbours must land exactly where it was dropped.
import { generateKeyBetween } from 'fractional-indexing';
import { describe, expect, it } from 'vitest';

import type { SyncDatabase } from '@sync/testing';
import { memoryDevice } from './testing/memory-device';
import { serverRow } from './testing/server-row';
import { jitteredKeyBetween } from './repositories';

const LIST = 'list-1';
/** What the server's CHECK accepts (supabase/migrations/…_schema.sql). */
const SERVER_POSITION = /^[0-9A-Za-z]{2,256}$/;

const device = () => memoryDevice('positions');

/** Rows as the server would have sent them. */
async function seed(
  db: SyncDatabase,
  tasks: readonly { id: string; position: string; title?: string }[],
): Promise<void> {
  const by = 'user-1';
  await db
    .rows('lists')
    .put(serverRow('lists', { id: LIST, name: 'Crew', color: 'teal', created_by: by }));
  for (const task of tasks) {
    await db.rows('tasks').put(
      serverRow('tasks', {
        list_id: LIST,
        title: task.title ?? task.id,
        notes: '',
        status: 'todo',
        priority: 0,
        due_on: null,
        assignee_id: null,
        repeat: null,
        follows_id: null,
        completed_at: null,
        created_by: by,
        ...task,
      }),
    );
  }
}

/** Ids in the order every screen shows them: the [list_id+position] index (ties by id). */
async function order(db: SyncDatabase): Promise<string[]> {
  const rows = await db
    .rows('tasks')
    .where('[list_id+position]')
    .between([LIST, ''], [LIST, '\uffff'])
    .toArray();
  return rows.filter((row) => !row.deleted_at).map((row) => row.id);
}

function isValidKey(key: string): boolean {
  try {
    generateKeyBetween(key, null);
    return SERVER_POSITION.test(key);
  } catch {
    return false;
  }
}

describe('task positions', () => {
  it('gives tasks two devices add at the end offline different, valid positions', async () => {
    const phone = device();
    const laptop = device();
    for (const { db } of [phone, laptop]) await seed(db, [{ id: 'synced', position: 'a0' }]);
    const fromPhone = await phone.repos.tasks.create(LIST, { title: 'From the phone' });
    const fromLaptop = await laptop.repos.tasks.create(LIST, { title: 'From the laptop' });
    const a = String((await phone.db.rows('tasks').get(fromPhone))?.position);
    const b = String((await laptop.db.rows('tasks').get(fromLaptop))?.position);
    expect(a).not.toBe(b);
    for (const key of [a, b]) {
      expect(key > 'a0').toBe(true);
      expect(isValidKey(key)).toBe(true);
    }
    // Each device keeps adding after its own last task.
    const next = await phone.repos.tasks.create(LIST, { title: 'Later' });
    expect(await order(phone.db)).toEqual(['synced', fromPhone, next]);
  });

  it('moves a task between two tied neighbours exactly there, before what follows', async () => {
    const { db, repos } = device();
    await seed(db, [
      { id: 'task-a', position: 'a0' },
      { id: 'task-b', position: 'a0' },
      { id: 'task-c', position: 'a0V' },
      { id: 'task-x', position: 'a2' },
    ]);
    await repos.tasks.move('task-x', 'task-a', 'task-b');
    expect(await order(db)).toEqual(['task-a', 'task-x', 'task-b', 'task-c']);
    const positions = await Promise.all(
      ['task-a', 'task-x', 'task-b'].map(async (id) =>
        String((await db.rows('tasks').get(id))?.position),
      ),
    );
    // No tie left behind, and every key is one the server accepts.
    expect(new Set(positions).size).toBe(3);
    for (const key of positions) expect(isValidKey(key)).toBe(true);
    // The renewed neighbour is queued with the moved task, so other devices see the same.
    const queued = await db._outbox.toArray();
    expect(queued.map((entry) => [entry.rowId, entry.op]).sort()).toEqual([
      ['task-b', 'patch'],
      ['task-x', 'patch'],
    ]);
  });

  it('keeps the order of a three-way tie around the dropped task, at the end of a list too', async () => {
    const { db, repos } = device();
    await seed(db, [
      { id: 'task-0', position: 'Zz' },
      { id: 'task-x', position: 'a0' },
      { id: 'task-a', position: 'a1' },
      { id: 'task-b', position: 'a1' },
      { id: 'task-c', position: 'a1' },
    ]);
    await repos.tasks.move('task-x', 'task-a', 'task-b');
    expect(await order(db)).toEqual(['task-0', 'task-a', 'task-x', 'task-b', 'task-c']);
    await repos.tasks.move('task-0', 'task-b', 'task-c');
    expect(await order(db)).toEqual(['task-a', 'task-x', 'task-b', 'task-0', 'task-c']);
  });

  it('gives two devices moving different tasks into the same gap different positions', async () => {
    const phone = device();
    const laptop = device();
    const rows = [
      { id: 'task-a', position: 'a0' },
      { id: 'task-b', position: 'a1' },
      { id: 'task-x', position: 'a2' },
      { id: 'task-y', position: 'a3' },
    ];
    for (const { db } of [phone, laptop]) await seed(db, rows);
    await phone.repos.tasks.move('task-x', 'task-a', 'task-b');
    await laptop.repos.tasks.move('task-y', 'task-a', 'task-b');
    const x = String((await phone.db.rows('tasks').get('task-x'))?.position);
    const y = String((await laptop.db.rows('tasks').get('task-y'))?.position);
    expect(x).not.toBe(y);
    for (const key of [x, y]) expect(key > 'a0' && key < 'a1').toBe(true);
  });
});

describe('jitteredKeyBetween', () => {
  it('stays strictly between its bounds and valid, also when a plain key would be a prefix', () => {
    const cases: [string | null, string | null][] = [
      [null, null],
      [null, 'a0V'],
      [null, 'a0'],
      ['a0', null],
      ['a0', 'a0V'],
      ['a0', 'a1'],
      ['a0', 'a01'],
      ['a0V', 'a0V1'],
      ['Zz', 'a0'],
      ['a0zzzz', 'a1'],
    ];
    for (const [a, b] of cases) {
      for (let i = 0; i < 50; i += 1) {
        const key = jitteredKeyBetween(a, b, crypto.randomUUID());
        if (a !== null) expect(key > a, `${key} > ${a}`).toBe(true);
        if (b !== null) expect(key < b, `${key} < ${b}`).toBe(true);
        expect(isValidKey(key), key).toBe(true);
      }
    }
  });
});
