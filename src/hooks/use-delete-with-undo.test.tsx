// Delete with Undo, the same for lists, tasks, comments, files and checklist items (against the real sync
// library on fake-indexeddb): the row goes at once, the toast names it and offers Undo for
// the undo window, Undo brings it back with nothing left to send, and an Undo after the
// delete was sent says so as an error.
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { storedRow, queuedChanges, markQueuedSent } from '@sync/testing';
import { Toaster } from '@/components/ui/toaster';
import { localOnlyServices, renderWithServices, type TestServices } from '@/testing/app-harness';

import { useDeleteWithUndo, type Deletable } from './use-delete-with-undo';

let services: TestServices | undefined;

/** A list with a task and the row of `kind` on it, with its label. */
async function rowOf(kind: Deletable): Promise<{ id: string; label: string; shown: string }> {
  services = localOnlyServices();
  const { repos } = services.sync;
  const listId = await repos.lists.create({ name: 'Block C', color: 'teal' });
  const taskId = await repos.tasks.create(listId, { title: 'Fix the door' });
  switch (kind) {
    case 'lists':
      return { id: listId, label: 'Block C', shown: 'Deleted “Block C”' };
    case 'tasks':
      return { id: taskId, label: 'Fix the door', shown: 'Deleted “Fix the door”' };
    case 'comments':
      return {
        id: await repos.comments.create(taskId, 'Hinge is loose'),
        label: '',
        shown: 'Comment deleted',
      };
    case 'attachments': {
      const file = new File([new Uint8Array([137, 80, 78, 71])], 'door.png', {
        type: 'image/png',
      });
      return {
        id: await repos.attachments.add(taskId, file, 'door.png'),
        label: 'door.png',
        shown: 'Removed “door.png”',
      };
    }
    case 'checklist_items':
      return {
        id: await repos.checklist.add(taskId, 'Oil the hinge'),
        label: 'Oil the hinge',
        shown: 'Removed “Oil the hinge”',
      };
  }
}

/** Deletes of `id` waiting in the outbox. */
async function queuedDeletes(id: string): Promise<number> {
  const queued = await queuedChanges(services!.sync);
  return queued.filter((e) => e.rowId === id && e.op === 'delete').length;
}

function DeleteButton({ kind, id, label }: { kind: Deletable; id: string; label: string }) {
  const deleteWithUndo = useDeleteWithUndo();
  return (
    <button type="button" onClick={() => void deleteWithUndo(kind, id, label)}>
      Delete it
    </button>
  );
}

const TOO_LATE: Record<Deletable, string> = {
  lists: 'Too late to undo: the list was already deleted.',
  tasks: 'Too late to undo: the task was already deleted.',
  comments: 'Too late to undo: the comment was already deleted.',
  attachments: 'Too late to undo: the file was already removed.',
  checklist_items: 'Too late to undo: the item was already removed.',
};

describe.each(['lists', 'tasks', 'comments', 'attachments', 'checklist_items'] as const)(
  'delete with Undo: %s',
  (kind) => {
    async function deleted() {
      const row = await rowOf(kind);
      renderWithServices(
        services!,
        <>
          <DeleteButton kind={kind} id={row.id} label={row.label} />
          <Toaster />
        </>,
      );
      const user = userEvent.setup();
      await user.click(screen.getByRole('button', { name: 'Delete it' }));
      expect(await screen.findByText(row.shown)).toBeInTheDocument();
      expect((await storedRow(services!.sync, kind, row.id))?.deleted_at).toEqual(
        expect.any(String),
      );
      expect(await queuedDeletes(row.id)).toBe(1);
      return { row, user };
    }

    it('deletes at once, names the row, and Undo brings it back with no delete left to send', async () => {
      const { row, user } = await deleted();
      await user.click(screen.getByRole('button', { name: 'Undo' }));
      await expect
        .poll(async () => (await storedRow(services!.sync, kind, row.id))?.deleted_at)
        .toBeNull();
      expect(await queuedDeletes(row.id)).toBe(0);
    });

    it('says, as an error, when Undo comes after the delete was sent', async () => {
      const { row, user } = await deleted();
      // The engine took the delete once the undo window had passed.
      await markQueuedSent(services!.sync);
      await user.click(screen.getByRole('button', { name: 'Undo' }));
      const alert = await screen.findByText(TOO_LATE[kind]);
      expect(alert.closest('.toast--error')).not.toBeNull();
      expect((await storedRow(services!.sync, kind, row.id))?.deleted_at).toEqual(
        expect.any(String),
      );
    });
  },
);
