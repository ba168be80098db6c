// What this browser lets Outpost do with the app closed (issue 38), found out without
// throwing: Settings says it in words, and the app registers the periodic refresh only where
// it is allowed. The service worker imports the refresh's tag from here, so nothing at the top
// of this module may touch `window` (a worker has none).

/** The tag of the periodic refresh: the worker's `periodicsync` handler answers to it. */
export const PERIODIC_SYNC_TAG = 'outpost-refresh';

/**
 * The shortest gap the browser is asked to leave between two refreshes (ms): twice a day keeps
 * lists fresh for the morning and the evening; browsers space them further anyway, by how
 * much the site is used.
 */
export const PERIODIC_SYNC_MIN_INTERVAL_MS = 12 * 60 * 60 * 1000;

/**
 * Whether the browser allows the periodic refresh: granted; not granted (Chromium grants it to
 * installed apps it sees used); unsupported (Safari, Firefox).
 */
export type PeriodicSyncState = 'granted' | 'not-granted' | 'unsupported';

/** What this browser can do for Outpost with the app closed. */
export interface BackgroundSupport {
  /** Edits queued offline are sent with the app closed (Background Sync). */
  backgroundSync: boolean;
  periodicSync: PeriodicSyncState;
  /** A count on the app's icon (Badging). */
  badging: boolean;
  /** The service worker can show notifications. */
  notifications: boolean;
}

/** Periodic Background Sync's registration object, which the DOM typings do not have yet. */
interface PeriodicSyncManager {
  register(tag: string, options: { minInterval: number }): Promise<void>;
}

/** A prototype of ServiceWorkerRegistration, or undefined where there is none (old browsers). */
function registrationPrototype(): object | undefined {
  return typeof ServiceWorkerRegistration === 'undefined'
    ? undefined
    : ServiceWorkerRegistration.prototype;
}

const registrationHas = (name: string): boolean => {
  const prototype = registrationPrototype();
  return prototype !== undefined && name in prototype;
};

/** Background Sync: a queued write wakes the worker once the connection is back. */
export function backgroundSyncSupported(): boolean {
  return registrationHas('sync');
}

/** Badging: `navigator.setAppBadge`, in a page or in the worker. */
export function badgingSupported(): boolean {
  return typeof navigator !== 'undefined' && 'setAppBadge' in navigator;
}

/**
 * Notifications shown by the service worker (the only kind a closed app can show); globalThis
 * is the window in a page and the worker's scope in the worker.
 */
export function notificationsSupported(): boolean {
  return 'Notification' in globalThis && registrationHas('showNotification');
}

/** Whether the periodic refresh is possible here and the browser has granted it. */
export async function periodicSyncState(): Promise<PeriodicSyncState> {
  if (!registrationHas('periodicSync')) return 'unsupported';
  try {
    // Not a name of the typed PermissionName union: the cast is the browser's own name.
    const status = await navigator.permissions.query({
      name: 'periodic-background-sync' as PermissionName,
    });
    return status.state === 'granted' ? 'granted' : 'not-granted';
  } catch {
    // No Permissions API, or one that does not know the name: not something to rely on.
    return 'unsupported';
  }
}

/** Everything at once, for Settings. */
export async function backgroundSupport(): Promise<BackgroundSupport> {
  return {
    backgroundSync: backgroundSyncSupported(),
    periodicSync: await periodicSyncState(),
    badging: badgingSupported(),
    notifications: notificationsSupported(),
  };
}

/**
 * Asks the browser to wake the worker about twice a day to refresh the lists, where it has
 * granted that; resolves to whether it is registered, and never rejects (a browser may still
 * refuse at register()). Registering again only updates the interval.
 */
export async function registerPeriodicRefresh(
  registration: ServiceWorkerRegistration,
): Promise<boolean> {
  try {
    if ((await periodicSyncState()) !== 'granted') return false;
    const manager = (registration as { periodicSync?: PeriodicSyncManager }).periodicSync;
    if (!manager) return false;
    await manager.register(PERIODIC_SYNC_TAG, { minInterval: PERIODIC_SYNC_MIN_INTERVAL_MS });
    return true;
  } catch {
    return false;
  }
}
