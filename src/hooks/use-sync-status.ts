import { useSyncExternalStore } from 'react';

import type { SyncStatus } from '@sync/index';
import { useServices } from '@/lib/services';

/** The engine's status (phase, pending count, last synced, last error), live. */
export function useSyncStatus(): SyncStatus {
  const { sync } = useServices();
  return useSyncExternalStore(sync.engine.status.subscribe, sync.engine.status.getSnapshot);
}
