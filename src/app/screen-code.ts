// Each screen's code, a chunk of its own loaded on first use (all precached by the service
// worker, so they open offline), and which screen a path opens. This module imports nothing
// but those chunks (and the first visit's mark), so main.tsx can import it before the rest of
// the app shell: the current screen's code is then on its way from the worker while the shell
// is still being evaluated.
import { FIRST_VISIT_ATTRIBUTE } from '@/boot/first-visit';

export const SCREEN_CODE = {
  welcome: () => import('@/features/account/components/welcome-screen'),
  signIn: () => import('@/features/account/components/sign-in-screen'),
  signUp: () => import('@/features/account/components/sign-up-screen'),
  invite: () => import('@/features/members/components/invite-screen'),
  lists: () => import('@/features/lists/components/lists-screen'),
  list: () => import('./routes/list-route'),
  task: () => import('./routes/task-route'),
  share: () => import('./routes/share-route'),
  myWork: () => import('./routes/my-work-route'),
  members: () => import('@/features/members/components/members-screen'),
  notFound: () => import('./not-found'),
  settings: () => import('@/features/settings/components/settings-screen'),
};

export type ScreenName = keyof typeof SCREEN_CODE;

/**
 * The path whose screen the app shows first: its address's, but the welcome screen's on a
 * first visit whose page is showing (boot/first-visit.ts), where the app goes on to it.
 */
export function firstScreenPath(): string {
  return document.documentElement.hasAttribute(FIRST_VISIT_ATTRIBUTE)
    ? '/welcome'
    : window.location.pathname;
}

/** The screen of the signed-in app (or welcome) that `pathname` opens (undefined: another, or none). */
export function screenAt(pathname: string): ScreenName | undefined {
  if (/^\/lists\/[^/]+\/tasks\/[^/]+\/?$/.test(pathname)) return 'task';
  if (/^\/lists\/[^/]+\/members\/?$/.test(pathname)) return 'members';
  if (/^\/lists\/[^/]+\/?$/.test(pathname)) return 'list';
  if (/^\/(lists)?\/?$/.test(pathname)) return 'lists';
  if (pathname.startsWith('/settings')) return 'settings';
  if (/^\/share\/?$/.test(pathname)) return 'share';
  if (/^\/(today|upcoming|assigned)\/?$/.test(pathname)) return 'myWork';
  if (/^\/welcome\/?$/.test(pathname)) return 'welcome';
  return undefined;
}

/** Starts loading the code of the screen at `pathname`; a failure shows when it renders. */
export function loadScreenCodeAt(pathname: string): void {
  const screen = screenAt(pathname);
  if (screen) SCREEN_CODE[screen]().catch(() => undefined);
}
