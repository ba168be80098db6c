// The update flow over a model of workbox-window: "Reload" lets the engine settle first, then
// asks the waiting worker to take over, and reloads when it controls (or after the fallback);
// each wait is capped; other tabs settle before they reload; every new version is announced,
// also those workbox-window stays silent about; checks run hourly while the app says it is
// online, when it comes back online and when the tab is shown again; "Ready to work offline"
// follows the first install of the shell only; failures are logged once instead of left
// unhandled; reloadToLatest goes through the same flow when the server has a newer version.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import type { OnlineSignal } from '@sync/index';

import {
  OFFLINE_READY_SHOWN_KEY,
  RELOAD_SETTLE_TIMEOUT_MS,
  setBeforeReload,
  useServiceWorkerState,
  type RegistrationLike,
  type WorkboxEventLike,
  type WorkboxLike,
  type WorkerLike,
} from './service-worker';
import {
  createServiceWorkerUpdates,
  RELOAD_FALLBACK_MS,
  UPDATE_CHECK_INTERVAL_MS,
  UPDATE_CHECK_THROTTLE_MS,
  UPDATE_INSTALL_TIMEOUT_MS,
  workerScriptReachable,
  type VisibilitySignal,
} from './service-worker-updates';

/** workbox-window's WAITING_TIMEOUT_DURATION: `waiting` fires this long after 'installed'. */
const WAITING_EVENT_DELAY_MS = 200;
/** workbox-window's REGISTRATION_TIMEOUT_DURATION: updates found later count as external. */
const OWN_UPDATE_WINDOW_MS = 60_000;
/** How long a new version takes to download its precache in these tests (ms). */
const INSTALL_MS = 1_000;

class FakeWorker extends EventTarget implements WorkerLike {
  constructor(
    public state: ServiceWorkerState,
    readonly version: string,
  ) {
    super();
  }
  moveTo(state: ServiceWorkerState): void {
    this.state = state;
    this.dispatchEvent(new Event('statechange'));
  }
}

/** A ServiceWorkerRegistration: what update() finds on the server, and the lifecycle. */
class FakeRegistration extends EventTarget implements RegistrationLike {
  installing: FakeWorker | null = null;
  waiting: FakeWorker | null = null;
  active: FakeWorker | null = null;
  /** The version on the server; update() installs it when this device does not have it. */
  deployed = '';
  /** Replaces the server's answer (a failing check, a hand-made sequence). */
  onUpdate: (() => Promise<void>) | undefined;
  updates = 0;

  update(): Promise<void> {
    this.updates += 1;
    if (this.onUpdate) return this.onUpdate();
    const newest = this.installing ?? this.waiting ?? this.active;
    if (this.deployed && newest?.version !== this.deployed) this.install(this.deployed);
    // As in browsers, update() settles once the new script is fetched and installing.
    return Promise.resolve();
  }

  /**
   * A new version starts installing (found by this tab's check, another tab's, or the first
   * registration). As in browsers, `installing` is set before register() or update() settle,
   * and `updatefound` follows in a task of its own.
   */
  install(version: string): void {
    const worker = new FakeWorker('installing', version);
    this.installing = worker;
    setTimeout(() => this.dispatchEvent(new Event('updatefound')), 0);
    setTimeout(() => {
      this.installing = null;
      if (!this.active) {
        worker.moveTo('installed');
        this.takeOver(worker);
        return;
      }
      // It waits for the active one to go, and replaces the worker that waited before it.
      const replaced = this.waiting;
      this.waiting = worker;
      worker.moveTo('installed');
      replaced?.moveTo('redundant');
    }, INSTALL_MS);
  }

  /** The waiting worker becomes the active one (SKIP_WAITING, here or in another tab). */
  activateWaiting(): void {
    const worker = this.waiting;
    if (!worker) return;
    this.waiting = null;
    this.takeOver(worker);
  }

  private takeOver(worker: FakeWorker): void {
    const previous = this.active;
    this.active = worker;
    worker.moveTo('activating');
    previous?.moveTo('redundant');
    worker.moveTo('activated');
  }
}

type FakeEvent = WorkboxEventLike & { isExternal?: boolean; wasWaitingBeforeRegister?: true };

/**
 * workbox-window's Workbox as far as its events go (Workbox.js register, _onUpdateFound,
 * _onStateChange, _onControllerChange): `isUpdate` only on its own worker's events in a page
 * that had a controller; an update found more than a minute after register() (or after the
 * first one) is external, and after the first external one it stops listening for updates.
 * Records the events it fires, and what the flow asked of the world (in `log`).
 */
class FakeWorkbox implements WorkboxLike {
  readonly listeners = new Map<string, ((event: FakeEvent) => void)[]>();
  readonly registration = new FakeRegistration();
  readonly fired: string[] = [];
  registerResult: Promise<RegistrationLike | undefined> | undefined;
  private isUpdate = false;
  private updatesFound = 0;
  private registeredAt = 0;
  private externalWorker: WorkerLike | undefined;

