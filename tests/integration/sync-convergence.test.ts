// I1 + I2 under chaos: three users (owner, editor, viewer) on their own devices make random
// edits while requests are dropped, answered twice, delayed, refused with 5xx/429/401 or left
// hanging, realtime sockets are cut, realtime row messages are dropped, duplicated, held back
// and delivered late in any order (after the pull that brought their row too), devices go offline, reload or crash mid-push, and the
// owner takes the viewer's access away and gives it back; then the network heals. Every
// device must end equal to what the server lets its user see, and every write must be on the
// server or explained in _rejections.
// The engines and the fault networks run on one ManualClock: backoff, hung requests, delays,
// debounces and the 60 s pull cost no real time, and nothing waits by sleeping (only on the
// I/O going quiet). One test per schedule, from a seed chosen per run (printed; SEED=… picks
// it), so every run explores new ones and a failing one is replayed alone.
import { randomInt } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { SyncStatus } from '../../sync/status';
import { SEED, startTestDevstack, type TestDevstack } from '../support/devstack';
import { cuttableWebSocket, FaultyNetwork, seededRandom, type Fault } from '../../sync/kit/faults';
import { ManualClock } from '../support/manual-clock';
import { deviceView, diffSpec, diffViews, serverView, specView } from '../support/oracle';
import { RealtimeTap, type MessageFault } from '../support/realtime-tap';
import { clientFor, signIn, startDevice, type Device } from '../support/sync-client';
import type { SupabaseClient } from '@supabase/supabase-js';
import { deviceDb } from '../../sync/testing';

/** Schedules per run: a modest number in `npm test`; `npm run test:soak` sets 2,000. */
const SCHEDULES = Number(process.env.SCHEDULES ?? 16);
/** First seed (schedule i uses FIRST_SEED + i): SEED, or a new one each run. */
const FIRST_SEED = process.env.SEED ? Number(process.env.SEED) : randomInt(1, 2 ** 31);
/**
 * Seeds that once failed, run every time (unless SEED picks one): 344874173 found a batch with
 * a refused patch and a refused delete of one task leaving its comments hidden, after the push
 * took a batch's answered entries out of the outbox all at once (issue 16).
 */
const FOUND_SEEDS = [344874173];
const SEEDS = [
  ...Array.from({ length: SCHEDULES }, (_, i) => FIRST_SEED + i),
  ...(process.env.SEED ? [] : FOUND_SEEDS),
];
const THIS_FILE = 'tests/integration/sync-convergence.test.ts';
const replay = (seed: number) => `SEED=${seed} SCHEDULES=1 npx vitest run ${THIS_FILE}`;

/** Random operations per schedule, over all devices. */
const OPS_PER_SCHEDULE = 16;
/**
 * A request left hanging is abandoned after this long (ms of the manual clock, so it costs
 * no real time). Short next to the longer pauses between edits, so a hung request can end
 * while edits still come (a slow real answer may be cut short then too: one more fault).
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
 * quiet, which no timer jump can end. A schedule takes 1–2 s, a few on a loaded machine.
 */
const SCHEDULE_MAX_MS = 60_000;
/** How often the I/O set off between two edits settles before the next one (else it races). */
const SETTLE_BETWEEN_EDITS = 0.5;
/**
 * A crash comes up to this many turns of the event loop after its sync was asked for: from
 * before anything is frozen, through a push on the wire, to after its answer was applied.
 */
const CRASH_TURNS_MAX = 60;
/** Odds of each realtime message fault per row message (the rest are delivered). */
const MESSAGE_FAULTS: readonly [MessageFault, number][] = [
  ['drop', 0.15],
  ['duplicate', 0.15],
  ['hold', 0.2],
];
/** Odds that a device's held messages are delivered at a step (in or out of order). */
const RELEASE_PER_STEP = 0.25;
/** Realtime message faults that fired, over the run. */
const messageFaults = new Map<MessageFault, number>();
/** syncNow calls per device in the heal before giving up on it settling. */
const HEAL_ATTEMPTS = 20;

interface User {
  name: string;
  id: string;
  net: FaultyNetwork;
  supabase: SupabaseClient;
  /** Cuts this user's realtime sockets (the server vanishing for a moment). */
  cutSockets: () => number;
}

