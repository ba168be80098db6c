// The service worker's life as the page sees it, through workbox-window: "ready to work
// offline" once, "new version ready" when an update waits, and applying that update only
// when asked, after `beforeReload` (the sync engine's flush) has finished. Injectable, so
// tests and the dev server (no worker) can drive it.
import { Workbox } from 'workbox-window';
import { create } from 'zustand';

/** How often a long-lived tab asks the server for a new worker while online (ms). */
export const UPDATE_CHECK_INTERVAL_MS = 60 * 60 * 1000;
/**
 * The longest "Reload" waits for the engine to settle (ms). A push still hanging after this
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

interface ServiceWorkerState {
  /** The app shell is cached: the app opens offline. */
  offlineReady: boolean;
  /** A new version is installed and waiting for the user's "Reload". */
  updateReady: boolean;
  dismissOfflineReady: () => void;
  /** "Later": hide the prompt until the next update is found. */
  postponeUpdate: () => void;
}

export const useServiceWorkerState = create<ServiceWorkerState>((set) => ({
  offlineReady: false,
  updateReady: false,
  dismissOfflineReady: () => set({ offlineReady: false }),
  postponeUpdate: () => set({ updateReady: false }),
}));

let workbox: Workbox | undefined;
let beforeReload: () => Promise<void> = () => Promise.resolve();

/** What must finish before the page reloads into a new version (the engine's flush). */
export function setBeforeReload(fn: () => Promise<void>): void {
  beforeReload = fn;
}

/** Registers /sw.js (production builds only) and wires its events to the store. */
export function registerServiceWorker(options: { url?: string; enabled?: boolean } = {}): void {
  const enabled = options.enabled ?? (import.meta.env.PROD && 'serviceWorker' in navigator);
  if (!enabled || workbox) return;
  workbox = new Workbox(options.url ?? '/sw.js', { scope: '/' });
  workbox.addEventListener('waiting', () => useServiceWorkerState.setState({ updateReady: true }));
  workbox.addEventListener('activated', (event) => {
    // The first install (not an update) means the shell is now cached.
    if (!event.isUpdate) useServiceWorkerState.setState({ offlineReady: true });
  });
  workbox.addEventListener('controlling', (event) => {
    if (event.isUpdate) window.location.reload();
  });
  void workbox.register().then((registration) => {
    if (!registration) return;
    setInterval(() => {
      if (navigator.onLine) void registration.update();
    }, UPDATE_CHECK_INTERVAL_MS);
  });
}

/** "Reload": let sync finish or persist, then activate the waiting worker (which reloads). */
export async function applyUpdate(): Promise<void> {
  await Promise.race([
    beforeReload().catch((error: unknown) => console.error('[outpost] before reload', error)),
    new Promise((resolve) => setTimeout(resolve, RELOAD_SETTLE_TIMEOUT_MS)),
  ]);
  workbox?.messageSkipWaiting();
  setTimeout(() => window.location.reload(), RELOAD_FALLBACK_MS);
}
