// One list from the device database (undefined while loading, null when it is not here:
// deleted, never synced to this device, or the user lost access or has just left it).
import { useLiveQuery } from 'dexie-react-hooks';

import type { LocalRow } from '@sync/index';
import type { ListColor } from '@sync/schema';
import { useServices } from '@/lib/services';
import { useSession } from '@/lib/session';

export interface ListRow {
  id: string;
  name: string;
  color: ListColor;
  created_by: string;
  created_at: string;
  updated_at: string;
}

/**
 * Whether `userId` has left (or been removed from) a list and the device has not dropped it
 * yet: their membership is a tombstone and none is live. A leave made offline waits in the
 * outbox, yet the list is gone from the screens at once; if the server refuses the leave,
 * sync restores the membership and the list comes back by itself.
 */
export function hasLeft(memberships: readonly LocalRow[], listId: string, userId: string): boolean {
  let left = false;
  for (const row of memberships) {
    if (row.list_id !== listId || row.user_id !== userId) continue;
    if (!row.deleted_at) return false;
    left = true;
  }
  return left;
}

export function useList(listId: string | undefined): ListRow | null | undefined {
  const { sync } = useServices();
  const { userId } = useSession();
  return useLiveQuery(async () => {
    if (!listId) return null;
    const row = await sync.db.rows('lists').get(listId);
    if (!row || row.deleted_at) return null;
    const mine = await sync.db
      .rows('memberships')
      .where('[list_id+user_id]')
      .equals([listId, userId])
      .toArray();
    if (hasLeft(mine, listId, userId)) return null;
    return row as unknown as ListRow;
  }, [sync, listId, userId]);
}
