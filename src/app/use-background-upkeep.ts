// What the app keeps up while open for the time it is closed (issue 38): the count on its icon
// (changes waiting, tasks assigned and due) and the periodic refresh registered with the
// browser. The navigation (sidebar.tsx) calls it: mounted once for the frame of a person's
// data and loaded as its own chunk, so none of this weighs on the app shell.
import { useLiveQuery } from 'dexie-react-hooks';
import { useEffect } from 'react';

import { useNow } from '@/hooks/use-now';
import { badgeCount, showBadge } from '@/lib/pwa/app-badge';
import { registerPeriodicRefresh } from '@/lib/pwa/background-support';
import { useServices } from '@/lib/services';
import { useSession } from '@/lib/session';
import { todayIso } from '@/utils/format';

/** How often the badge's "today" is read again (ms): a task due tomorrow counts from midnight. */
const TODAY_CHECK_MS = 60_000;

/**
 * Keeps the icon's badge at the changes waiting on this device plus the tasks assigned to the
 * person that are due or overdue; cleared at 0, when the device is used without an account
 * (its changes wait for an account, not for a connection), and on sign-out.
 */
export function useAppBadge(): void {
  const { sync } = useServices();
  const { mode, userId } = useSession();
  const account = mode === 'signed-in' || mode === 'expired';
  const today = todayIso(useNow(TODAY_CHECK_MS));
  // From the outbox itself, as the worker counts it: the engine's count is kept only while
  // it runs.
  const count = useLiveQuery(
    async () =>
      account
        ? badgeCount({
            pending: await sync.queries.pendingCount(),
            assignedDue: await sync.queries.assignedDueCount(userId, today),
          })
        : 0,
    [sync, account, userId, today],
  );
  useEffect(() => {
    if (count !== undefined) void showBadge(count);
  }, [count]);
  // Unmounted when the person signs out: the next one must not see their count.
  useEffect(() => () => void showBadge(0), []);
}

/** Once signed in and the worker is ready, asks for the periodic refresh (where granted). */
export function usePeriodicRefresh(): void {
  const signedIn = useSession().mode === 'signed-in';
  useEffect(() => {
    if (!signedIn || !('serviceWorker' in navigator)) return;
    let stopped = false;
    void navigator.serviceWorker.ready.then((registration) => {
      if (!stopped) void registerPeriodicRefresh(registration);
    });
    return () => {
      stopped = true;
    };
  }, [signedIn]);
}

/** Both, for the navigation to call once. */
export function useBackgroundUpkeep(): void {
  useAppBadge();
  usePeriodicRefresh();
}
