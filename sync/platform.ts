// The time and network the sync engine runs on, injectable for tests. The engine itself
// (sync-design.md "Push", "Pull", "When sync runs") is in rooms, each in its own file:
// scheduling (schedule.ts: when to sync, leader and follower, the SyncEngine), push (push.ts),
// pull (pull.ts), realtime (realtime.ts), files (files.ts), account (account.ts: whose device
// this is) and leadership (leadership.ts: which tab runs it); index.ts wires them. requests.ts
// takes its default timers from here, so nothing here may import a room.

/** Time and timers, injectable so tests can run the schedule without waiting. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `fn` after `ms`; returns a handle for clearTimeout. */
  setTimeout(fn: () => void, ms: number): unknown;
  /** Cancels a timer set by setTimeout (a spent or unknown handle is ignored). */
  clearTimeout(handle: unknown): void;
}

/** Whether the device has a network, and when that changes (injectable for tests). */
export interface OnlineSignal {
  /** The current state. */
  isOnline(): boolean;
  /** Calls back on every change; returns unsubscribe. */
  subscribe(onChange: (online: boolean) => void): () => void;
}

/** The browser's own clock and timers. */
export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};
