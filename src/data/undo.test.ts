// Undo and redo against the real repositories on fake-indexeddb: each edit is noted where the
// screens call the repositories, and undo or redo is a new queued change (so it syncs and can
// be refused like any edit); a row changed since is left alone, with a toast saying so.
import { describe, expect, it } from 'vitest';

import {
  clearQueue,
  markQueuedSent,
  patchStoredRow,
  queuedChanges,
  storedRow,
  storedRows,
} from '@sync/testing';

import { useToasts } from '@/lib/toasts';
import { memoryHistoryStorage, toastMessages, undoFixture } from './testing/undo-fixture';
import { createUndoer, undoerOf } from './undo';
import { createUndoHistory, UNDO_STORAGE_KEY } from './undo-history';
import { RECORDED, rawSync, withUndo } from './undo-services';

describe('undo of a field change', () => {
  it('writes the old value back as a new queued change, and redo writes the new one again', async () => {
    const { sync, undoer, repos, a, field } = await undoFixture();
    await repos.tasks.update(a, { title: 'Alpha 2', priority: 2 });
    await clearQueue(sync);

    expect(await undoer.undo()).toBe(true);
    expect(await field(a, 'title')).toBe('Alpha');
    expect(await field(a, 'priority')).toBe(0);
    expect(await queuedChanges(sync)).toEqual([
      expect.objectContaining({
        op: 'patch',
        table: 'tasks',
        rowId: a,
        data: { title: 'Alpha', priority: 0 },
      }),
    ]);
    expect(toastMessages()).toContain('Undone: rename “Alpha”.');

    expect(await undoer.redo()).toBe(true);
    expect(await field(a, 'title')).toBe('Alpha 2');
    expect(await field(a, 'priority')).toBe(2);
  });

  it('notes only what changed: an edit to the same value is nothing to undo', async () => {
    const { undoer, repos, a } = await undoFixture();
    await repos.tasks.update(a, { title: 'Alpha' });
    expect(await undoer.undo()).toBe(false);
    expect(toastMessages()).toContain('Nothing to undo');
  });

  it('leaves a field someone changed since as it is, and says so', async () => {
    const { sync, undoer, repos, a, field } = await undoFixture();
    await repos.tasks.update(a, { title: 'Alpha 2' });
    // Another device renamed it again; the pull wrote it here.
    await patchStoredRow(sync, 'tasks', a, { title: 'Alpha from Bob' });
    await clearQueue(sync);

    expect(await undoer.undo()).toBe(false);
    expect(await field(a, 'title')).toBe('Alpha from Bob');
    expect(await queuedChanges(sync)).toEqual([]);
    expect(toastMessages()).toContain('Not undone: rename “Alpha” — it changed since.');
    // It is gone from the history: a second undo does not try again.
    expect(await undoer.undo()).toBe(false);
  });

  it('undoes a list rename and a comment edit', async () => {
    const { sync, undoer, repos, listId, a } = await undoFixture();
    await repos.lists.rename(listId, 'Block D');
    const comment = await sync.repos.comments.create(a, 'On my way');
    await repos.comments.edit(comment, 'Here');
    await undoer.undo();
    expect((await storedRow(sync, 'comments', comment))?.body).toBe('On my way');
    await undoer.undo();
    expect((await storedRow(sync, 'lists', listId))?.name).toBe('Block C');
  });
});

describe('undo of a complete', () => {
  it('puts a completed task back to doing (a step users cannot take) and offers Undo in a toast', async () => {
    const { undoer, repos, a, field } = await undoFixture();
    await repos.tasks.setStatus(a, 'doing');
    await repos.tasks.setStatus(a, 'done');
    const toast = useToasts.getState().toasts.find((t) => t.message === 'Marked “Alpha” done');
    expect(toast?.action?.label).toBe('Undo');

    const run = toast?.action?.run;
    expect(run).toBeTypeOf('function');
    await run?.();
    expect(await field(a, 'status')).toBe('doing');
    expect(await field(a, 'completed_at')).toBeNull();
    // The next undo is the earlier edit.
    await undoer.undo();
    expect(await field(a, 'status')).toBe('todo');
  });

  it('bulk complete: the screen’s own Undo settles the history, so redo completes again', async () => {
    const { undoer, repos, a, b, field } = await undoFixture();
    const completed = await repos.tasks.completeMany([a, b]);
    await repos.tasks.undoComplete(completed);
    expect(await field(a, 'status')).toBe('todo');
    expect(await undoer.undo()).toBe(false); // nothing left to undo
    expect(await undoer.redo()).toBe(true);
    expect([await field(a, 'status'), await field(b, 'status')]).toEqual(['done', 'done']);
  });
});

describe('undo of a move', () => {
  it('puts the task back between its old neighbours, and redo moves it again', async () => {
    const { undoer, repos, listId, a, c, titles } = await undoFixture();
    await repos.tasks.move(a, c, null);
    expect(await titles(listId)).toEqual(['Bravo', 'Charlie', 'Alpha']);
    expect(toastMessages()).toContain('Moved “Alpha”');

    await undoer.undo();
    expect(await titles(listId)).toEqual(['Alpha', 'Bravo', 'Charlie']);
    await undoer.redo();
    expect(await titles(listId)).toEqual(['Bravo', 'Charlie', 'Alpha']);
  });

  it('leaves a task moved since where it is', async () => {
    const { sync, undoer, repos, listId, a, b, c, titles } = await undoFixture();
    await repos.tasks.move(a, c, null);
    await sync.repos.tasks.move(a, b, c); // not through the recorder: as a pull would
    expect(await undoer.undo()).toBe(false);
    expect(await titles(listId)).toEqual(['Bravo', 'Alpha', 'Charlie']);
  });
});

