// Undo in the repositories (product.md §4 "Undo is offered for a few seconds after a delete"): a
// delete of a comment or an attachment is held back in the outbox and Undo takes it out
// before it is sent; a bulk complete is undone by putting each task's status back.
import { describe, expect, it } from 'vitest';

import { clearQueueOf, freezeQueueOf, type SyncDatabase } from '@sync/testing';
import { memoryDevice } from './testing/memory-device';

const device = () => memoryDevice('undo');

/** A list with one task, both already on the server (nothing queued). */
async function synced() {
  const { db, repos } = device();
  const listId = await repos.lists.create({ name: 'Crew', color: 'teal' });
  const taskId = await repos.tasks.create(listId, { title: 'Fix the gate' });
  await clearQueueOf(db);
  return { db, repos, listId, taskId };
}

const deletes = (db: SyncDatabase, table: string) =>
  db._outbox.filter((entry) => entry.table === table && entry.op === 'delete').count();

/** What the engine does when it takes a batch: once sent, an entry is final. */
const markSent = (db: SyncDatabase) => freezeQueueOf(db);

describe('undo of a comment delete', () => {
  it('brings the comment back and takes the queued delete out', async () => {
    const { db, repos, taskId } = await synced();
    const id = await repos.comments.create(taskId, 'On my way');
    await clearQueueOf(db);
    await repos.comments.delete(id);
    expect((await db.rows('comments').get(id))?.deleted_at).toEqual(expect.any(String));
    expect(await deletes(db, 'comments')).toBe(1);

    expect(await repos.comments.undoDelete(id)).toBe(true);
    expect((await db.rows('comments').get(id))?.deleted_at).toBeNull();
    expect(await db._outbox.count()).toBe(0);
  });

  it('says it is too late once the delete was sent', async () => {
    const { db, repos, taskId } = await synced();
    const id = await repos.comments.create(taskId, 'On my way');
    await repos.comments.delete(id);
    await markSent(db);
    expect(await repos.comments.undoDelete(id)).toBe(false);
    expect((await db.rows('comments').get(id))?.deleted_at).toEqual(expect.any(String));
  });
});

describe('undo of an attachment delete', () => {
  it('brings the file back with its bytes, and nothing is deleted on the server', async () => {
    const { db, repos, taskId } = await synced();
    const file = new Blob([new Uint8Array([1, 2, 3])], { type: 'image/png' });
    const id = await repos.attachments.add(taskId, file, 'gate.png');
    await repos.attachments.delete(id);
    expect((await db.rows('attachments').get(id))?.deleted_at).toEqual(expect.any(String));

    expect(await repos.attachments.undoDelete(id)).toBe(true);
    expect((await db.rows('attachments').get(id))?.deleted_at).toBeNull();
    expect(await deletes(db, 'attachments')).toBe(0);
    // The queued upload is still there to be sent.
    expect(await db._outbox.filter((entry) => entry.rowId === id).toArray()).toEqual([
      expect.objectContaining({ op: 'insert', table: 'attachments' }),
    ]);
    expect((await db._files.get(id))?.state).toBe('queued');
  });

  it('says it is too late once the delete was sent', async () => {
    const { db, repos, taskId } = await synced();
    const file = new Blob([new Uint8Array([1])], { type: 'image/png' });
    const id = await repos.attachments.add(taskId, file, 'gate.png');
    await repos.attachments.delete(id);
    await markSent(db);
    expect(await repos.attachments.undoDelete(id)).toBe(false);
    expect((await db.rows('attachments').get(id))?.deleted_at).toEqual(expect.any(String));
  });
});

describe('undo of a bulk complete', () => {
  it('completes only open tasks, and puts back the status each had', async () => {
    const { db, repos, listId } = await synced();
    const todo = await repos.tasks.create(listId, { title: 'To do' });
    const doing = await repos.tasks.create(listId, { title: 'Doing', status: 'doing' });
    const done = await repos.tasks.create(listId, { title: 'Done', status: 'done' });
    await clearQueueOf(db);

    const completed = await repos.tasks.completeMany([todo, doing, done]);
    expect(completed).toEqual([
      { id: todo, status: 'todo' },
      { id: doing, status: 'doing' },
    ]);
    const doneAt = (await db.rows('tasks').get(done))?.completed_at;

    expect(await repos.tasks.undoComplete(completed)).toBe(2);
    expect(await db.rows('tasks').get(todo)).toMatchObject({ status: 'todo', completed_at: null });
    expect(await db.rows('tasks').get(doing)).toMatchObject({
      status: 'doing',
      completed_at: null,
    });
    // The one that was done before stays done, with its own date.
    expect(await db.rows('tasks').get(done)).toMatchObject({
      status: 'done',
      completed_at: doneAt,
    });
    // The server gets the statuses back (coalesced into the queued complete).
    const queued = await db._outbox.toArray();
    expect(Object.fromEntries(queued.map((entry) => [entry.rowId, entry.data.status]))).toEqual({
      [todo]: 'todo',
      [doing]: 'doing',
    });
  });

  it('leaves alone a task reopened or deleted since', async () => {
    const { db, repos, listId, taskId } = await synced();
    const other = await repos.tasks.create(listId, { title: 'Other' });
    const completed = await repos.tasks.completeMany([taskId, other]);
    await repos.tasks.setStatus(taskId, 'todo');
    await repos.tasks.update(taskId, { title: 'Changed since' });
    await repos.tasks.delete(other);
    await markSent(db);

    expect(await repos.tasks.undoComplete(completed)).toBe(0);
    expect(await db.rows('tasks').get(other)).toMatchObject({ status: 'done' });
    expect(await db._outbox.where('sent').equals(0).count()).toBe(0);
  });
});

describe('undo of a delete that came right after an edit', () => {
  it('keeps the edit queued: undo takes out the delete only', async () => {
    const { db, repos, taskId } = await synced();
    await repos.tasks.update(taskId, { title: 'Fix the gate today' });
    await repos.tasks.delete(taskId);
    expect(await repos.tasks.undoDelete(taskId)).toBe(true);

    const queued = await db._outbox.toArray();
    expect(queued).toEqual([
      expect.objectContaining({
        op: 'patch',
        rowId: taskId,
        data: { title: 'Fix the gate today' },
      }),
    ]);
    expect(await db.rows('tasks').get(taskId)).toMatchObject({
      title: 'Fix the gate today',
      deleted_at: null,
    });
  });
});
