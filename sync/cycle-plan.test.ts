// When cycles run, alone: the scheduling over a manual clock, with cycles the test ends itself
// (no database, no server), so each rule of cycle-plan.ts is seen on its own.
import { describe, expect, it } from 'vitest';

import * as plan from './cycle-plan';
import { ManualClock } from './kit/clock';

/** A plan whose cycles wait for `finish()`; `started` counts them. */
function planned(random = 0.5) {
  const clock = new ManualClock();
  const ends: (() => void)[] = [];
  let started = 0;
  const s = plan.newScheduleState(
    clock,
    () => random,
    () => {
      started += 1;
      return new Promise<void>((resolve) => ends.push(resolve));
    },
  );
  plan.lead(s);
  /** Ends the running cycle and lets its follow-up start. */
  const finish = async () => {
    ends.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  /** Starts the first cycle, as the engine's start() does. */
  const firstCycle = async () => {
    plan.syncNowEvenIfHeld(s);
    await clock.advanceAtOnce(0);
  };
  return { clock, s, finish, firstCycle, started: () => started };
}

describe('asking for a cycle', () => {
  it('runs one at the earliest time asked for: a later request never postpones it', async () => {
    const { clock, s, started } = planned();
    plan.syncSoon(s, 100);
    await clock.advanceAtOnce(60);
    plan.syncSoon(s, 100);
    await clock.advanceAtOnce(40);
    expect(started()).toBe(1);
    await clock.advanceAtOnce(1_000);
    expect(started()).toBe(1);
  });

  it('asked for while one runs: one more after it, however often it was asked', async () => {
    const { s, finish, started, firstCycle } = planned();
    await firstCycle();
    expect(started()).toBe(1);
    plan.syncSoon(s);
    plan.syncNowEvenIfHeld(s);
    await finish();
    expect(started()).toBe(2);
    await finish();
    expect(started()).toBe(2);
  });

  it('a write pushes at once when nothing runs, without asking for a pull', async () => {
    const { clock, s, finish, started, firstCycle } = planned();
    await firstCycle();
    await plan.pulling(s, () => Promise.resolve());
    await finish();
    plan.pushSoon(s);
    expect(started()).toBe(2);
    expect(s.pullDue).toBe(false);
    // A second write within the debounce, while the first is on the wire, waits for it.
    await clock.advanceAtOnce(plan.PUSH_DEBOUNCE_MS - 10);
    plan.pushSoon(s);
    await finish();
    expect(started()).toBe(2);
    await clock.advanceAtOnce(plan.PUSH_DEBOUNCE_MS);
    expect(started()).toBe(3);
  });
});

describe('holds and backoff', () => {
  it('a hold voids what was planned; only syncNowEvenIfHeld lifts it, with a pull', async () => {
    const { clock, s, started, firstCycle } = planned();
    plan.syncSoon(s, 100);
    plan.hold(s, 'signed-out');
    plan.syncSoon(s);
    plan.pushSoon(s);
    await clock.advanceAtOnce(plan.PERIODIC_SYNC_MS);
    expect(started()).toBe(0);
    await firstCycle();
    expect(started()).toBe(1);
    expect(s.pullDue).toBe(true);
  });

  it('retries after a jittered delay that doubles with each failure, until forgotten', async () => {
    const { clock, s, finish, started, firstCycle } = planned(0.5);
    await firstCycle();
    // Attempts 0 and 1, then 0 again once forgotten: half of 1 s, of 2 s, of 1 s.
    for (const [delayMs, forget] of [
      [500, false],
      [1_000, false],
      [500, true],
    ] as const) {
      if (forget) plan.forgetFailures(s);
      const before = started();
      plan.backOff(s);
      await finish();
      await clock.advanceAtOnce(delayMs - 1);
      expect(started()).toBe(before);
      await clock.advanceAtOnce(1);
      expect(started()).toBe(before + 1);
    }
  });

  it('a follow-up asked for "even if held" runs though its cycle then held the rest', async () => {
    const { s, finish, started, firstCycle } = planned();
    await firstCycle();
    plan.againEvenIfHeld(s);
    plan.hold(s, 'backoff');
    await finish();
    expect(started()).toBe(2);
  });
});

describe('leaving', () => {
  it('voids every plan; untilIdle settles once the last cycle ends', async () => {
    const { clock, s, finish, started, firstCycle } = planned();
    await firstCycle();
    plan.syncSoon(s);
    plan.syncSoon(s, 500);
    plan.planSafetyPull(s);
    let idle = false;
    void plan.untilIdle(s).then(() => (idle = true));
    plan.leave(s);
    await finish();
    await clock.advanceAtOnce(plan.PERIODIC_SYNC_MS);
    expect(started()).toBe(1);
    expect(idle).toBe(true);
    expect(s.role.kind).toBe('idle');
  });
});
