// One list from the device database (undefined while loading, null when it is not here:
// deleted, never synced to this device, or the user lost access or has just left it). Shared
// by every component asking for it, and read before the first render on a list's URL
// (main.tsx).
import type { List } from '@/data/rows';
import type { OutpostSync } from '@/data/sync';
import { useServices } from '@/lib/services';
import { useSession } from '@/lib/session';

import { useSharedLiveQuery, type QuerySpec } from '@/data/use-shared-live-query';

export function listQuery(
  sync: OutpostSync,
  listId: string | undefined,
  userId: string,
): QuerySpec<List | null> {
  return {
    key: `list:${listId ?? ''}:${userId}`,
    read: async () => (listId ? sync.queries.list(listId, userId) : null),
  };
}

export function useList(listId: string | undefined): List | null | undefined {
  const { sync } = useServices();
  const { userId } = useSession();
  const { key, read } = listQuery(sync, listId, userId);
  return useSharedLiveQuery(sync.queries, key, read);
}
