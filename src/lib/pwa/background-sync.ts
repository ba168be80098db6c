// The page's side of sync with the app closed: handing queued changes to the service worker
// (a one-off Background Sync, which the worker's `sync` event answers with
// src/lib/pwa/worker-sync.ts), notifications while the app is open but hidden, and what a
// sign-out clears of it all. Loaded when first needed, never in the app shell.
import type { RemoteChange } from '@sync/index';

import type { Queries } from '@/data/queries';

import { showBadge } from './app-badge';
import { backgroundSyncSupported } from './background-support';
import { forgetBackgroundState, notificationsWanted } from './background-state';
import { noticesFor, type NoticeReads } from './notices';

/** The Background Sync tag of "send the outbox" (one registration, however many asks). */
export const OUTBOX_SYNC_TAG = 'outpost-outbox';

/** The registration's parts used here (the DOM lib has no Background Sync types). */
interface SyncRegistration {
  sync?: { register(tag: string): Promise<void> };
  showNotification(title: string, options: NotificationOptions): Promise<void>;
  getNotifications(): Promise<Notification[]>;
}

async function registration(): Promise<SyncRegistration | undefined> {
  if (!('serviceWorker' in navigator)) return undefined;
  return navigator.serviceWorker.getRegistration();
}

/**
 * Asks the browser to wake the service worker once the network is back, to send what is
 * queued, with the app's tabs open or not. Where there is no Background Sync (Safari,
 * Firefox) or no worker (dev), nothing happens: the next open of the app sends them.
 */
export async function requestBackgroundSync(): Promise<void> {
  if (!backgroundSyncSupported()) return;
  try {
    await (await registration())?.sync?.register(OUTBOX_SYNC_TAG);
  } catch (error) {
    // Refused (a permission policy, a private window): the next open sends them.
    console.warn('[outpost] background sync not registered', error);
  }
}

/**
 * Tells `owner` of what others changed (`changes`: notices.ts picks what is worth it) through
 * the worker's registration, if the person wants notifications and the browser allows them.
 * That is asked first: notifications are off until turned on, and picking notices reads the
 * device for each change. The worker does this after a background pull, the leading tab while
 * the page is hidden; a notice's data says which task its click opens.
 */
export async function notifyOf(
  changes: readonly RemoteChange[],
  owner: string,
  reads: NoticeReads,
  reg: Pick<SyncRegistration, 'showNotification'> | undefined,
): Promise<void> {
  if (changes.length === 0 || !reg) return;
  if (typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
  if (!(await notificationsWanted())) return;
  for (const notice of await noticesFor(changes, owner, reads)) {
    await reg.showNotification(notice.title, {
      body: notice.body,
      tag: notice.tag,
      icon: '/pwa-192x192.png',
      badge: '/pwa-64x64.png',
      data: { url: notice.url },
    });
  }
}

/** Others' changes heard while the app is open and hidden become notifications, as the worker's. */
export async function noticeWhileHidden(
  changes: readonly RemoteChange[],
  reads: NoticeReads & Pick<Queries, 'deviceOwner'>,
): Promise<void> {
  if (document.visibilityState !== 'hidden') return;
  const owner = await reads.deviceOwner();
  if (owner) await notifyOf(changes, owner, reads, await registration());
}

/**
 * Sign-out: the account's notifications, badge, background history and notification choice
 * leave the device.
 */
export async function clearBackgroundTraces(): Promise<void> {
  const reg = await registration();
  const shown = reg ? await reg.getNotifications() : [];
  for (const notification of shown) notification.close();
  await Promise.all([showBadge(0), forgetBackgroundState()]);
}
