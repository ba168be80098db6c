// When the next sync cycle runs (sync-design.md "When sync runs"): the engine's scheduling
// state as one value, and every change to it in this file. Which tab leads and what it listens
// to is schedule.ts's; what a cycle does, cycle.ts's.
import { backoffDelayMs } from './backoff';
import type { Clock } from './platform';

/**
 * A local write is pushed at once, unless another landed less than this long before it (ms):
 * then it is part of a burst, whose push waits until the writes pause this long.
 */
export const PUSH_DEBOUNCE_MS = 30;
/**
 * The longest a burst's push waits for its writes to pause, from the first write it waits for
 * (ms): writes at machine speed (a script, a bulk action replayed one by one) go in requests of
 * this many milliseconds' worth, never held longer.
 */
export const BURST_MAX_WAIT_MS = 100;
/** Safety pull while online (ms). */
export const PERIODIC_SYNC_MS = 60_000;

/** Why cycles wait for syncNowEvenIfHeld: the server is failing, or there is no session. */
export type HoldReason = 'backoff' | 'signed-out';

/** The leader's plans; a follower or an idle engine plans nothing, so it has none. */
interface LeaderPlans {
  readonly kind: 'leader';
  /** Set while backing off or signed out: only syncNowEvenIfHeld starts a cycle then. */
  hold: HoldReason | null;
  /**
   * The one timed start: a later request never postpones an earlier one, except a burst's
   * push (`burst`), which each write of the burst moves later (see pushSoon).
   */
  planned: { at: number; timer: unknown; burst: boolean } | null;
  /**
   * The backoff's retry. Not cleared when a cycle asked for "even if held" lifts the hold
   * after a failure: it then fires into a cycle that finds little to do.
   */
  retryTimer: unknown;
  /** The safety pull, PERIODIC_SYNC_MS after the last successful cycle. */
  safetyPullTimer: unknown;
}

/** What this engine is in its tab. */
type Role = { readonly kind: 'idle' } | { readonly kind: 'follower' } | LeaderPlans;

/** What runs once the cycle under way ends. */
type FollowUp = 'nothing' | 'another' | 'another-even-if-held';

/** The cycle under way: it outlives leadership (stop() waits for it), so it is not the role's. */
interface RunningCycle {
  done: Promise<void>;
  then: FollowUp;
}

/**
 * Everything an engine knows of when to sync, in one value; the functions below are its only
 * writers. (Functions over a value rather than an object's methods: a bundle shortens their
 * names, not a method's, and the library counts its bytes.)
 */
export interface ScheduleState {
  readonly clock: Clock;
  /** Uniform in [0, 1): the backoff's jitter. */
  readonly random: () => number;
  /** One cycle (cycle.ts); it must not reject. */
  readonly runCycle: () => Promise<void>;
  role: Role;
  cycle: RunningCycle | null;
  /** Failed cycles in a row: the backoff's attempt. */
  failures: number;
  /**
   * A pull was asked for (start, a sign-in, the network back, focus, realtime news, the
   * safety pull, a retry, the user) and has not started since. A cycle asked for only by
   * local writes pushes without pulling while every topic is live: the push's answer carries
   * the rows it changed, and realtime the rest (a topic lost and joined again asks for a pull).
   */
  pullDue: boolean;
  /** When a local write last asked for a push (see pushSoon). */
  lastWriteAt: number;
  /** When the first write the planned burst push waits for came; null with none waiting. */
  burstSince: number | null;
  /** untilIdle's callers, waiting for the last cycle to end. */
  readonly idleWaiters: (() => void)[];
}

/** A cycle asked for: after `delayMs`, whether a hold is lifted for it, and with a pull. */
interface CycleRequest {
  delayMs: number;
  evenIfHeld: boolean;
  pull: boolean;
}

/** An idle engine's scheduling: nothing planned, a pull due. */
export function newScheduleState(
  clock: Clock,
  random: () => number,
  runCycle: () => Promise<void>,
): ScheduleState {
  return {
    clock,
    random,
    runCycle,
    role: { kind: 'idle' },
    cycle: null,
    failures: 0,
    pullDue: true,
    lastWriteAt: -Infinity,
    burstSince: null,
    idleWaiters: [],
  };
}

