// A clock for the engine whose time moves only when a test says so, so schedules of seconds
// or minutes (backoff, debounce, the 60 s safety pull) run in a moment. The network, the
// devstack and IndexedDB stay real: after each timer fires, real time passes for their I/O.
import type { Clock } from '../../sync/engine';

/** Real time given to I/O after each step of virtual time (ms). */
const IO_SETTLE_MS = 25;

export class ManualClock implements Clock {
  private time: number;
  private nextId = 1;
  private readonly timers = new Map<number, { at: number; fn: () => void }>();

  constructor(start = Date.UTC(2026, 10, 23)) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.set(id, { at: this.time + Math.max(0, ms), fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    if (typeof handle === 'number') this.timers.delete(handle);
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
