// Writes both task screens share: delete with an Undo toast, and the done toggle.
import { useCallback } from 'react';

import { UNDO_WINDOW_MS } from '@sync/index';
import type { TaskStatus } from '@sync/schema';
import { useServices } from '@/lib/services';
import { showToast } from '@/lib/toasts';
import { attempt } from '@/lib/writes';

/** Deletes a task and offers Undo (naming the task) for as long as the delete is held back. */
export function useDeleteTask(): (taskId: string, title: string) => Promise<boolean> {
  const { sync } = useServices();
  return useCallback(
    async (taskId: string, title: string) => {
      const result = await attempt(() => sync.repos.tasks.delete(taskId));
      if (!result.ok) {
        showToast({ message: result.errors._ ?? "Couldn't delete the task.", tone: 'error' });
        return false;
      }
      showToast({
        message: `Deleted “${title}”`,
        durationMs: UNDO_WINDOW_MS,
        action: {
          label: 'Undo',
          run: async () => {
            const restored = await sync.repos.tasks.undoDelete(taskId);
            if (!restored) {
              showToast({
                message: 'Too late to undo: the task was already deleted.',
                tone: 'error',
              });
            }
          },
        },
      });
      return true;
    },
    [sync],
  );
}

/** The status the done checkbox leads to: done reopens to "to do"; anything else completes. */
export function toggledStatus(status: TaskStatus): TaskStatus {
  return status === 'done' ? 'todo' : 'done';
}
