// What the app and its service worker share about sync with the app closed, in IndexedDB
// (the worker has no localStorage): whether the person wants notifications, and what the
// worker's last background sync did, for Settings. One small store of its own, so a wipe of
// the sync library's database or of the session leaves the person's choice alone.
import { clear, createStore, get, set, type UseStore } from 'idb-keyval';

/** Why the worker last ran: a queued write (Background Sync) or the periodic refresh. */
export type BackgroundTrigger = 'sync' | 'periodic';

/** What the worker's last background sync did. */
export interface BackgroundRun {
  /** When it ended (ms since the epoch). */
  at: number;
  trigger: BackgroundTrigger;
  /**
   * synced: sent and pulled; tab-leads: an open tab was syncing, so it was left to it;
   * signed-out: no session on this device, nothing sent; failed: the network or the server
   * failed, the browser retries later.
   */
  outcome: 'synced' | 'tab-leads' | 'signed-out' | 'failed';
}

let store: UseStore | undefined;
/** The store, opened on first use (createStore opens the database at once). */
function backgroundStore(): UseStore {
  store ??= createStore('outpost-background', 'state');
  return store;
}

const NOTIFICATIONS_KEY = 'notifications';
const LAST_RUN_KEY = 'lastRun';
const PROMPT_DISMISSED_KEY = 'notificationPromptDismissed';

/** Whether the person turned notifications on (off until they do). */
export async function notificationsWanted(): Promise<boolean> {
  return (await get<boolean>(NOTIFICATIONS_KEY, backgroundStore())) === true;
}

export async function setNotificationsWanted(wanted: boolean): Promise<void> {
  await set(NOTIFICATIONS_KEY, wanted, backgroundStore());
}

/** Whether the person answered "Not now" to the app's offer of notifications. */
export async function notificationPromptDismissed(): Promise<boolean> {
  return (await get<boolean>(PROMPT_DISMISSED_KEY, backgroundStore())) === true;
}

/** "Not now": the offer is not made again (Settings still has the switch). */
export async function dismissNotificationPrompt(): Promise<void> {
  await set(PROMPT_DISMISSED_KEY, true, backgroundStore());
}

/** The worker's last background sync, if it ever ran. */
export async function lastBackgroundRun(): Promise<BackgroundRun | undefined> {
  const run = await get<unknown>(LAST_RUN_KEY, backgroundStore());
  return isBackgroundRun(run) ? run : undefined;
}

export async function recordBackgroundRun(run: BackgroundRun): Promise<void> {
  await set(LAST_RUN_KEY, run, backgroundStore());
}

/**
 * Sign-out: the person's choices (notifications, the offer dismissed) and what the worker did
 * for their account are not the next person's; a shared tablet starts with nothing chosen.
 */
export async function forgetBackgroundState(): Promise<void> {
  await clear(backgroundStore());
}

function isBackgroundRun(value: unknown): value is BackgroundRun {
  if (typeof value !== 'object' || value === null) return false;
  const run = value as Partial<BackgroundRun>;
  return (
    typeof run.at === 'number' &&
    (run.trigger === 'sync' || run.trigger === 'periodic') &&
    (run.outcome === 'synced' ||
      run.outcome === 'tab-leads' ||
      run.outcome === 'signed-out' ||
      run.outcome === 'failed')
  );
}
