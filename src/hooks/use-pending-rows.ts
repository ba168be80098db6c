// Which rows of a list still have changes queued on this device (product.md §4: a row is synced,
// pending or rejected), for the small "not synced yet" marks on tasks, comments and files.
import { useServices } from '@/lib/services';

import { useSharedLiveQuery } from '@/data/use-shared-live-query';

const NONE: ReadonlySet<string> = new Set();

/**
 * Ids of rows (any table) of `listId` with queued changes. One query per list, shared by
 * every component of the screen that shows the marks.
 */
export function usePendingRows(listId: string | undefined): ReadonlySet<string> {
  const { sync } = useServices();
  return (
    useSharedLiveQuery(sync.queries, listId ? `pending-rows:${listId}` : null, () =>
      sync.queries.pendingRows(listId ?? ''),
    ) ?? NONE
  );
}
