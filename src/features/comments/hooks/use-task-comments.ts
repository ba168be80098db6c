// A task's live comments from the device database, oldest first.
import { useLiveQuery } from 'dexie-react-hooks';

import { useServices } from '@/lib/services';

export interface Comment {
  id: string;
  authorId: string;
  body: string;
  createdAt: string;
  updatedAt: string;
}

/** undefined while loading. */
export function useTaskComments(taskId: string): Comment[] | undefined {
  const { sync } = useServices();
  return useLiveQuery(async () => {
    const rows = await sync.db.rows('comments').where('task_id').equals(taskId).toArray();
    return rows
      .filter((row) => !row.deleted_at)
      .map((row): Comment => ({
        id: row.id,
        authorId: typeof row.author_id === 'string' ? row.author_id : '',
        body: typeof row.body === 'string' ? row.body : '',
        createdAt: typeof row.created_at === 'string' ? row.created_at : '',
        updatedAt: typeof row.updated_at === 'string' ? row.updated_at : '',
      }))
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  }, [sync, taskId]);
}
