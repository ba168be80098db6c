// Which of a page's own requests the service worker answered: with the network cut, a file
// missing from the precache fails instead, so a test that records them can tell a shell
// started from the worker's cache from one that only happened to be in the HTTP cache.
import { expect, type Page } from '@playwright/test';

export interface AppRequest {
  url: string;
  /** Playwright's resourceType: 'document' for a navigation, 'script' for a chunk, … */
  type: string;
  /** Answered by the service worker; false when it went to the network or failed. */
  fromWorker: boolean;
  /** The network error, when there was no answer at all. */
  failure?: string;
}

/** Starts recording every request the page makes to its own origin (`origin`). */
export function recordAppRequests(page: Page, origin: string): AppRequest[] {
  const seen: AppRequest[] = [];
  const ours = (url: string) => new URL(url).origin === origin;
  page.on('requestfinished', (request) => {
    if (!ours(request.url())) return;
    void request.response().then((response) =>
      seen.push({
        url: request.url(),
        type: request.resourceType(),
        fromWorker: response?.fromServiceWorker() ?? false,
      }),
    );
  });
  page.on('requestfailed', (request) => {
    // A navigation away cancels what the page was still loading (the idle preload of other
    // screens): that says nothing of the cache. A file the worker lacks fails otherwise
    // (ERR_INTERNET_DISCONNECTED with the network cut).
    if (!ours(request.url()) || request.failure()?.errorText === 'net::ERR_ABORTED') return;
    seen.push({
      url: request.url(),
      type: request.resourceType(),
      fromWorker: false,
      failure: request.failure()?.errorText ?? 'failed',
    });
  });
  return seen;
}

/**
 * Every request recorded so far was answered by the worker, among them at least `navigations`
 * documents and some scripts (so an empty record cannot pass).
 */
export async function expectAllFromWorker(
  page: Page,
  seen: readonly AppRequest[],
  navigations: number,
): Promise<void> {
  // Responses are read asynchronously; let the page's requests settle first.
  await page.waitForLoadState('networkidle');
  expect(seen.filter((request) => !request.fromWorker)).toEqual([]);
  expect(seen.filter((request) => request.type === 'document').length).toBeGreaterThanOrEqual(
    navigations,
  );
  expect(seen.filter((request) => request.type === 'script').length).toBeGreaterThan(0);
}
