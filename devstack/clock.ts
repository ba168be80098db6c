// The devstack's one clock. Everything that issues or checks an expiry reads it: access tokens'
// iat/exp and their verification (REST, storage, realtime, functions), refresh-token reuse,
// session and user timestamps, signed URLs, realtime channels shut down at exp, and the auth
// rate limits. Tests inject a clock they move (startDevstack({ clock })), so expiry is tested
// without waiting; the default is the real one.

export interface DevstackClock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `fn` once the clock has moved on by `ms`; the handle is for clearTimeout. */
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** setTimeout's ceiling (~24.8 days); callers re-arm longer waits in steps. */
export const MAX_TIMER_MS = 2_147_483_647;

/** Wall-clock time and Node timers (unref'd: a pending expiry never keeps a process alive). */
export const realClock: DevstackClock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const timer = setTimeout(fn, Math.min(ms, MAX_TIMER_MS));
    timer.unref();
    return timer;
  },
  clearTimeout(handle) {
    if (handle !== undefined) clearTimeout(handle as NodeJS.Timeout);
  },
};

/** Whole seconds since the epoch, as JWT claims count them. */
export function epochSeconds(clock: DevstackClock): number {
  return Math.floor(clock.now() / 1000);
}

/** The clock's time as a SQL parameter (`$n::timestamptz`). */
export function sqlNow(clock: DevstackClock): string {
  return new Date(clock.now()).toISOString();
}
