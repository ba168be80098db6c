// A browser as the sync-with-the-app-closed tests need it (issue 38): which of Background Sync,
// Periodic Background Sync (and its permission), Badging and notifications (and their
// permission) it has, stubbed on the globals jsdom lacks; and the shared background store
// emptied, so each test starts with nothing chosen. Call restoreBrowser() after each test.
import { clear, createStore } from 'idb-keyval';
import { vi, type Mock } from 'vitest';

import { setDeviceOwner } from '@sync/testing';
import {
  ALICE_ID,
  createTestServices,
  storeAliceSession,
  type TestServices,
} from '@/testing/app-harness';

export interface FakeBrowser {
  /** ServiceWorkerRegistration.prototype.sync */
  backgroundSync?: boolean;
  /** periodicSync on the prototype with this permission; undefined: no periodicSync. */
  periodicSync?: PermissionState;
  /** navigator.setAppBadge / clearAppBadge */
  badging?: boolean;
  /** Notification with this permission, and showNotification; undefined: neither. */
  notification?: NotificationPermission;
  /** What Notification.requestPermission answers (default: 'granted'). */
  answer?: NotificationPermission;
}

/** The stubs, to assert on. */
export interface BrowserStubs {
  setAppBadge: Mock<(count?: number) => Promise<void>>;
  clearAppBadge: Mock<() => Promise<void>>;
  register: Mock<(tag: string, options: { minInterval: number }) => Promise<void>>;
  requestPermission: Mock<() => Promise<NotificationPermission>>;
  /** A registration as `navigator.serviceWorker.ready` gives it, with periodicSync.register. */
  registration: ServiceWorkerRegistration;
}

const NAVIGATOR_KEYS = ['permissions', 'setAppBadge', 'clearAppBadge', 'serviceWorker'] as const;

function defineOnNavigator(name: (typeof NAVIGATOR_KEYS)[number], value: unknown): void {
  Object.defineProperty(navigator, name, { value, configurable: true, writable: true });
}

/** Stubs what `browser` says this browser has; what it leaves out is absent. */
export function fakeBrowser(browser: FakeBrowser = {}): BrowserStubs {
  const register = vi.fn<(tag: string, options: { minInterval: number }) => Promise<void>>(() =>
    Promise.resolve(),
  );
  const prototype: Record<string, unknown> = {};
  if (browser.backgroundSync) prototype.sync = {};
  if (browser.periodicSync) prototype.periodicSync = { register };
  if (browser.notification) prototype.showNotification = () => Promise.resolve();
  function FakeRegistration() {}
  FakeRegistration.prototype = prototype;
  vi.stubGlobal('ServiceWorkerRegistration', FakeRegistration);
  const registration = Object.assign(Object.create(prototype) as object, {
    periodicSync: browser.periodicSync ? { register } : undefined,
  }) as unknown as ServiceWorkerRegistration;

  const periodic = browser.periodicSync;
  defineOnNavigator('permissions', {
    query: ({ name }: { name: string }) =>
      name === 'periodic-background-sync' && periodic
        ? Promise.resolve({ state: periodic })
        : Promise.reject(new TypeError(`unknown permission ${name}`)),
  });
  defineOnNavigator('serviceWorker', { ready: Promise.resolve(registration) });

  const setAppBadge = vi.fn<(count?: number) => Promise<void>>(() => Promise.resolve());
  const clearAppBadge = vi.fn(() => Promise.resolve());
  if (browser.badging) {
    defineOnNavigator('setAppBadge', setAppBadge);
    defineOnNavigator('clearAppBadge', clearAppBadge);
  }

  const requestPermission = vi.fn(() => {
    const answer = browser.answer ?? 'granted';
    FakeNotification.permission = answer;
    return Promise.resolve(answer);
  });
  class FakeNotification {
    static permission: NotificationPermission = browser.notification ?? 'default';
    static requestPermission = requestPermission;
  }
  if (browser.notification) vi.stubGlobal('Notification', FakeNotification);

  return { setAppBadge, clearAppBadge, register, requestPermission, registration };
}

/** Takes the stubs away and empties the background store (the person's choices). */
export async function restoreBrowser(): Promise<void> {
  vi.unstubAllGlobals();
  for (const name of NAVIGATOR_KEYS) Reflect.deleteProperty(navigator, name);
  // A second handle on the store background-state.ts opens: the same database and object store.
  await clear(createStore('outpost-background', 'state'));
}

/** Services of a device alice is signed in on (her session stored, her data on it), no engine. */
export async function aliceDevice(): Promise<TestServices> {
  storeAliceSession();
  const services = createTestServices();
  await setDeviceOwner(services.sync, ALICE_ID);
  return services;
}
