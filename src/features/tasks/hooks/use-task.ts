// One task from the device database, telling a tombstone (deleted, maybe by someone else)
// apart from a row that is simply not here.
import { useLiveQuery } from 'dexie-react-hooks';

import { useServices } from '@/lib/services';

import { toTaskRow, type TaskRow } from '../task-filter';

export type TaskLookup =
  { state: 'live'; task: TaskRow } | { state: 'deleted' } | { state: 'missing' };

/** undefined while loading. A task of another list counts as missing. */
export function useTask(listId: string, taskId: string): TaskLookup | undefined {
  const { sync } = useServices();
  return useLiveQuery(async (): Promise<TaskLookup> => {
    const row = await sync.db.rows('tasks').get(taskId);
    if (!row || row.list_id !== listId) return { state: 'missing' };
    if (row.deleted_at) return { state: 'deleted' };
    return { state: 'live', task: toTaskRow(row) };
  }, [sync, listId, taskId]);
}
