// All live tasks of one list in position order (sync's `queries.tasks`: one range scan of the
// compound index), so filtering and search can run in memory.
import { useLiveQuery } from 'dexie-react-hooks';

import type { Task } from '@sync/index';
import { useServices } from '@/lib/services';

/** undefined while loading. */
export function useListTasks(listId: string): Task[] | undefined {
  const { sync } = useServices();
  return useLiveQuery(() => sync.queries.tasks(listId), [sync, listId]);
}
