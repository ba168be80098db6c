// Finding and announcing new versions, over a model of workbox-window
// (service-worker-test-support.ts): every new version is announced, also those workbox-window
// stays silent about; checks run hourly while the app says it is online, when it comes back
// online and when the tab is shown again; "Ready to work offline" follows the first install of
// the shell only; failures are logged once instead of left unhandled.
import { describe, expect, it, vi } from 'vitest';

import { OFFLINE_READY_SHOWN_KEY, useServiceWorkerState } from './service-worker';
import {
  UPDATE_CHECK_INTERVAL_MS,
  UPDATE_CHECK_THROTTLE_MS,
  workerScriptReachable,
} from './service-worker-updates';
import {
  FakeWorkbox,
  FakeWorker,
  INSTALL_MS,
  WAITING_EVENT_DELAY_MS,
  controlled,
  installedEarlier,
  log,
  offlineReady,
  online,
  releaseEngine,
  replaceFakes,
  setup,
  updateReady,
  resetFakesAroundEachTest,
  visibility,
  workbox,
} from './service-worker-test-support';

resetFakesAroundEachTest();

describe('"New version ready"', () => {
  it('is said for every new version the hourly check finds, also after "Later"', async () => {
    installedEarlier('A');
    const updates = setup();

    // B is deployed; the hourly check finds it (workbox-window calls it external).
    workbox.registration.deployed = 'B';
    await vi.advanceTimersByTimeAsync(UPDATE_CHECK_INTERVAL_MS + INSTALL_MS);
    await vi.advanceTimersByTimeAsync(WAITING_EVENT_DELAY_MS);
    expect(updateReady()).toBe(true);
    useServiceWorkerState.getState().postponeUpdate(); // "Later"

    // C replaces B as the waiting worker. workbox-window says nothing of it: it stopped
    // listening after the first external update.
    workbox.fired.length = 0;
    workbox.registration.deployed = 'C';
    await vi.advanceTimersByTimeAsync(UPDATE_CHECK_INTERVAL_MS + INSTALL_MS);
    await vi.advanceTimersByTimeAsync(WAITING_EVENT_DELAY_MS);
    expect(workbox.fired).not.toContain('waiting');
    expect(workbox.registration.waiting?.version).toBe('C');
    expect(updateReady()).toBe(true);

    // "Later" again, and nothing newer: the same version is not announced twice.
    useServiceWorkerState.getState().postponeUpdate();
    await vi.advanceTimersByTimeAsync(UPDATE_CHECK_INTERVAL_MS + INSTALL_MS);
    expect(updateReady()).toBe(false);

    const applied = updates.applyUpdate();
    releaseEngine();
    await applied;
    expect(log.at(-1)).toBe('SKIP_WAITING C');
  });

  it('is said for a version another tab found, when this tab is shown again', async () => {
    installedEarlier('A');
    setup();
    await vi.advanceTimersByTimeAsync(UPDATE_CHECK_INTERVAL_MS); // workbox's first minute over
    // B: external, announced by workbox-window. C, found by another tab: not announced.
    workbox.registration.install('B');
    await vi.advanceTimersByTimeAsync(INSTALL_MS + WAITING_EVENT_DELAY_MS);
    expect(updateReady()).toBe(true);
    useServiceWorkerState.getState().postponeUpdate();
    workbox.registration.deployed = 'C';
    workbox.registration.install('C');
    await vi.advanceTimersByTimeAsync(INSTALL_MS + WAITING_EVENT_DELAY_MS);
    expect(updateReady()).toBe(false);

    // The user comes back to this tab a while later.
    await vi.advanceTimersByTimeAsync(UPDATE_CHECK_THROTTLE_MS);
    visibility.show();
    await vi.advanceTimersByTimeAsync(0);
    expect(updateReady()).toBe(true);
  });
});

