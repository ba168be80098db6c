// Outpost's service worker (vite-plugin-pwa injectManifest): precaches the app shell so the
// app starts with no network, serves every in-app navigation from it, and keeps attachment
// files loaded directly through signed URLs for a while (not the app's own downloads: the
// sync library keeps those in IndexedDB), and takes files shared from other apps (the
// manifest's share_target: share-inbox.ts). It never activates itself: the page asks
// (SKIP_WAITING) after the user chose "Reload" and the sync engine has flushed (registerType
// 'prompt'). Only the very first worker, with no version before it, takes control of open
// pages at once.
import { CacheableResponsePlugin } from 'workbox-cacheable-response';
import type { WorkboxPlugin } from 'workbox-core/types';
import { ExpirationPlugin } from 'workbox-expiration';
import {
  cleanupOutdatedCaches,
  createHandlerBoundToURL,
  precacheAndRoute,
  type PrecacheEntry,
} from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import { CacheFirst } from 'workbox-strategies';

import {
  ATTACHMENT_CACHE_NAME,
  attachmentCacheKey,
  keptByAttachmentCache,
} from '@/lib/pwa/attachment-cache';
import { API_PATH_DENYLIST } from '@/lib/pwa/navigation-denylist';
import { ShareBodyError } from '@/lib/pwa/share-body';
import { keepShare, SHARE_PATH } from '@/lib/pwa/share-inbox';
import { shareOriginRefusal } from '@/lib/pwa/share-origin';
import { shareRefusedResponse } from '@/lib/pwa/share-refused';
import { PERIODIC_SYNC_TAG } from '@/lib/pwa/background-support';
import { OUTBOX_SYNC_TAG } from '@/lib/pwa/background-sync';
import { openNotice, type NoticeClients } from '@/lib/pwa/notice-click';
import { runBackgroundSync, type WorkerRegistration } from '@/lib/pwa/worker-sync';

/** An event the worker may be kept alive for (ExtendableEvent). */
interface Extendable {
  waitUntil(promise: Promise<unknown>): void;
}

// The few parts of ServiceWorkerGlobalScope used here (the DOM lib of this project has no
// worker types, and mixing both libs in one program conflicts).
declare const self: {
  __WB_MANIFEST: (PrecacheEntry | string)[];
  registration: { active: object | null } & WorkerRegistration;
  location: { origin: string };
  clients: { claim(): Promise<void> } & NoticeClients;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  addEventListener(type: 'install' | 'activate', listener: (event: Extendable) => void): void;
  addEventListener(
    type: 'sync' | 'periodicsync',
    listener: (event: Extendable & { tag: string }) => void,
  ): void;
  addEventListener(
    type: 'notificationclick',
    listener: (event: Extendable & { notification: Notification }) => void,
  ): void;
  skipWaiting(): Promise<void>;
};

/** How long fetched attachment files stay cached (s), and how many at most. */
const ATTACHMENT_CACHE_MAX_AGE_SEC = 7 * 24 * 60 * 60;
const ATTACHMENT_CACHE_MAX_ENTRIES = 200;

precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();

// The share sheet's POST (manifest share_target): the files are kept on the device, then the
// browser is sent on to the share screen (303: a GET, so a reload does not post again). A POST
// that is not the share sheet's navigation (another site's form: share-origin.ts), or whose
// body breaks a limit as it is read (share-body.ts), keeps nothing and is answered with a page
// that says so. With no worker yet (the very first visit) the POST reaches the server, which
// has no such page.
registerRoute(
  ({ url }) => url.pathname === SHARE_PATH,
  async ({ request }) => {
    const refusal = shareOriginRefusal(request, self.location.origin);
    if (refusal) {
      // Not read at all: the browser stops sending the rest.
      await request.body?.cancel().catch(() => undefined);
      return shareRefusedResponse(refusal);
    }
    const id = crypto.randomUUID();
    try {
      await keepShare(request, id, caches);
    } catch (error) {
      if (error instanceof ShareBodyError) return shareRefusedResponse(error.code);
      // The share screen says the share is not here (a full device).
      console.error('[outpost] could not keep a share', error);
    }
    return Response.redirect(`${SHARE_PATH}?id=${id}`, 303);
  },
  'POST',
);

registerRoute(
  new NavigationRoute(createHandlerBoundToURL('index.html'), { denylist: [...API_PATH_DENYLIST] }),
);

// Signed attachment URLs carry a short-lived token in the query: the cache key drops it, so
// the same object is served from cache after its URL was re-signed. The page deletes this
// cache at sign-out (clearAttachmentCache), so keep the name in attachment-cache.ts. The
// app's own downloads ask for 'no-store' and pass by: their bytes are kept in IndexedDB.
registerRoute(
  ({ request }) => keptByAttachmentCache(request),
  new CacheFirst({
    cacheName: ATTACHMENT_CACHE_NAME,
    plugins: [
      {
        cacheKeyWillBeUsed: ({ request }) => Promise.resolve(attachmentCacheKey(request.url)),
      },
      // Workbox's plugin classes declare optional methods as `T | undefined`, which
      // exactOptionalPropertyTypes rejects; they are valid plugins.
      new CacheableResponsePlugin({ statuses: [200] }) as WorkboxPlugin,
      new ExpirationPlugin({
        maxAgeSeconds: ATTACHMENT_CACHE_MAX_AGE_SEC,
        maxEntries: ATTACHMENT_CACHE_MAX_ENTRIES,
        purgeOnQuotaError: true,
      }) as WorkboxPlugin,
    ],
  }),
);

// The first install: no version was active before this one, so no page runs code that a new
// worker could break. Claiming them lets the page that installed the app work offline at once,
// without a reload. Updates never claim: they wait for the user's "Reload" (above).
let firstInstall = false;
self.addEventListener('install', () => {
  firstInstall = self.registration.active === null;
});
self.addEventListener('activate', (event) => {
  if (firstInstall) event.waitUntil(self.clients.claim());
});

self.addEventListener('message', (event) => {
  if (
    typeof event.data === 'object' &&
    event.data !== null &&
    (event.data as { type?: unknown }).type === 'SKIP_WAITING'
  ) {
    void self.skipWaiting();
  }
});

// Sync with the app closed (worker-sync.ts): the outbox the app handed over while offline,
// and the periodic refresh. A run that failed rejects, and the browser tries again later.
self.addEventListener('sync', (event) => {
  if (event.tag === OUTBOX_SYNC_TAG) {
    event.waitUntil(runBackgroundSync('sync', self.registration));
  }
});
self.addEventListener('periodicsync', (event) => {
  if (event.tag === PERIODIC_SYNC_TAG) {
    event.waitUntil(runBackgroundSync('periodic', self.registration));
  }
});

// A notification's click opens its task: in a window of the app already open, else a new one.
self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const done = openNotice(event.notification.data, self.clients, self.location.origin);
  // Not every caller is the browser (a test's synthetic event cannot be extended).
  try {
    event.waitUntil(done);
  } catch {
    void done;
  }
});
