// A browser's very first visit paints the welcome screen before the app has loaded (issue 42).
// With a cold cache the app shell (130 kB gzip) is downloaded, compiled and run before React's
// first render, and a first visit took 5–8 times as long as a static page to show anything.
// So the build renders the frame and the welcome screen, as the app renders them at its
// address (app/first-visit-page.tsx), to HTML that it puts in this script (first-visit-script.ts),
// which index.html loads deferred, just before the app shell's (in a script rather than in
// index.html, no other visit parses it). On the app's address, on a device nobody uses yet
// (localStorage holds no session, no "without an account", no owner's email), it puts that
// page in #root and marks <html data-first-visit>; the app shell's script, which would start
// the app right after it, before that page could paint, then starts it once the page has
// painted (START_GLOBAL); and the app's first render, which waits for the welcome screen's code
// (main.tsx), draws the same page over it. Until then its links are plain links, and "Use
// without an account" does what the app's does, by a navigation.
// Relative: vite.config.ts loads this module (through scripts/classic-scripts.ts) without the '@' alias.
import { AUTH_STORAGE_KEY } from '../lib/auth-storage';

/** Where a first visit is painted before the app: the app's address (the manifest's start_url). */
export const FIRST_VISIT_PATH = '/';
/** Where the app sends a first visit to '/' on (RequireSession's `?next=`), and "Use without an account" too. */
export const FIRST_VISIT_NEXT = '/lists';
/** Set on <html> when the first visit's page was shown. */
export const FIRST_VISIT_ATTRIBUTE = 'data-first-visit';
/**
 * session.tsx's LOCAL_ONLY_KEY and auth.ts's OWNER_EMAIL_KEY (a test holds them equal), spelled
 * here: this script is loaded before the app shell and stays a few hundred bytes, where those
 * modules bring React and supabase-js.
 */
export const LOCAL_ONLY_KEY = 'outpost:local-only';
export const OWNER_EMAIL_KEY = 'outpost:owner-email';
/**
 * localStorage keys any of which says the device is someone's: the session's mirror, "use
 * without an account", the owner's email (which stays while a session has ended).
 */
const SOMEONES_KEYS = [AUTH_STORAGE_KEY, LOCAL_ONLY_KEY, OWNER_EMAIL_KEY];

/**
 * The global the app shell's script starts the app's entry with when it is set (else in a
 * microtask: scripts/classic-scripts.ts); set on a first visit to `afterNextPaint`.
 */
export const START_GLOBAL = '__outpostStart';

/** How long the app's start waits for the first visit's page to paint at most (ms): a tab in the background paints no frame. */
export const FIRST_PAINT_WAIT_MS = 100;

/** Runs `run` once the next frame has painted (after its animation frame), or after FIRST_PAINT_WAIT_MS. */
export function afterNextPaint(
  run: () => void,
  frame: (callback: () => void) => unknown = requestAnimationFrame,
  timer: (callback: () => void, ms: number) => unknown = setTimeout,
): void {
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    run();
  };
  // A task queued from the frame's callback runs after that frame's paint.
  frame(() => timer(start, 0));
  timer(start, FIRST_PAINT_WAIT_MS);
}

/** What the script reads and does, injected for tests. */
export interface FirstVisitHost {
  document: Document;
  /** The first visit's page, as HTML (the build's render of app/first-visit-page.tsx). */
  page: string;
  /** undefined when the browser refuses storage (then nothing is shown here). */
  storage: Pick<Storage, 'getItem' | 'setItem'> | undefined;
  pathname: string;
  /** Sets how the app shell's script starts the app (window[START_GLOBAL]). */
  startAppWith: (start: (run: () => void) => void) => void;
  /** A full navigation, replacing the page (location.replace). */
  replace: (path: string) => void;
}

/** Shows the first visit's page when this is one. */
export function showFirstVisit({
  document,
  page,
  storage,
  pathname,
  startAppWith,
  replace,
}: FirstVisitHost): void {
  if (pathname !== FIRST_VISIT_PATH || !storage) return;
  try {
    if (SOMEONES_KEYS.some((key) => storage.getItem(key) !== null)) return;
  } catch {
    return;
  }
  const root = document.getElementById('root');
  if (!page || !root || root.firstChild) return;
  // The build's own markup, made from the app's components: nothing in it comes from anyone.
  root.innerHTML = page;
  document.documentElement.setAttribute(FIRST_VISIT_ATTRIBUTE, '');
  startAppWith(afterNextPaint);
  // The app's render replaces the page and this button with it.
  root.querySelector('.account-actions button')?.addEventListener('click', () => {
    try {
      storage.setItem(LOCAL_ONLY_KEY, '1');
    } catch {
      return; // the app, once loaded, says why it cannot keep anything
    }
    replace(FIRST_VISIT_NEXT);
  });
}
