// Clocks for tests: the engine's (ManualClock), whose time moves only when a test says so, so
// schedules of seconds or minutes (backoff, debounce, the 60 s safety pull) run in a moment,
// and the backend's (TestClock: token expiry, rate limits). The network, the backend and
// IndexedDB stay real: after each timer fires, real time passes for their I/O.
import type { DevstackClock } from '../../devstack/clock';
import type { Clock } from '../platform';

/** Real time given to I/O after each step of virtual time (ms). */
const IO_SETTLE_MS = 25;

/**
 * Lets real I/O (the devstack, fake-indexeddb) run: polls in short real steps until
 * `quiet()` holds (nothing on the wire) twice in a row, then gives a moment more for what
 * the answers set off (IndexedDB writes, the next request). Waiting is bounded by the work
 * itself, not by a time: a busy machine only makes it take longer.
 */
async function settleIo(quiet: () => boolean = () => true): Promise<void> {
  let calm = 0;
  while (calm < 2) {
    await new Promise((resolve) => setTimeout(resolve, IO_POLL_MS));
    calm = quiet() ? calm + 1 : 0;
  }
}

/** Real time between looks at the I/O in flight (ms). */
const IO_POLL_MS = 4;

/** How long ManualClock.until waits, in real time, for what no timer can bring (ms). */
const UNTIL_REAL_TIMEOUT_MS = 20_000;

/** How ManualClock.until (and settle) may move time, and how long it may take. */
export interface UntilOptions {
  /** Nothing is on the wire (e.g. `() => net.inFlight === 0`); default: always. */
  quiet?: () => boolean;
  /** Time moves at most this far on (ms of the clock's time); default: no limit. */
  maxAdvanceMs?: number;
  /** Gives up after this much real time (ms); default 20 s. */
  realTimeoutMs?: number;
}

/**
 * Time that moves only when told, and timers on it: what the engine's ManualClock and the
 * backend's TestClock share.
 */
export class TimerQueue implements Clock {
  protected time: number;
  private nextId = 1;
  protected readonly timers = new Map<number, { at: number; fn: () => void }>();

  constructor(start: number) {
    this.time = start;
  }

  /** The current time (ms since the epoch). */
  now(): number {
    return this.time;
  }

  /** Runs `fn` once time has moved `ms` on. */
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.set(id, { at: this.time + Math.max(0, ms), fn });
    return id;
  }

  /** Cancels a timer. */
  clearTimeout(handle: unknown): void {
    if (typeof handle === 'number') this.timers.delete(handle);
  }
}

/**
 * The engine's time in a test (pass it as a device's `clock`): it moves only when the test
 * moves it, so backoff, debounce, request timeouts and the periodic pull cost no real time.
 * The network, the backend and IndexedDB stay real: after each timer fires, real time is
 * given for their I/O, until it goes quiet.
 */
export class ManualClock extends TimerQueue {
  constructor(start = Date.UTC(2026, 10, 23)) {
    super(start);
  }

  /**
   * Moves time forward by `ms` in steps of `stepMs`, firing due timers in order and letting
   * real I/O settle after each step; `onStep` runs at every step (a write, an event…), after
   * the timers due at that moment, as a keystroke would come after them.
   */
  async advance(ms: number, stepMs = 100, onStep?: (now: number) => Promise<void> | void) {
    const end = this.time + ms;
    while (this.time < end) {
      this.time = Math.min(end, this.time + stepMs);
      await this.fireDue();
      if (onStep) {
        await onStep(this.time);
        await this.fireDue();
      }
    }
  }

