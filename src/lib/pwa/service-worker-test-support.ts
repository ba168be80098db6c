// The fakes every service-worker test file runs the update flow over: workbox-window, the
// registration and its workers, the app's connectivity and the tab's visibility, reset before
// each test by resetFakesAroundEachTest(). The state is exported live; tests change it through
// replaceFakes() (an import cannot be assigned).
import { afterEach, beforeEach, vi } from 'vitest';

import type { OnlineSignal } from '@sync/index';

import {
  setBeforeReload,
  useServiceWorkerState,
  type RegistrationLike,
  type WorkboxEventLike,
  type WorkboxLike,
  type WorkerLike,
} from './service-worker';
import { createServiceWorkerUpdates, type VisibilitySignal } from './service-worker-updates';

/** workbox-window's WAITING_TIMEOUT_DURATION: `waiting` fires this long after 'installed'. */
export const WAITING_EVENT_DELAY_MS = 200;
/** workbox-window's REGISTRATION_TIMEOUT_DURATION: updates found later count as external. */
export const OWN_UPDATE_WINDOW_MS = 60_000;
/** How long a new version takes to download its precache in these tests (ms). */
export const INSTALL_MS = 1_000;

export class FakeWorker extends EventTarget implements WorkerLike {
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
export class FakeRegistration extends EventTarget implements RegistrationLike {
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

export type FakeEvent = WorkboxEventLike & {
  isExternal?: boolean;
  wasWaitingBeforeRegister?: true;
};

/**
 * workbox-window's Workbox as far as its events go (Workbox.js register, _onUpdateFound,
 * _onStateChange, _onControllerChange): `isUpdate` only on its own worker's events in a page
 * that had a controller; an update found more than a minute after register() (or after the
 * first one) is external, and after the first external one it stops listening for updates.
 * Records the events it fires, and what the flow asked of the world (in `log`).
 */
export class FakeWorkbox implements WorkboxLike {
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
export class FakeOnline implements OnlineSignal {
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
export class FakeVisibility implements VisibilitySignal {
  private readonly listeners = new Set<() => void>();
  subscribe(onVisible: () => void): () => void {
    this.listeners.add(onVisible);
    return () => this.listeners.delete(onVisible);
  }
  show(): void {
    for (const listener of this.listeners) listener();
  }
}

export let log: string[];
export let workbox: FakeWorkbox;
export let online: FakeOnline;
export let visibility: FakeVisibility;
export let controlled: boolean;
export let probe: () => Promise<boolean>;
/** The engine's flush, left hanging until the test settles it. */
export let releaseEngine: () => void;

export function setup() {
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
export function installedEarlier(version: string): void {
  workbox.registration.active = new FakeWorker('activated', version);
  workbox.registration.deployed = version;
  controlled = true;
}

export const updateReady = () => useServiceWorkerState.getState().updateReady;
export const offlineReady = () => useServiceWorkerState.getState().offlineReady;

/** Swaps part of the state for one test: a probe that fails, a fresh page, no controller. */
export function replaceFakes(
  parts: Partial<{ probe: () => Promise<boolean>; workbox: FakeWorkbox; controlled: boolean }>,
): void {
  if (parts.probe) probe = parts.probe;
  if (parts.workbox) workbox = parts.workbox;
  if (parts.controlled !== undefined) controlled = parts.controlled;
}

/** Registers the reset before, and the clean-up after, every test of the calling file. */
export function resetFakesAroundEachTest(): void {
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
}