let stack: TestDevstack;
let users: User[] = [];
/** Every engine's and every fault network's time. */
const clock = new ManualClock();
/** Where the running schedule is, its devices, and the faults fired before it began. */
const progress: {
  seed: number;
  where: string;
  /** The schedule's list, dropped once it is done. */
  listId: string | undefined;
  devices: Map<string, Device>;
  firedBefore: Map<string, Map<Fault, number>>;
} = {
  seed: 0,
  where: 'not started',
  listId: undefined,
  devices: new Map(),
  firedBefore: new Map(),
};

/**
 * Whether time may jump: nothing is on the wire, and no engine is in the middle of a sync
 * (busy in IndexedDB between two requests) unless a request is held back by a fault, which
 * only the clock can end. Jumping while an engine works would not be wrong (time passes),
 * but would fire the others' timers early: a 60 s pull each, for nothing.
 */
const quiet = () => {
  if (!users.every((user) => user.net.inFlight === 0)) {
    calmSince(undefined);
    return false;
  }
  if (users.some((user) => user.net.held > 0)) return true;
  const syncing = [...progress.devices.values()].filter(
    (device) => device.sync.engine.status.getSnapshot().phase === 'syncing',
  );
  if (syncing.length === 0) return true;
  // An engine mid-sync with nothing on the wire for a long stretch of real time is waiting on
  // the clock (seed 263442815: a reload's stop waited on a sync that waited on a timer, and
  // the clock waited on the sync), so time may move after all.
  return calmSince(`${clock.now()}`) >= SYNCING_WITHOUT_IO_MS;
};

/** Real time an engine may spend mid-sync with nothing on the wire before time may jump. */
const SYNCING_WITHOUT_IO_MS = 2_000;
let calm: { state: string; since: number } | undefined;
/** How long (real ms) `state` has held; undefined resets it. Returns 0 on a change. */
function calmSince(state: string | undefined): number {
  if (state === undefined) {
    calm = undefined;
    return 0;
  }
  const now = performance.now();
  if (calm?.state !== state) calm = { state, since: now };
  return now - calm.since;
}

/** The running schedule's state, for a schedule that got stuck. */
async function describeStuck(): Promise<string> {
  const next = clock.nextDue();
  const lines = [
    `seed ${progress.seed} stuck at: ${progress.where} (replay: ${replay(progress.seed)})`,
    `clock: next timer ${next === undefined ? 'none' : `in ${next - clock.now()} ms`}; requests in flight (held by a fault): ${users.map((u) => `${u.name} ${u.net.inFlight} (${u.net.held})`).join(', ')}`,
  ];
  for (const [name, device] of progress.devices) {
    const status = device.sync.engine.status.getSnapshot();
    const outbox = await deviceDb(device.sync)
      ._outbox.toArray()
      .catch(() => []);
    lines.push(
      `${name}: ${status.phase}, ${status.pending} pending, last error ${status.lastError?.code ?? '-'} ${status.lastError?.message ?? ''}; outbox ${JSON.stringify(outbox.map((e) => [e.seq, e.table, e.op, e.sent, e.attempts]))}`,
    );
  }
  for (const user of users) {
    const before = progress.firedBefore.get(user.name);
    const fired = [...user.net.fired].map(([f, n]) => [f, n - (before?.get(f) ?? 0)]);
    lines.push(`${user.name} faults this schedule: ${JSON.stringify(fired.filter(([, n]) => n))}`);
  }
  return lines.join('\n');
}

/**
 * Awaits `work` (a sync, a stop) while moving the clock: time jumps to the next timer
 * whenever the I/O is quiet (see `quiet`). A sync that never ends is reported with the
 * schedule's state instead of hanging the run.
 */
