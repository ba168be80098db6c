// One task from the device database, telling a tombstone (deleted, maybe by someone else)
// apart from a row that is simply not here.
import { useLiveQuery } from 'dexie-react-hooks';

import type { TaskLookup } from '@/data/queries';
import { useServices } from '@/lib/services';

export type { TaskLookup };

/** undefined while loading. A task of another list counts as missing. */
export function useTask(listId: string, taskId: string): TaskLookup | undefined {
  const { sync } = useServices();
  return useLiveQuery(() => sync.queries.task(listId, taskId), [sync, listId, taskId]);
}
