// The routes of product.md §2 (wouter, src/lib/router.tsx: the app needs no loaders or actions,
// as screens read the device database, and React Router took 16 kB gzip of the app shell). Screens are loaded on first use (each its own chunk, all precached by the
// service worker, so they open offline); the frame and the session gate are in the shell.
// Features never import each other: screens made of several features are put together here
// (src/app/routes/).
import { Redirect, Route, Switch } from '@/lib/router';

import { AppLayout } from './layout';
import { lazyScreen, type LazyScreen } from './lazy-screen';
import { RequireSession } from './require-session';

const WelcomeScreen = lazyScreen(
  async () => (await import('@/features/account/components/welcome-screen')).WelcomeScreen,
);
const SignInScreen = lazyScreen(
  async () => (await import('@/features/account/components/sign-in-screen')).SignInScreen,
);
const SignUpScreen = lazyScreen(
  async () => (await import('@/features/account/components/sign-up-screen')).SignUpScreen,
);
const InviteScreen = lazyScreen(
  async () => (await import('@/features/members/components/invite-screen')).InviteScreen,
);
const ListsScreen = lazyScreen(
  async () => (await import('@/features/lists/components/lists-screen')).ListsScreen,
);
const ListRoute = lazyScreen(async () => (await import('./routes/list-route')).ListRoute);
const TaskRoute = lazyScreen(async () => (await import('./routes/task-route')).TaskRoute);
const ShareRoute = lazyScreen(async () => (await import('./routes/share-route')).ShareRoute);
const MembersScreen = lazyScreen(
  async () => (await import('@/features/members/components/members-screen')).MembersScreen,
);
const NotFound = lazyScreen(async () => (await import('./not-found')).NotFound);
const SettingsScreen = lazyScreen(
  async () => (await import('@/features/settings/components/settings-screen')).SettingsScreen,
);

/**
 * Starts loading the screen for `pathname` at once, in parallel with opening the device
 * database, instead of after the session gate has rendered (main.tsx calls it before the
 * first render, so the screen usually renders without suspending at all).
 */
export function preloadScreen(pathname: string): void {
  const loader = /^\/lists\/[^/]+\/tasks\/[^/]+\/?$/.test(pathname)
    ? TaskRoute.preload
    : /^\/lists\/[^/]+\/members\/?$/.test(pathname)
      ? MembersScreen.preload
      : /^\/lists\/[^/]+\/?$/.test(pathname)
        ? ListRoute.preload
        : /^\/(lists)?\/?$/.test(pathname)
          ? ListsScreen.preload
          : pathname.startsWith('/settings')
            ? SettingsScreen.preload
            : /^\/share\/?$/.test(pathname)
              ? ShareRoute.preload
              : undefined;
  void loader?.().catch(() => undefined); // a failure shows when the screen renders
}

/** Loads every screen's code when the browser is idle, so no navigation waits for code. */
export function preloadAllScreens(): void {
  const screens = [ListsScreen, ListRoute, TaskRoute, MembersScreen, SettingsScreen];
  for (const screen of screens) void screen.preload().catch(() => undefined);
}

/** The screens anyone may open, signed in or not. */
const OPEN: [path: string, screen: LazyScreen<object>][] = [
  ['/welcome', WelcomeScreen],
  ['/sign-in', SignInScreen],
  ['/sign-up', SignUpScreen],
  ['/invite/:token', InviteScreen],
];

/** The screens of someone's data: an account's or the device's (RequireSession). */
const SIGNED_IN: [path: string, screen: LazyScreen<object>][] = [
  ['/lists', ListsScreen],
  ['/lists/:listId', ListRoute],
  ['/lists/:listId/tasks/:taskId', TaskRoute],
  ['/lists/:listId/members', MembersScreen],
  ['/settings', SettingsScreen],
  ['/share', ShareRoute],
];

export function AppRoutes() {
  return (
    <AppLayout>
      <Switch>
        <Route path="/">
          <Redirect to="/lists" replace />
        </Route>
        {OPEN.map(([path, Screen]) => (
          <Route key={path} path={path}>
            <Screen />
          </Route>
        ))}
        {SIGNED_IN.map(([path, Screen]) => (
          <Route key={path} path={path}>
            <RequireSession>
              <Screen />
            </RequireSession>
          </Route>
        ))}
        <Route>
          <NotFound />
        </Route>
      </Switch>
    </AppLayout>
  );
}
