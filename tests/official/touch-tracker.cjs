// Loaded into the official suites' jest (--setupFilesAfterEnv) by run.mjs: notes which tests
// send at least one request to the API under test (port 54321), so the runner can count the
// server-touching tests apart from those that mock fetch or test pure functions (a request
// from a beforeAll is noted for its file: run.mjs counts the tests such a hook's failure kept
// from running). It only
// watches: every request goes on, unchanged, to the fetch it wraps.
const { appendFileSync } = require('node:fs');

/* global expect */
const log = process.env.OFFICIAL_TOUCH_LOG;
const port = process.env.OFFICIAL_API_PORT || '54321';

function urlOf(input) {
  if (typeof input === 'string') return input;
  if (input && typeof input.href === 'string') return input.href;
  if (input && typeof input.url === 'string') return input.url;
  return '';
}

function touches(url) {
  try {
    const parsed = new URL(url);
    return parsed.port === port && ['127.0.0.1', 'localhost', '[::1]'].includes(parsed.hostname);
  } catch {
    return false;
  }
}

if (log && typeof globalThis.fetch === 'function') {
  const original = globalThis.fetch;
  const tracked = function fetch(input, init) {
    if (touches(urlOf(input))) {
      const state = expect.getState();
      // Outside a test (a beforeAll): noted for the file, with no test name.
      appendFileSync(log, `${state.testPath}\t${state.currentTestName ?? ''}\n`);
    }
    return original.call(this, input, init);
  };
  globalThis.fetch = tracked;
}
