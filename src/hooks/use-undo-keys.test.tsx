// The undo keys over the services' recording repositories: an edit any screen makes through
// `useServices().sync.repos` is undone by Ctrl+Z as a new queued change, redone by
// Shift+Ctrl+Z or Ctrl+Y, and a text field keeps its own undo.
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { clearQueue, queuedChanges, storedRow } from '@sync/testing';
import { Toaster } from '@/components/ui/toaster';
import { useServices } from '@/lib/services';
import { loadUndo } from '@/data/undo-services';
import { localOnlyServices, renderWithServices, type TestServices } from '@/testing/app-harness';

import { undoKey, useUndoKeys } from './use-undo-keys';

let services: TestServices | undefined;

/** A screen that renames a task as any screen does: through the services' repositories. */
function Renamer({ taskId }: { taskId: string }) {
  const { sync } = useServices();
  useUndoKeys();
  return (
    <>
      <button
        type="button"
        onClick={() => void sync.repos.tasks.update(taskId, { title: 'Renamed' })}
      >
        Rename
      </button>
      <input type="checkbox" aria-label="Pick" />
      <input type="text" aria-label="Notes" />
      <Toaster />
    </>
  );
}

async function setUp() {
  services = localOnlyServices();
  const { sync } = services;
  const listId = await sync.repos.lists.create({ name: 'Block C', color: 'teal' });
  const taskId = await sync.repos.tasks.create(listId, { title: 'Fix the gate' });
  // As the app does after its first paint: an edit made before undo's code has come is saved
  // unrecorded.
  await loadUndo();
  const user = userEvent.setup();
  renderWithServices(services, <Renamer taskId={taskId} />);
  await user.click(screen.getByRole('button', { name: 'Rename' }));
  await waitFor(async () =>
    expect((await storedRow(sync, 'tasks', taskId))?.title).toBe('Renamed'),
  );
  await clearQueue(sync);
  const title = async () => (await storedRow(sync, 'tasks', taskId))?.title;
  return { user, sync, taskId, title };
}

describe('undo keys', () => {
  it('Ctrl+Z undoes a screen’s edit as a new queued change; Shift+Ctrl+Z and Ctrl+Y redo', async () => {
    const { user, sync, taskId, title } = await setUp();
    await user.keyboard('{Control>}z{/Control}');
    await waitFor(async () => expect(await title()).toBe('Fix the gate'));
    expect(await queuedChanges(sync)).toEqual([
      expect.objectContaining({ op: 'patch', rowId: taskId, data: { title: 'Fix the gate' } }),
    ]);
    expect(await screen.findByText('Undone: rename “Fix the gate”.')).toBeInTheDocument();

    await user.keyboard('{Control>}{Shift>}Z{/Shift}{/Control}');
    await waitFor(async () => expect(await title()).toBe('Renamed'));
    await user.keyboard('{Control>}z{/Control}');
    await waitFor(async () => expect(await title()).toBe('Fix the gate'));
    await user.keyboard('{Control>}y{/Control}');
    await waitFor(async () => expect(await title()).toBe('Renamed'));
  });

  it('works from a checkbox, but in a text field the field’s own undo wins', async () => {
    const { user, title } = await setUp();
    await user.click(screen.getByRole('textbox', { name: 'Notes' }));
    await user.keyboard('{Control>}z{/Control}');
    await user.click(screen.getByRole('checkbox', { name: 'Pick' }));
    expect(await title()).toBe('Renamed');
    await user.keyboard('{Control>}z{/Control}');
    await waitFor(async () => expect(await title()).toBe('Fix the gate'));
    // Had the field's keys undone the rename, this press would have found nothing to undo
    // (it says so at once, before any write).
    expect(await screen.findByText('Undone: rename “Fix the gate”.')).toBeInTheDocument();
    expect(screen.queryByText('Nothing to undo')).toBeNull();
  });
});

describe('undoKey', () => {
  const key = (init: KeyboardEventInit) => new KeyboardEvent('keydown', init);
  it('reads Cmd on a Mac and Ctrl elsewhere', () => {
    expect(undoKey(key({ key: 'z', metaKey: true }), true)).toBe('undo');
    expect(undoKey(key({ key: 'Z', metaKey: true, shiftKey: true }), true)).toBe('redo');
    expect(undoKey(key({ key: 'z', ctrlKey: true }), true)).toBeNull();
    expect(undoKey(key({ key: 'y', metaKey: true }), true)).toBeNull();
    expect(undoKey(key({ key: 'z', ctrlKey: true }), false)).toBe('undo');
    expect(undoKey(key({ key: 'y', ctrlKey: true }), false)).toBe('redo');
    expect(undoKey(key({ key: 'z' }), false)).toBeNull();
    expect(undoKey(key({ key: 'z', ctrlKey: true, altKey: true }), false)).toBeNull();
  });
});