function leader(s: ScheduleState): LeaderPlans | undefined {
  return s.role.kind === 'leader' ? s.role : undefined;
}

/** Becomes the leader, with nothing planned yet. */
export function lead(s: ScheduleState): void {
  leave(s);
  s.role = {
    kind: 'leader',
    hold: null,
    planned: null,
    retryTimer: undefined,
    safetyPullTimer: undefined,
  };
}

/** Becomes a follower (from idle): it plans nothing. */
export function follow(s: ScheduleState): void {
  s.role = { kind: 'follower' };
}

/** Back to idle: every plan and timer goes; the cycle under way runs to its end, alone. */
export function leave(s: ScheduleState): void {
  const plans = leader(s);
  if (plans) {
    s.clock.clearTimeout(plans.retryTimer);
    s.clock.clearTimeout(plans.planned?.timer);
    s.clock.clearTimeout(plans.safetyPullTimer);
  }
  if (s.cycle) s.cycle.then = 'nothing';
  s.role = { kind: 'idle' };
}

/** Settles once no cycle runs and none follows (or the engine stops: releaseWaiters). */
export function untilIdle(s: ScheduleState): Promise<void> {
  return new Promise<void>((resolve) => s.idleWaiters.push(resolve));
}

/** Settles every untilIdle now (the last cycle ended, or the engine stopped). */
export function releaseWaiters(s: ScheduleState): void {
  for (const resolve of s.idleWaiters.splice(0)) resolve();
}

/**
 * A cycle with its pull after `delayMs`, unless cycles are held (backing off after errors,
 * or signed out): a realtime event, tab focus or the safety pull must not cut a backoff
 * short, or a failing server gets a request for every message.
 */
export function syncSoon(s: ScheduleState, delayMs = 0): void {
  planCycle(s, { delayMs, evenIfHeld: false, pull: true });
}

/**
 * A cycle with its pull now, held or not: the user asked, the network or a session came
 * back, or a retry is due.
 */
export function syncNowEvenIfHeld(s: ScheduleState): void {
  planCycle(s, { delayMs: 0, evenIfHeld: true, pull: true });
}

/**
 * New local changes to push: a cycle at once for a lone write; within a burst, once its writes
 * pause for PUSH_DEBOUNCE_MS, or BURST_MAX_WAIT_MS after the first write waiting, whichever
 * comes first, so a burst goes in few requests and none of it waits long. A burst is writes
 * less than PUSH_DEBOUNCE_MS apart while a cycle runs or is planned: once everything before is
 * sent and nothing is planned, there is nothing for a write to wait for.
 */
export function pushSoon(s: ScheduleState): void {
  const now = s.clock.now();
  const plans = leader(s);
  // Only a push on the wire or planned makes a write wait: a pull planned for later (a realtime
  // join's) does not, and the cycle started now does that pull too.
  const busy = s.cycle !== null || (plans?.planned?.burst ?? false);
  const burst = busy && now - s.lastWriteAt < PUSH_DEBOUNCE_MS;
  s.lastWriteAt = now;
  // Idle: the cycle starts now, not a timer's turn later. Its first store reads are then
  // asked for before the screens' live queries re-read what the write changed, instead of
  // queueing behind them.
  if (!busy && plans?.hold === null) {
    s.clock.clearTimeout(plans.planned?.timer);
    plans.planned = null;
    startCycle(s);
  } else if (burst && plans?.hold === null) planBurstPush(s, plans, now);
  else planCycle(s, { delayMs: 0, evenIfHeld: false, pull: false });
}

/**
 * The burst's push: PUSH_DEBOUNCE_MS after this write, capped at BURST_MAX_WAIT_MS after the
 * first write waiting. An earlier start planned for another reason takes the burst along.
 */
function planBurstPush(s: ScheduleState, plans: LeaderPlans, now: number): void {
  s.burstSince ??= now;
  const at = Math.min(now + PUSH_DEBOUNCE_MS, s.burstSince + BURST_MAX_WAIT_MS);
  if (plans.planned && !plans.planned.burst && plans.planned.at <= at) return;
  startAt(s, plans, at, true);
}

