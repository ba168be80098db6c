// The scaffolding of the randomised convergence suites (sync-convergence, recurrence-
// convergence): users on fault networks, one device each behind a RealtimeTap, driven on one
// ManualClock; the network and message faults of a schedule, its per-step device faults and
// the heal. Each suite keeps its own odds and edits and passes them in. Draws come from the
// suite's streams in the order the suites have always drawn them, so a seed keeps its schedule.
import { randomInt } from 'node:crypto';

import type { SupabaseClient } from '@supabase/supabase-js';
import { expect } from 'vitest';

import { cuttableWebSocket, FaultyNetwork, seededRandom, type Fault } from '../../sync/kit/faults';
import type { SyncStatus } from '../../sync/status';
import { SEED, type TestDevstack } from './devstack';
import { diffSpec, serverView, specView } from './oracle';
import type { ManualClock } from './manual-clock';
import { RealtimeTap, type MessageFault } from './realtime-tap';
import { clientFor, signIn, startDevice, type Device } from './sync-client';

/**
 * A run's seeds: SCHEDULES of them (16 unless set) from SEED or a new first seed each run
 * (schedule i uses first + i), then the `found` seeds that once failed (unless SEED picks
 * one), with the command that replays one of `file`'s schedules alone.
 */
export function scheduleSeeds(file: string, found: readonly number[] = []) {
  const schedules = Number(process.env.SCHEDULES ?? 16);
  const first = process.env.SEED ? Number(process.env.SEED) : randomInt(1, 2 ** 31);
  return {
    schedules,
    first,
    seeds: [
      ...Array.from({ length: schedules }, (_, i) => first + i),
      ...(process.env.SEED ? [] : found),
    ],
    replay: (seed: number) => `SEED=${seed} SCHEDULES=1 npx vitest run ${file}`,
  };
}

/**
 * A schedule's random streams from its seed: `random` (the steps' draws, `pick` among items)
 * and `stream()` for one more. Separate streams for the steps, each network's faults and each
 * device's backoff jitter: how the real I/O interleaves changes how many draws the faults
 * take, not which steps a seed makes.
 */
export function scheduleStreams(seed: number) {
  const streams = seededRandom(seed);
  const stream = () => seededRandom(Math.floor(streams() * 2 ** 32));
  const random = stream();
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  return { stream, random, pick };
}

/**
 * A request left hanging is abandoned after this long (ms of the manual clock, so it costs
 * no real time). Short next to the longer pauses between steps, so a hung request can end
 * while steps still come (a slow real answer may be cut short then too: one more fault).
 * The heal moves time only when nothing is on the wire, so there a slow answer (a page of
 * 1,000 rows on a loaded machine) is never cut short and the schedule always settles.
 */
const REQUEST_TIMEOUT_MS = 1_500;
/**
 * Timer jumps one sync may take before the schedule counts as stuck: a sync needs a few (its
 * wake-up, a hung request's timeout, a delay, the others' realtime wake-ups). A sync that
 * never ends stops here, with the schedule's state, within seconds.
 */
const MAX_JUMPS_PER_SYNC = 500;
/**
 * Real time after which a schedule counts as stuck (ms): a backstop for I/O that never goes
 * quiet, which no timer jump can end. A schedule takes 1–3 s, a few more on a loaded machine.
 */
export const SCHEDULE_MAX_MS = 60_000;
/** Real time an engine may spend mid-sync with nothing on the wire before time may jump. */
const SYNCING_WITHOUT_IO_MS = 2_000;
/**
 * A crash comes up to this many turns of the event loop after its sync was asked for: from
 * before anything is frozen, through a push on the wire, to after its answer was applied.
 */
const CRASH_TURNS_MAX = 60;
/** syncNow calls per device in the heal before giving up on it settling. */
const HEAL_ATTEMPTS = 20;

/** A user of the schedules: their own fault network, client and realtime sockets. */
export interface ChaosUser {
  name: string;
  id: string;
  net: FaultyNetwork;
  supabase: SupabaseClient;
  /** Cuts this user's realtime sockets (the server vanishing for a moment). */
  cutSockets: () => number;
}

