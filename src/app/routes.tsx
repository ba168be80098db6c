// The routes of product.md §2 (wouter, src/lib/router.tsx: the app needs no loaders or actions,
// as screens read the device database, and React Router took 16 kB gzip of the app shell).
// Screens are loaded on first use (screen-code.ts); the frame and the session gate are in
// the shell.
// Features never import each other: screens made of several features are put together here
// (src/app/routes/).
import { Redirect, Route, Switch } from '@/lib/router';

import { AppLayout } from './layout';
import { lazyScreen, type LazyScreen } from './lazy-screen';
import { RequireSession } from './require-session';
import { SCREEN_CODE, screenAt, type ScreenName } from './screen-code';

const WelcomeScreen = lazyScreen(async () => (await SCREEN_CODE.welcome()).WelcomeScreen);
const SignInScreen = lazyScreen(async () => (await SCREEN_CODE.signIn()).SignInScreen);
const SignUpScreen = lazyScreen(async () => (await SCREEN_CODE.signUp()).SignUpScreen);
const InviteScreen = lazyScreen(async () => (await SCREEN_CODE.invite()).InviteScreen);
const ListsScreen = lazyScreen(async () => (await SCREEN_CODE.lists()).ListsScreen);
const ListRoute = lazyScreen(async () => (await SCREEN_CODE.list()).ListRoute);
const TaskRoute = lazyScreen(async () => (await SCREEN_CODE.task()).TaskRoute);
const ShareRoute = lazyScreen(async () => (await SCREEN_CODE.share()).ShareRoute);
const MyWorkRoute = lazyScreen(async () => (await SCREEN_CODE.myWork()).MyWorkRoute);
const MembersScreen = lazyScreen(async () => (await SCREEN_CODE.members()).MembersScreen);
const NotFound = lazyScreen(async () => (await SCREEN_CODE.notFound()).NotFound);
const SettingsScreen = lazyScreen(async () => (await SCREEN_CODE.settings()).SettingsScreen);
// The screens mailed links open (issue 36) come with the sign-in screen's code, whose
// "Forgot password?" leads to them: a chunk of their own would lengthen the shell's graph.
const EmailFlowRoute = lazyScreen(async () => (await SCREEN_CODE.signIn()).EmailFlowRoute);

/**
 * The screens screenAt() names, as rendered. A task opens in its list's screen (beside the
 * list, or as a page on narrow windows: list-route.tsx), which needs both codes.
 */
const BY_NAME: Partial<Record<ScreenName, LazyScreen<object>[]>> = {
  welcome: [WelcomeScreen],
  task: [ListRoute, TaskRoute],
  members: [MembersScreen],
  list: [ListRoute],
  lists: [ListsScreen],
  settings: [SettingsScreen],
  share: [ShareRoute],
  myWork: [MyWorkRoute],
};

/**
 * Has the screen for `pathname` ready to render before the first render (main.tsx): its code
 * was asked for at the start of the shell's evaluation (screen-code.ts), and is usually here
 * by the time the device database has been opened, so the screen renders without suspending.
 */
export function preloadScreen(pathname: string): Promise<void> {
  const screen = screenAt(pathname);
  const screens = screen ? (BY_NAME[screen] ?? []) : [];
  // A chunk that cannot load shows when the screen renders.
  return Promise.all(screens.map((each) => each.preload())).then(
    () => undefined,
    () => undefined,
  );
}

/** Loads every screen's code when the browser is idle, so no navigation waits for code. */
export function preloadAllScreens(): void {
  const screens = [ListsScreen, ListRoute, TaskRoute, MyWorkRoute, MembersScreen, SettingsScreen];
  for (const screen of screens) void screen.preload().catch(() => undefined);
}

/** The screens anyone may open, signed in or not. */
const OPEN: [path: string, screen: LazyScreen<object>][] = [
  ['/welcome', WelcomeScreen],
  ['/sign-in', SignInScreen],
  ['/sign-up', SignUpScreen],
  ['/invite/:token', InviteScreen],
  ['/forgot-password', EmailFlowRoute],
  ['/reset-password', EmailFlowRoute],
  ['/email-confirmed', EmailFlowRoute],
];

/**
 * The screens of someone's data: an account's or the device's (RequireSession). A list and a
 * task of it are one screen under one key (list-route.tsx), so that opening or closing a task
 * beside its list keeps the list mounted.
 */
const SIGNED_IN: [path: string, screen: LazyScreen<object>, key?: string][] = [
  ['/lists', ListsScreen],
  ['/lists/:listId', ListRoute, 'list'],
  ['/lists/:listId/tasks/:taskId', ListRoute, 'list'],
  ['/lists/:listId/members', MembersScreen],
  ['/settings', SettingsScreen],
  ['/share', ShareRoute],
  ['/today', MyWorkRoute],
  ['/upcoming', MyWorkRoute],
  ['/assigned', MyWorkRoute],
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
        {SIGNED_IN.map(([path, Screen, key = path]) => (
          <Route key={key} path={path}>
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
