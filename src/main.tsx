// Entry point: the app's single instances, then the first render. Nothing here waits on the
// network: the screens read the device's database and the engine syncs in the background.
// What only talks to the server is not in the app shell (issue 16): supabase-js is imported
// once the first screen has rendered, and the sync library, the session revocations and the
// screens that need it take the promise of the client; the engine starts then too, and
// workbox-window comes with the service worker's registration.
// First: the current screen's code is asked for while the rest of the shell runs.
import '@/app/load-first-screen';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

import { browserOnline, setDeviceDatabaseDebug } from '@sync/index';
import { createOutpostSync } from '@/data/sync';
import { App } from '@/app/app';
import { afterFirstPaint } from '@/boot/after-first-paint';
import { readFirstScreen, readScreensAhead } from '@/app/first-screen';
import { preloadAllScreens, preloadScreen } from '@/app/routes';
import { firstScreenPath } from '@/app/screen-code';
import { clearAttachmentCache, fetchPastAttachmentCache } from '@/lib/pwa/attachment-cache';
import { listenForInstallPrompt } from '@/lib/pwa/install-prompt';
import { registerServiceWorker, setBeforeReload } from '@/lib/pwa/service-worker';
import { clearShares } from '@/lib/pwa/share-cache';
import { createSessionRevocations } from '@/lib/revocations';
import type { AppServices } from '@/lib/services';

// Dexie's debug mode stays in `npm run dev`; a build runs on localhost as it runs deployed.
if (import.meta.env.PROD) setDeviceDatabaseDebug(false);

const container = document.getElementById('root');
if (!container) {
  throw new Error('index.html is missing the #root element');
}

/** How long the first render waits for the first screen's code and data at most (ms). */
const FIRST_RENDER_WAIT_MS = 400;

/** How long the first screen's reads are kept for it, if it has not taken them by then (ms). */
const FIRST_SCREEN_READS_MS = 10_000;

listenForInstallPrompt();
// The screen renders without suspending when its code is here by its first render (on a first
// visit, the welcome screen, drawn over the page index.html shows: boot/first-visit.ts).
const firstScreenCode = preloadScreen(firstScreenPath());

// What only talks to the server starts once the first screen is up (below): supabase-js (200
// kB), the engine's code and its first reads would otherwise compete with the first screen's
// code and reads, in the worker, on the main thread and in IndexedDB.
let startServer!: () => void;
const supabase = new Promise<void>((resolve) => (startServer = resolve))
  .then(() => import('@/lib/supabase'))
  .then(({ createAppSupabase }) => createAppSupabase());
const online = browserOnline();
// Sessions signed out on this device (even offline) are revoked on the server once it can
// be reached; every tab tries, across reloads.
const revocations = createSessionRevocations(supabase, { online });
// Attachment downloads pass by the worker's cache (their bytes are kept once, in IndexedDB);
// sign-out still empties that cache of any signed URL loaded directly (private files), and
// drops files shared to Outpost and not yet attached.
// Sync with the app closed (issue 38): what cannot be sent now is handed to the service
// worker; others' changes heard while the page is hidden may become notifications; a sign-out
// clears those, the badge and the worker's history. Its code comes only when first needed.
const background = () => import('@/lib/pwa/background-sync');
const sync = createOutpostSync({
  supabase,
  online,
  fetch: fetchPastAttachmentCache,
  onWipe: async () => {
    await Promise.all([
      clearAttachmentCache(),
      clearShares(),
      background().then((module) => module.clearBackgroundTraces()),
    ]);
  },
  keepForRevocation: revocations.add,
  requestBackgroundSync: () => void background().then((module) => module.requestBackgroundSync()),
  onRemoteChanges: (changes) => {
    if (document.visibilityState !== 'hidden') return;
    void background().then((module) => module.noticeWhileHidden(changes, sync.queries));
  },
});
const services: AppServices = {
  supabase,
  sync,
  online,
  now: () => Date.now(),
  origin: window.location.origin,
};
// The first screen's data is read while its code loads.
const firstScreen = readFirstScreen(sync, window.location.pathname);
setTimeout(firstScreen.release, FIRST_SCREEN_READS_MS);

// Whether a worker controlled this page as it loaded (the update flow, registered after the
// first paint, tells a first install from an update by it).
const controlledAtStart =
  'serviceWorker' in navigator && navigator.serviceWorker.controller !== null;

// "Reload" into a new version only after the engine has finished (and persisted) any push
// in flight; everything queued is in IndexedDB already and survives the reload (a token
// waiting for revocation too).
setBeforeReload(() => {
  revocations.stop();
  return sync.stop();
});

// The first render waits for the first screen's code and the data of its rows (at most
// FIRST_RENDER_WAIT_MS), so that it is that screen with its rows.
void Promise.race([
  Promise.all([firstScreenCode, firstScreen.rows.catch(() => undefined)]),
  new Promise((resolve) => setTimeout(resolve, FIRST_RENDER_WAIT_MS)),
]).then(() => {
  createRoot(container).render(
    <StrictMode>
      <App services={services} />
    </StrictMode>,
  );
  // The rest once that screen is on the screen (boot/after-first-paint.ts says why).
  afterFirstPaint(() => {
    startServer();
    revocations.start();
    sync.start();
    readScreensAhead(sync);
    registerServiceWorker({ online, controlledAtStart });
    // The other screens' code, once the browser has a moment: asked for earlier, while the
    // first screen's code and rows are on their way (the browser is idle then, waiting), it
    // competes with them in the worker.
    if ('requestIdleCallback' in window) requestIdleCallback(preloadAllScreens, { timeout: 3_000 });
    else setTimeout(preloadAllScreens, 1_000);
  });
});
