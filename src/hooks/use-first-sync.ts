// Whether this device has finished its first pull from the server. Until then a list or
// task that is not here yet may simply not have arrived: screens say "Loading…" instead of
// "isn't on this device" (a signed-in device that was just set up, an invite just accepted).
import { useLiveQuery } from 'dexie-react-hooks';

import { useServices } from '@/lib/services';
import { useSession } from '@/lib/session';

import { useOnline } from './use-online';

/**
 * `true` when a missing row really is missing: the first pull is done, or there is no pull
 * to wait for (offline, or no account). `undefined` while reading the device database.
 */
export function useFirstSyncDone(): boolean | undefined {
  const { sync } = useServices();
  const { mode } = useSession();
  const online = useOnline();
  const pulled = useLiveQuery(() => sync.queries.pulled(), [sync]);
  if (mode !== 'signed-in' || !online) return true;
  return pulled;
}
