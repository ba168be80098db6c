// Waking an app's service worker as the browser would for Background Sync and Periodic
// Background Sync, from a test or a bench: CDP's ServiceWorker.dispatchSyncEvent and
// dispatchPeriodicSyncEvent, as DevTools' Application panel fires them. The browser decides by
// itself when to fire a registration (by the machine's real network, which Playwright's
// offline switch does not change), so tests fire them when they mean them.
import type { BrowserContext, CDPSession } from '@playwright/test';

/** The tags Outpost registers (src/lib/pwa/background-sync.ts, background-support.ts). */
export const OUTBOX_SYNC_TAG = 'outpost-outbox';
export const PERIODIC_SYNC_TAG = 'outpost-refresh';

export interface BackgroundSyncEvents {
  /** Fires the worker's `sync` (the outbox) or `periodicsync` (the refresh) event. */
  fire(kind: 'sync' | 'periodic'): Promise<void>;
  /**
   * Resolves once no tab of the app holds the engine's Web Lock, as the worker sees the locks
   * (a closed page lets go of it a moment after Playwright's close() resolves); rejects after
   * `ms`.
   */
  untilNoTabLeads(ms?: number): Promise<void>;
}

/**
 * A handle on the worker registered for `origin` in `context`, through a blank tab it opens
 * and keeps (no app code runs there, so "every tab of the app closed" stays true).
 */
export async function backgroundSyncEvents(
  context: BrowserContext,
  origin: string,
): Promise<BackgroundSyncEvents> {
  const blank = await context.newPage();
  const cdp: CDPSession = await context.newCDPSession(blank);
  const found = new Promise<string>((resolve) => {
    cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
      const ours = registrations.find((r) => r.scopeURL.startsWith(origin) && !r.isDeleted);
      if (ours) resolve(ours.registrationId);
    });
  });
  await cdp.send('ServiceWorker.enable');
  const registrationId = await found;
  const heldByTabs = async (): Promise<string[]> => {
    const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
    return worker.evaluate(async () =>
      ((await navigator.locks.query()).held ?? [])
        .map((lock) => lock.name ?? '')
        .filter((name) => name.startsWith('outpost-sync:')),
    );
  };
  return {
    async untilNoTabLeads(ms = 10_000) {
      const deadline = Date.now() + ms;
      while ((await heldByTabs()).length > 0) {
        if (Date.now() > deadline) throw new Error(`a tab still leads after ${ms} ms`);
        // The worker answers in its own time: each look is one round trip to it.
      }
    },
    async fire(kind) {
      if (kind === 'sync') {
        await cdp.send('ServiceWorker.dispatchSyncEvent', {
          origin,
          registrationId,
          tag: OUTBOX_SYNC_TAG,
          lastChance: false,
        });
      } else {
        await cdp.send('ServiceWorker.dispatchPeriodicSyncEvent', {
          origin,
          registrationId,
          tag: PERIODIC_SYNC_TAG,
        });
      }
    },
  };
}