async function drive<T>(work: Promise<T>, where: string): Promise<T> {
  progress.where = where;
  // The work's own failure is rethrown as it is; only runUntil's own means stuck.
  const ended = work.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  let outcome: Awaited<typeof ended>;
  try {
    outcome = await clock.runUntil(ended, {
      quiet,
      maxJumps: MAX_JUMPS_PER_SYNC,
      waitWithoutTimers: true,
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`${reason}\n${await describeStuck()}`, { cause: error });
  }
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
}

/** Lets the I/O that is going on settle (no request on the wire, no engine mid-sync). */
async function settled(): Promise<void> {
  await clock.runUntil(Promise.resolve(), { quiet });
}

/** Lets `n` turns of the event loop go by: what is running goes on, by a step or two. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Virtual time between two edits (ms): mostly a moment, about a push's debounce; now and
 * then long enough for a backoff, a delay or a hung request to run out.
 */
function pauseMs(random: () => number): number {
  return random() < 0.15 ? 250 + Math.floor(random() * 2_500) : Math.floor(random() * 40);
}

beforeAll(async () => {
  console.log(
    `convergence: seeds ${FIRST_SEED}…${FIRST_SEED + SCHEDULES - 1}; replay one with ${replay(FIRST_SEED)} (its seed in place of ${FIRST_SEED})`,
  );
  stack = await startTestDevstack('pglite');
  // Test-only history of every title/notes value a task took on the server, so a patch that
  // was overwritten later can still be shown to have landed (I1), and a value that arrived
  // twice (a replay applied again after someone else's edit) shows up as two entries.
  await stack.db.exec(`
    create table public.test_task_history (task_id uuid, field text, value text);
    create function public.test_task_history_log() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' or new.title is distinct from old.title then
        insert into public.test_task_history values (new.id, 'title', new.title);
      end if;
      if tg_op = 'INSERT' or new.notes is distinct from old.notes then
        insert into public.test_task_history values (new.id, 'notes', new.notes);
      end if;
      return new;
    end $$;
    create trigger test_task_history after insert or update on public.tasks
      for each row execute function public.test_task_history_log();
  `);
  const carolEmail = `carol-${Date.now()}@example.com`;
  const signup = stack.client();
  const { data, error } = await signup.auth.signUp({ email: carolEmail, password: 'secret-123' });
  if (error || !data.user) throw error ?? new Error('no user');
  const make = async (name: string, id: string, email: string, password?: string) => {
    // Delays wait on the schedules' clock; their lengths come from each schedule's chaos().
    const net = new FaultyNetwork({ clock });
    const sockets = cuttableWebSocket();
    const supabase = clientFor(stack, net.fetch, sockets.transport);
    await signIn(supabase, email, password);
    return { name, id, net, supabase, cutSockets: () => sockets.cut() };
  };
  users = [
    await make('alice', SEED.alice, 'alice@example.com'),
    await make('bob', SEED.bob, 'bob@example.com'),
    await make('carol', data.user.id, carolEmail, 'secret-123'),
  ];
});
afterAll(async () => {
  const fired = new Map<string, number>();
  for (const user of users) {
    for (const [fault, n] of user.net.fired) fired.set(fault, (fired.get(fault) ?? 0) + n);
  }
  console.log(`convergence: faults fired: ${[...fired].map(([f, n]) => `${f} ${n}`).join(', ')}`);
  console.log(
    `convergence: realtime message faults: ${[...messageFaults].map(([f, n]) => `${f} ${n}`).join(', ')}`,
  );
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `convergence: ${ran} of ${SCHEDULES} schedules (seeds ${FIRST_SEED}…${FIRST_SEED + SCHEDULES - 1}) ran in ${seconds.toFixed(1)} s (${((seconds / Math.max(ran, 1)) * 1000).toFixed(0)} ms each)`,
  );
  await stack?.stop();
});

/** Writes a device acknowledged locally (the repository call returned). */
interface Written {
  device: string;
  table: string;
  id: string;
  op: 'insert' | 'patch' | 'delete';
  /** For patches: the field and the value written (unique for titles, notes, comments). */
  field?: 'title' | 'notes' | 'role' | 'body';
  value?: string;
  /** Undone on the server by a later step of the schedule (a revoked access given back). */
  superseded?: boolean;
}

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

/**
 * One schedule: setup, random edits under faults, heal. Returns what to check: the writes
 * made and the devices as they ended.
 */