/** One more cycle once the running one ends, held or not (a refresh worked, a resync began). */
export function againEvenIfHeld(s: ScheduleState): void {
  followWith(s, 'another-even-if-held');
}

/** Starts nothing until syncNowEvenIfHeld: cycles planned so far (a write's) are void. */
export function hold(s: ScheduleState, why: HoldReason): void {
  const plans = leader(s);
  if (!plans) return;
  plans.hold = why;
  s.clock.clearTimeout(plans.planned?.timer);
  plans.planned = null;
}

/** Holds cycles and plans the retry: 1 s doubling to 60 s, full jitter (product.md §8, §9). */
export function backOff(s: ScheduleState): void {
  const delay = backoffDelayMs(s.failures, s.random);
  s.failures += 1;
  hold(s, 'backoff');
  const plans = leader(s);
  if (!plans) return;
  s.clock.clearTimeout(plans.retryTimer);
  plans.retryTimer = s.clock.setTimeout(() => syncNowEvenIfHeld(s), delay);
}

/** The safety pull, PERIODIC_SYNC_MS from now (after a cycle went through). */
export function planSafetyPull(s: ScheduleState): void {
  const plans = leader(s);
  if (!plans) return;
  s.clock.clearTimeout(plans.safetyPullTimer);
  plans.safetyPullTimer = s.clock.setTimeout(() => syncSoon(s), PERIODIC_SYNC_MS);
}

/** Runs `pull`: no longer due while it runs, due again if it fails. */
export async function pulling(s: ScheduleState, pull: () => Promise<void>): Promise<void> {
  s.pullDue = false;
  try {
    await pull();
  } catch (error) {
    s.pullDue = true;
    throw error;
  }
}

/** What follows the running cycle: at least `then` (an "even if held" is never lowered). */
function followWith(s: ScheduleState, then: Exclude<FollowUp, 'nothing'>): void {
  if (!s.cycle || s.cycle.then === 'another-even-if-held') return;
  s.cycle.then = then;
}

function planCycle(s: ScheduleState, { delayMs, evenIfHeld, pull }: CycleRequest): void {
  const plans = leader(s);
  if (!plans) return;
  if (pull) s.pullDue = true;
  if (plans.hold && !evenIfHeld) return;
  if (evenIfHeld) {
    plans.hold = null;
    s.clock.clearTimeout(plans.retryTimer);
  }
  if (s.cycle && delayMs === 0) {
    // Once the running cycle ends, another one (see startCycle).
    followWith(s, evenIfHeld ? 'another-even-if-held' : 'another');
    return;
  }
  const at = s.clock.now() + delayMs;
  if (plans.planned && plans.planned.at <= at) {
    // A burst's push no longer moves: this request must not be put off by it.
    plans.planned.burst = false;
    return;
  }
  startAt(s, plans, at, false);
}

/** Plans the one timed start at `at`, in place of the one planned. */
function startAt(s: ScheduleState, plans: LeaderPlans, at: number, burst: boolean): void {
  s.clock.clearTimeout(plans.planned?.timer);
  const timer = s.clock.setTimeout(
    () => {
      plans.planned = null;
      startCycle(s);
    },
    Math.max(0, at - s.clock.now()),
  );
  plans.planned = { at, timer, burst };
}

/** Starts a cycle now, or one more once the running one ends. */
function startCycle(s: ScheduleState): void {
  if (!leader(s)) return;
  if (s.cycle) {
    followWith(s, 'another');
    return;
  }
  const cycle: RunningCycle = { done: Promise.resolve(), then: 'nothing' };
  // The cycle takes every write queued so far: a burst's next push waits from its next write.
  s.burstSince = null;
  cycle.done = s.runCycle().finally(() => {
    s.cycle = null;
    const plans = leader(s);
    const next =
      cycle.then === 'another-even-if-held' || (cycle.then === 'another' && plans?.hold === null);
    if (plans && next) {
      if (cycle.then === 'another-even-if-held') plans.hold = null;
      startCycle(s);
    } else {
      releaseWaiters(s);
    }
  });
  s.cycle = cycle;
}

/** The failures so far are forgotten (a cycle went through, or the network came back). */
export function forgetFailures(s: ScheduleState): void {
  s.failures = 0;
}
