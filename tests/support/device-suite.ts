// The setup every sync suite shares: an in-memory devstack for the suite, and its devices
// closed after each test. Call once at a suite file's top level.
import { afterAll, afterEach, beforeAll } from 'vitest';

import { startTestDevstack, type TestDevstack } from './devstack';
import { DeviceSet, type Device, type DeviceOptions } from './sync-client';

/**
 * Starts a devstack before the suite (handed to `onStart`, so the suite keeps its own
 * `stack` variable), closes the devices it made after each test and the devstack after the
 * suite. Returns the device set and a shorthand to open a device on it.
 */
export function deviceSuite(onStart: (stack: TestDevstack) => void): {
  devices: DeviceSet;
  device: (email: string | null, options?: DeviceOptions) => Promise<Device>;
} {
  let stack: TestDevstack | undefined;
  const devices = new DeviceSet(() => {
    if (!stack) throw new Error('the devstack has not started');
    return stack;
  });
  beforeAll(async () => {
    stack = await startTestDevstack('pglite');
    onStart(stack);
  });
  afterEach(async () => {
    await devices.closeAll();
  });
  afterAll(async () => {
    await stack?.stop();
  });
  return { devices, device: (email, options) => devices.device(email, options) };
}
