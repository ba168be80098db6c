// The service worker's update flow (see service-worker.ts; what the app shell needs of it, the
// store it sets and the reload hook, is service-worker-state.ts). Loaded with workbox-window by
// registerServiceWorker, after the first render (issue 16). It also follows the worker's
// notification clicks (notice-click.ts): an in-app navigation to the task.
import { Workbox } from 'workbox-window';
import { navigate } from 'wouter/use-browser-location';

import type { OnlineSignal } from '@sync/index';

import { OPEN_PATH_MESSAGE } from './notice-click';
import {
  runBeforeReload,
  useServiceWorkerState,
  OFFLINE_READY_SHOWN_KEY,
  type RegistrationLike,
  type ServiceWorkerUpdates,
  type WorkboxLike,
  type WorkerLike,
} from './service-worker-state';

/** How often a long-lived tab asks the server for a new worker while online (ms). */
export const UPDATE_CHECK_INTERVAL_MS = 60 * 60 * 1000;
/**
 * The shortest gap between the last check and one prompted by the tab coming back online or
 * into view (ms): switching tabs or a flapping connection must not fetch sw.js every time.
 */
export const UPDATE_CHECK_THROTTLE_MS = 5 * 60 * 1000;
/**
 * If the new worker has not taken control this long after "Reload" (ms), reload anyway: the
 * engine is already stopped, and a first update sometimes never fires `controlling`
 * (vite-plugin-pwa #789). The reloaded page gets the new version or the old one, working.
 */
export const RELOAD_FALLBACK_MS = 4_000;
/**
 * How long reloadToLatest waits for a version it just found to finish installing (ms): the
 * precache download. Past it, the page reloads into what it has rather than hang.
 */
export const UPDATE_INSTALL_TIMEOUT_MS = 30_000;

/**
 * Resolves once `worker` has left 'installing' (installed or failed), or after `capMs` when
 * one is given.
 */
function installFinished(worker: WorkerLike | null, capMs?: number): Promise<void> {
  if (worker?.state !== 'installing') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      worker.removeEventListener('statechange', onChange);
      resolve();
    };
    const onChange = () => {
      if (worker.state !== 'installing') done();
    };
    const timer = capMs === undefined ? undefined : setTimeout(done, capMs);
    worker.addEventListener('statechange', onChange);
  });
}

/** Calls `then` once `worker` is activated; never if it becomes redundant first. */
function whenActivated(worker: WorkerLike, then: () => void): void {
  if (worker.state === 'activated') {
    then();
    return;
  }
  const onChange = () => {
    if (worker.state !== 'activated' && worker.state !== 'redundant') return;
    worker.removeEventListener('statechange', onChange);
    if (worker.state === 'activated') then();
  };
  worker.addEventListener('statechange', onChange);
}

/** Calls `onVisible` each time the tab is shown again; returns unsubscribe. */
export interface VisibilitySignal {
  subscribe(onVisible: () => void): () => void;
}

/** The document's visibility: the tab was switched back to, the window restored. */
export function documentVisibility(): VisibilitySignal {
  return {
    subscribe(onVisible) {
      const handler = () => {
        if (document.visibilityState === 'visible') onVisible();
      };
      document.addEventListener('visibilitychange', handler);
      return () => document.removeEventListener('visibilitychange', handler);
    },
  };
}

/**
 * Whether the worker script answers 200 when fetched past every cache: registration.update()
 * is only asked after this succeeds (vite-plugin-pwa's periodic-update guide), so a server
 * that is down or a captive portal's page never becomes a failed update check.
 */
export async function workerScriptReachable(
  url: string,
  fetchImpl: typeof fetch = (input, init) => fetch(input, init),
): Promise<boolean> {
  try {
    const response = await fetchImpl(url, { cache: 'no-store' });
    return response.status === 200;
  } catch {
    return false; // offline after all (navigator.onLine is only a hint)
  }
}

