// The update flow over a fake Workbox: "Reload" lets the engine settle first, then asks the
// waiting worker to take over, and reloads when it controls (or after the fallback); each wait
// is capped; other tabs settle before they reload; "Ready to work offline" is said once per
// device; failures are logged once instead of left unhandled; reloadToLatest goes through the
// same flow when the server has a newer version.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import {
  createServiceWorkerUpdates,
  OFFLINE_READY_SHOWN_KEY,
  RELOAD_FALLBACK_MS,
  RELOAD_SETTLE_TIMEOUT_MS,
  setBeforeReload,
  UPDATE_CHECK_INTERVAL_MS,
  UPDATE_INSTALL_TIMEOUT_MS,
  useServiceWorkerState,
  type RegistrationLike,
  type WorkboxLike,
  type WorkerLike,
} from './service-worker';

type Lifecycle = 'waiting' | 'activated' | 'controlling';

class FakeWorker extends EventTarget implements WorkerLike {
  constructor(public state: ServiceWorkerState) {
    super();
  }
  moveTo(state: ServiceWorkerState): void {
    this.state = state;
    this.dispatchEvent(new Event('statechange'));
  }
}

class FakeRegistration implements RegistrationLike {
  installing: FakeWorker | null = null;
  waiting: FakeWorker | null = null;
  /** What the next update() finds on the server. */
  onUpdate: () => Promise<void> = () => Promise.resolve();
  updates = 0;
  update(): Promise<void> {
    this.updates += 1;
    return this.onUpdate();
  }
}

/** Records, in order, what the flow asked of the world (engine, worker, page). */
class FakeWorkbox implements WorkboxLike {
  readonly listeners = new Map<Lifecycle, ((event: { isUpdate?: boolean }) => void)[]>();
  readonly registration = new FakeRegistration();
  registerResult: Promise<RegistrationLike | undefined> = Promise.resolve(this.registration);
  constructor(private readonly log: string[]) {}
  addEventListener(type: Lifecycle, listener: (event: { isUpdate?: boolean }) => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  register(): Promise<RegistrationLike | undefined> {
    return this.registerResult;
  }
  messageSkipWaiting(): void {
    this.log.push('SKIP_WAITING');
  }
  fire(type: Lifecycle, event: { isUpdate?: boolean } = {}): void {
    for (const listener of this.listeners.get(type) ?? []) listener(event);
  }
}

let log: string[];
let workbox: FakeWorkbox;
let online: boolean;
/** The engine's flush, left hanging until the test settles it. */
let releaseEngine: () => void;

function setup() {
  const updates = createServiceWorkerUpdates({
    workbox,
    reload: () => log.push('reload'),
    isOnline: () => online,
  });
  updates.register();
  return updates;
}

beforeEach(() => {
  vi.useFakeTimers();
  log = [];
  online = true;
  workbox = new FakeWorkbox(log);
  setBeforeReload(() => {
    log.push('beforeReload');
    return new Promise<void>((resolve) => {
      releaseEngine = () => {
        log.push('engine settled');
        resolve();
      };
    });
  });
  useServiceWorkerState.setState({ offlineReady: false, updateReady: false });
});

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('"Reload" into a waiting version', () => {
  it('lets the engine settle, then activates the new worker, then reloads once it controls', async () => {
    const updates = setup();
    workbox.fire('waiting');
    expect(useServiceWorkerState.getState().updateReady).toBe(true);

    const applied = updates.applyUpdate();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(log).toEqual(['beforeReload']); // nothing activates while a push is in flight

    releaseEngine();
    await applied;
    expect(log).toEqual(['beforeReload', 'engine settled', 'SKIP_WAITING']);

    workbox.fire('controlling', { isUpdate: true });
    await vi.advanceTimersByTimeAsync(0);
    expect(log).toEqual(['beforeReload', 'engine settled', 'SKIP_WAITING', 'reload']);
    // The fallback finds the page already reloading; the engine is not flushed twice.
    await vi.advanceTimersByTimeAsync(RELOAD_FALLBACK_MS);
    expect(log).toEqual(['beforeReload', 'engine settled', 'SKIP_WAITING', 'reload']);
  });

  it('waits at most RELOAD_SETTLE_TIMEOUT_MS for an engine that hangs', async () => {
    const updates = setup();
    void updates.applyUpdate();
    await vi.advanceTimersByTimeAsync(RELOAD_SETTLE_TIMEOUT_MS - 1);
    expect(log).toEqual(['beforeReload']);
    await vi.advanceTimersByTimeAsync(1);
    expect(log).toEqual(['beforeReload', 'SKIP_WAITING']);
  });

  it('goes on when the engine fails to stop (logged)', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    setBeforeReload(() => Promise.reject(new Error('stuck')));
    const updates = setup();
    await updates.applyUpdate();
    expect(log).toEqual(['SKIP_WAITING']);
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
    setup();
    workbox.fire('controlling', { isUpdate: true });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(log).toEqual(['beforeReload']);
    releaseEngine();
    await vi.advanceTimersByTimeAsync(0);
    expect(log).toEqual(['beforeReload', 'engine settled', 'reload']);
  });

  it('reloads after RELOAD_SETTLE_TIMEOUT_MS even if its engine hangs', async () => {
    setup();
    workbox.fire('controlling', { isUpdate: true });
    await vi.advanceTimersByTimeAsync(RELOAD_SETTLE_TIMEOUT_MS - 1);
    expect(log).toEqual(['beforeReload']);
    await vi.advanceTimersByTimeAsync(1);
    expect(log).toEqual(['beforeReload', 'reload']);
  });

  it('does not reload when a first install takes control', async () => {
    setup();
    workbox.fire('controlling', { isUpdate: false });
    await vi.advanceTimersByTimeAsync(RELOAD_SETTLE_TIMEOUT_MS);
    expect(log).toEqual([]);
  });
});