async function runSchedule(
  seed: number,
): Promise<{ listId: string; written: Written[]; devices: Map<string, Device> }> {
  // Separate streams for the edits, each network's faults and each device's backoff jitter:
  // how the real I/O interleaves changes how many draws the faults take, not which edits a
  // seed makes.
  const streams = seededRandom(seed);
  const stream = () => seededRandom(Math.floor(streams() * 2 ** 32));
  const random = stream();
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const [alice, bob, carol] = users as [User, User, User];

  // A fresh list per schedule: alice owns it, bob edits, carol views.
  const listId = crypto.randomUUID();
  progress.listId = listId;
  await stack.db.transaction(async (tx) => {
    await tx.query(
      `insert into public.lists (id, name, color, created_by) values ($1, $2, 'blue', $3)`,
      [listId, `Schedule ${seed}`, alice.id],
    );
    await tx.query(
      `insert into public.memberships (list_id, user_id, role) values ($1, $2, 'editor'), ($1, $3, 'viewer')`,
      [listId, bob.id, carol.id],
    );
    await tx.query(
      `insert into public.tasks (list_id, title, position, created_by)
       select $1, 'Seed task ' || i, 'a' || i, $2 from generate_series(0, 2) i`,
      [listId, alice.id],
    );
  });

  const devices = new Map<string, Device>();
  progress.devices = devices;
  const written: Written[] = [];
  // Each device's realtime messages pass a tap (delivered as they come until the edits).
  const taps = new Map(users.map((user) => [user.name, new RealtimeTap()]));
  for (const user of users) {
    user.net.heal();
    const device = await startDevice(stack, null, {
      supabase: user.supabase,
      random: stream(),
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      clock,
      wrapRemote: (taps.get(user.name) as RealtimeTap).wrap,
    });
    devices.set(user.name, device);
    // Its first sync (start() runs one), not one more on top of it. One device after the
    // other: started side by side, each one's realtime join wakes the others for more pulls.
    await drive(firstSync(device), `setup, ${user.name}`);
  }

  for (const user of users)
    user.net.chaos(0.5, stream(), [
      // Lost responses and duplicates are what exactly-once must survive: weighted up.
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
    ]);
  // Message faults from streams of their own, drawn after all the others: how many messages
  // the I/O brings changes their draws only, never the edits or the network's faults.
  for (const tap of taps.values()) {
    const fate = stream();
    tap.fault = () => {
      let roll = fate();
      for (const [fault, odds] of MESSAGE_FAULTS) {
        if (roll < odds) {
          messageFaults.set(fault, (messageFaults.get(fault) ?? 0) + 1);
          return fault;
        }
        roll -= odds;
      }
      return 'deliver';
    };
  }
  const releases = stream();

  for (let step = 0; step < OPS_PER_SCHEDULE; step++) {
    progress.where = `step ${step}`;
    // Messages held back come now, late (after pulls, pushes and later messages).
    for (const tap of taps.values()) {
      if (releases() < RELEASE_PER_STEP) tap.release(releases() < 0.5 ? 'reverse' : 'fifo');
    }
    // Between edits the clock moves on, firing the engines' timers (a push's debounce, a
    // backoff, a hung request's timeout); then the next edit comes either at once, racing
    // what they set off (a push on the wire, a pull being applied), or once it has settled.
    await clock.advanceAtOnce(pauseMs(random));
    if (random() < SETTLE_BETWEEN_EDITS) await settled();
    const user = pick(users);
    const device = devices.get(user.name) as Device;
    const roll = random();
    if (roll < 0.1) {
      device.online.set(!device.online.isOnline());
      continue;
    }
    if (roll < 0.13) {
      // A reload: a new engine over the same IndexedDB, with whatever the old one left
      // queued or frozen (a request lost mid-flight is the drop-response fault). The old
      // engine's push in flight finishes first, however long the clock must run for it.
      await drive(device.sync.stop(), `step ${step}, reloading ${user.name}`);
      const reloaded = device.reload();
      await device.sync.close();
      devices.set(user.name, reloaded);
      continue;
    }
    if (roll < 0.16) {
      // A crash, most likely while a push is on the wire: the server may apply what the
      // dead tab never hears about; the next start must replay it, applied once.
      device.sync.engine.requestSync();
      await clock.advanceAtOnce(0);
      await turns(Math.floor(random() * CRASH_TURNS_MAX));
      devices.set(user.name, device.crash());
      continue;
    }
    if (roll < 0.18) {
      user.cutSockets();
      continue;
    }
    const tasks = (
      await deviceDb(device.sync).rows('tasks').where('list_id').equals(listId).toArray()
    ).filter((t) => !t.deleted_at);
    const task = tasks.length ? pick(tasks) : undefined;
    const repos = device.sync.repos;
    try {
      const op = pick([
        'create',
        'title',
        'notes',
        'status',
        'move',
        'delete',
        'comment',
        'role',
        'access',
      ] as const);
      if (op === 'create' || !task) {
        const value = `${user.name} ${seed}.${step}`;
        const id = await repos.tasks.create(listId, { title: value });
        written.push({
          device: user.name,
          table: 'tasks',
          id,
          op: 'insert',
          field: 'title',
          value,
        });
      } else if (op === 'title') {
        const value = `${user.name} renamed ${step}`;
        await repos.tasks.update(task.id, { title: value });
        written.push({
          device: user.name,
          table: 'tasks',
          id: task.id,
          op: 'patch',
          field: 'title',
          value,
        });
      } else if (op === 'notes') {
        const value = `${user.name} noted ${step}`;
        await repos.tasks.update(task.id, {
          notes: value,
          priority: (step % 4) as 0 | 1 | 2 | 3,
        });
        written.push({
          device: user.name,
          table: 'tasks',
          id: task.id,
          op: 'patch',
          field: 'notes',
          value,
        });
      } else if (op === 'status') {
        const next = task.status === 'todo' ? 'doing' : task.status === 'doing' ? 'done' : 'todo';
        await repos.tasks.setStatus(task.id, next);
      } else if (op === 'move') {
        const other = pick(tasks);
        await repos.tasks.move(task.id, other.id === task.id ? null : other.id, null);
      } else if (op === 'delete') {
        await repos.tasks.delete(task.id);
        written.push({ device: user.name, table: 'tasks', id: task.id, op: 'delete' });
      } else if (op === 'comment') {
        const value = `${user.name} says ${step}`;
        const id = await repos.comments.create(task.id, value);
        written.push({
          device: user.name,
          table: 'comments',
          id,
          op: 'insert',
          field: 'body',
          value,
        });
      } else if (op === 'role' && user.name === 'alice') {
        const bobMembership = (
          await deviceDb(device.sync).rows('memberships').where('list_id').equals(listId).toArray()
        ).find((m) => m.user_id === bob.id && !m.deleted_at);
        if (bobMembership) {
          const value = bobMembership.role === 'editor' ? 'viewer' : 'editor';
          await repos.memberships.changeRole(bobMembership.id, value);
          written.push({
            device: 'alice',
            table: 'memberships',
            id: bobMembership.id,
            op: 'patch',
            field: 'role',
            value,
          });
        }
      } else if (op === 'access' && user.name === 'alice') {
        // Carol loses the list (her device must purge it) or gets it back (the way an
        // accepted invite revives her old membership: the whole list is delivered again).
        const carolMembership = (
          await deviceDb(device.sync).rows('memberships').where('list_id').equals(listId).toArray()
        ).find((m) => m.user_id === carol.id && !m.deleted_at);
        if (carolMembership) {
          await repos.memberships.remove(carolMembership.id);
          written.push({
            device: 'alice',
            table: 'memberships',
            id: carolMembership.id,
            op: 'delete',
          });
        } else {
          const { rows: revived } = await stack.db.query<{ id: string }>(
            `insert into public.memberships (list_id, user_id, role) values ($1, $2, 'viewer')
             on conflict (list_id, user_id) do update set role = 'viewer', deleted_at = null
             returning id`,
            [listId, carol.id],
          );
          for (const w of written) {
            if (w.table === 'memberships' && w.id === revived[0]?.id) w.superseded = true;
          }
        }
      }
    } catch (error) {
      // Refused locally (validation, a row deleted meanwhile): nothing was queued.
      if (!(error instanceof Error && 'code' in error)) throw error;
    }
  }

  // Heal: faults off, everyone online, each device in turn syncs until it is idle, so all
  // that was queued is on the server; the check's sync then brings each one what the others
  // sent. Time moves only while nothing is on the wire: backoffs, hung requests and delays
  // run out at once.
  for (const user of users) user.net.heal();
  for (const tap of taps.values()) tap.fault = () => 'deliver';
  for (const device of devices.values()) device.online.set(true);
  for (const [name, device] of devices) {
    for (let i = 0; i < HEAL_ATTEMPTS; i++) {
      const status = await drive(device.sync.engine.syncNow(), `heal, ${name}, attempt ${i}`);
      if (isSettled(status)) break;
    }
  }
  // What is still held comes after the heal's pulls already brought its rows, out of order
  // and twice: stale, it must change nothing (the check's sync runs after it).
  for (const tap of taps.values()) tap.release('reverse', 2);
  return { listId, written, devices };
}

