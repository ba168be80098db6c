// A task's live comments from the device database, oldest first (sync's `queries.comments`).
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
  return useLiveQuery(
    async () =>
      (await sync.queries.comments(taskId)).map((row) => ({
        id: row.id,
        authorId: row.author_id,
        body: row.body,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
      })),
    [sync, taskId],
  );
}
