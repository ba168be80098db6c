// The first visit's page shows only on the app's address of a device nobody uses, and its
// "Use without an account" works before the app has loaded.
import { afterEach, describe, expect, it, vi } from 'vitest';

import { OWNER_EMAIL_KEY as AUTH_OWNER_EMAIL_KEY } from '@/lib/auth';
import { AUTH_STORAGE_KEY } from '@/lib/auth-storage';
import { LOCAL_ONLY_KEY as SESSION_LOCAL_ONLY_KEY } from '@/lib/session';

import {
  afterNextPaint,
  FIRST_PAINT_WAIT_MS,
  FIRST_VISIT_ATTRIBUTE,
  LOCAL_ONLY_KEY,
  OWNER_EMAIL_KEY,
  showFirstVisit,
  type FirstVisitHost,
} from './first-visit';

/** A first visit's page, as the build renders it (much shortened). */
const PAGE =
  '<main><h1>Welcome to Outpost</h1><div class="account-actions"><a href="/sign-in">Sign in</a>' +
  '<button type="button">Use without an account</button></div></main>';

/** index.html's body. */
function page(): void {
  document.body.innerHTML = '<div id="root"></div>';
}

function host(overrides: Partial<FirstVisitHost> = {}): FirstVisitHost {
  return {
    document,
    page: PAGE,
    storage: localStorage,
    pathname: '/',
    startAppWith: vi.fn(),
    replace: vi.fn(),
    ...overrides,
  };
}

const shown = () => document.querySelector('#root h1')?.textContent ?? null;

afterEach(() => {
  localStorage.clear();
  document.body.innerHTML = '';
  document.documentElement.removeAttribute(FIRST_VISIT_ATTRIBUTE);
});

describe('the first visit page', () => {
  it("shows on the app's address of a device nobody uses, marks the document, and has the app start once it painted", () => {
    page();
    const startAppWith = vi.fn();
    showFirstVisit(host({ startAppWith }));
    expect(shown()).toBe('Welcome to Outpost');
    expect(document.documentElement.hasAttribute(FIRST_VISIT_ATTRIBUTE)).toBe(true);
    expect(startAppWith).toHaveBeenCalledWith(afterNextPaint);
  });

  it.each([
    ['a session', AUTH_STORAGE_KEY],
    ['"use without an account"', LOCAL_ONLY_KEY],
    ["an owner's email (a session that ended)", OWNER_EMAIL_KEY],
  ])('does not show on a device with %s', (_, key) => {
    page();
    localStorage.setItem(key, '1');
    const startAppWith = vi.fn();
    showFirstVisit(host({ startAppWith }));
    expect(startAppWith).not.toHaveBeenCalled();
    expect(shown()).toBeNull();
    expect(document.documentElement.hasAttribute(FIRST_VISIT_ATTRIBUTE)).toBe(false);
  });

  it.each(['/welcome', '/sign-in', '/lists/abc', '/invite/token'])(
    'does not show on %s',
    (path) => {
      page();
      showFirstVisit(host({ pathname: path }));
      expect(shown()).toBeNull();
    },
  );

  it('does not show without storage, without a page, or over something in #root', () => {
    page();
    showFirstVisit(host({ storage: undefined }));
    showFirstVisit(host({ page: '' }));
    expect(document.getElementById('root')?.childNodes).toHaveLength(0);
    document.body.innerHTML = '<div id="root"><p>app</p></div>';
    showFirstVisit(host());
    expect(shown()).toBeNull();
  });

  it("spells the session's and the account's keys as they do", () => {
    expect(LOCAL_ONLY_KEY).toBe(SESSION_LOCAL_ONLY_KEY);
    expect(OWNER_EMAIL_KEY).toBe(AUTH_OWNER_EMAIL_KEY);
  });
});

describe('afterNextPaint', () => {
  it('runs once, in a task queued from the next frame', () => {
    const frames: (() => void)[] = [];
    const timers: { run: () => void; ms: number }[] = [];
    const run = vi.fn();
    afterNextPaint(
      run,
      (callback) => frames.push(callback),
      (callback, ms) => timers.push({ run: callback, ms }),
    );
    expect(run).not.toHaveBeenCalled();
    frames[0]?.();
    const afterFrame = timers.find((timer) => timer.ms === 0);
    afterFrame?.run();
    expect(run).toHaveBeenCalledTimes(1);
    for (const timer of timers) timer.run();
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('runs without a frame (a tab in the background) after FIRST_PAINT_WAIT_MS', () => {
    const timers: { run: () => void; ms: number }[] = [];
    const run = vi.fn();
    afterNextPaint(
      run,
      () => undefined,
      (callback, ms) => timers.push({ run: callback, ms }),
    );
    expect(timers.map((timer) => timer.ms)).toEqual([FIRST_PAINT_WAIT_MS]);
    timers[0]?.run();
    expect(run).toHaveBeenCalledTimes(1);
  });
});
