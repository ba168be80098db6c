// A full device (product.md §8 QUOTA_EXCEEDED, "refuse new attachments; keep text edits"): the
// write of a file's bytes fails with IndexedDB's QuotaExceededError; the repositories say
// QUOTA_EXCEEDED and write nothing of the attachment, and text edits still queue.
import { describe, expect, it } from 'vitest';

import { isSyncError } from '@sync/index';
import { memoryDevice } from './testing/memory-device';

/** A device whose IndexedDB refuses to store any more file bytes, as a full disk does. */
function fullDevice() {
  const device = memoryDevice('quota');
  device.db.use({
    stack: 'dbcore',
    name: 'full-disk',
    create: (down) => ({
      ...down,
      table: (name) => {
        const table = down.table(name);
        if (name !== '_files') return table;
        return {
          ...table,
          mutate: (request) =>
            request.type === 'add' || request.type === 'put'
              ? Promise.reject(
                  new DOMException('The quota has been exceeded.', 'QuotaExceededError'),
                )
              : table.mutate(request),
        };
      },
    }),
  });
  return device;
}

describe('a device out of space', () => {
  it('refuses a new attachment with QUOTA_EXCEEDED and writes nothing of it', async () => {
    const { db, repos } = fullDevice();
    const listId = await repos.lists.create({ name: 'Crew', color: 'teal' });
    const taskId = await repos.tasks.create(listId, { title: 'Fix the gate' });
    const queued = await db._outbox.count();

    const file = new Blob([new Uint8Array([1, 2, 3])], { type: 'image/png' });
    const failure = await repos.attachments.add(taskId, file, 'gate.png').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isSyncError(failure) && failure.code).toBe('QUOTA_EXCEEDED');
    expect((failure as Error).message).toBe('This device is out of space');
    expect(await db.rows('attachments').count()).toBe(0);
    expect(await db._files.count()).toBe(0);
    expect(await db._outbox.count()).toBe(queued);
  });

  it('still queues text edits', async () => {
    const { db, repos } = fullDevice();
    const listId = await repos.lists.create({ name: 'Crew', color: 'teal' });
    const taskId = await repos.tasks.create(listId, { title: 'Fix the gate' });
    const file = new Blob([new Uint8Array([1, 2, 3])], { type: 'image/png' });
    await expect(repos.attachments.add(taskId, file, 'gate.png')).rejects.toMatchObject({
      code: 'QUOTA_EXCEEDED',
    });

    await repos.tasks.update(taskId, { title: 'Fix the gate today' });
    await repos.comments.create(taskId, 'Bring the long ladder');
    expect((await db.rows('tasks').get(taskId))?.title).toBe('Fix the gate today');
    const entries = await db._outbox.toArray();
    expect(entries.find((e) => e.table === 'tasks' && e.rowId === taskId)?.data).toMatchObject({
      title: 'Fix the gate today',
    });
    expect(entries.some((e) => e.table === 'comments' && e.op === 'insert')).toBe(true);
  });
});

describe('time stamps', () => {
  it('are strictly increasing on a device, so rows made in one millisecond keep their order', async () => {
    const frozen = Date.parse('2026-11-27T10:00:00.000Z');
    const { db, repos } = memoryDevice('stamps', 'user-1', () => frozen);
    const listId = await repos.lists.create({ name: 'Crew', color: 'teal' });
    const first = await repos.tasks.create(listId, { title: 'First' });
    const second = await repos.tasks.create(listId, { title: 'Second' });
    const stamps = [listId, first, second].map(
      async (id) => (await db.rows(id === listId ? 'lists' : 'tasks').get(id))?.created_at,
    );
    const made = (await Promise.all(stamps)) as string[];
    expect(made[0]).toBe('2026-11-27T10:00:00.000Z');
    expect([...made].sort()).toEqual(made);
    expect(new Set(made).size).toBe(3);
  });
});
