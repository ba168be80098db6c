// The service worker as the app shell needs it (see service-worker.ts): the store the notices
// read, the hook a reload waits for, and the shapes the update flow works on. Apart from the
// flow (service-worker-updates.ts, loaded after the first render) so that neither imports the
// other (issue 16).
import { create } from 'zustand';

/**
 * The longest a reload waits for the engine to settle (ms). A push still hanging after this
 * is safe to abandon: its outbox entries were frozen in IndexedDB before it was sent, and the
 * next version replays them (the server skips seqs it already applied).
 */
export const RELOAD_SETTLE_TIMEOUT_MS = 5_000;
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
export function runBeforeReload(): Promise<void> {
  return Promise.race([
    beforeReload().catch((error: unknown) => console.error('[outpost] before reload', error)),
    new Promise((resolve) => setTimeout(resolve, RELOAD_SETTLE_TIMEOUT_MS)),
  ]).then(() => undefined);
}
