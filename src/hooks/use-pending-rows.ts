// Which rows of a list still have changes queued on this device (product.md §4: a row is synced,
// pending or rejected), for the small "not synced yet" marks on tasks, comments and files.
import { useLiveQuery } from 'dexie-react-hooks';

import { useServices } from '@/lib/services';

const NONE: ReadonlySet<string> = new Set();

/** Ids of rows (any table) of `listId` with queued changes. */
export function usePendingRows(listId: string | undefined): ReadonlySet<string> {
  const { sync } = useServices();
  return (
    useLiveQuery(async () => {
      if (!listId) return NONE;
      const ids = await sync.db._outbox.where('listId').equals(listId).toArray();
      return new Set(ids.map((entry) => entry.rowId));
    }, [sync, listId]) ?? NONE
  );
}

/** Number of queued changes per list id (the lists screen's sync badges). */
export function usePendingByList(): ReadonlyMap<string, number> {
  const { sync } = useServices();
  return (
    useLiveQuery(async () => {
      const counts = new Map<string, number>();
      await sync.db._outbox.each((entry) => {
        if (entry.listId) counts.set(entry.listId, (counts.get(entry.listId) ?? 0) + 1);
      });
      return counts;
    }, [sync]) ?? new Map<string, number>()
  );
}