describe('undo of a delete', () => {
  it('within the undo window takes the delete back (nothing is sent)', async () => {
    const { sync, undoer, repos, a, field } = await undoFixture();
    await repos.tasks.delete(a);
    await undoer.undo();
    expect(await field(a, 'deleted_at')).toBeNull();
    expect(await queuedChanges(sync)).toEqual([]);
    await undoer.redo();
    expect(await field(a, 'deleted_at')).toEqual(expect.any(String));
  });

  it('after the window brings the task back as a new one, in its place, with its fields', async () => {
    const { sync, undoer, repos, listId, b, titles } = await undoFixture();
    await repos.tasks.update(b, { notes: 'Check the hinge', priority: 3 });
    await repos.tasks.delete(b);
    await markQueuedSent(sync);

    expect(await undoer.undo()).toBe(true);
    expect(await titles(listId)).toEqual(['Alpha', 'Bravo', 'Charlie']);
    const back = (await storedRows(sync, 'tasks')).find(
      (t) => t.title === 'Bravo' && !t.deleted_at,
    );
    expect(back?.id).not.toBe(b);
    expect(back).toMatchObject({ notes: 'Check the hinge', priority: 3 });
    expect(toastMessages()).toContain(
      'Undone: delete “Bravo”. It is back as a new task; its comments and files stay deleted.',
    );
    // Redo deletes the new one.
    await undoer.redo();
    expect(await titles(listId)).toEqual(['Alpha', 'Charlie']);
  });

  it('after the window says it is too late for a comment', async () => {
    const { sync, undoer, repos, a } = await undoFixture();
    const comment = await sync.repos.comments.create(a, 'On my way');
    await repos.comments.delete(comment);
    await markQueuedSent(sync);
    expect(await undoer.undo()).toBe(false);
    expect(toastMessages()).toContain('Too late to undo: the comment was already deleted.');
  });

  it('the delete toast’s own Undo settles the history', async () => {
    const { undoer, repos, a, field } = await undoFixture();
    await repos.tasks.delete(a);
    expect(await repos.tasks.undoDelete(a)).toBe(true);
    expect(await undoer.undo()).toBe(false);
    expect(await undoer.redo()).toBe(true);
    expect(await field(a, 'deleted_at')).toEqual(expect.any(String));
  });
});

describe('the history', () => {
  it('survives a reload: a new undoer over the same storage undoes an earlier edit', async () => {
    const { sync, repos, a, storage, field } = await undoFixture();
    await repos.tasks.update(a, { title: 'Alpha 2' });
    const reloaded = createUndoer(sync, createUndoHistory(storage));
    await reloaded.undo();
    expect(await field(a, 'title')).toBe('Alpha');
  });

  it('leaves a task deleted since alone', async () => {
    const { sync, undoer, repos, a } = await undoFixture();
    await repos.tasks.update(a, { title: 'Alpha 2' });
    await patchStoredRow(sync, 'tasks', a, { deleted_at: new Date().toISOString() });
    expect(await undoer.undo()).toBe(false);
    expect(toastMessages()).toContain('Not undone: rename “Alpha” — it changed since.');
  });

  it('an undo the repositories refuse says why, as an error, and writes nothing', async () => {
    const storage = memoryHistoryStorage();
    const { sync, a, field } = await undoFixture(storage);
    // A stored edit whose old title the rules refuse (storage is not to be trusted).
    storage.setItem(
      UNDO_STORAGE_KEY,
      JSON.stringify({
        done: [
          {
            id: 1,
            label: 'rename “”',
            changes: [
              {
                op: 'fields',
                table: 'tasks',
                id: a,
                before: { title: '' },
                after: { title: 'Alpha' },
              },
            ],
          },
        ],
        undone: [],
      }),
    );
    const undoer = createUndoer(sync, createUndoHistory(storage));
    expect(await undoer.undo()).toBe(false);
    expect(useToasts.getState().toasts).toContainEqual(
      expect.objectContaining({ message: "Title can't be empty.", tone: 'error' }),
    );
    expect(await field(a, 'title')).toBe('Alpha');
    expect(await queuedChanges(sync)).toEqual([]);
  });

  it('the services hand out one recording sync per sync library, sharing one undoer', async () => {
    const { sync } = await undoFixture();
    const recording = withUndo(sync);
    expect(withUndo(sync)).toBe(recording);
    expect(withUndo(recording)).toBe(recording);
    expect(rawSync(recording)).toBe(sync);
    expect(recording.repos).not.toBe(sync.repos);
  });

  it('the app shell delegates exactly the methods undo records', async () => {
    const { sync } = await undoFixture();
    const recorded = undoerOf(sync).repos as unknown as Record<string, Record<string, unknown>>;
    const raw = sync.repos as unknown as Record<string, Record<string, unknown>>;
    const overridden: Record<string, string[]> = {};
    for (const [entity, methods] of Object.entries(recorded)) {
      const names = Object.keys(methods).filter((name) => methods[name] !== raw[entity]?.[name]);
      if (names.length > 0) overridden[entity] = names.sort();
    }
    const listed: Record<string, string[]> = {};
    for (const [entity, names] of Object.entries(RECORDED)) listed[entity] = [...names].sort();
    expect(overridden).toEqual(listed);
  });
});
