// What the bulk bar does to a selection: each action is one write for every task in it
// (repositories' completeMany, updateMany, deleteMany, moveMany), then one toast naming what
// changed, with an Undo that puts back each task's own previous value. Deletes and moves are
// held for Undo's window as a row's delete is (use-delete-with-undo.ts), so the header's
// "Deleting… Undo" takes them back too.
import { useCallback, useMemo } from 'react';

import { UNDO_WINDOW_MS } from '@sync/index';
import type { BulkChange } from '@/data/bulk-writes';
import { holdDelete, releaseDelete } from '@/data/held-deletes';
import { attempt } from '@/data/writes';
import { useServices } from '@/lib/services';
import { showToast, useToasts } from '@/lib/toasts';

/** "1 task", "3 tasks". */
export function taskCount(count: number): string {
  return count === 1 ? '1 task' : `${count.toLocaleString()} tasks`;
}

/** The first message of a refused write, or `fallback`. */
function reason(errors: Record<string, string | undefined>, fallback: string): string {
  return errors._ ?? Object.values(errors).find(Boolean) ?? fallback;
}

const failed = (message: string) => showToast({ message, tone: 'error' });

export interface BulkActions {
  /** Marks the tasks done (as completeMany does, next occurrences and all); true if written. */
  complete(ids: readonly string[]): Promise<boolean>;
  /**
   * Sets one property on every task; `said` is how the toast puts it after the count ("set
   * to High": "3 tasks set to High").
   */
  update(ids: readonly string[], change: BulkChange, said: string): Promise<boolean>;
  /** Deletes the tasks; `title` names the one when there is one. */
  remove(ids: readonly string[], title: string): Promise<boolean>;
  /** Moves the tasks to another list (those with comments or files stay). */
  move(ids: readonly string[], to: { id: string; name: string }): Promise<boolean>;
}

export function useBulkActions(): BulkActions {
  const { sync } = useServices();
  const tasks = sync.repos.tasks;

  /**
   * A toast with Undo for a delete or a move, held like a row's delete: its Undo (or the
   * header's) runs `undo` once, which resolves whether everything came back.
   */
  const heldToast = useCallback(
    (message: string, ids: readonly string[], undo: () => Promise<boolean>, tooLate: string) => {
      let undone = false;
      const run = async () => {
        if (undone) return;
        undone = true;
        for (const id of ids) releaseDelete(id);
        if (!(await undo())) failed(tooLate);
      };
      const toastId = showToast({
        message,
        durationMs: UNDO_WINDOW_MS,
        action: { label: 'Undo', run },
      });
      for (const id of ids) {
        holdDelete(
          {
            id,
            undo: () => {
              useToasts.getState().dismiss(toastId);
              return run();
            },
          },
          UNDO_WINDOW_MS,
        );
      }
    },
    [],
  );

  return useMemo(
    (): BulkActions => ({
      async complete(ids) {
        const result = await attempt(() => tasks.completeMany(ids));
        if (!result.ok) {
          failed(reason(result.errors, "Couldn't complete the tasks."));
          return false;
        }
        const completed = result.value;
        if (completed.length === 0) {
          showToast({
            message:
              ids.length === 1 ? 'That task was already done.' : 'Those tasks were already done.',
          });
          return true;
        }
        showToast({
          message:
            completed.length === 1 ? 'Task completed' : `${completed.length} tasks completed`,
          action: {
            label: 'Undo',
            run: async () => {
              const undone = await attempt(() => tasks.undoComplete(completed));
              if (!undone.ok) failed(reason(undone.errors, "Couldn't undo."));
            },
          },
        });
        return true;
      },

      async update(ids, change, said) {
        const result = await attempt(() => tasks.updateMany(ids, change));
        if (!result.ok) {
          failed(reason(result.errors, "Couldn't change the tasks."));
          return false;
        }
        const { updated, refused } = result.value;
        // Only a move to Doing is refused, and only for done tasks (product.md §4).
        const stayed = refused.length > 0 ? `${taskCount(refused.length)} done stayed done` : '';
        if (updated.length === 0) {
          showToast({
            message: stayed
              ? 'A done task can’t go to Doing: reopen it first.'
              : `Nothing to change: ${ids.length === 1 ? 'it was' : 'they were'} ${said} already.`,
          });
          return true;
        }
        showToast({
          message: `${taskCount(updated.length)} ${said}${stayed ? ` · ${stayed}` : ''}`,
          action: {
            label: 'Undo',
            run: async () => {
              const undone = await attempt(() => tasks.undoUpdateMany(updated));
              if (!undone.ok) failed(reason(undone.errors, "Couldn't undo."));
            },
          },
        });
        return true;
      },

      async remove(ids, title) {
        const result = await attempt(() => tasks.deleteMany(ids));
        if (!result.ok) {
          failed(reason(result.errors, "Couldn't delete the tasks."));
          return false;
        }
        const deleted = result.value;
        if (deleted.length === 0) return true;
        heldToast(
          deleted.length === 1 ? `Deleted “${title}”` : `Deleted ${taskCount(deleted.length)}`,
          deleted,
          async () => (await tasks.undoDeleteMany(deleted)) === deleted.length,
          'Too late to undo: the tasks were already deleted.',
        );
        return true;
      },

      async move(ids, to) {
        const result = await attempt(() => tasks.moveMany(ids, to.id));
        if (!result.ok) {
          failed(reason(result.errors, "Couldn't move the tasks."));
          return false;
        }
        const { moved, skipped } = result.value;
        const stayed =
          skipped.length > 0 ? `${taskCount(skipped.length)} with comments or files stayed` : '';
        if (moved.length === 0) {
          if (skipped.length > 0) {
            failed(
              skipped.length === 1
                ? 'A task with comments or files can’t change lists.'
                : 'Tasks with comments or files can’t change lists.',
            );
          }
          return false;
        }
        heldToast(
          `Moved ${taskCount(moved.length)} to “${to.name}”${stayed ? ` · ${stayed}` : ''}`,
          moved.map((m) => m.id),
          async () => (await tasks.undoMoveMany(moved)) === moved.length,
          `Too late to undo: the tasks are in “${to.name}” now.`,
        );
        return true;
      },
    }),
    [tasks, heldToast],
  );
}
