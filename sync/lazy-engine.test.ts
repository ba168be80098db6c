// The engine's stand-in (lazy-engine.ts): nothing is loaded before the engine is asked to
// run; what it was asked meanwhile reaches the engine once, as its last state; after that,
// every call goes straight through; the status store is the same throughout.
import { describe, expect, it, vi } from 'vitest';

import { lazyEngine } from './lazy-engine';
import type { SyncEngine } from './schedule';
import type { StatusStore, SyncStatus } from './status';

/** An engine that records what it is asked, over the status store it was given. */
function recordingEngine(status: StatusStore) {
  const calls: string[] = [];
  const engine: SyncEngine = {
    status,
    start: () => calls.push('start'),
    follow: () => calls.push('follow'),
    stop: () => {
      calls.push('stop');
      return Promise.resolve();
    },
    requestSync: () => calls.push('requestSync'),
    queued: () => calls.push('queued'),
    syncNow: () => {
      calls.push('syncNow');
      return Promise.resolve(status.getSnapshot());
    },
    retire: () => calls.push('retire'),
  };
  return { engine, calls };
}

/** A stand-in whose engine arrives when the test says. */
function deferredEngine() {
  let loads = 0;
  let arrive: () => void = () => undefined;
  let made: ReturnType<typeof recordingEngine> | undefined;
  const stand = lazyEngine((status) => {
    loads += 1;
    made = recordingEngine(status);
    const engine = made.engine;
    return new Promise<SyncEngine>((resolve) => (arrive = () => resolve(engine)));
  });
  return {
    stand,
    loads: () => loads,
    calls: () => made?.calls ?? [],
    /** Lets the engine's code arrive, and the stand-in hand it what it was asked. */
    arrive: async () => {
      arrive();
      await Promise.resolve();
      await Promise.resolve();
    },
  };
}

/** Once every promise already settled has run its callbacks (a macrotask comes after them). */
const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('lazyEngine', () => {
  it('loads nothing until asked to run, and keeps one status store throughout', async () => {
    const d = deferredEngine();
    const seen: SyncStatus[] = [];
    d.stand.status.subscribe(() => seen.push(d.stand.status.getSnapshot()));
    d.stand.queued();
    await d.stand.stop();
    expect(d.loads()).toBe(0);
    d.stand.follow();
    expect(d.loads()).toBe(1);
    await d.arrive();
    // The engine writes to the store the screens already read.
    d.stand.status.set({ phase: 'syncing' });
    expect(seen.map((s) => s.phase)).toEqual(['syncing']);
  });

  it('hands the engine only the last thing it was asked to be', async () => {
    const d = deferredEngine();
    d.stand.follow();
    d.stand.start();
    d.stand.requestSync();
    d.stand.queued(); // the start pushes what is queued
    await d.arrive();
    expect(d.calls()).toEqual(['start', 'requestSync']);
  });

  it('starts nothing when stopped before the engine came', async () => {
    const d = deferredEngine();
    d.stand.start();
    await d.stand.stop();
    await d.arrive();
    expect(d.calls()).toEqual([]);
    expect(d.loads()).toBe(1);
  });

  it('retires the engine it loads, after putting it where it was asked', async () => {
    const d = deferredEngine();
    d.stand.follow();
    d.stand.retire();
    await d.arrive();
    expect(d.calls()).toEqual(['follow', 'retire']);
  });

  it("asks for the engine's code again after it failed to load, and a write asks too", async () => {
    const failures: unknown[] = [];
    const logged = vi.spyOn(console, 'error').mockImplementation((...args) => failures.push(args));
    let loads = 0;
    let made: ReturnType<typeof recordingEngine> | undefined;
    const stand = lazyEngine((status) => {
      loads += 1;
      if (loads === 1) return Promise.reject(new Error('chunk missing'));
      made = recordingEngine(status);
      return Promise.resolve(made.engine);
    });
    stand.start();
    await settled();
    expect(failures).toHaveLength(1);
    expect(made).toBeUndefined();
    // A write while it leads: the engine's code is asked for again, and the engine starts.
    stand.queued();
    await settled();
    expect(made?.calls).toEqual(['start']);
    expect(loads).toBe(2);
    logged.mockRestore();
  });

  it('syncNow fails while the code cannot be loaded, and works once it can', async () => {
    let loads = 0;
    const stand = lazyEngine((status) => {
      loads += 1;
      return loads === 1
        ? Promise.reject(new Error('chunk missing'))
        : Promise.resolve(recordingEngine(status).engine);
    });
    await expect(stand.syncNow()).rejects.toThrow('chunk missing');
    await expect(stand.syncNow()).resolves.toMatchObject({ phase: 'starting' });
    expect(loads).toBe(2);
  });

  it('passes every call straight through once the engine is here', async () => {
    const d = deferredEngine();
    const done = d.stand.syncNow();
    await d.arrive();
    await done;
    d.stand.queued();
    d.stand.requestSync();
    await d.stand.stop();
    d.stand.start();
    expect(d.calls()).toEqual(['syncNow', 'queued', 'requestSync', 'stop', 'start']);
    expect(d.loads()).toBe(1);
  });
});