  /**
   * Moves time forward by `ms` at once: each timer due by then fires at its own time, in
   * order (those they set too, when due in time), with only a turn of the event loop between,
   * so what a timer sets off starts but no real time is given for I/O. For a test that
   * decides itself when to let I/O settle (runUntil on a settled promise) and when not.
   */
  async advanceAtOnce(ms: number): Promise<void> {
    const end = this.time + Math.max(0, ms);
    for (let next = this.nextDue(); next !== undefined && next <= end; next = this.nextDue()) {
      this.time = Math.max(this.time, next);
      for (const [id, timer] of [...this.timers].sort((a, b) => a[1].at - b[1].at)) {
        if (timer.at > this.time) break;
        // One fired before may have cleared it.
        if (!this.timers.delete(id)) continue;
        timer.fn();
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    this.time = end;
  }

  /** When the next timer is due, or undefined when none is set. */
  nextDue(): number | undefined {
    let next: number | undefined;
    for (const timer of this.timers.values())
      if (next === undefined || timer.at < next) next = timer.at;
    return next;
  }

  /**
   * Runs until `work` settles, moving time only when the real world has gone quiet: after
   * I/O settles (and `quiet()` says nothing is on the wire), if `work` is still pending,
   * time jumps to the next timer and fires it (a backoff, a hung request's timeout, the
   * periodic pull). So a schedule of minutes takes as long as its I/O. Throws if `work` is
   * still pending with no timer left, or after `maxJumps` jumps (a loop that never ends).
   * With `waitWithoutTimers`, pending work with no timer left is given more real time
   * instead: an engine busy in IndexedDB between requests looks quiet on the wire, and
   * only a watchdog of the caller's can tell it from one that will never finish.
   */
  async runUntil<T>(
    work: Promise<T>,
    options: { quiet?: () => boolean; maxJumps?: number; waitWithoutTimers?: boolean } = {},
  ): Promise<T> {
    let outcome: { value: T } | { error: unknown } | undefined;
    work.then(
      (value) => (outcome = { value }),
      (error: unknown) => (outcome = { error }),
    );
    const maxJumps = options.maxJumps ?? 10_000;
    for (let jumps = 0; ; jumps++) {
      await settleIo(options.quiet);
      if (outcome) break;
      const next = this.nextDue();
      if (next === undefined && options.waitWithoutTimers) {
        jumps--; // not a jump: real time only
        continue;
      }
      if (next === undefined) throw new Error('runUntil: pending, and no timer is set');
      if (jumps >= maxJumps) throw new Error(`runUntil: still pending after ${maxJumps} jumps`);
      this.time = Math.max(this.time, next);
      for (const [id, timer] of [...this.timers].sort((a, b) => a[1].at - b[1].at)) {
        if (timer.at > this.time) break;
        this.timers.delete(id);
        timer.fn();
      }
    }
    if ('error' in outcome) throw outcome.error;
    return outcome.value;
  }

  /**
   * Waits until `check` holds, moving time as runUntil does (once real I/O has gone quiet,
   * time jumps to the next timer and fires it) but at most `maxAdvanceMs` on from now: with
   * no timer due by then, only real I/O can make `check` hold, and it is polled until it
   * does or `realTimeoutMs` of real time has passed (then it throws, as it does if jumps go
   * on that long). So a test says how much of the schedule may run ("within the backoff",
   * "well before the 60 s pull": 0 runs only what is due now), and the wait ends on what it
   * waits for, however slow the machine.
   */
  async until(check: () => boolean | Promise<boolean>, options: UntilOptions = {}): Promise<void> {
    const notAfter = this.time + (options.maxAdvanceMs ?? Number.POSITIVE_INFINITY);
    const realTimeoutMs = options.realTimeoutMs ?? UNTIL_REAL_TIMEOUT_MS;
    const deadline = Date.now() + realTimeoutMs;
    for (;;) {
      await settleIo(options.quiet);
      if (await check()) return;
      const next = this.nextDue();
      if (Date.now() > deadline) {
        const ahead = (at: number | undefined) =>
          at === undefined || !Number.isFinite(at) ? 'none' : `${at - this.time} ms ahead`;
        throw new Error(
          `until: not true within ${realTimeoutMs} ms of real time (time limit: ${ahead(
            notAfter,
          )}; next timer: ${ahead(next)})`,
        );
      }
      if (next !== undefined && next <= notAfter) this.jumpTo(next);
    }
  }

  /** Runs until `work` settles, as `until` does, and gives its value (or throws its error). */
  async settle<T>(work: Promise<T>, options: UntilOptions = {}): Promise<T> {
    let outcome: { value: T } | { error: unknown } | undefined;
    work.then(
      (value) => (outcome = { value }),
      (error: unknown) => (outcome = { error }),
    );
    await this.until(() => outcome !== undefined, options);
    if (outcome && 'error' in outcome) throw outcome.error;
    return (outcome as { value: T }).value;
  }

  /**
   * Moves time to `at`, firing every timer due by then at its own moment, in order (and
   * those they set, if due by then too), letting real I/O settle (until `quiet()`) after
   * each; then lets it settle once more. What happens by `at` has happened when it returns.
   */
  async runTo(at: number, options: { quiet?: () => boolean } = {}): Promise<void> {
    for (;;) {
      await settleIo(options.quiet);
      const next = this.nextDue();
      if (next === undefined || next > at) break;
      this.jumpTo(next);
    }
    this.time = Math.max(this.time, at);
  }

  /**
   * Like advance, but firing timers at their own moments and settling I/O until `quiet()`
   * rather than for a fixed time: `onStep` runs every `stepMs` (a keystroke), after the
   * timers due by then. Cheaper where there are many steps.
   */
  async stepThrough(
    ms: number,
    options: {
      stepMs: number;
      onStep?: (now: number) => Promise<void> | void;
      quiet?: () => boolean;
    },
  ): Promise<void> {
    const end = this.time + ms;
    while (this.time < end) {
      await this.runTo(Math.min(end, this.time + options.stepMs), options);
      await options.onStep?.(this.time);
    }
    await this.runTo(this.time, options);
  }

  /** Sets time to `at` (never back) and fires the timers due by then, earliest first. */
  private jumpTo(at: number): void {
    this.time = Math.max(this.time, at);
    for (const [id, timer] of [...this.timers].sort((a, b) => a[1].at - b[1].at)) {
      if (timer.at > this.time) break;
      // One fired before it may have cancelled it (a forced run clears the retry timer).
      if (!this.timers.delete(id)) continue;
      timer.fn();
    }
  }

  /** Fires every timer due by now (and those they set that are due too), settling I/O between. */
  async fireDue(): Promise<void> {
    for (let rounds = 0; rounds < 1_000; rounds++) {
      const due = [...this.timers.entries()]
        .filter(([, timer]) => timer.at <= this.time)
        .sort((a, b) => a[1].at - b[1].at);
      await new Promise((resolve) => setTimeout(resolve, IO_SETTLE_MS));
      if (due.length === 0) return;
      for (const [id, timer] of due) {
        if (!this.timers.delete(id)) continue;
        timer.fn();
      }
    }
  }
}

/**
 * The backend's time for tests that test expiry (pass it to `startBackend`): it stands still
 * until `advance()` moves it, and a timer fires when time passes its moment (a realtime
 * channel's shutdown at exp). It starts at the real time, so supabase-js (which reads the
 * real one) takes fresh tokens for fresh. Rate-limit buckets refill only as it moves.
 */
export class TestClock extends TimerQueue implements DevstackClock {
  constructor(start = Date.now()) {
    super(start);
  }

  /** Moves time on by `ms`, firing each timer it passes, earliest first, at its moment. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const entry of this.timers) {
        if (entry[1].at <= end && (!next || entry[1].at < next[1].at)) next = entry;
      }
      if (!next) break;
      this.timers.delete(next[0]);
      this.time = Math.max(this.time, next[1].at);
      next[1].fn();
    }
    this.time = end;
  }
}
