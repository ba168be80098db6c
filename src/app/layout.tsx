// The frame around every screen: skip link, header (brand, sync status), the navigation
// (sidebar or bottom bar, once signed in), the screen, and the app-wide overlays (toasts,
// service-worker notices, install card, the shortcuts dialog, loaded the first time it is
// asked for). On navigation, focus moves to the new screen's heading.
import { lazy, Suspense, useEffect, useRef, useState, type ReactNode } from 'react';

import { InstallCard } from '@/components/pwa/install-card';
import { ServiceWorkerNotices } from '@/components/pwa/service-worker-notices';
import { RejectionToasts } from '@/components/sync/rejection-toasts';
import { Toaster } from '@/components/ui/toaster';
import { useShortcut, useWindowKeydown } from '@/hooks/use-shortcut';
import { useUndoKeys } from '@/hooks/use-undo-keys';
import { useLocation, useNavigate } from '@/lib/router';
import { useSession } from '@/lib/session';

import { AppFrame } from './app-frame';
import { lazyScreen } from './lazy-screen';
import { RouteErrorBoundary } from './route-error';

const ShortcutsDialog = lazy(async () => ({
  default: (await import('./shortcuts-dialog')).ShortcutsDialog,
}));
const CommandPalette = lazy(async () => ({
  default: (await import('./command-palette')).CommandPalette,
}));

/** Ctrl+K (Cmd+K on a Mac) calls `handler`, in a text field too, as in Linear or Things. */
function useCommandKey(handler: () => void, enabled: boolean) {
  useWindowKeydown((event) => {
    if (event.key.toLowerCase() !== 'k' || !(event.ctrlKey || event.metaKey)) return;
    if (event.altKey || event.shiftKey || event.defaultPrevented) return;
    event.preventDefault();
    handler();
  }, enabled);
}

/**
 * The sidebar and bottom bar: their own chunk (the app shell's budget is full), loaded from
 * the precache as the shell starts, in parallel with opening the device database their lists
 * come from, so they paint with the first screen; their column is kept meanwhile (app.css).
 */
const AppNavigation = lazyScreen(async () => (await import('./sidebar')).AppNavigation);
void AppNavigation.preload().catch(() => undefined); // a failure shows when it renders
/** The header's sync status, from the navigation's chunk (it shows only beside it). */
const SyncStatus = lazyScreen(async () => (await import('./sidebar')).SyncStatus);
void SyncStatus.preload().catch(() => undefined);

/** Puts focus on the screen's main heading after a navigation (not on the first load). */
function useFocusOnNavigate(main: React.RefObject<HTMLElement | null>) {
  const location = useLocation();
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    // Screens may render their heading a frame later (lazy routes, liveQuery).
    const timer = setTimeout(() => {
      const root = main.current;
      if (!root || root.contains(document.activeElement)) return;
      const heading = root.querySelector<HTMLElement>('h1');
      const target = heading ?? root;
      if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
      target.focus({ preventScroll: false });
    }, 50);
    return () => clearTimeout(timer);
  }, [location.pathname, main]);
}

/** How long after `g` the second key of a "go to" shortcut counts (ms). */
const GO_KEY_WINDOW_MS = 1_200;

/**
 * `g` then `l` → lists, `g` then `s` → settings; a lone `l` or `s` is not taken (a row's or
 * the open task's `s` is its status).
 */
function useGoShortcuts() {
  const navigate = useNavigate();
  /** When `g` was pressed, or null: one `g` leads to one place, not to every key after it. */
  const pendingGAt = useRef<number | null>(null);
  /** Goes to `path` if a `g` came just before; false (the key passes on) if none did. */
  const go = (path: string) => {
    const at = pendingGAt.current;
    pendingGAt.current = null;
    const due = at !== null && performance.now() - at <= GO_KEY_WINDOW_MS;
    if (due) void navigate(path);
    return due;
  };
  useShortcut('g', () => {
    pendingGAt.current = performance.now();
  });
  useShortcut('l', () => go('/lists'));
  useShortcut('s', () => go('/settings'));
}

export function AppLayout({ children }: { children: ReactNode }) {
  const main = useRef<HTMLElement>(null);
  const { pathname } = useLocation();
  const [helpOpen, setHelpOpen] = useState(false);
  /** The shortcuts dialog's code is loaded on the first `?` and stays (open or closed). */
  const [helpWanted, setHelpWanted] = useState(false);
  const openHelp = () => {
    setHelpWanted(true);
    setHelpOpen(true);
  };
  const [paletteOpen, setPaletteOpen] = useState(false);
  /** As the shortcuts dialog: loaded on the first Ctrl+K, then kept. */
  const [paletteWanted, setPaletteWanted] = useState(false);
  const { mode } = useSession();
  useFocusOnNavigate(main);
  useGoShortcuts();
  useShortcut('?', openHelp);
  // On the screens of the user's data (an account or local-only), not on welcome or sign-in.
  useCommandKey(() => {
    setPaletteWanted(true);
    setPaletteOpen((open) => !open);
  }, mode !== 'none');
  /** The bottom bar's Search: a phone has no Ctrl+K. */
  const openPalette = () => {
    setPaletteWanted(true);
    setPaletteOpen(true);
  };
  useUndoKeys();

  return (
    <AppFrame
      mode={mode}
      status={
        mode !== 'none' ? (
          <Suspense fallback={null}>
            <SyncStatus />
          </Suspense>
        ) : null
      }
      onHelp={openHelp}
      mainRef={main}
      navigation={
        mode !== 'none' ? (
          <Suspense fallback={null}>
            <AppNavigation onSearch={openPalette} />
          </Suspense>
        ) : null
      }
      main={
        // A crashed screen is reset by navigating elsewhere. Lazy screens come from the
        // service worker's precache, so the fallback shows for a frame at most. A task
        // beside its list is the list's screen (list-route.tsx has the task's boundary):
        // opening, following or closing it must not mount the list again.
        <RouteErrorBoundary key={pathname.replace(/\/tasks\/[^/]+\/?$/, '')}>
          <Suspense fallback={null}>{children}</Suspense>
        </RouteErrorBoundary>
      }
    >
      <div className="app-overlays">
        <ServiceWorkerNotices />
        <Toaster />
      </div>
      <InstallCard />
      <RejectionToasts />
      {helpWanted ? (
        // Nothing shows for the moment its code takes to come from the precache.
        <Suspense fallback={null}>
          <ShortcutsDialog open={helpOpen} onClose={() => setHelpOpen(false)} />
        </Suspense>
      ) : null}
      {paletteWanted && mode !== 'none' ? (
        <Suspense fallback={null}>
          <CommandPalette
            open={paletteOpen}
            onClose={() => setPaletteOpen(false)}
            onShowShortcuts={openHelp}
          />
        </Suspense>
      ) : null}
    </AppFrame>
  );
}
