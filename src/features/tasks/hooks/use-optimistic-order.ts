// A task moved in the list shows in its new place at once, before the write comes back: the
// live query's next result (with the moved row) replaces the order shown, and a refused write
// puts the list back and says so.
import { useMemo, useState, type RefObject } from 'react';

import { attempt } from '@/data/writes';
import { useServices } from '@/lib/services';
import { showToast } from '@/lib/toasts';

import { neighboursAfterMove, type TaskRow } from '../task-filter';
import { moved, type ShownRows } from './shown-rows';

export interface OptimisticOrder {
  /** The tasks in the order shown. */
  placed: TaskRow[];
  /**
   * Moves the task at `from` to `to`, in the order shown when no task is carried, and says
   * `said` (by default its new position). Returns the moved task's id, or null when nothing
   * moved (a place off the list, or the one it is in).
   */
  commitMove: (from: number, to: number, said?: string) => string | null;
}

export function useOptimisticOrder(
  tasks: TaskRow[],
  latest: RefObject<ShownRows>,
  announce: (text: string) => void,
): OptimisticOrder {
  const { sync } = useServices();
  const [optimistic, setOptimistic] = useState<{ basedOn: TaskRow[]; order: string[] } | null>(
    null,
  );

  const placed = useMemo(() => {
    if (optimistic?.basedOn !== tasks || optimistic.order.length !== tasks.length) return tasks;
    const byId = new Map(tasks.map((task) => [task.id, task]));
    return optimistic.order.flatMap((id) => byId.get(id) ?? []);
  }, [optimistic, tasks]);

  function commitMove(from: number, to: number, said?: string): string | null {
    const current = latest.current.placed;
    const task = current[from];
    if (!task || to < 0 || to >= current.length || from === to) return null;
    const currentIds = current.map((t) => t.id);
    const { afterId, beforeId } = neighboursAfterMove(currentIds, from, to);
    setOptimistic({ basedOn: latest.current.tasks, order: moved(currentIds, from, to) });
    announce(said ?? `${task.title} moved to position ${to + 1} of ${current.length}.`);
    void attempt(() => sync.repos.tasks.move(task.id, afterId, beforeId)).then((result) => {
      if (!result.ok) {
        setOptimistic(null);
        showToast({ message: result.errors._ ?? "Couldn't move the task.", tone: 'error' });
      }
    });
    return task.id;
  }

  return { placed, commitMove };
}
