// The person's choice about notifications (a task assigned to them), as Settings' switch and
// the members screen's offer both read and change it: on only when they asked for it and the
// browser allows it. Asking the browser must happen in the click itself (a user gesture), so
// turnOn calls Notification.requestPermission before anything else is awaited.
import { useCallback, useEffect, useState } from 'react';

import { notificationsSupported } from './background-support';

/**
 * The shared background state (with idb-keyval), loaded on first use: imported statically it
 * would keep this module, which two screens share, out of the `screens` chunk and make it a
 * chunk of its own (vite.config.ts), one more entry in the app shell's chunk graph.
 */
export const loadBackgroundState = () => import('./background-state');

/**
 * on: wanted and allowed; off: not wanted (or the browser has not been asked); denied: the
 * browser blocks Outpost's notifications, only its site settings can change that;
 * unsupported: no notifications from a service worker here.
 */
export type NotificationState = 'on' | 'off' | 'denied' | 'unsupported';

/** The state from the browser's permission and the stored wish. */
function stateOf(wanted: boolean): NotificationState {
  if (!notificationsSupported()) return 'unsupported';
  if (Notification.permission === 'denied') return 'denied';
  return wanted && Notification.permission === 'granted' ? 'on' : 'off';
}

/** Asks the browser (call it from a click) and stores the wish only if it said yes. */
export async function turnOnNotifications(): Promise<NotificationState> {
  if (!notificationsSupported()) return 'unsupported';
  const permission = await Notification.requestPermission();
  if (permission !== 'granted') return permission === 'denied' ? 'denied' : 'off';
  await (await loadBackgroundState()).setNotificationsWanted(true);
  return 'on';
}

export async function turnOffNotifications(): Promise<NotificationState> {
  await (await loadBackgroundState()).setNotificationsWanted(false);
  return stateOf(false);
}

/** The choice as a component sees it; undefined until the stored one has been read. */
export interface NotificationChoice {
  state: NotificationState | undefined;
  /** The person said "Not now" to the offer; undefined until read. */
  dismissed: boolean | undefined;
  /** Between the click and the browser's (or the store's) answer. */
  busy: boolean;
  /** Asks the browser (call it from the click) and stores the wish if it said yes. */
  turnOn: () => Promise<void>;
  turnOff: () => Promise<void>;
  dismiss: () => Promise<void>;
}

export function useNotificationChoice(): NotificationChoice {
  const [state, setState] = useState<NotificationState>();
  const [dismissed, setDismissed] = useState<boolean>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let mounted = true;
    void loadBackgroundState()
      .then((stored) =>
        Promise.all([stored.notificationsWanted(), stored.notificationPromptDismissed()]),
      )
      .then(
        ([wanted, said]) => {
          if (!mounted) return;
          setState(stateOf(wanted));
          setDismissed(said);
        },
        (error: unknown) => {
          // IndexedDB refused (a private window of an old browser): as if never chosen.
          console.error('[outpost] could not read the notification choice', error);
          if (mounted) {
            setState(stateOf(false));
            setDismissed(false);
          }
        },
      );
    return () => {
      mounted = false;
    };
  }, []);

  /** Runs a change, keeping `busy` while it runs; the state is its answer. */
  const change = useCallback(async (run: () => Promise<NotificationState>) => {
    setBusy(true);
    try {
      const next = await run();
      setState(next);
    } catch (error) {
      // The store refused: the switch stays as it was, which is what is stored.
      console.error('[outpost] could not change the notification choice', error);
    } finally {
      setBusy(false);
    }
  }, []);

  return {
    state,
    dismissed,
    busy,
    turnOn: useCallback(() => change(turnOnNotifications), [change]),
    turnOff: useCallback(() => change(turnOffNotifications), [change]),
    dismiss: useCallback(async () => {
      setDismissed(true);
      await (await loadBackgroundState()).dismissNotificationPrompt();
    }, []),
  };
}
