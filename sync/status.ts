// The engine's status as a tiny external store (subscribe / getSnapshot), so React can read
// it with useSyncExternalStore and tests can await phases.
import type { SyncError } from './errors';

/**
 * product.md §4 "Connection": what the engine is doing now. `starting`: it has not said yet
 * (its code is on its way, or this tab waits for the leader tab's word), so a screen shows no
 * state rather than a guess such as "Offline".
 */
export type SyncPhase =
  'starting' | 'offline' | 'syncing' | 'synced' | 'backing-off' | 'signed-out';

/** What the UI shows of sync: an immutable snapshot, replaced on every change. */
export interface SyncStatus {
  /**
   * Not known yet (starting), offline, syncing, synced, backing off after errors, or signed
   * out (still queueing).
   */
  readonly phase: SyncPhase;
  /** Queued changes not yet acknowledged by the server. */
  readonly pending: number;
  /** When a full push + pull last completed (ms since epoch), or null. */
  readonly lastSyncedAt: number | null;
  /** The error behind backing-off / signed-out, or a sticky APP_OUTDATED; null when fine. */
  readonly lastError: SyncError | null;
  /**
   * A pull from scratch under way (a new device, or a resync): rows written so far and how
   * many the server said it would send (null when it did not say); null otherwise.
   */
  readonly download: Download | null;
}

/** The progress of a pull from scratch. */
export interface Download {
  readonly received: number;
  readonly expected: number | null;
}

/** The status as an external store: subscribe / getSnapshot (useSyncExternalStore). */
export interface StatusStore {
  /** The current status (the same object until something changes). */
  readonly getSnapshot: () => SyncStatus;
  /** Calls `listener` after every change; returns unsubscribe. */
  readonly subscribe: (listener: () => void) => () => void;
  /** Applies changes; listeners hear of it only when something actually changed. */
  readonly set: (changes: Partial<SyncStatus>) => void;
}

/** A status store, starting (nothing known) until the engine says otherwise. */
export function createStatusStore(): StatusStore {
  let status: SyncStatus = {
    phase: 'starting',
    pending: 0,
    lastSyncedAt: null,
    lastError: null,
    download: null,
  };
  const listeners = new Set<() => void>();
  return {
    getSnapshot: () => status,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    set(changes) {
      const keys = Object.keys(changes) as (keyof SyncStatus)[];
      if (keys.every((key) => changes[key] === status[key])) return;
      status = { ...status, ...changes };
      for (const listener of [...listeners]) listener();
    },
  };
}