/** What the server holds of `row`'s fields, as the device holds them (local fields aside). */
function asServerSees(row: Record<string, unknown> | undefined, like: Record<string, unknown>) {
  if (!row) return row;
  return Object.fromEntries(Object.keys(like).map((key) => [key, row[key]]));
}

/** Checks one healed schedule: settled, I5, I2 row by row, I1 and no duplicates. */
async function check(
  seed: number,
  { listId, written, devices }: Awaited<ReturnType<typeof runSchedule>>,
): Promise<void> {
  progress.where = 'checking';
  for (const user of users) {
    const device = devices.get(user.name) as Device;
    // As of a sync that has just settled: a late wake-up (a realtime rejoin after a cut
    // socket asks for a pull) may otherwise be caught mid-run.
    const status = await drive(device.sync.engine.syncNow(), `checking, ${user.name}`);
    expect
      .soft(
        { phase: status.phase, pending: status.pending, lastError: status.lastError?.code },
        `seed ${seed}: ${user.name}'s device settled`,
      )
      .toEqual({ phase: 'synced', pending: 0, lastError: undefined });
    // I5: what sync_pull says the user may see is what product.md §6 says, read from the tables
    // without it.
    const server = await serverView(stack.db, user.id);
    expect
      .soft(
        diffSpec(server, await specView(stack.db, user.id)),
        `seed ${seed}: ${user.name}: sync_pull's view against product.md §6's`,
      )
      .toEqual([]);
    // I2: the device holds exactly what the server lets this user see.
    const mine = await deviceView(device);
    const diff = diffViews(server, mine);
    expect.soft(diff, `seed ${seed}: ${user.name}: device against server`).toEqual([]);
    // The first diverged rows side by side: the device's (received) against what the server
    // lets this user see (expected; undefined: not at all), with the row as the server
    // stores it (a tombstone, a list the user lost) and what the device keeps about it.
    const diverged = [...new Set([...server.keys(), ...mine.keys()])].filter((key) =>
      diff.some((line) => line.includes(key)),
    );
    for (const key of diverged.slice(0, 3)) {
      const [table = '', id = ''] = key.split('/');
      const { rows: stored } = await stack.db.query(
        `select to_jsonb(t) as row from public.${table} t where id = $1`,
        [id],
      );
      const local = await deviceDb(device.sync).rows(table).get(id);
      const localFields = Object.fromEntries(
        Object.entries(local ?? {}).filter(([field]) => field.startsWith('_')),
      );
      const parentId = typeof local?.task_id === 'string' ? local.task_id : undefined;
      const parent = parentId ? await deviceDb(device.sync).rows('tasks').get(parentId) : undefined;
      const rejections = await deviceDb(device.sync)
        ._rejections.filter((r) => r.rowId === id || r.rowId === parentId)
        .toArray();
      const serverRow = server.get(key);
      expect
        .soft(
          serverRow ? asServerSees(mine.get(key), serverRow) : mine.get(key),
          [
            `seed ${seed}: ${user.name}: ${key}, on the device (received) against what the server lets ${user.name} see (expected)`,
            `stored on the server: ${JSON.stringify(stored[0]?.row ?? null)}`,
            `device's own fields: ${JSON.stringify(localFields)}`,
            ...(parentId ? [`parent task on the device: ${JSON.stringify(parent ?? null)}`] : []),
            `rejections on the device: ${JSON.stringify(rejections)}`,
          ].join('\n'),
        )
        .toEqual(serverRow);
    }
  }
  // I1: every acknowledged write reached the server (a created row exists, a patched value
  // appears in the row's history, a deleted row is a tombstone) or its refusal is on the
  // writing device. Of a device's patches of one field of one row only the last must land:
  // the earlier ones may rightly have been folded into it before sending. And nothing
  // arrived twice: each unique title, notes value or comment is on the server at most once.
  const twice: string[] = [];
  const lost: string[] = [];
  const lastOfField = new Map<string, Written>();
  for (const write of written) {
    if (write.op === 'patch') lastOfField.set(`${write.device}/${write.id}/${write.field}`, write);
  }
  for (const write of written) {
    if (write.field === 'title' || write.field === 'notes' || write.field === 'body') {
      const { rows: copies } =
        write.field === 'body'
          ? await stack.db.query('select 1 from public.comments where list_id = $1 and body = $2', [
              listId,
              write.value ?? '',
            ])
          : await stack.db.query(
              'select 1 from public.test_task_history where task_id = $1 and field = $2 and value = $3',
              [write.id, write.field, write.value ?? ''],
            );
      if (copies.length > 1) {
        twice.push(
          `${write.device}: ${write.table}/${write.id} ${write.field} ${write.value ?? ''} arrived ${copies.length} times`,
        );
      }
    }
    if (write.superseded) continue;
    if (write.op === 'patch') {
      if (lastOfField.get(`${write.device}/${write.id}/${write.field}`) !== write) continue;
    }
    const { rows } =
      write.op === 'patch' && write.field === 'role'
        ? await stack.db.query('select 1 from public.memberships where id = $1 and role = $2', [
            write.id,
            write.value ?? '',
          ])
        : write.op === 'patch'
          ? await stack.db.query(
              'select 1 from public.test_task_history where task_id = $1 and field = $2 and value = $3',
              [write.id, write.field ?? '', write.value ?? ''],
            )
          : write.op === 'delete'
            ? await stack.db.query(
                `select 1 from public.${write.table} where id = $1 and deleted_at is not null`,
                [write.id],
              )
            : await stack.db.query(`select id from public.${write.table} where id = $1`, [
                write.id,
              ]);
    if (rows.length >= 1) continue;
    // Its refusal must be the one of this write: a refused patch carries the field (or the
    // insert it was folded into does), a refused insert is an insert; a delete may fall with
    // its row (a refused insert, a lost list).
    const device = devices.get(write.device) as Device;
    const refused = await deviceDb(device.sync)
      ._rejections.filter(
        (r) =>
          r.rowId === write.id &&
          (write.op === 'patch'
            ? Object.hasOwn(r.data, write.field ?? '')
            : write.op === 'insert'
              ? r.op === 'insert'
              : true),
      )
      .count();
    if (refused === 0) {
      lost.push(
        `${write.device}: ${write.table}/${write.id} ${write.op} ${write.field ?? ''} ${write.value ?? ''}`,
      );
    }
  }
  expect.soft(twice, `seed ${seed}: writes applied more than once`).toEqual([]);
  expect.soft(lost, `seed ${seed}: writes neither on the server nor rejected`).toEqual([]);
}

