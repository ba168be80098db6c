// The update flow over a model of workbox-window (service-worker-test-support.ts): "Reload"
// lets the engine settle first, then asks the waiting worker to take over, and reloads when it
// controls (or after the fallback); each wait is capped; other tabs settle before they reload;
// reloadToLatest goes through the same flow when the server has a newer version.
import { describe, expect, it, vi } from 'vitest';

import { RELOAD_SETTLE_TIMEOUT_MS, setBeforeReload } from './service-worker';
import { RELOAD_FALLBACK_MS, UPDATE_INSTALL_TIMEOUT_MS } from './service-worker-updates';
import {
  FakeWorker,
  INSTALL_MS,
  WAITING_EVENT_DELAY_MS,
  installedEarlier,
  log,
  releaseEngine,
  setup,
  updateReady,
  resetFakesAroundEachTest,
  workbox,
} from './service-worker-test-support';

resetFakesAroundEachTest();

describe('"Reload" into a waiting version', () => {
  it('lets the engine settle, then activates the new worker, then reloads once it controls', async () => {
    installedEarlier('A');
    const updates = setup();
    workbox.registration.deployed = 'B';
    await workbox.registration.update(); // the browser's own check, at navigation
    await vi.advanceTimersByTimeAsync(INSTALL_MS + WAITING_EVENT_DELAY_MS);
    expect(updateReady()).toBe(true);

    const applied = updates.applyUpdate();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(log).toEqual(['beforeReload']); // nothing activates while a push is in flight

    releaseEngine();
    await applied;
    expect(log).toEqual(['beforeReload', 'engine settled', 'SKIP_WAITING B']);

    workbox.controllerChanged();
    await vi.advanceTimersByTimeAsync(0);
    expect(log).toEqual(['beforeReload', 'engine settled', 'SKIP_WAITING B', 'reload']);
    // The fallback finds the page already reloading; the engine is not flushed twice.
    await vi.advanceTimersByTimeAsync(RELOAD_FALLBACK_MS);
    expect(log).toEqual(['beforeReload', 'engine settled', 'SKIP_WAITING B', 'reload']);
  });

  it('waits at most RELOAD_SETTLE_TIMEOUT_MS for an engine that hangs', async () => {
    const updates = setup();
    void updates.applyUpdate();
    await vi.advanceTimersByTimeAsync(RELOAD_SETTLE_TIMEOUT_MS - 1);
    expect(log).toEqual(['beforeReload']);
    await vi.advanceTimersByTimeAsync(1);
    expect(log).toEqual(['beforeReload', 'SKIP_WAITING to nobody']);
  });

  it('goes on when the engine fails to stop (logged)', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    setBeforeReload(() => Promise.reject(new Error('stuck')));
    const updates = setup();
    await updates.applyUpdate();
    expect(log).toEqual(['SKIP_WAITING to nobody']);
    expect(error).toHaveBeenCalledWith('[outpost] before reload', expect.any(Error));
  });

  it('reloads RELOAD_FALLBACK_MS after SKIP_WAITING when the new worker never takes control', async () => {
    const updates = setup();
    const applied = updates.applyUpdate();
    releaseEngine();
    await applied;
    await vi.advanceTimersByTimeAsync(RELOAD_FALLBACK_MS - 1);
    expect(log).not.toContain('reload');
    await vi.advanceTimersByTimeAsync(1);
    expect(log.filter((entry) => entry === 'reload')).toHaveLength(1);
  });
});

describe('another open tab when the new version takes control', () => {
  it('lets its own engine settle before it reloads', async () => {
    installedEarlier('A');
    setup();
    workbox.controllerChanged();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(log).toEqual(['beforeReload']);
    releaseEngine();
    await vi.advanceTimersByTimeAsync(0);
    expect(log).toEqual(['beforeReload', 'engine settled', 'reload']);
  });

  it('reloads after RELOAD_SETTLE_TIMEOUT_MS even if its engine hangs', async () => {
    installedEarlier('A');
    setup();
    workbox.controllerChanged();
    await vi.advanceTimersByTimeAsync(RELOAD_SETTLE_TIMEOUT_MS - 1);
    expect(log).toEqual(['beforeReload']);
    await vi.advanceTimersByTimeAsync(1);
    expect(log).toEqual(['beforeReload', 'reload']);
  });

  it('does not reload when a first install takes control', async () => {
    setup();
    workbox.controllerChanged();
    await vi.advanceTimersByTimeAsync(RELOAD_SETTLE_TIMEOUT_MS);
    expect(log).toEqual([]);
  });
});
describe('reloadToLatest (the server refused this version)', () => {
  it('applies a version found waiting through the update flow', async () => {
    installedEarlier('A');
    const updates = setup();
    workbox.registration.onUpdate = () => {
      workbox.registration.waiting = new FakeWorker('installed', 'B');
      return Promise.resolve();
    };
    const done = updates.reloadToLatest();
    await vi.advanceTimersByTimeAsync(0);
    expect(log).toEqual(['beforeReload']);
    releaseEngine();
    await done;
    expect(log).toEqual(['beforeReload', 'engine settled', 'SKIP_WAITING B']);
    workbox.controllerChanged();
    await vi.advanceTimersByTimeAsync(0);
    expect(log.at(-1)).toBe('reload');
  });

  it('waits for a version still installing, then applies it', async () => {
    installedEarlier('A');
    const updates = setup();
    const installing = new FakeWorker('installing', 'B');
    workbox.registration.onUpdate = () => {
      workbox.registration.installing = installing;
      return Promise.resolve();
    };
    const done = updates.reloadToLatest();
    await vi.advanceTimersByTimeAsync(UPDATE_INSTALL_TIMEOUT_MS - 1);
    expect(log).toEqual([]);
    workbox.registration.installing = null;
    workbox.registration.waiting = installing;
    installing.moveTo('installed');
    await vi.advanceTimersByTimeAsync(0);
    releaseEngine();
    await done;
    expect(log).toEqual(['beforeReload', 'engine settled', 'SKIP_WAITING B']);
  });

  it('reloads into what it has when an install takes longer than UPDATE_INSTALL_TIMEOUT_MS', async () => {
    installedEarlier('A');
    const updates = setup();
    workbox.registration.onUpdate = () => {
      workbox.registration.installing = new FakeWorker('installing', 'B');
      return Promise.resolve();
    };
    const done = updates.reloadToLatest();
    await vi.advanceTimersByTimeAsync(UPDATE_INSTALL_TIMEOUT_MS);
    releaseEngine();
    await done;
    expect(log).toEqual(['beforeReload', 'engine settled', 'reload']);
  });

  it('with nothing newer (or the check failing), lets the engine settle and reloads', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    installedEarlier('A');
    workbox.registration.onUpdate = () => Promise.reject(new Error('offline'));
    const updates = setup();
    const done = updates.reloadToLatest();
    await vi.advanceTimersByTimeAsync(0);
    expect(log).toEqual(['beforeReload']);
    releaseEngine();
    await done;
    expect(log).toEqual(['beforeReload', 'engine settled', 'reload']);
    expect(workbox.registration.updates).toBe(1);
  });
});