describe('"Ready to work offline"', () => {
  it('is said after the first install, once per device, never for an update', () => {
    setup();
    workbox.fire('activated', { isUpdate: true });
    expect(useServiceWorkerState.getState().offlineReady).toBe(false);
    workbox.fire('activated', {});
    expect(useServiceWorkerState.getState().offlineReady).toBe(true);
    useServiceWorkerState.getState().dismissOfflineReady(); // the toast was shown
    expect(localStorage.getItem(OFFLINE_READY_SHOWN_KEY)).toBe('1');

    // A second page (another tab, a reload mid-install) sees a first install activate too.
    workbox = new FakeWorkbox(log);
    setup();
    workbox.fire('activated', {});
    expect(useServiceWorkerState.getState().offlineReady).toBe(false);
  });
});

describe('registration and the hourly check', () => {
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
    workbox.registration.onUpdate = () => Promise.reject(new Error('offline'));
    setup();
    await vi.advanceTimersByTimeAsync(UPDATE_CHECK_INTERVAL_MS * 2);
    expect(workbox.registration.updates).toBe(2);
    expect(error).toHaveBeenCalledTimes(1);

    online = false;
    await vi.advanceTimersByTimeAsync(UPDATE_CHECK_INTERVAL_MS);
    expect(workbox.registration.updates).toBe(2);
  });
});

describe('reloadToLatest (the server refused this version)', () => {
  it('applies a version found waiting through the update flow', async () => {
    const updates = setup();
    workbox.registration.onUpdate = () => {
      workbox.registration.waiting = new FakeWorker('installed');
      return Promise.resolve();
    };
    const done = updates.reloadToLatest();
    await vi.advanceTimersByTimeAsync(0);
    expect(log).toEqual(['beforeReload']);
    releaseEngine();
    await done;
    expect(log).toEqual(['beforeReload', 'engine settled', 'SKIP_WAITING']);
    workbox.fire('controlling', { isUpdate: true });
    await vi.advanceTimersByTimeAsync(0);
    expect(log.at(-1)).toBe('reload');
  });

  it('waits for a version still installing, then applies it', async () => {
    const updates = setup();
    const installing = new FakeWorker('installing');
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
    expect(log).toEqual(['beforeReload', 'engine settled', 'SKIP_WAITING']);
  });

  it('reloads into what it has when an install takes longer than UPDATE_INSTALL_TIMEOUT_MS', async () => {
    const updates = setup();
    workbox.registration.onUpdate = () => {
      workbox.registration.installing = new FakeWorker('installing');
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
