// Undo and redo of checklist edits (add, retype, tick, move, remove) and of a task's repeat
// rule, against the real repositories on fake-indexeddb: each is a new queued write.
import { describe, expect, it } from 'vitest';

import { localOnlyServices } from '@/testing/app-harness';

import { checklistQueries } from './checklist-queries';
import { memoryHistoryStorage } from './testing/undo-fixture';
import { createUndoer } from './undo';
import { createUndoHistory } from './undo-history';

async function setUp() {
  const { sync } = localOnlyServices();
  const listId = await sync.repos.lists.create({ name: 'Block C', color: 'teal' });
  const taskId = await sync.repos.tasks.create(listId, { title: 'Pack' });
  const storage = memoryHistoryStorage();
  const undoer = createUndoer(sync, createUndoHistory(storage));
  const items = async () =>
    (await sync.queries.extend(checklistQueries).checklist(taskId)).map((i) =>
      i.done ? `[x] ${i.text}` : i.text,
    );
  return { sync, undoer, repos: undoer.repos, taskId, items, storage };
}

describe('undo of checklist edits', () => {
  it('takes back an add, and redo brings the item back', async () => {
    const { undoer, repos, taskId, items } = await setUp();
    await repos.checklist.add(taskId, 'Tent');
    expect(await undoer.undo()).toBe(true);
    expect(await items()).toEqual([]);
    expect(await undoer.redo()).toBe(true);
    expect(await items()).toEqual(['Tent']);
  });

  it('puts back the text and the tick', async () => {
    const { undoer, repos, taskId, items } = await setUp();
    const id = await repos.checklist.add(taskId, 'Tent');
    await repos.checklist.update(id, { text: 'Tent and poles' });
    await repos.checklist.update(id, { done: true });
    expect(await items()).toEqual(['[x] Tent and poles']);
    await undoer.undo();
    expect(await items()).toEqual(['Tent and poles']);
    await undoer.undo();
    expect(await items()).toEqual(['Tent']);
    await undoer.redo();
    await undoer.redo();
    expect(await items()).toEqual(['[x] Tent and poles']);
  });

  it('moves an item back between its old neighbours, and brings a removed one back', async () => {
    const { undoer, repos, taskId, items } = await setUp();
    const [a = '', , c = ''] = [
      await repos.checklist.add(taskId, 'A'),
      await repos.checklist.add(taskId, 'B'),
      await repos.checklist.add(taskId, 'C'),
    ];
    await repos.checklist.move(c, null, a);
    expect(await items()).toEqual(['C', 'A', 'B']);
    await undoer.undo();
    expect(await items()).toEqual(['A', 'B', 'C']);
    await undoer.redo();
    expect(await items()).toEqual(['C', 'A', 'B']);

    await repos.checklist.delete(a);
    expect(await items()).toEqual(['C', 'B']);
    await undoer.undo();
    expect(await items()).toEqual(['C', 'A', 'B']);
  });

  it('undoes a change of a task’s repeat rule, and the history survives a reload', async () => {
    const { sync, undoer, repos, taskId, storage } = await setUp();
    await repos.tasks.update(taskId, { repeat: 'weekly:1,4' });
    await repos.tasks.update(taskId, { repeat: null });
    await undoer.undo();
    expect((await sync.queries.row('tasks', taskId))?.repeat).toBe('weekly:1,4');
    // A new undoer over the same storage reads the entry (rules and ticks pass its checks).
    const again = createUndoer(sync, createUndoHistory(storage));
    await again.undo();
    expect((await sync.queries.row('tasks', taskId))?.repeat).toBeNull();
  });
});
