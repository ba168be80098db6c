// Applying server rows on the device: a resync's delivery mark survives a row being replaced
// (or the sweep at the resync's end deletes a row the server still has), and an attachment's
// tombstone from the server takes its bytes off the device.
import { describe, expect, it } from 'vitest';

import {
  applyServerRow,
  applyServerRows,
  markDelivered,
  sweepUndelivered,
  type ApplyMode,
  type ServerRow,
} from './apply';
import type { SyncDatabase } from './db';
import { memoryDevice } from '../src/data/testing/memory-device';
import { clearQueueOf } from './testing';
import type { LocalRow } from './registry';

/** A device row as the server would send it at `version`. */
function serverRow(row: LocalRow | undefined, version: number): ServerRow {
  if (!row) throw new Error('no such row');
  const columns: Record<string, unknown> = { ...row };
  delete columns._v;
  delete columns._r;
  return { ...columns, id: row.id, version };
}

/** A list with one task, both on the server at version 1 (nothing queued). */
async function synced() {
  const { db, repos } = memoryDevice('apply');
  const listId = await repos.lists.create({ name: 'Crew', color: 'teal' });
  const taskId = await repos.tasks.create(listId, { title: 'Fix the gate' });
  await clearQueueOf(db);
  await db.rows('lists').update(listId, { _v: 1, version: 1 });
  await db.rows('tasks').update(taskId, { _v: 1, version: 1 });
  const task = serverRow(await db.rows('tasks').get(taskId), 1);
  return { db, repos, listId, taskId, task };
}

const inAll = (db: SyncDatabase, fn: () => Promise<unknown>) =>
  db.transaction('rw', db.allTables(), fn);

describe('a resync from scratch keeps what it delivered', () => {
  it.each<ApplyMode>(['force', 'ack', 'newer'])(
    'a row replaced by applyServerRow (%s) after its delivery is not swept',
    async (mode) => {
      const { db, listId, taskId, task } = await synced();
      const mark = 1_000;
      // The resync delivered the list and the task (interrupted after that page).
      await inAll(db, () =>
        markDelivered(
          db,
          [
            { table: 'lists', row: { id: listId } },
            { table: 'tasks', row: { id: taskId } },
          ],
          mark,
        ),
      );
      // Then a refused patch reverts the task to the server's row (or a push result, or a
      // newer row, replaces it): the row is put anew.
      await inAll(db, () =>
        applyServerRow(db, 'tasks', { ...task, title: 'As the server has it', version: 2 }, mode),
      );
      await inAll(db, () => sweepUndelivered(db, mark));
      expect(await db.rows('tasks').get(taskId)).toMatchObject({
        title: 'As the server has it',
        _r: mark,
      });
    },
  );

  it('a row replaced by a later page (applyServerRows) keeps its mark too', async () => {
    const { db, taskId, task } = await synced();
    const mark = 2_000;
    await inAll(db, () => markDelivered(db, [{ table: 'tasks', row: { id: taskId } }], mark));
    await inAll(db, () => applyServerRows(db, 'tasks', [{ ...task, title: 'Newer', version: 3 }]));
    expect((await db.rows('tasks').get(taskId))?._r).toBe(mark);
  });
});

describe("an attachment's tombstone from the server", () => {
  async function withFile() {
    const device = await synced();
    const file = new Blob([new Uint8Array([1, 2, 3])], { type: 'image/png' });
    const id = await device.repos.attachments.add(device.taskId, file, 'gate.png');
    await clearQueueOf(device.db);
    await device.db._files.update(id, { state: 'uploaded' });
    const row = serverRow(await device.db.rows('attachments').get(id), 1);
    return { ...device, id, row: { ...row, version: 2, deleted_at: '2026-11-23T10:00:00Z' } };
  }

  it('takes its bytes off the device when a pull page brings it', async () => {
    const { db, id, row } = await withFile();
    await inAll(db, () => applyServerRows(db, 'attachments', [row]));
    expect(await db._files.get(id)).toBeUndefined();
  });

  it('takes its bytes off the device when a push result brings it', async () => {
    const { db, id, row } = await withFile();
    await inAll(db, () => applyServerRow(db, 'attachments', row, 'ack'));
    expect(await db._files.get(id)).toBeUndefined();
  });

  it('leaves them while the row is alive', async () => {
    const { db, id, row } = await withFile();
    await inAll(db, () => applyServerRows(db, 'attachments', [{ ...row, deleted_at: null }]));
    expect((await db._files.get(id))?.state).toBe('uploaded');
  });
});
