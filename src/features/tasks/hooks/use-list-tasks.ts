// A list's live tasks in position order (sync's queries: range scans of the compound index
// [list_id+position]), so filtering and search run in memory. A screen opens on the first
// tasks alone (one bounded read, whatever the list's size) and gets the rest right after it
// has drawn them; its counts are src/hooks/use-task-counts.ts's.
import { useState } from 'react';

import type { OutpostSync } from '@/data/sync';
import type { Task } from '@/data/rows';
import { useSharedLiveQuery, type QuerySpec } from '@/data/use-shared-live-query';
import { useServices } from '@/lib/services';

/** Tasks read before the rest: more than a tall screen shows. */
const FIRST_TASKS = 60;

export interface ListTasks {
  /** undefined while loading; the live ones of the first FIRST_TASKS until `complete`. */
  tasks: Task[] | undefined;
  /** Whether `tasks` is the whole list (filters and search need it). */
  complete: boolean;
}

/** A list's first FIRST_TASKS tasks (a screen's first render, main.tsx's warm-up too). */
export function firstTasksQuery(
  sync: OutpostSync,
  listId: string,
): QuerySpec<{ tasks: Task[]; whole: boolean }> {
  return {
    key: `first-tasks:${listId}`,
    read: () => sync.queries.firstTasks(listId, FIRST_TASKS),
  };
}

export function useListTasks(listId: string): ListTasks {
  const { sync } = useServices();
  // The whole list once the first tasks are on screen: its read never delays them.
  const [wantAll, setWantAll] = useState(false);
  const all = useSharedLiveQuery(sync.queries, wantAll ? `tasks:${listId}` : null, () =>
    sync.queries.tasks(listId),
  );
  // The first tasks, until the whole list is here (then one live read, not two).
  const firstTasks = firstTasksQuery(sync, listId);
  const first = useSharedLiveQuery(sync.queries, all ? null : firstTasks.key, firstTasks.read);
  // Set while rendering the first tasks; the read itself starts when that render commits (the
  // live query subscribes then), so it never holds them up.
  if (first !== undefined && !wantAll) setWantAll(true);
  if (all !== undefined) return { tasks: all, complete: true };
  // A short list is whole already.
  return { tasks: first?.tasks, complete: first?.whole ?? false };
}