/** The update flow over one Workbox instance (the app makes one; tests make many). */
export function createServiceWorkerUpdates(deps: {
  workbox: WorkboxLike;
  reload?: () => void;
  /** The app's connectivity (checks wait while it says offline, and run when it comes back). */
  online: OnlineSignal;
  /** Whether a worker controlled this page when it loaded (default: the browser's answer). */
  controlled?: () => boolean;
  visibility?: VisibilitySignal;
  /** Asked before each update check: is the worker script there (default: always). */
  probeWorkerScript?: () => Promise<boolean>;
  now?: () => number;
}): ServiceWorkerUpdates {
  const { workbox, online } = deps;
  const reload = deps.reload ?? (() => window.location.reload());
  const controlled = deps.controlled ?? (() => navigator.serviceWorker.controller !== null);
  const probeWorkerScript = deps.probeWorkerScript ?? (() => Promise.resolve(true));
  const now = deps.now ?? (() => Date.now());
  let registration: Promise<RegistrationLike | undefined> = Promise.resolve(undefined);
  let settling: Promise<void> | undefined;
  let reloaded = false;
  /** The last worker "New version ready" was said for ("Later" hides it until the next). */
  let announced: WorkerLike | undefined;
  let checking = false;
  /** When the last update check started (ms); checks prompted by events wait for the gap. */
  let lastCheckAt = Number.NEGATIVE_INFINITY;
  const logged = new Set<string>();

  // A failing registration or update check (offline, a server hiccup) must not become an
  // unhandled rejection, nor fill the console once an hour: the first one is enough.
  function logOnce(what: string, error: unknown): void {
    if (logged.has(what)) return;
    logged.add(what);
    console.error(`[outpost] ${what}`, error);
  }

  /** The engine's flush, run once per page whoever asks first ("Reload", `controlling`). */
  function settle(): Promise<void> {
    settling ??= runBeforeReload();
    return settling;
  }

  function reloadOnce(): void {
    if (reloaded) return;
    reloaded = true;
    reload();
  }

  /**
   * "New version ready" for a worker waiting to take over, unless it was said for that very
   * worker already. workbox-window's `waiting` event is not enough: it treats every update
   * found more than a minute after register() as external, and after the first external one
   * it stops listening for updates altogether, so a version C that replaces a waiting B
   * (deployed after the user chose "Later") fires no event. Hence this is also asked after
   * each of our own checks, which look at the registration itself.
   */
  function announceWaiting(worker: WorkerLike | null | undefined): void {
    if (!worker || worker === announced) return;
    announced = worker;
    useServiceWorkerState.setState({ updateReady: true });
  }

  /** Asks the server for a new worker and says so when one ends up waiting. */
  async function checkForUpdate(registered: RegistrationLike): Promise<void> {
    if (checking || !online.isOnline()) return;
    checking = true;
    lastCheckAt = now();
    try {
      if (!(await probeWorkerScript())) return;
      await registered.update();
      // A new worker downloads the precache before it waits, however long that takes; the
      // next check need not wait for it.
      void installFinished(registered.installing).then(() => announceWaiting(registered.waiting));
    } catch (error) {
      logOnce('update check failed', error);
    } finally {
      checking = false;
    }
  }

  /** A check prompted by the tab coming back (online, into view): at most one per gap. */
  function checkSoon(registered: RegistrationLike): void {
    if (now() - lastCheckAt < UPDATE_CHECK_THROTTLE_MS) return;
    void checkForUpdate(registered);
  }

  /**
   * "Ready to work offline" only when this page saw the shell installed for the first time:
   * no worker controlled it and none was active (a hard reload is uncontrolled too, with the
   * shell long cached). Activations of later versions are not this, whatever workbox-window
   * says of them: it marks only its own worker's events with `isUpdate`.
   */
  function watchFirstInstall(registered: RegistrationLike, wasControlled: boolean): void {
    if (wasControlled || registered.active) return;
    const worker = registered.installing ?? registered.waiting;
    if (!worker) return;
    whenActivated(worker, () => {
      // Once per device: a second tab open during that first install sees it activate too.
      if (localStorage.getItem(OFFLINE_READY_SHOWN_KEY) === '1') return;
      useServiceWorkerState.setState({ offlineReady: true });
    });
  }

  async function applyUpdate(): Promise<void> {
    await settle();
    workbox.messageSkipWaiting();
    setTimeout(reloadOnce, RELOAD_FALLBACK_MS);
  }

  return {
    register() {
      const wasControlled = controlled();
      workbox.addEventListener('waiting', (event) => announceWaiting(event.sw));
      workbox.addEventListener('controlling', (event) => {
        // A new version took over: in the tab whose user chose "Reload", the engine has
        // settled already; in every other tab it settles now, before that tab reloads too.
        if (event.isUpdate) void settle().then(reloadOnce);
      });
      registration = workbox.register().catch((error: unknown) => {
        logOnce('service worker registration failed', error);
        return undefined;
      });
      void registration.then((registered) => {
        if (!registered) return;
        watchFirstInstall(registered, wasControlled);
        // A worker already waiting when this page loaded is announced by workbox-window
        // (`waiting` with wasWaitingBeforeRegister); checking it here as well costs nothing.
        announceWaiting(registered.waiting);
        setInterval(() => void checkForUpdate(registered), UPDATE_CHECK_INTERVAL_MS);
        // A tab offline at the hourly tick, or asleep in the background, checks as soon as
        // it is back rather than an hour later. These listeners live as long as the page.
        online.subscribe((isOnline) => {
          if (isOnline) checkSoon(registered);
        });
        deps.visibility?.subscribe(() => checkSoon(registered));
      });
    },
    applyUpdate,
    async reloadToLatest() {
      const registered = await registration;
      if (registered) {
        try {
          await registered.update();
          await installFinished(registered.installing, UPDATE_INSTALL_TIMEOUT_MS);
        } catch (error) {
          logOnce('update check failed', error);
        }
        if (registered.waiting) {
          await applyUpdate();
          return;
        }
      }
      await settle();
      reloadOnce();
    },
  };
}

/** The app's update flow over workbox-window for the worker at `url` (registerServiceWorker). */
export function startServiceWorkerUpdates(options: {
  url: string;
  online: OnlineSignal;
  /** Whether a worker controlled the page when it loaded. */
  controlledAtStart: boolean;
}): ServiceWorkerUpdates {
  const { url, online, controlledAtStart } = options;
  const updates = createServiceWorkerUpdates({
    workbox: new Workbox(url, { scope: '/' }),
    online,
    controlled: () => controlledAtStart,
    visibility: documentVisibility(),
    probeWorkerScript: () => workerScriptReachable(url),
  });
  updates.register();
  followNoticeClicks();
  return updates;
}

/**
 * A notification's click in the worker (notice-click.ts) asks this window to open a path of
 * the app: an in-app navigation, so nothing on the page reloads.
 */
function followNoticeClicks(): void {
  navigator.serviceWorker.addEventListener('message', (event: MessageEvent<unknown>) => {
    const data = event.data as { type?: unknown; path?: unknown } | null;
    if (data?.type !== OPEN_PATH_MESSAGE || typeof data.path !== 'string') return;
    if (!data.path.startsWith('/') || data.path.startsWith('//')) return;
    navigate(data.path);
  });
  // Messages wait until the page says it listens.
  navigator.serviceWorker.startMessages();
}
