// The service worker's life as the page sees it: "Ready to work offline" once, after the
// first install of the shell; "New version ready" for every new version found waiting (each
// one, not only the first: see announceWaiting); checks for a new version hourly, on coming
// back online and when the tab is shown again; and every reload into a new version only
// after `beforeReload` (the sync engine's flush) has finished or timed out: in the tab whose
// user chose "Reload", in every other open tab when the new worker takes control of it, and
// when the server says this version is too old (reloadToLatest). The Workbox instance,
// connectivity, visibility, the reload and the worker-script probe are injectable, so tests
// drive the whole flow.
import type { OnlineSignal } from '@sync/index';
import { Workbox } from 'workbox-window';
import { create } from 'zustand';

/** How often a long-lived tab asks the server for a new worker while online (ms). */
export const UPDATE_CHECK_INTERVAL_MS = 60 * 60 * 1000;
/**
 * The shortest gap between the last check and one prompted by the tab coming back online or
 * into view (ms): switching tabs or a flapping connection must not fetch sw.js every time.
 */
export const UPDATE_CHECK_THROTTLE_MS = 5 * 60 * 1000;
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
  /** The app shell is cached: the app opens offline (said once, after the first install). */
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
  readonly active: WorkerLike | null;
  update(): Promise<unknown>;
}

/** What workbox-window's events carry that is used here. */
export interface WorkboxEventLike {
  /** The worker the event is about (workbox-window always sets it on `waiting`). */
  sw?: WorkerLike | undefined;
  /** Set by workbox-window only for its own worker in a page that had a controller. */
  isUpdate?: boolean | undefined;
}

/** The parts of workbox-window's Workbox used here. */
export interface WorkboxLike {
  addEventListener(
    type: 'waiting' | 'controlling',
    listener: (event: WorkboxEventLike) => void,
  ): void;
  register(): Promise<RegistrationLike | undefined>;
  messageSkipWaiting(): void;
}

export interface ServiceWorkerUpdates {
  /** Registers the worker, wires its events to the store and starts checking for updates. */
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

let updates: ServiceWorkerUpdates | undefined;

/** Registers /sw.js (production builds only) and wires its events to the store. */
export function registerServiceWorker(options: {
  online: OnlineSignal;
  url?: string;
  enabled?: boolean;
}): void {
  const enabled = options.enabled ?? (import.meta.env.PROD && 'serviceWorker' in navigator);
  if (!enabled || updates) return;
  const url = options.url ?? '/sw.js';
  updates = createServiceWorkerUpdates({
    workbox: new Workbox(url, { scope: '/' }),
    online: options.online,
    visibility: documentVisibility(),
    probeWorkerScript: () => workerScriptReachable(url),
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
