// afterFirstPaint: the start's later work waits for the first screen to be on the screen.
import { describe, expect, it, vi } from 'vitest';

import {
  afterFirstPaint,
  FIRST_CONTENTFUL_PAINT_WAIT_MS,
  type PaintHost,
} from './after-first-paint';

/** A browser whose paint entries and timers the test reports and fires. */
function browser({ observer = true, throws = false } = {}) {
  const timers: { run: () => void; ms: number; cleared: boolean }[] = [];
  const observers: { report: (names: string[]) => void; disconnected: boolean }[] = [];
  class FakeObserver {
    disconnected = false;
    constructor(private readonly callback: PerformanceObserverCallback) {
      observers.push(this);
    }
    observe(options: PerformanceObserverInit) {
      if (throws) throw new TypeError('paint timing is not supported');
      expect(options).toEqual({ type: 'paint', buffered: true });
    }
    disconnect() {
      this.disconnected = true;
    }
    report(names: string[]) {
      const list = {
        getEntriesByName: (name: string) => names.filter((entry) => entry === name),
      } as unknown as PerformanceObserverEntryList;
      this.callback(list, this as unknown as PerformanceObserver);
    }
  }
  const host: PaintHost = {
    PerformanceObserver: observer
      ? (FakeObserver as unknown as typeof PerformanceObserver)
      : undefined,
    setTimeout: (run, ms) => timers.push({ run, ms, cleared: false }) - 1,
    clearTimeout: (id: never) => {
      const timer = timers[id as unknown as number];
      if (timer) timer.cleared = true;
    },
  };
  return { host, timers, observers };
}

describe('afterFirstPaint', () => {
  it('runs once the first contentful paint is reported, not at the first paint, and only once', () => {
    const { host, timers, observers } = browser();
    const run = vi.fn();
    afterFirstPaint(run, host);
    expect(run).not.toHaveBeenCalled();
    observers[0]!.report(['first-paint']); // the blank frame before the screen's
    expect(run).not.toHaveBeenCalled();
    observers[0]!.report(['first-contentful-paint']);
    expect(run).toHaveBeenCalledTimes(1);
    expect(observers[0]!.disconnected).toBe(true);
    expect(timers[0]!.cleared).toBe(true);
    timers[0]!.run(); // a timer that fired anyway
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('runs after FIRST_CONTENTFUL_PAINT_WAIT_MS when nothing is painted (a tab in the background)', () => {
    const { host, timers, observers } = browser();
    const run = vi.fn();
    afterFirstPaint(run, host);
    expect(timers.map((timer) => timer.ms)).toEqual([FIRST_CONTENTFUL_PAINT_WAIT_MS]);
    timers[0]!.run();
    expect(run).toHaveBeenCalledTimes(1);
    expect(observers[0]!.disconnected).toBe(true);
    observers[0]!.report(['first-contentful-paint']); // shown later
    expect(run).toHaveBeenCalledTimes(1);
  });

  it.each([
    ['has no PerformanceObserver', { observer: false }],
    ['cannot observe paints', { throws: true }],
  ])('runs on the timer where the browser %s', (_, options) => {
    const { host, timers } = browser(options);
    const run = vi.fn();
    afterFirstPaint(run, host);
    expect(run).not.toHaveBeenCalled();
    timers[0]!.run();
    expect(run).toHaveBeenCalledTimes(1);
  });
});