/** Where the running schedule is and its devices (a suite may keep more in it). */
export interface ScheduleProgress {
  seed: number;
  where: string;
  /** The schedule's list, dropped once it is done. */
  listId: string | undefined;
  devices: Map<string, Device>;
}

/**
 * The network faults a schedule's requests meet, one drawn per faulty request. Lost responses
 * and duplicates are what exactly-once must survive: weighted up.
 */
const NETWORK_CHAOS: readonly Fault[] = [
  'drop-response',
  'drop-response',
  'duplicate',
  'drop-request',
  'delay',
  'status-500',
  'status-503',
  'status-429',
  'expire-token',
  'hang',
];

/**
 * Where a step's roll (0–1) makes a device-level fault instead of an edit: below `offline`
 * the device goes on or offline, below `reload` it reloads, below `crash` it crashes, below
 * `cut` its sockets are cut (each bound above the one before).
 */
export interface DeviceFaultBounds {
  offline: number;
  reload: number;
  crash: number;
  cut: number;
}

/**
 * Alice, bob (seeded users) and carol (signed up now), each signed in on a client of their
 * own, over a fault network whose delays wait on `clock` and sockets that can be cut.
 */
export async function chaosUsers(stack: TestDevstack, clock: ManualClock): Promise<ChaosUser[]> {
  const carolEmail = `carol-${Date.now()}@example.com`;
  const { data, error } = await stack
    .client()
    .auth.signUp({ email: carolEmail, password: 'secret-123' });
  if (error || !data.user) throw error ?? new Error('no user');
  const make = async (name: string, id: string, email: string, password?: string) => {
    // Delays wait on the schedules' clock; their lengths come from each schedule's chaos().
    const net = new FaultyNetwork({ clock });
    const sockets = cuttableWebSocket();
    const supabase = clientFor(stack, net.fetch, sockets.transport);
    await signIn(supabase, email, password);
    return { name, id, net, supabase, cutSockets: () => sockets.cut() };
  };
  return [
    await make('alice', SEED.alice, 'alice@example.com'),
    await make('bob', SEED.bob, 'bob@example.com'),
    await make('carol', data.user.id, carolEmail, 'secret-123'),
  ];
}

/** Network faults fired over the run, summed over `users`, as `fault n, …`. */
export function firedSummary(users: readonly ChaosUser[]): string {
  const fired = new Map<string, number>();
  for (const user of users) {
    for (const [fault, n] of user.net.fired) fired.set(fault, (fired.get(fault) ?? 0) + n);
  }
  return [...fired].map(([f, n]) => `${f} ${n}`).join(', ');
}

/** Whether a device is idle with nothing queued. */
const isSettled = (status: SyncStatus) => status.phase === 'synced' && status.pending === 0;

/** Resolves once a started device has synced for the first time, with nothing queued. */
function firstSync(device: Device): Promise<SyncStatus> {
  const { status } = device.sync.engine;
  return new Promise((resolve) => {
    const check = () => {
      const now = status.getSnapshot();
      if (now.lastSyncedAt === null || !isSettled(now)) return;
      off();
      resolve(now);
    };
    const off = status.subscribe(check);
    check();
  });
}

/** Lets `n` turns of the event loop go by: what is running goes on, by a step or two. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Virtual time between two steps (ms): mostly a moment, about a push's debounce; now and
 * then long enough for a backoff, a delay or a hung request to run out.
 */
function pauseMs(random: () => number): number {
  return random() < 0.15 ? 250 + Math.floor(random() * 2_500) : Math.floor(random() * 40);
}

/** A suite's odds for the faults of its schedules' steps (each suite keeps its own). */
export interface ChaosOdds {
  /** How often the I/O set off between two steps settles before the next one (else it races). */
  settleBetweenSteps: number;
  /** Odds of each realtime message fault per row message (the rest are delivered). */
  messageFaults: readonly (readonly [MessageFault, number])[];
  /** Odds that a device's held messages are delivered at a step (in or out of order). */
  releasePerStep: number;
  /** Where a step's roll makes a device-level fault instead of an edit. */
  deviceFaults: DeviceFaultBounds;
}

