// Settling: sync every device until nothing is queued anywhere and each has pulled after the
// others' last push. No sleeps: it waits on the syncs themselves, moving a device's manual
// clock (backoff, a delayed or hung request) only while nothing is on the wire.
import type { SyncStatus } from '../status';
import { isManualClock, type Device } from './device';

/** How `settle` goes about it. */
export interface SettleOptions {
  /** Passes over every device before giving up (default 10). */
  rounds?: number;
  /**
   * Real time one device's sync may take before settle gives up on it (ms; default 60 s): a
   * backstop for a sync that never ends (a hung request on a real clock), not a wait.
   */
  syncTimeoutMs?: number;
}

/** What a device is doing, for a message. */
async function describe(device: Device<unknown, unknown>, status: SyncStatus): Promise<string> {
  const queued = await device.sync.pendingCount().catch(() => NaN);
  const error = status.lastError
    ? `, last error ${status.lastError.code}: ${status.lastError.message}`
    : '';
  const net = device.network.offline ? ', its network offline' : '';
  const engine = device.online.isOnline() ? '' : ', its engine told it is offline';
  return `${device.name}: ${status.phase}, ${queued} queued${error}${net}${engine}`;
}

/** Runs one sync of `device` to its end, moving its manual clock when the wire is quiet. */
async function syncOnce(
  device: Device<unknown, unknown>,
  devices: readonly Device<unknown, unknown>[],
  timeoutMs: number,
): Promise<SyncStatus> {
  const work = device.sync.engine.syncNow();
  const clock = device.clock;
  if (isManualClock(clock)) {
    // Time jumps to the next timer only when no device has a request on the wire: a slow
    // answer is never cut short by a timeout that virtual time brought early.
    const quiet = () => devices.every((d) => d.network.idle());
    return clock.settle(work, { quiet, realTimeoutMs: timeoutMs });
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const backstop = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`settle: ${device.name}'s sync did not end within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([work, backstop]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Syncs the devices in turn (`sync.engine.syncNow()`) until a full pass in which none had
 * anything queued and each ended synced: then nothing was pushed during that pass, so every
 * device pulled after the others' last push. Devices without a user are skipped. Heal the
 * faults first if they should not go on (`device.network.heal()`, `device.online.set(true)`);
 * scripted faults still queued simply fire along the way. Throws, naming each device that did
 * not settle and what it is doing, after `rounds` passes.
 */
export async function settle(
  devices: readonly Device<unknown, unknown>[],
  options: SettleOptions = {},
): Promise<void> {
  const rounds = options.rounds ?? 10;
  const timeoutMs = options.syncTimeoutMs ?? 60_000;
  const synced = devices.filter((device) => device.user !== null);
  let last = new Map<Device<unknown, unknown>, SyncStatus>();
  for (let round = 0; round < rounds; round++) {
    let quiet = true;
    last = new Map();
    for (const device of synced) {
      if ((await device.sync.pendingCount()) > 0) quiet = false;
      const status = await syncOnce(device, synced, timeoutMs);
      last.set(device, status);
      if (status.phase !== 'synced' || (await device.sync.pendingCount()) > 0) quiet = false;
    }
    if (quiet) return;
  }
  const unsettled: string[] = [];
  for (const [device, status] of last) {
    if (status.phase !== 'synced' || (await device.sync.pendingCount()) > 0) {
      unsettled.push(await describe(device, status));
    }
  }
  throw new Error(
    `settle: not settled after ${rounds} rounds${
      unsettled.length ? `:\n  ${unsettled.join('\n  ')}` : ' (each pass pushed something new)'
    }`,
  );
}
