// One list from the device database (undefined while loading, null when it is not here:
// deleted, never synced to this device, or the user lost access).
import { useLiveQuery } from 'dexie-react-hooks';

import type { ListColor } from '@sync/schema';
import { useServices } from '@/lib/services';

export interface ListRow {
  id: string;
  name: string;
  color: ListColor;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export function useList(listId: string | undefined): ListRow | null | undefined {
  const { sync } = useServices();
  return useLiveQuery(async () => {
    if (!listId) return null;
    const row = await sync.db.rows('lists').get(listId);
    if (!row || row.deleted_at) return null;
    return row as unknown as ListRow;
  }, [sync, listId]);
}