/** How a ChaosDriver moves the clock and says where a schedule got stuck. */
export interface ChaosDriverOptions {
  /** The suite's devstack (read at each call: it starts in beforeAll). */
  stack: () => TestDevstack;
  clock: ManualClock;
  /** The suite's users (read at each call: they are signed in in beforeAll). */
  users: () => readonly ChaosUser[];
  progress: ScheduleProgress;
  /** The running schedule's state, for one that got stuck. */
  describeStuck: () => Promise<string>;
  odds: ChaosOdds;
}

/** Moves a suite's ManualClock while its devices work, and runs their per-step faults. */
export class ChaosDriver {
  /** Realtime message faults that fired, over the run. */
  readonly messageFaults = new Map<MessageFault, number>();
  private calm: { state: string; since: number } | undefined;
  /** The running schedule's taps, by user name, and the stream its releases draw from. */
  private schedule: { taps: Map<string, RealtimeTap>; releases: () => number } = {
    taps: new Map(),
    releases: () => 0,
  };

  constructor(private readonly options: ChaosDriverOptions) {}

  /**
   * Whether time may jump: nothing is on the wire, and no engine is in the middle of a sync
   * (busy in IndexedDB between two requests) unless a request is held back by a fault, which
   * only the clock can end. Jumping while an engine works would not be wrong (time passes),
   * but would fire the others' timers early: a 60 s pull each, for nothing.
   */
  readonly quiet = (): boolean => {
    const users = this.options.users();
    if (!users.every((user) => user.net.inFlight === 0)) {
      this.calmSince(undefined);
      return false;
    }
    if (users.some((user) => user.net.held > 0)) return true;
    const syncing = [...this.options.progress.devices.values()].some(
      (device) => device.sync.engine.status.getSnapshot().phase === 'syncing',
    );
    if (!syncing) return true;
    // An engine mid-sync with nothing on the wire for a long stretch of real time is waiting on
    // the clock (seed 263442815: a reload's stop waited on a sync that waited on a timer, and
    // the clock waited on the sync), so time may move after all.
    return this.calmSince(`${this.options.clock.now()}`) >= SYNCING_WITHOUT_IO_MS;
  };

  /** How long (real ms) `state` has held; undefined resets it. Returns 0 on a change. */
  private calmSince(state: string | undefined): number {
    if (state === undefined) {
      this.calm = undefined;
      return 0;
    }
    const now = performance.now();
    if (this.calm?.state !== state) this.calm = { state, since: now };
    return now - this.calm.since;
  }

