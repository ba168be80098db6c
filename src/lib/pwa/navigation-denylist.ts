// Paths the API owns when it shares the app's origin (a hosted deploy behind one domain): a
// navigation there (an email's confirm link, an OAuth callback, a signed download) must
// reach the server, never be answered with the app shell. Shared by src/sw.ts and its tests.

/** The API's top-level paths. Never add an app route here: it would stop opening offline. */
const API_ROOTS = ['auth', 'rest', 'storage', 'functions', 'realtime'] as const;

/**
 * Matched by workbox's NavigationRoute against pathname + search. Each root counts bare
 * (`/auth`), with a query (`/functions?x=1`) or with a sub-path (`/rest/v1/tasks`); a longer
 * word (`/authors`) is not the API's.
 */
export const API_PATH_DENYLIST: readonly RegExp[] = API_ROOTS.map(
  (root) => new RegExp(`^/${root}(?:[/?]|$)`),
);

/** Whether a navigation to `pathAndSearch` belongs to the API rather than the app. */
export function isApiPath(pathAndSearch: string): boolean {
  return API_PATH_DENYLIST.some((pattern) => pattern.test(pathAndSearch));
}
