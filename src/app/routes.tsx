// The routes of product.md §2, in React Router's declarative mode: the app needs no loaders or
// actions (screens read the device database), and the data router would add ~16 kB gzip to
// the app shell. Screens are loaded on first use (each its own chunk, all precached by the
// service worker, so they open offline); the frame and the session gate are in the shell.
// Features never import each other: screens made of several features are put together here
// (src/app/routes/).
import { Navigate, Route, Routes } from 'react-router';

import { AppLayout } from './layout';
import { lazyScreen } from './lazy-screen';
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

export function AppRoutes() {
  return (
    <Routes>
      <Route element={<AppLayout />}>
        <Route index element={<Navigate to="/lists" replace />} />
        <Route path="welcome" element={<WelcomeScreen />} />
        <Route path="sign-in" element={<SignInScreen />} />
        <Route path="sign-up" element={<SignUpScreen />} />
        <Route path="invite/:token" element={<InviteScreen />} />
        <Route element={<RequireSession />}>
          <Route path="lists" element={<ListsScreen />} />
          <Route path="lists/:listId" element={<ListRoute />} />
          <Route path="lists/:listId/tasks/:taskId" element={<TaskRoute />} />
          <Route path="lists/:listId/members" element={<MembersScreen />} />
          <Route path="settings" element={<SettingsScreen />} />
          <Route path="share" element={<ShareRoute />} />
        </Route>
        <Route path="*" element={<NotFound />} />
      </Route>
    </Routes>
  );
}
