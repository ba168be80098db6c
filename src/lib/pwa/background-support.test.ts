// What the browser can do with the app closed, found out from its globals without throwing
// where they are missing, and the periodic refresh registered only where it is granted.
import { afterEach, describe, expect, it } from 'vitest';

import {
  backgroundSupport,
  PERIODIC_SYNC_MIN_INTERVAL_MS,
  PERIODIC_SYNC_TAG,
  registerPeriodicRefresh,
} from './background-support';
import { fakeBrowser, restoreBrowser } from './testing/fake-browser';

afterEach(restoreBrowser);

describe('background support', () => {
  it('finds nothing in a browser without any of it (jsdom as it is), and does not throw', async () => {
    expect(await backgroundSupport()).toEqual({
      backgroundSync: false,
      periodicSync: 'unsupported',
      badging: false,
      notifications: false,
    });
  });

  it('finds everything a Chromium installed app has', async () => {
    fakeBrowser({
      backgroundSync: true,
      periodicSync: 'granted',
      badging: true,
      notification: 'default',
    });
    expect(await backgroundSupport()).toEqual({
      backgroundSync: true,
      periodicSync: 'granted',
      badging: true,
      notifications: true,
    });
  });

  it('tells periodic sync not granted (a tab, not installed) from not supported', async () => {
    fakeBrowser({ backgroundSync: true, periodicSync: 'denied' });
    expect((await backgroundSupport()).periodicSync).toBe('not-granted');
    await restoreBrowser();
    fakeBrowser({ backgroundSync: true, periodicSync: 'prompt' });
    expect((await backgroundSupport()).periodicSync).toBe('not-granted');
  });

  it('counts periodic sync as unsupported when the permission query refuses its name', async () => {
    const stubs = fakeBrowser({ periodicSync: 'granted' });
    Object.defineProperty(navigator, 'permissions', {
      value: { query: () => Promise.reject(new TypeError('bad name')) },
      configurable: true,
    });
    expect((await backgroundSupport()).periodicSync).toBe('unsupported');
    expect(await registerPeriodicRefresh(stubs.registration)).toBe(false);
    expect(stubs.register).not.toHaveBeenCalled();
  });

  it('needs showNotification on the registration as well as Notification', async () => {
    fakeBrowser({ notification: 'granted' });
    expect((await backgroundSupport()).notifications).toBe(true);
    Reflect.deleteProperty(
      (globalThis as { ServiceWorkerRegistration: { prototype: object } }).ServiceWorkerRegistration
        .prototype,
      'showNotification',
    );
    expect((await backgroundSupport()).notifications).toBe(false);
  });
});

describe('registerPeriodicRefresh', () => {
  it('registers the refresh tag every 12 hours when granted', async () => {
    const stubs = fakeBrowser({ periodicSync: 'granted' });
    expect(await registerPeriodicRefresh(stubs.registration)).toBe(true);
    expect(stubs.register).toHaveBeenCalledWith('outpost-refresh', {
      minInterval: 12 * 60 * 60 * 1000,
    });
    expect(PERIODIC_SYNC_TAG).toBe('outpost-refresh');
    expect(PERIODIC_SYNC_MIN_INTERVAL_MS).toBe(43_200_000);
  });

  it('does nothing where not granted or not supported', async () => {
    const refused = fakeBrowser({ periodicSync: 'denied' });
    expect(await registerPeriodicRefresh(refused.registration)).toBe(false);
    expect(refused.register).not.toHaveBeenCalled();
    await restoreBrowser();
    const none = fakeBrowser({ backgroundSync: true });
    expect(await registerPeriodicRefresh(none.registration)).toBe(false);
  });

  it('resolves false, not a rejection, when the browser refuses at register()', async () => {
    const stubs = fakeBrowser({ periodicSync: 'granted' });
    stubs.register.mockRejectedValueOnce(new DOMException('no', 'NotAllowedError'));
    expect(await registerPeriodicRefresh(stubs.registration)).toBe(false);
  });
});
