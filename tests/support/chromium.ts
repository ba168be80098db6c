// How browser tests and benchmarks start Debian's Chromium (never a downloaded browser).
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
