// Component tests run in jsdom with fake-indexeddb as the browser's IndexedDB (Dexie's
// liveQuery needs a global one), jest-dom matchers, and the few browser APIs jsdom lacks
// that the app's libraries touch (matchMedia, ResizeObserver, scroll sizes for the
// virtualised task list).
import '../../tests/support/fake-indexeddb';
import '@testing-library/jest-dom/vitest';

import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';

import { useToasts } from '@/lib/toasts';

import { fixedMediaQuery } from './media-queries';
import { closeAllTestServices } from './open-services';

// Every findBy/waitFor waits for what the user would see for up to this long: a sign-up
// (bcrypt, the devstack, a first sync) takes seconds on a busy machine and tens with a heavy
// job beside the suite; Testing Library's default of 1 s failed there. A wait that passes
// returns as soon as its check holds.
configure({ asyncUtilTimeout: 30_000 });

afterEach(async () => {
  cleanup();
  await closeAllTestServices();
  localStorage.clear();
  sessionStorage.clear();
  // App-wide stores outlive a test; a toast of one test must not show up in the next.
  useToasts.setState({ toasts: [] });
});

if (!window.matchMedia) {
  window.matchMedia = (query: string) => fixedMediaQuery(query, false);
}

if (typeof window.ResizeObserver === 'undefined') {
  class ResizeObserverStub {
    observe(): void {}
    unobserve(): void {}
    disconnect(): void {}
  }
  window.ResizeObserver = ResizeObserverStub;
}

// jsdom lays nothing out, so every element measures 0 × 0 and a virtualised list would
// render no rows. Give elements a viewport-sized box so the first screenful renders.
Object.defineProperty(HTMLElement.prototype, 'offsetHeight', {
  configurable: true,
  get: () => 800,
});
Object.defineProperty(HTMLElement.prototype, 'offsetWidth', {
  configurable: true,
  get: () => 1024,
});

// The window virtualiser scrolls on mount; jsdom has no scrolling.
window.scrollTo = () => undefined;

if (!URL.createObjectURL) {
  let next = 0;
  URL.createObjectURL = () => `blob:test/${next++}`;
  URL.revokeObjectURL = () => undefined;
}
