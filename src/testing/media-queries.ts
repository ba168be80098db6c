// What the browser answers to a media query in component tests (jsdom has no matchMedia):
// setup-dom's default, where none matches, and a test's own (a phone, a touch screen).
import { vi } from 'vitest';

/** A MediaQueryList for `query` that answers `matches` and never changes. */
export function fixedMediaQuery(query: string, matches: boolean): MediaQueryList {
  return {
    matches,
    media: query,
    onchange: null,
    addListener: () => undefined,
    removeListener: () => undefined,
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
    dispatchEvent: () => false,
  };
}

/**
 * For the rest of the test (until `vi.restoreAllMocks()`), the browser matches exactly the
 * media queries in `matching`, and no other.
 */
export function mockMediaQueries(matching: readonly string[]): void {
  vi.spyOn(window, 'matchMedia').mockImplementation((query: string) =>
    fixedMediaQuery(query, matching.includes(query)),
  );
}