  constructor(
    private readonly log: string[],
    private readonly controlled: () => boolean,
  ) {}

  addEventListener(type: string, listener: (event: FakeEvent) => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }

  register(): Promise<RegistrationLike | undefined> {
    if (this.registerResult) return this.registerResult;
    this.isUpdate = this.controlled();
    this.registeredAt = Date.now();
    const waiting = this.registration.waiting;
    if (waiting) {
      void Promise.resolve().then(() =>
        this.fire('waiting', { sw: waiting, wasWaitingBeforeRegister: true }),
      );
    }
    this.registration.addEventListener('updatefound', this.onUpdateFound);
    const { active, installing, deployed } = this.registration;
    if (!active && !installing && deployed) this.registration.install(deployed); // first visit
    return Promise.resolve(this.registration);
  }

  messageSkipWaiting(): void {
    this.log.push(`SKIP_WAITING ${this.registration.waiting?.version ?? 'to nobody'}`);
  }

  /** The page's controller changed (a new version took over). */
  controllerChanged(): void {
    this.fire('controlling', { isUpdate: this.isUpdate });
  }

  fire(type: string, event: FakeEvent = {}): void {
    this.fired.push(type);
    for (const listener of this.listeners.get(type) ?? []) listener(event);
  }

  private readonly onUpdateFound = () => {
    const sw = this.registration.installing;
    if (!sw) return;
    const external = this.updatesFound > 0 || Date.now() > this.registeredAt + OWN_UPDATE_WINDOW_MS;
    if (external) {
      this.externalWorker = sw;
      this.registration.removeEventListener('updatefound', this.onUpdateFound);
    }
    this.updatesFound += 1;
    sw.addEventListener('statechange', () => {
      const isExternal = sw === this.externalWorker;
      const event: FakeEvent = {
        sw,
        isExternal,
        ...(!isExternal && this.isUpdate && { isUpdate: true }),
      };
      this.fire(sw.state, event);
      if (sw.state === 'installed') {
        setTimeout(() => {
          if (this.registration.waiting === sw) this.fire('waiting', event);
        }, WAITING_EVENT_DELAY_MS);
      }
    });
  };
}

/** The app's connectivity, switched by hand. */
class FakeOnline implements OnlineSignal {
  private readonly listeners = new Set<(online: boolean) => void>();
  constructor(private online: boolean) {}
  isOnline(): boolean {
    return this.online;
  }
  subscribe(onChange: (online: boolean) => void): () => void {
    this.listeners.add(onChange);
    return () => this.listeners.delete(onChange);
  }
  set(online: boolean): void {
    this.online = online;
    for (const listener of this.listeners) listener(online);
  }
}

/** The tab being shown again, by hand. */
class FakeVisibility implements VisibilitySignal {
  private readonly listeners = new Set<() => void>();
  subscribe(onVisible: () => void): () => void {
    this.listeners.add(onVisible);
    return () => this.listeners.delete(onVisible);
  }
  show(): void {
    for (const listener of this.listeners) listener();
  }
}

let log: string[];
let workbox: FakeWorkbox;
let online: FakeOnline;
let visibility: FakeVisibility;
let controlled: boolean;
let probe: () => Promise<boolean>;
/** The engine's flush, left hanging until the test settles it. */
let releaseEngine: () => void;

function setup() {
  const updates = createServiceWorkerUpdates({
    workbox,
    reload: () => log.push('reload'),
    online,
    controlled: () => controlled,
    visibility,
    probeWorkerScript: () => probe(),
  });
  updates.register();
  return updates;
}

/** This device runs `version`, installed on an earlier visit; the page is controlled by it. */
function installedEarlier(version: string): void {
  workbox.registration.active = new FakeWorker('activated', version);
  workbox.registration.deployed = version;
  controlled = true;
}

const updateReady = () => useServiceWorkerState.getState().updateReady;
const offlineReady = () => useServiceWorkerState.getState().offlineReady;

beforeEach(() => {
  vi.useFakeTimers();
  log = [];
  online = new FakeOnline(true);
  visibility = new FakeVisibility();
  controlled = false;
  probe = () => Promise.resolve(true);
  workbox = new FakeWorkbox(log, () => controlled);
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
  localStorage.clear();
});

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
    probe = () => Promise.resolve(false);
    setup();
    await vi.advanceTimersByTimeAsync(UPDATE_CHECK_INTERVAL_MS);
    expect(workbox.registration.updates).toBe(0);
    probe = () => Promise.resolve(true);
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
    workbox = new FakeWorkbox(log, () => controlled);
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
    controlled = false; // shift-reload: the page is not controlled, the shell is cached
    setup();
    workbox.registration.deployed = 'B';
    await workbox.registration.update(); // the browser's check at navigation: workbox's own
    await vi.advanceTimersByTimeAsync(INSTALL_MS);
    workbox.registration.activateWaiting();
    expect(workbox.fired).toContain('activated');
    expect(offlineReady()).toBe(false);
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
