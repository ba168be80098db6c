// The service worker's life as the page sees it: "Ready to work offline" once, after the
// first install of the shell; "New version ready" for every new version found waiting (each
// one, not only the first: see announceWaiting); checks for a new version hourly, on coming
// back online and when the tab is shown again; and every reload into a new version only
// after `beforeReload` (the sync engine's flush) has finished or timed out: in the tab whose
// user chose "Reload", in every other open tab when the new worker takes control of it, and
// when the server says this version is too old (reloadToLatest). The Workbox instance,
// connectivity, visibility, the reload and the worker-script probe are injectable, so tests
// drive the whole flow. This module is what the app shell holds (the store, the reload hook,
// registration); the flow itself and workbox-window are service-worker-updates.ts, which
// registerServiceWorker loads after the first render (issue 16).
import type { OnlineSignal } from '@sync/index';

import { runBeforeReload, type ServiceWorkerUpdates } from './service-worker-state';

export {
  OFFLINE_READY_SHOWN_KEY,
  RELOAD_SETTLE_TIMEOUT_MS,
  setBeforeReload,
  useServiceWorkerState,
  type RegistrationLike,
  type ServiceWorkerUpdates,
  type WorkboxEventLike,
  type WorkboxLike,
  type WorkerLike,
} from './service-worker-state';

/** The app's update flow, once workbox-window has loaded (registerServiceWorker). */
let updates: Promise<ServiceWorkerUpdates | undefined> | undefined;

/**
 * Registers /sw.js (production builds only) and wires its events to the store. The update
 * flow and workbox-window are imported here (from the precache, like the rest), so the worker
 * is registered a moment after the call; whether a worker controlled the page is read at the
 * call, unless the caller read it earlier (`controlledAtStart`).
 */
export function registerServiceWorker(options: {
  online: OnlineSignal;
  url?: string;
  enabled?: boolean;
  /** Whether a worker controlled the page as it loaded, where that was read earlier. */
  controlledAtStart?: boolean;
}): void {
  const enabled = options.enabled ?? (import.meta.env.PROD && 'serviceWorker' in navigator);
  if (!enabled || updates) return;
  const url = options.url ?? '/sw.js';
  const controlledAtStart =
    options.controlledAtStart ?? navigator.serviceWorker.controller !== null;
  updates = import('./service-worker-updates')
    .then(({ startServiceWorkerUpdates }) =>
      startServiceWorkerUpdates({ url, online: options.online, controlledAtStart }),
    )
    .catch((error: unknown) => {
      console.error('[outpost] service worker registration failed', error);
      return undefined;
    });
}

/** "Reload": let sync finish or persist, then activate the waiting worker (which reloads). */
export async function applyUpdate(): Promise<void> {
  await (await updates)?.applyUpdate();
}

/**
 * For a version the server no longer accepts (APP_OUTDATED): asks the server for a new
 * worker, and if one is (or becomes, once installed) waiting, applies it through the normal
 * update flow (engine settles, SKIP_WAITING, reload when it controls); otherwise, or with no
 * service worker at all (dev), the engine settles and the page reloads. Either way the page
 * reloads; the returned promise resolves once the reload is under way (or scheduled) and
 * never rejects.
 */
export async function reloadToLatest(): Promise<void> {
  const made = await updates;
  if (made) return made.reloadToLatest();
  return runBeforeReload().then(() => window.location.reload());
}
