// All live tasks of one list in position order, read once per change with the compound
// index (one range scan, no sort), so filtering and search can run in memory. Tasks with the
// same position (made on two devices offline) come in id order, as IndexedDB orders equal
// index keys by primary key: the same on every device, and the order tasks.move() assumes.
import Dexie from 'dexie';
import { useLiveQuery } from 'dexie-react-hooks';

import { useServices } from '@/lib/services';

import { toTaskRow, type TaskRow } from '../task-filter';

/** undefined while loading. */
export function useListTasks(listId: string): TaskRow[] | undefined {
  const { sync } = useServices();
  return useLiveQuery(async () => {
    const rows = await sync.db
      .rows('tasks')
      .where('[list_id+position]')
      .between([listId, Dexie.minKey], [listId, Dexie.maxKey])
      .toArray();
    const live: TaskRow[] = [];
    for (const row of rows) if (!row.deleted_at) live.push(toTaskRow(row));
    return live;
  }, [sync, listId]);
}
