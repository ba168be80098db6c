// The service worker's life as the page sees it, through workbox-window: "ready to work
// offline" once per device, "new version ready" when an update waits, and every reload into
// a new version only after `beforeReload` (the sync engine's flush) has finished or timed
// out: in the tab whose user chose "Reload", in every other open tab when the new worker
// takes control of it, and when the server says this version is too old (reloadToLatest).
// The Workbox instance and the reload are injectable, so tests drive the whole flow.
import { Workbox } from 'workbox-window';
import { create } from 'zustand';

/** How often a long-lived tab asks the server for a new worker while online (ms). */
export const UPDATE_CHECK_INTERVAL_MS = 60 * 60 * 1000;
/**
 * The longest a reload waits for the engine to settle (ms). A push still hanging after this
 * is safe to abandon: its outbox entries were frozen in IndexedDB before it was sent, and the
 * next version replays them (the server skips seqs it already applied).
 */
export const RELOAD_SETTLE_TIMEOUT_MS = 5_000;
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
/** localStorage flag: "Ready to work offline" has been said on this device. */
export const OFFLINE_READY_SHOWN_KEY = 'outpost:offline-ready-shown';

interface ServiceWorkerStore {
  /** The app shell is cached: the app opens offline (said once per device). */
  offlineReady: boolean;
  /** A new version is installed and waiting for the user's "Reload". */
  updateReady: boolean;
  /** The notice was shown: never again on this device. */
  dismissOfflineReady: () => void;
  /** "Later": hide the prompt until the next update is found. */
  postponeUpdate: () => void;
}

export const useServiceWorkerState = create<ServiceWorkerStore>((set) => ({
  offlineReady: false,
  updateReady: false,
  dismissOfflineReady: () => {
    localStorage.setItem(OFFLINE_READY_SHOWN_KEY, '1');
    set({ offlineReady: false });
  },
  postponeUpdate: () => set({ updateReady: false }),
}));

/** A service worker as watched here (the browser's, or a fake in tests). */
export interface WorkerLike {
  readonly state: ServiceWorkerState;
  addEventListener(type: 'statechange', listener: () => void): void;
  removeEventListener(type: 'statechange', listener: () => void): void;
}

/** The parts of a ServiceWorkerRegistration used here. */
export interface RegistrationLike {
  readonly installing: WorkerLike | null;
  readonly waiting: WorkerLike | null;
  update(): Promise<unknown>;
}

/** The parts of workbox-window's Workbox used here. */
export interface WorkboxLike {
  addEventListener(
    type: 'waiting' | 'activated' | 'controlling',
    listener: (event: { isUpdate?: boolean | undefined }) => void,
  ): void;
  register(): Promise<RegistrationLike | undefined>;
  messageSkipWaiting(): void;
}

export interface ServiceWorkerUpdates {
  /** Registers the worker, wires its events to the store and starts the hourly check. */
  register(): void;
  /** "Reload": let sync settle, activate the waiting worker, reload once it controls. */
  applyUpdate(): Promise<void>;
  /** See the module-level reloadToLatest. */
  reloadToLatest(): Promise<void>;
}

let beforeReload: () => Promise<void> = () => Promise.resolve();

/** What must finish before the page reloads into a new version (the engine's flush). */
export function setBeforeReload(fn: () => Promise<void>): void {
  beforeReload = fn;
}

/** The engine's flush, never waited on for longer than the cap; never rejects. */
function runBeforeReload(): Promise<void> {
  return Promise.race([
    beforeReload().catch((error: unknown) => console.error('[outpost] before reload', error)),
    new Promise((resolve) => setTimeout(resolve, RELOAD_SETTLE_TIMEOUT_MS)),
  ]).then(() => undefined);
}

/** Resolves once `worker` has left 'installing' (installed or failed), or after the cap. */
function installFinished(worker: WorkerLike | null): Promise<void> {
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
    const timer = setTimeout(done, UPDATE_INSTALL_TIMEOUT_MS);
    worker.addEventListener('statechange', onChange);
  });
}

/** The update flow over one Workbox instance (the app makes one; tests make many). */
export function createServiceWorkerUpdates(deps: {
  workbox: WorkboxLike;
  reload?: () => void;
  isOnline?: () => boolean;
}): ServiceWorkerUpdates {
  const { workbox } = deps;
  const reload = deps.reload ?? (() => window.location.reload());
  const isOnline = deps.isOnline ?? (() => navigator.onLine);
  let registration: Promise<RegistrationLike | undefined> = Promise.resolve(undefined);
  let settling: Promise<void> | undefined;
  let reloaded = false;
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

  async function applyUpdate(): Promise<void> {
    await settle();
    workbox.messageSkipWaiting();
    setTimeout(reloadOnce, RELOAD_FALLBACK_MS);
  }

  return {
    register() {
      workbox.addEventListener('waiting', () =>
        useServiceWorkerState.setState({ updateReady: true }),
      );
      workbox.addEventListener('activated', (event) => {
        // The first install (not an update) means the shell is now cached. Said once per
        // device: a second tab or a reload during that first install must not say it again.
        if (event.isUpdate || localStorage.getItem(OFFLINE_READY_SHOWN_KEY) === '1') return;
        useServiceWorkerState.setState({ offlineReady: true });
      });
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
        setInterval(() => {
          if (!isOnline()) return;
          registered.update().catch((error: unknown) => logOnce('update check failed', error));
        }, UPDATE_CHECK_INTERVAL_MS);
      });
    },
    applyUpdate,
    async reloadToLatest() {
      const registered = await registration;
      if (registered) {
        try {
          await registered.update();
          await installFinished(registered.installing);
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

let updates: ServiceWorkerUpdates | undefined;

/** Registers /sw.js (production builds only) and wires its events to the store. */
export function registerServiceWorker(options: { url?: string; enabled?: boolean } = {}): void {
  const enabled = options.enabled ?? (import.meta.env.PROD && 'serviceWorker' in navigator);
  if (!enabled || updates) return;
  updates = createServiceWorkerUpdates({
    workbox: new Workbox(options.url ?? '/sw.js', { scope: '/' }),
  });
  updates.register();
}

/** "Reload": let sync finish or persist, then activate the waiting worker (which reloads). */
export function applyUpdate(): Promise<void> {
  return updates?.applyUpdate() ?? Promise.resolve();
}

/**
 * For a version the server no longer accepts (APP_OUTDATED): asks the server for a new
 * worker, and if one is (or becomes, once installed) waiting, applies it through the normal
 * update flow (engine settles, SKIP_WAITING, reload when it controls); otherwise, or with no
 * service worker at all (dev), the engine settles and the page reloads. Either way the page
 * reloads; the returned promise resolves once the reload is under way (or scheduled) and
 * never rejects.
 */
export function reloadToLatest(): Promise<void> {
  if (updates) return updates.reloadToLatest();
  return runBeforeReload().then(() => window.location.reload());
}