/**
 * Stops the schedule's engines (letting the clock run out what they wait on), closes its
 * devices and drops its list: the next schedule's fresh devices need not pull this one's
 * (everything in it goes with it, on delete cascade), so the 2,000th costs what the first does.
 */
async function cleanUp(): Promise<void> {
  const devices = [...progress.devices];
  for (const [name, device] of devices) {
    await drive(device.sync.stop(), `closing ${name}`).catch(() => undefined);
  }
  progress.devices = new Map();
  // Each user's own client and sockets: they close side by side.
  await Promise.all(devices.map(([, device]) => device.close().catch(() => undefined)));
  if (progress.listId) {
    await stack.db.query('delete from public.lists where id = $1', [progress.listId]);
  }
  progress.listId = undefined;
}

/** Schedules run to the end (their checks may still have failed). */
let ran = 0;
/** When the first schedule began (after the devstack started). */
let started = 0;

describe('randomised convergence under faults (I1, I2)', () => {
  it.for(SEEDS)(
    'converges in the schedule with seed %i',
    { timeout: SCHEDULE_MAX_MS + 30_000 },
    async (seed, { onTestFailed }) => {
      onTestFailed(() =>
        console.error(`convergence: seed ${seed} failed; replay: ${replay(seed)}`),
      );
      if (!started) started = performance.now();
      progress.seed = seed;
      progress.where = 'starting';
      progress.firedBefore = new Map(users.map((u) => [u.name, new Map(u.net.fired)]));
      let watchdog: ReturnType<typeof setTimeout> | undefined;
      const stuck = new Promise<never>((_, reject) => {
        watchdog = setTimeout(() => {
          void describeStuck().then((state) =>
            reject(
              new Error(
                `schedule still running after ${SCHEDULE_MAX_MS} ms of real time\n${state}`,
              ),
            ),
          );
        }, SCHEDULE_MAX_MS);
      });
      const run = runSchedule(seed);
      try {
        await Promise.race([run.then((schedule) => check(seed, schedule)), stuck]);
      } finally {
        clearTimeout(watchdog);
        await cleanUp();
      }
      ran += 1;
      // Long runs report progress, so a run cut short still says how far it got.
      if (ran % 100 === 0 && ran < SCHEDULES) {
        console.log(`convergence: ${ran} schedules run so far (last seed ${seed})`);
      }
    },
  );
});
