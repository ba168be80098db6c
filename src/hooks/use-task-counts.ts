// A list's open and done counts, as one shared live query per list: the list's own screen and
// the sidebar's (or the lists screen's) rows read it once between them, read before the first
// render on a list's URL (main.tsx), and each list's counts are read again only when a task of
// that list changes (queries.ts taskCounts).
import type { TaskCounts } from '@/data/queries';
import type { OutpostSync } from '@/data/sync';
import {
  useSharedLiveQueries,
  useSharedLiveQuery,
  type QuerySpec,
} from '@/data/use-shared-live-query';
import { useServices } from '@/lib/services';

/** A list's open and done counts. */
export function taskCountsQuery(sync: OutpostSync, listId: string): QuerySpec<TaskCounts> {
  return { key: `task-counts:${listId}`, read: () => sync.queries.taskCounts(listId) };
}

/** A list's open and done counts (undefined while loading). */
export function useTaskCounts(listId: string): TaskCounts | undefined {
  const { sync } = useServices();
  const { key, read } = taskCountsQuery(sync, listId);
  return useSharedLiveQuery(sync.queries, key, read);
}

/** The counts of each of `listIds`, in their order (each undefined while loading). */
export function useTaskCountsOf(listIds: readonly string[]): readonly (TaskCounts | undefined)[] {
  const { sync } = useServices();
  return useSharedLiveQueries(
    sync.queries,
    listIds.map((listId) => taskCountsQuery(sync, listId)),
  );
}