  /**
   * Awaits `work` (a sync, a stop) while moving the clock: time jumps to the next timer
   * whenever the I/O is quiet (see `quiet`). A sync that never ends is reported with the
   * schedule's state instead of hanging the run.
   */
  async drive<T>(work: Promise<T>, where: string): Promise<T> {
    this.options.progress.where = where;
    // The work's own failure is rethrown as it is; only runUntil's own means stuck.
    const ended = work.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    let outcome: Awaited<typeof ended>;
    try {
      outcome = await this.options.clock.runUntil(ended, {
        quiet: this.quiet,
        maxJumps: MAX_JUMPS_PER_SYNC,
        waitWithoutTimers: true,
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`${reason}\n${await this.options.describeStuck()}`, { cause: error });
    }
    if ('error' in outcome) throw outcome.error;
    return outcome.value;
  }

  /** Lets the I/O that is going on settle (no request on the wire, no engine mid-sync). */
  async settled(): Promise<void> {
    await this.options.clock.runUntil(Promise.resolve(), { quiet: this.quiet });
  }

  /**
   * Starts a schedule: a device for each of `members` into the schedule's devices, each one's
   * realtime messages through a tap (delivered as they come until the faults are armed) and
   * its backoff jitter from a stream of its own; then arms the faults (see `armFaults`) and
   * takes one more stream for the steps' releases of held messages.
   */
  async startSchedule(members: readonly ChaosUser[], stream: () => () => number): Promise<void> {
    const { devices } = this.options.progress;
    const taps = new Map(members.map((user) => [user.name, new RealtimeTap()]));
    for (const user of members) {
      user.net.heal();
      const device = await startDevice(this.options.stack(), null, {
        supabase: user.supabase,
        random: stream(),
        requestTimeoutMs: REQUEST_TIMEOUT_MS,
        clock: this.options.clock,
        wrapRemote: (taps.get(user.name) as RealtimeTap).wrap,
      });
      devices.set(user.name, device);
      // Its first sync (start() runs one), not one more on top of it. One device after the
      // other: started side by side, each one's realtime join wakes the others for more pulls.
      await this.drive(firstSync(device), `setup, ${user.name}`);
    }
    this.armFaults(members, taps, stream);
    this.schedule = { taps, releases: stream() };
  }

  /**
   * Arms a schedule's faults: each member's network at random among NETWORK_CHAOS (half its
   * requests, from a stream each), then each tap's message faults at the suite's odds (the
   * rest are delivered), counted into messageFaults. Message faults come from streams of
   * their own, drawn after all the others: how many messages the I/O brings changes their
   * draws only, never the edits or the network's faults.
   */
  private armFaults(
    members: readonly ChaosUser[],
    taps: Map<string, RealtimeTap>,
    stream: () => () => number,
  ): void {
    for (const user of members) user.net.chaos(0.5, stream(), NETWORK_CHAOS);
    for (const tap of taps.values()) {
      const fate = stream();
      tap.fault = () => {
        let roll = fate();
        for (const [fault, odds] of this.options.odds.messageFaults) {
          if (roll < odds) {
            this.messageFaults.set(fault, (this.messageFaults.get(fault) ?? 0) + 1);
            return fault;
          }
          roll -= odds;
        }
        return 'deliver';
      };
    }
  }

  /**
   * The start of step `step` of the schedule: messages held back come now, late (after
   * pulls, pushes and later messages); the clock moves on, firing the engines' timers (a
   * push's debounce, a backoff, a hung request's timeout); then the step comes either at
   * once, racing what they set off (a push on the wire, a pull being applied), or once it
   * has settled. One of `members` is picked; a device-level fault may take the step (see
   * `deviceFault`). Returns the user whose step it is to make, or undefined.
   */
  async step(
    step: number,
    members: readonly ChaosUser[],
    random: () => number,
    pick: <T>(items: readonly T[]) => T,
  ): Promise<ChaosUser | undefined> {
    const { odds, progress } = this.options;
    const { taps, releases } = this.schedule;
    progress.where = `step ${step}`;
    for (const tap of taps.values()) {
      if (releases() < odds.releasePerStep) tap.release(releases() < 0.5 ? 'reverse' : 'fifo');
    }
    await this.options.clock.advanceAtOnce(pauseMs(random));
    if (random() < odds.settleBetweenSteps) await this.settled();
    const user = pick(members);
    const roll = random();
    return (await this.deviceFault(user, roll, step, random)) ? undefined : user;
  }

  /**
   * A step's device-level fault, if `roll` falls on one (see DeviceFaultBounds): true when
   * the step was one, false when it is the suite's to make an edit. A crash draws how many
   * turns of the event loop it waits from `random`, below CRASH_TURNS_MAX.
   */
  private async deviceFault(
    user: ChaosUser,
    roll: number,
    step: number,
    random: () => number,
  ): Promise<boolean> {
    const { devices } = this.options.progress;
    const bounds = this.options.odds.deviceFaults;
    const device = devices.get(user.name) as Device;
    if (roll < bounds.offline) {
      device.online.set(!device.online.isOnline());
      return true;
    }
    if (roll < bounds.reload) {
      // A reload: a new engine over the same IndexedDB, with whatever the old one left
      // queued or frozen (a request lost mid-flight is the drop-response fault). The old
      // engine's push in flight finishes first, however long the clock must run for it.
      await this.drive(device.sync.stop(), `step ${step}, reloading ${user.name}`);
      const reloaded = device.reload();
      await device.sync.close();
      devices.set(user.name, reloaded);
      return true;
    }
    if (roll < bounds.crash) {
      // A crash, most likely while a push is on the wire: the server may apply what the
      // dead tab never hears about; the next start must replay it, applied once.
      device.sync.engine.requestSync();
      await this.options.clock.advanceAtOnce(0);
      await turns(Math.floor(random() * CRASH_TURNS_MAX));
      devices.set(user.name, device.crash());
      return true;
    }
    if (roll < bounds.cut) {
      user.cutSockets();
      return true;
    }
    return false;
  }

  /**
   * Heal: faults off, everyone online, each device in turn syncs until it is idle (at most
   * HEAL_ATTEMPTS syncs), so all that was queued is on the server; a check's sync then brings
   * each one what the others sent. Time moves only while nothing is on the wire: backoffs,
   * hung requests and delays run out at once. What is still held comes after the heal's
   * pulls already brought its rows, out of order and twice: stale, it must change nothing.
   */
  async heal(members: readonly ChaosUser[]): Promise<void> {
    const { taps } = this.schedule;
    const { devices } = this.options.progress;
    for (const user of members) user.net.heal();
    for (const tap of taps.values()) tap.fault = () => 'deliver';
    for (const device of devices.values()) device.online.set(true);
    for (const [name, device] of devices) {
      for (let i = 0; i < HEAL_ATTEMPTS; i++) {
        const status = await this.drive(
          device.sync.engine.syncNow(),
          `heal, ${name}, attempt ${i}`,
        );
        if (isSettled(status)) break;
      }
    }
    for (const tap of taps.values()) tap.release('reverse', 2);
  }

  /**
   * Runs a schedule (`work`: its steps and checks), failing it with the schedule's state if
   * it still runs after SCHEDULE_MAX_MS of real time, then cleans up (see `cleanUp`).
   */
  async guarded(work: () => Promise<void>): Promise<void> {
    let watchdog: ReturnType<typeof setTimeout> | undefined;
    const stuck = new Promise<never>((_, reject) => {
      watchdog = setTimeout(() => {
        void this.options
          .describeStuck()
          .then((state) =>
            reject(
              new Error(
                `schedule still running after ${SCHEDULE_MAX_MS} ms of real time\n${state}`,
              ),
            ),
          );
      }, SCHEDULE_MAX_MS);
    });
    try {
      await Promise.race([work(), stuck]);
    } finally {
      clearTimeout(watchdog);
      await this.cleanUp();
    }
  }

  /**
   * Checks one user's healed device: a sync run to its end, settled (as of a sync that has
   * just settled: a late wake-up, such as a realtime rejoin after a cut socket asking for a
   * pull, may otherwise be caught mid-run), and I5: what sync_pull says the user may see is
   * what product.md §6 says, read from the tables without it. Returns sync_pull's view, for
   * the suite's own checks; `at` labels a failure.
   */
  async settledView(user: ChaosUser, device: Device, at: (what: string) => string) {
    const { db } = this.options.stack();
    const status = await this.drive(device.sync.engine.syncNow(), `checking, ${user.name}`);
    expect
      .soft(
        { phase: status.phase, pending: status.pending, lastError: status.lastError?.code },
        at(`${user.name}'s device settled`),
      )
      .toEqual({ phase: 'synced', pending: 0, lastError: undefined });
    const server = await serverView(db, user.id);
    expect
      .soft(
        diffSpec(server, await specView(db, user.id)),
        at(`${user.name}: sync_pull's view against product.md §6's`),
      )
      .toEqual([]);
    return server;
  }

  /**
   * Stops the schedule's engines (letting the clock run out what they wait on), closes its
   * devices and drops its list: the next schedule's fresh devices need not pull this one's
   * (everything in it goes with it, on delete cascade), so the 2,000th costs what the first does.
   */
  async cleanUp(): Promise<void> {
    const { progress } = this.options;
    const devices = [...progress.devices];
    for (const [name, device] of devices) {
      await this.drive(device.sync.stop(), `closing ${name}`).catch(() => undefined);
    }
    progress.devices = new Map();
    // Each user's own client and sockets: they close side by side.
    await Promise.all(devices.map(([, device]) => device.close().catch(() => undefined)));
    if (progress.listId) {
      await this.options
        .stack()
        .db.query('delete from public.lists where id = $1', [progress.listId]);
    }
    progress.listId = undefined;
  }
}
