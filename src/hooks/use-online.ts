import { useCallback, useSyncExternalStore } from 'react';

import { useServices } from '@/lib/services';

/** Whether the device thinks it has a network (false is certain; true is a hint). */
export function useOnline(): boolean {
  const { online } = useServices();
  const subscribe = useCallback(
    (onChange: () => void) => online.subscribe(() => onChange()),
    [online],
  );
  return useSyncExternalStore(subscribe, () => online.isOnline());
}