describe('checking for a new version', () => {
  it("follows the app's online signal: none while offline, one as soon as it is back", async () => {
    installedEarlier('A');
    online.set(false);
    setup();
    await vi.advanceTimersByTimeAsync(UPDATE_CHECK_INTERVAL_MS);
    expect(workbox.registration.updates).toBe(0); // whatever navigator.onLine says

    online.set(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(workbox.registration.updates).toBe(1);
    // A flapping connection does not check each time it comes back.
    online.set(false);
    online.set(true);
    await vi.advanceTimersByTimeAsync(UPDATE_CHECK_THROTTLE_MS - 1);
    expect(workbox.registration.updates).toBe(1);
    online.set(false);
    await vi.advanceTimersByTimeAsync(1);
    online.set(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(workbox.registration.updates).toBe(2);
  });

  it('checks when the tab is shown again, at most once per UPDATE_CHECK_THROTTLE_MS', async () => {
    installedEarlier('A');
    setup();
    await vi.advanceTimersByTimeAsync(0);
    visibility.show();
    await vi.advanceTimersByTimeAsync(0);
    expect(workbox.registration.updates).toBe(1);
    await vi.advanceTimersByTimeAsync(UPDATE_CHECK_THROTTLE_MS - 1);
    visibility.show();
    await vi.advanceTimersByTimeAsync(0);
    expect(workbox.registration.updates).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    visibility.show();
    await vi.advanceTimersByTimeAsync(0);
    expect(workbox.registration.updates).toBe(2);
    online.set(false);
    await vi.advanceTimersByTimeAsync(UPDATE_CHECK_THROTTLE_MS);
    visibility.show();
    await vi.advanceTimersByTimeAsync(0);
    expect(workbox.registration.updates).toBe(2);
  });

  it('asks for an update only after the worker script answered past every cache', async () => {
    installedEarlier('A');
    replaceFakes({ probe: () => Promise.resolve(false) });
    setup();
    await vi.advanceTimersByTimeAsync(UPDATE_CHECK_INTERVAL_MS);
    expect(workbox.registration.updates).toBe(0);
    replaceFakes({ probe: () => Promise.resolve(true) });
    await vi.advanceTimersByTimeAsync(UPDATE_CHECK_INTERVAL_MS);
    expect(workbox.registration.updates).toBe(1);
  });

  it('probes the worker script with no-store and wants a 200', async () => {
    const asked: (RequestInit | undefined)[] = [];
    const answer = (status: number) => (_: RequestInfo | URL, init?: RequestInit) => {
      asked.push(init);
      return Promise.resolve(new Response('', { status }));
    };
    await expect(workerScriptReachable('/sw.js', answer(200))).resolves.toBe(true);
    await expect(workerScriptReachable('/sw.js', answer(404))).resolves.toBe(false);
    await expect(
      workerScriptReachable('/sw.js', () => Promise.reject(new TypeError('Failed to fetch'))),
    ).resolves.toBe(false);
    expect(asked.map((init) => init?.cache)).toEqual(['no-store', 'no-store']);
  });

  it('logs a failed registration once instead of leaving it unhandled', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    workbox.registerResult = Promise.reject(new Error('SecurityError'));
    setup();
    await vi.advanceTimersByTimeAsync(0);
    expect(error).toHaveBeenCalledTimes(1);
    expect(error).toHaveBeenCalledWith(
      '[outpost] service worker registration failed',
      expect.any(Error),
    );
  });

  it('checks hourly while online, and logs a failing check only once', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    installedEarlier('A');
    workbox.registration.onUpdate = () => Promise.reject(new Error('offline'));
    setup();
    await vi.advanceTimersByTimeAsync(UPDATE_CHECK_INTERVAL_MS * 2);
    expect(workbox.registration.updates).toBe(2);
    expect(error).toHaveBeenCalledTimes(1);
  });
});

describe('"Ready to work offline"', () => {
  it('is said when the shell is installed for the first time, once per device', async () => {
    workbox.registration.deployed = 'A'; // the first visit: register() installs A
    setup();
    await vi.advanceTimersByTimeAsync(INSTALL_MS - 1);
    expect(offlineReady()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(workbox.registration.active?.state).toBe('activated');
    expect(offlineReady()).toBe(true);
    useServiceWorkerState.getState().dismissOfflineReady(); // the toast was shown
    expect(localStorage.getItem(OFFLINE_READY_SHOWN_KEY)).toBe('1');

    // A second tab open during that first install sees it activate too.
    replaceFakes({ workbox: new FakeWorkbox(log, () => controlled) });
    const second = new FakeWorker('installing', 'A');
    workbox.registration.installing = second;
    setup();
    await vi.advanceTimersByTimeAsync(0);
    second.moveTo('installed');
    second.moveTo('activated');
    expect(offlineReady()).toBe(false);
  });

  it('is not said when a later version activates on a device that never saw the notice', async () => {
    // Installed before the notice existed (no flag), or the flag was lost; B is found by the
    // hourly check and activated by another tab's "Reload" (an external worker for
    // workbox-window: its events carry no isUpdate).
    installedEarlier('A');
    setup();
    workbox.registration.deployed = 'B';
    await vi.advanceTimersByTimeAsync(UPDATE_CHECK_INTERVAL_MS + INSTALL_MS);
    workbox.registration.activateWaiting();
    expect(workbox.fired).toContain('activated');
    expect(offlineReady()).toBe(false);
  });

  it('is not said after a hard reload (no controller) when an update activates', async () => {
    installedEarlier('A');
    replaceFakes({ controlled: false }); // shift-reload: the page is not controlled, the shell is cached
    setup();
    workbox.registration.deployed = 'B';
    await workbox.registration.update(); // the browser's check at navigation: workbox's own
    await vi.advanceTimersByTimeAsync(INSTALL_MS);
    workbox.registration.activateWaiting();
    expect(workbox.fired).toContain('activated');
    expect(offlineReady()).toBe(false);
  });
});
