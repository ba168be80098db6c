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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { Fault } from '../../sync/kit/faults';
import { deviceDb } from '../../sync/testing';
import {
  ChaosDriver,
  type ChaosOdds,
  chaosUsers,
  firedSummary,
  scheduleSeeds,
  scheduleStreams,
  type ChaosUser,
  SCHEDULE_MAX_MS,
  type ScheduleProgress,
} from '../support/chaos-schedule';
import { startTestDevstack, type TestDevstack } from '../support/devstack';
import { ManualClock } from '../support/manual-clock';
import { deviceView, diffViews } from '../support/oracle';
import type { Device } from '../support/sync-client';

/**
 * Seeds that once failed, run every time (unless SEED picks one): 344874173 found a batch with
 * a refused patch and a refused delete of one task leaving its comments hidden, after the push
 * took a batch's answered entries out of the outbox all at once (issue 16).
 */
const FOUND_SEEDS = [344874173];
/** Schedules per run: 16 in `npm test` (SCHEDULES=… sets it; `npm run test:soak` 2,000). */
const {
  schedules: SCHEDULES,
  first: FIRST_SEED,
  seeds: SEEDS,
  replay,
} = scheduleSeeds('tests/integration/sync-convergence.test.ts', FOUND_SEEDS);

/** Random operations per schedule, over all devices. */
const OPS_PER_SCHEDULE = 16;
/**
 * The steps' faults: the I/O settles between half the edits; realtime messages dropped,
 * duplicated or held back; held ones released at a quarter of the steps; device faults at
 * 10% online/offline, 3% reload, 3% crash, 2% cut sockets.
 */
const ODDS: ChaosOdds = {
  settleBetweenSteps: 0.5,
  messageFaults: [
    ['drop', 0.15],
    ['duplicate', 0.15],
    ['hold', 0.2],
  ],
  releasePerStep: 0.25,
  deviceFaults: { offline: 0.1, reload: 0.13, crash: 0.16, cut: 0.18 },
};

let stack: TestDevstack;
let users: ChaosUser[] = [];
/** Every engine's and every fault network's time. */
const clock = new ManualClock();
/** Where the running schedule is, its devices, and the faults fired before it began. */
const progress: ScheduleProgress & { firedBefore: Map<string, Map<Fault, number>> } = {
  seed: 0,
  where: 'not started',
  listId: undefined,
  devices: new Map(),
  firedBefore: new Map(),
};

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

/** Moves the clock while the devices work; runs the steps' device faults and the heal. */
const driver = new ChaosDriver({
  stack: () => stack,
  clock,
  users: () => users,
  progress,
  describeStuck,
  odds: ODDS,
});

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
  users = await chaosUsers(stack, clock);
});
afterAll(async () => {
  console.log(`convergence: faults fired: ${firedSummary(users)}`);
  console.log(
    `convergence: realtime message faults: ${[...driver.messageFaults].map(([f, n]) => `${f} ${n}`).join(', ')}`,
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

/**
 * One schedule: setup, random edits under faults, heal. Returns what to check: the writes
 * made and the devices as they ended.
 */
async function runSchedule(
  seed: number,
): Promise<{ listId: string; written: Written[]; devices: Map<string, Device> }> {
  const { stream, random, pick } = scheduleStreams(seed);
  const [alice, bob, carol] = users as [ChaosUser, ChaosUser, ChaosUser];

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
  await driver.startSchedule(users, stream);

  for (let step = 0; step < OPS_PER_SCHEDULE; step++) {
    const user = await driver.step(step, users, random, pick);
    if (!user) continue;
    const device = devices.get(user.name) as Device;
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

  await driver.heal(users);
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
    const server = await driver.settledView(user, device, (what) => `seed ${seed}: ${what}`);
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
      await driver.guarded(() => runSchedule(seed).then((schedule) => check(seed, schedule)));
      ran += 1;
      // Long runs report progress, so a run cut short still says how far it got.
      if (ran % 100 === 0 && ran < SCHEDULES) {
        console.log(`convergence: ${ran} schedules run so far (last seed ${seed})`);
      }
    },
  );
});
