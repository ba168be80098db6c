// One list from the device database (undefined while loading, null when it is not here:
// deleted, never synced to this device, or the user lost access or has just left it).
import { useLiveQuery } from 'dexie-react-hooks';

import type { List } from '@sync/index';
import { useServices } from '@/lib/services';
import { useSession } from '@/lib/session';

export function useList(listId: string | undefined): List | null | undefined {
  const { sync } = useServices();
  const { userId } = useSession();
  return useLiveQuery(
    async () => (listId ? sync.queries.list(listId, userId) : null),
    [sync, listId, userId],
  );
}
