// Undo and redo of the bulk bar's writes (issue 40): a property set on a selection, its delete
// and its move to another list are each one entry of the history (Ctrl/Cmd+Z), and the bar's
// toast Undo settles that entry, as a bulk complete's does.
import { describe, expect, it } from 'vitest';

import { clearQueue, markQueuedSent } from '@sync/testing';

import { toastMessages, undoFixture } from './testing/undo-fixture';

/** The undo tests' list of three tasks and a second list, "Block D", nothing queued. */
async function setUp() {
  const fixture = await undoFixture();
  const otherId = await fixture.sync.repos.lists.create({ name: 'Block D', color: 'red' });
  await clearQueue(fixture.sync);
  return { ...fixture, otherId };
}

describe('undo of a bulk change', () => {
  it('puts back each task’s value in one undo, and redo sets them again', async () => {
    const { undoer, repos, a, b, c, field } = await setUp();
    await repos.tasks.update(b, { priority: 1 });
    await repos.tasks.updateMany([a, b, c], { priority: 3 });

    expect(await undoer.undo()).toBe(true);
    expect(toastMessages()).toContain('Undone: edit 3 tasks.');
    expect([await field(a, 'priority'), await field(b, 'priority')]).toEqual([0, 1]);
    expect(await undoer.redo()).toBe(true);
    expect([await field(a, 'priority'), await field(c, 'priority')]).toEqual([3, 3]);
  });

  it('names the task when the change was to one', async () => {
    const { undoer, repos, a, field } = await setUp();
    await repos.tasks.updateMany([a], { status: 'done' });
    await undoer.undo();
    expect(toastMessages()).toContain('Undone: edit “Alpha”.');
    expect(await field(a, 'status')).toBe('todo');
  });

  it('the toast’s own Undo settles the entry: the next undo is the edit before', async () => {
    const { undoer, repos, a, b, field } = await setUp();
    await repos.tasks.update(a, { title: 'Alpha 2' });
    const { updated } = await repos.tasks.updateMany([a, b], { due_on: '2026-03-12' });
    await repos.tasks.undoUpdateMany(updated);
    expect(await field(b, 'due_on')).toBeNull();

    await undoer.undo();
    expect(await field(a, 'title')).toBe('Alpha');
  });
});

describe('undo of a bulk delete', () => {
  it('brings every task back in one undo, and redo deletes them again', async () => {
    const { undoer, repos, listId, a, b, titles } = await setUp();
    await repos.tasks.deleteMany([a, b]);
    expect(await titles(listId)).toEqual(['Charlie']);

    expect(await undoer.undo()).toBe(true);
    expect(await titles(listId)).toEqual(['Alpha', 'Bravo', 'Charlie']);
    expect(await undoer.redo()).toBe(true);
    expect(await titles(listId)).toEqual(['Charlie']);
  });

  it('after the deletes reached the server, the tasks come back as new ones in their place', async () => {
    const { sync, undoer, repos, listId, a, b, titles } = await setUp();
    await repos.tasks.deleteMany([a, b]);
    await markQueuedSent(sync);
    expect(await undoer.undo()).toBe(true);
    expect(await titles(listId)).toEqual(['Alpha', 'Bravo', 'Charlie']);
  });

  it('the toast’s own Undo settles the entry', async () => {
    const { undoer, repos, listId, a, b, titles } = await setUp();
    await repos.tasks.deleteMany([a, b]);
    expect(await repos.tasks.undoDeleteMany([a, b])).toBe(2);
    expect(await undoer.undo()).toBe(false);
    expect(await titles(listId)).toEqual(['Alpha', 'Bravo', 'Charlie']);
  });
});

describe('undo of a move to another list', () => {
  it('brings the originals back and deletes the copies in one undo; redo moves them again', async () => {
    const { undoer, repos, listId, otherId, a, c, titles } = await setUp();
    await repos.tasks.moveMany([a, c], otherId);
    expect(await titles(otherId)).toEqual(['Alpha', 'Charlie']);

    expect(await undoer.undo()).toBe(true);
    expect(toastMessages()).toContain('Undone: move 2 tasks.');
    expect(await titles(listId)).toEqual(['Alpha', 'Bravo', 'Charlie']);
    expect(await titles(otherId)).toEqual([]);

    expect(await undoer.redo()).toBe(true);
    expect(await titles(listId)).toEqual(['Bravo']);
    expect(await titles(otherId)).toEqual(['Alpha', 'Charlie']);
  });

  it('the toast’s own Undo settles the entry', async () => {
    const { undoer, repos, listId, otherId, a, titles } = await setUp();
    const { moved } = await repos.tasks.moveMany([a], otherId);
    expect(await repos.tasks.undoMoveMany(moved)).toBe(1);
    expect(await undoer.undo()).toBe(false);
    expect(await titles(listId)).toEqual(['Alpha', 'Bravo', 'Charlie']);
  });
});
