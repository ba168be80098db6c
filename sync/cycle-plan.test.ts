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

describe('a burst of writes', () => {
  /**
   * A leader whose first cycle ran, then a write pushed at once and another 5 ms later while
   * the first was on the wire (a burst, whose push is planned), and that push answered.
   */
  async function burstUnderWay() {
    const planning = planned();
    await planning.firstCycle();
    await planning.finish();
    plan.pushSoon(planning.s);
    await planning.clock.advanceAtOnce(5);
    plan.pushSoon(planning.s);
    await planning.finish();
    return planning;
  }

  it('is pushed once its writes pause for PUSH_DEBOUNCE_MS', async () => {
    const { clock, s, started } = await burstUnderWay();
    const before = started();
    // Four more writes 10 ms apart: each moves the push later (100 ms is not reached).
    for (let i = 0; i < 4; i++) {
      await clock.advanceAtOnce(10);
      plan.pushSoon(s);
    }
    await clock.advanceAtOnce(plan.PUSH_DEBOUNCE_MS - 1);
    expect(started()).toBe(before);
    await clock.advanceAtOnce(1);
    expect(started()).toBe(before + 1);
  });

  it('that never pauses is pushed BURST_MAX_WAIT_MS after its first waiting write', async () => {
    const { clock, s, finish, started } = await burstUnderWay();
    const before = started();
    // Counted from the burst's first write waiting, 5 ms into the push before.
    let waited = 0;
    const writeEvery = 5;
    while (started() === before) {
      await clock.advanceAtOnce(writeEvery);
      waited += writeEvery;
      plan.pushSoon(s);
    }
    expect(waited).toBe(plan.BURST_MAX_WAIT_MS);
    // The next push waits from the next write: never more than BURST_MAX_WAIT_MS either.
    await finish();
    waited = 0;
    while (started() === before + 1) {
      await clock.advanceAtOnce(writeEvery);
      waited += writeEvery;
      plan.pushSoon(s);
    }
    expect(waited).toBeLessThanOrEqual(plan.BURST_MAX_WAIT_MS + writeEvery);
  });

  it('is not made of writes whose pushes are answered: a pull planned later does not hold one', async () => {
    const { clock, s, finish, started, firstCycle } = planned();
    await firstCycle();
    await finish();
    plan.pushSoon(s);
    await finish();
    // A realtime join asks for a pull 100 ms from now; a write 5 ms after the last goes at once.
    plan.syncSoon(s, 100);
    await clock.advanceAtOnce(5);
    const before = started();
    plan.pushSoon(s);
    expect(started()).toBe(before + 1);
    expect(s.pullDue).toBe(true);
  });

  it('never puts off a cycle asked for before it, however the burst goes on', async () => {
    const { clock, s, started } = await burstUnderWay();
    const before = started();
    // The burst's push is 30 ms away; a pull asked for 50 ms from now: the push takes it along,
    // and the writes that follow, 10 ms apart, move it no more.
    plan.syncSoon(s, 50);
    for (let i = 0; i < 5 && started() === before; i++) {
      await clock.advanceAtOnce(10);
      plan.pushSoon(s);
    }
    expect(started()).toBe(before + 1);
    expect(s.pullDue).toBe(true);
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
