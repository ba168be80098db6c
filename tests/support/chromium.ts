// How browser tests and benchmarks start Debian's Chromium (never a downloaded browser).
import type { Page } from '@playwright/test';

/** Where Debian's chromium package puts the browser. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * --no-sandbox: CI runs as root. The rest keep Chromium from calling home, which the closed
 * network answers with floods of refused connections.
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
];

/**
 * Makes the documents `page` loads from now on say navigator.onLine false. Playwright's
 * setOffline fails their requests, but in Chromium 150 a document loaded after it (a new tab,
 * a reload) still says true (the emulation does not reach it), so an app would believe it is
 * online and keep retrying. Call it with the context offline: it only makes the page say so.
 */
export async function reportOffline(page: Page): Promise<void> {
  await page.addInitScript(() => {
    Object.defineProperty(Navigator.prototype, 'onLine', { configurable: true, get: () => false });
  });
}
