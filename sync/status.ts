// The engine's status as a tiny external store (subscribe / getSnapshot), so React can read
// it with useSyncExternalStore and tests can await phases.
import type { SyncError } from './errors';

/** SPEC §4 "Connection": what the engine is doing now. */
export type SyncPhase = 'offline' | 'syncing' | 'synced' | 'backing-off' | 'signed-out';

/** What the UI shows of sync: an immutable snapshot, replaced on every change. */
export interface SyncStatus {
  /** Offline, syncing, synced, backing off after errors, or signed out (still queueing). */
  readonly phase: SyncPhase;
  /** Queued changes not yet acknowledged by the server. */
  readonly pending: number;
  /** When a full push + pull last completed (ms since epoch), or null. */
  readonly lastSyncedAt: number | null;
  /** The error behind backing-off / signed-out, or a sticky APP_OUTDATED; null when fine. */
  readonly lastError: SyncError | null;
}

/** The status as an external store: subscribe / getSnapshot (useSyncExternalStore). */
export class StatusStore {
  private status: SyncStatus = {
    phase: 'offline',
    pending: 0,
    lastSyncedAt: null,
    lastError: null,
  };
  private readonly listeners = new Set<() => void>();

  getSnapshot = (): SyncStatus => this.status;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Applies changes; listeners hear of it only when something actually changed. */
  set(changes: Partial<SyncStatus>): void {
    const next = { ...this.status, ...changes };
    if (
      next.phase === this.status.phase &&
      next.pending === this.status.pending &&
      next.lastSyncedAt === this.status.lastSyncedAt &&
      next.lastError === this.status.lastError
    ) {
      return;
    }
    this.status = next;
    for (const listener of [...this.listeners]) listener();
  }
}
