// The script index.html loads, deferred, before the app shell's (built by
// scripts/first-visit.ts, which puts the page in it): shows the first visit's page when this
// is one (first-visit.ts).
import { showFirstVisit, START_GLOBAL } from './first-visit';

/** The first visit's page as HTML, put here by the build (scripts/first-visit.ts). */
declare const __FIRST_VISIT_PAGE__: string;

let storage: Storage | undefined;
try {
  storage = window.localStorage;
} catch {
  storage = undefined; // storage refused: the app shows the welcome screen itself
}
showFirstVisit({
  document,
  page: __FIRST_VISIT_PAGE__,
  storage,
  pathname: window.location.pathname,
  startAppWith: (start) => Object.assign(window, { [START_GLOBAL]: start }),
  replace: (path) => window.location.replace(path),
});
