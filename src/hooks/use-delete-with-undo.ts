// Delete with an Undo toast, the one way for every kind of row a person can delete: the delete
// is held back on this device for UNDO_WINDOW_MS (sync's repositories), the toast offers Undo
// for exactly that long (so does the header, src/lib/held-deletes.ts), and an Undo that comes
// too late says so, as an error.
import { useCallback } from 'react';

import { UNDO_WINDOW_MS } from '@sync/index';
import { useServices } from '@/lib/services';
import { holdDelete, releaseDelete } from '@/data/held-deletes';
import { showToast, useToasts } from '@/lib/toasts';
import { attempt } from '@/data/writes';

/** The rows deleted this way, by their repository. */
export type Deletable = 'lists' | 'tasks' | 'comments' | 'attachments' | 'checklist_items';

interface Words {
  /** The toast once it is deleted; `label` names the row. */
  done: (label: string) => string;
  /** When the delete itself is refused on this device. */
  failed: string;
  /** When Undo comes after the delete has gone to the server. */
  tooLate: string;
}

const WORDS: Readonly<Record<Deletable, Words>> = {
  lists: {
    done: (name) => `Deleted “${name}”`,
    failed: "Couldn't delete the list.",
    tooLate: 'Too late to undo: the list was already deleted.',
  },
  tasks: {
    done: (title) => `Deleted “${title}”`,
    failed: "Couldn't delete the task.",
    tooLate: 'Too late to undo: the task was already deleted.',
  },
  comments: {
    done: () => 'Comment deleted',
    failed: "Couldn't delete the comment.",
    tooLate: 'Too late to undo: the comment was already deleted.',
  },
  attachments: {
    done: (fileName) => `Removed “${fileName}”`,
    failed: "Couldn't remove the file.",
    tooLate: 'Too late to undo: the file was already removed.',
  },
  checklist_items: {
    done: (text) => `Removed “${text}”`,
    failed: "Couldn't remove the item.",
    tooLate: 'Too late to undo: the item was already removed.',
  },
};

/**
 * Deletes a row of `kind` and offers Undo; resolves true once deleted on this device, false
 * (after an error toast) when the delete was refused. `label` names the row in the toast.
 */
export function useDeleteWithUndo(): (
  kind: Deletable,
  id: string,
  label: string,
) => Promise<boolean> {
  const { sync } = useServices();
  return useCallback(
    async (kind: Deletable, id: string, label: string) => {
      const words = WORDS[kind];
      const repo = kind === 'checklist_items' ? sync.repos.checklist : sync.repos[kind];
      const result = await attempt(() => repo.delete(id));
      if (!result.ok) {
        const reason = result.errors._ ?? Object.values(result.errors)[0] ?? words.failed;
        showToast({ message: reason, tone: 'error' });
        return false;
      }
      const undo = async () => {
        releaseDelete(id);
        if (!(await repo.undoDelete(id))) showToast({ message: words.tooLate, tone: 'error' });
      };
      const toastId = showToast({
        message: words.done(label),
        durationMs: UNDO_WINDOW_MS,
        action: { label: 'Undo', run: undo },
      });
      // The header's Undo does the same, and the toast then has nothing left to offer.
      holdDelete(
        {
          id,
          undo: () => {
            useToasts.getState().dismiss(toastId);
            return undo();
          },
        },
        UNDO_WINDOW_MS,
      );
      return true;
    },
    [sync],
  );
}
