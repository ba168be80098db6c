// I7 under chaos (sync-design.md "Derived rows: one next occurrence"): two or three members of
// one list (the owner and editors), each on a device of their own, hold a repeating task (a
// random rule and due date, a checklist of 0–3 items). While requests are dropped, answered
// twice, delayed, refused or left hanging, sockets are cut, realtime messages are dropped,
// duplicated and held back, and devices go offline, reload or crash, each device completes
// the occurrence, reopens it, edits its title, due date and rule, completes it again, and now
// and then does the same to a next occurrence. Then the network heals, and:
// - on the server, at most one row follows each occurrence, with the id derived from it, and
//   exactly one follows each occurrence a device completed with a rule (none from nowhere);
// - every device holds what the server lets its user see (I2), and never two next
//   occurrences of one;
// - each next occurrence's checklist is one set of copies of its occurrence's items (derived
//   ids, same text, unticked unless someone ticked the copy), and every copy made is there.
// Time runs on one ManualClock as in sync-convergence.test.ts (whose driving this follows):
// one test per schedule, from a seed drawn per run and printed (SEED=… replays one).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { copiedItemId, readRepeat, successorId, writeRepeat } from '@/data/recurrence';
import { addDays, todayIso } from '@/utils/format';
import type { LocalRow } from '../../sync/registry';
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
 * Seeds that once failed, run every time (unless SEED picks one): 1752778109 found a second
 * device's next occurrence, completed before it was sent, refused by tasks_check rather than
 * answered as a replay.
 */
const FOUND_SEEDS = [1752778109];
/** Schedules per run: 16 by default (about 3 s each on a 2-core machine), or SCHEDULES. */
const {
  schedules: SCHEDULES,
  first: FIRST_SEED,
  seeds: SEEDS,
  replay,
} = scheduleSeeds('tests/integration/recurrence-convergence.test.ts', FOUND_SEEDS);

/** Random steps per schedule, over all devices. */
const OPS_PER_SCHEDULE = 24;
/**
 * The steps' faults, as in sync-convergence but for fewer crashes: the I/O settles between
 * half the steps; message faults and releases at the same odds; device faults at 10%
 * online/offline, 3% reload, 2% crash, 2% cut sockets.
 */
const ODDS: ChaosOdds = {
  settleBetweenSteps: 0.5,
  messageFaults: [
    ['drop', 0.15],
    ['duplicate', 0.15],
    ['hold', 0.2],
  ],
  releasePerStep: 0.25,
  deviceFaults: { offline: 0.1, reload: 0.13, crash: 0.15, cut: 0.17 },
};
/** Odds that a step edits the first occurrence rather than any live task of the list. */
const FIRST_OCCURRENCE_ODDS = 0.5;

/** A task as these checks read it from a device or the server. */
interface TaskView {
  id: string;
  status: string;
  repeat: string | null;
  follows_id: string | null;
  deleted: boolean;
}

const toTask = (row: Record<string, unknown>): TaskView => ({
  id: String(row.id),
  status: String(row.status),
  repeat: typeof row.repeat === 'string' ? row.repeat : null,
  follows_id: typeof row.follows_id === 'string' ? row.follows_id : null,
  deleted: row.deleted_at !== null && row.deleted_at !== undefined,
});

let stack: TestDevstack;
let users: ChaosUser[] = [];
const clock = new ManualClock();
const progress: ScheduleProgress = {
  seed: 0,
  where: 'not started',
  listId: undefined,
  devices: new Map(),
};
/** What the schedules did, over the run: completions that made a next occurrence, and more. */
const tally = {
  completions: 0,
  made: 0,
  again: 0,
  byTwo: 0,
  devices2: 0,
  devices3: 0,
  /** Next occurrences with fewer copies than their occurrence has items. */
  partial: 0,
};

/** Moves the clock while the devices work; runs the steps' device faults and the heal. */
const driver = new ChaosDriver({
  stack: () => stack,
  clock,
  users: () => users,
  progress,
  describeStuck: () => Promise.resolve(`seed ${progress.seed} stuck at ${progress.where}`),
  odds: ODDS,
});

/** A rule of each kind at random: daily, weekly on random days, monthly, after N days. */
function randomRule(random: () => number): string {
  const kind = Math.floor(random() * 4);
  if (kind === 0) return 'daily';
  if (kind === 1) {
    const days = [1, 2, 3, 4, 5, 6, 7].filter(() => random() < 0.35);
    return writeRepeat({
      kind: 'weekly',
      days: days.length ? days : [1 + Math.floor(random() * 7)],
    });
  }
  if (kind === 2) return `monthly:${1 + Math.floor(random() * 31)}`;
  return `after:${random() < 0.8 ? 1 + Math.floor(random() * 10) : 1 + Math.floor(random() * 365)}`;
}

/** A due date within three weeks either side of the clock's day, or none. */
function randomDue(random: () => number): string | null {
  return random() < 0.2 ? null : addDays(todayIso(clock.now()), Math.floor(random() * 43) - 21);
}

beforeAll(async () => {
  console.log(
    `recurrence convergence: seeds ${FIRST_SEED}…${FIRST_SEED + SCHEDULES - 1}; replay one with ${replay(FIRST_SEED)} (its seed in place of ${FIRST_SEED})`,
  );
  stack = await startTestDevstack('pglite');
  users = await chaosUsers(stack, clock);
});

let started = 0;
let ran = 0;
afterAll(async () => {
  const seconds = (performance.now() - started) / 1000;
  console.log(
    [
      `recurrence convergence: ${ran} of ${SCHEDULES} schedules (${tally.devices2} with 2 devices, ${tally.devices3} with 3) in ${seconds.toFixed(1)} s`,
      `completions ${tally.completions}: ${tally.made} made a next occurrence (${tally.byTwo} one another device had made too), ${tally.again} found it there already; ${tally.partial} next occurrences with part of the checklist`,
      `faults fired: ${firedSummary(users)}`,
      `realtime message faults: ${[...driver.messageFaults].map(([f, n]) => `${f} ${n}`).join(', ')}`,
    ].join('\n'),
  );
  await stack?.stop();
});

/** What a schedule did that the checks hold the server to. */
interface ScheduleLog {
  listId: string;
  first: string;
  members: ChaosUser[];
  devices: Map<string, Device>;
  /** Occurrences a device held a next occurrence of right after completing them. */
  followed: Set<string>;
  /** Who made a next occurrence of each occurrence (more than one: offline, side by side). */
  makers: Map<string, Set<string>>;
  /** Checklist copies a device held right after completing their occurrence. */
  copies: Set<string>;
  /** Checklist items someone ticked or unticked. */
  ticked: Set<string>;
  /** Completions with a rule that left the device without a next occurrence. */
  missing: string[];
}

/** Setup, random steps under faults, heal. */
async function runSchedule(seed: number): Promise<ScheduleLog> {
  const { stream, random, pick } = scheduleStreams(seed);
  const members = random() < 0.5 ? users.slice(0, 2) : users.slice(0, 3);
  if (members.length === 2) tally.devices2 += 1;
  else tally.devices3 += 1;
  const [owner] = members as [ChaosUser];

  // A list of the owner's, the others its editors; one repeating task with a checklist.
  const listId = crypto.randomUUID();
  const first = crypto.randomUUID();
  progress.listId = listId;
  const rule = randomRule(random);
  const due = randomDue(random);
  const items = Array.from({ length: Math.floor(random() * 4) }, (_, i) => ({
    id: crypto.randomUUID(),
    text: `Step ${i + 1}`,
    position: `a${i}`,
  }));
  await stack.db.transaction(async (tx) => {
    await tx.query(
      `insert into public.lists (id, name, color, created_by) values ($1, $2, 'green', $3)`,
      [listId, `Repeat ${seed}`, owner.id],
    );
    for (const editor of members.slice(1)) {
      await tx.query(
        `insert into public.memberships (list_id, user_id, role) values ($1, $2, 'editor')`,
        [listId, editor.id],
      );
    }
    await tx.query(
      `insert into public.tasks (id, list_id, title, position, created_by, repeat, due_on)
       values ($1, $2, 'Water the plants', 'a0', $3, $4, $5)`,
      [first, listId, owner.id, rule, due],
    );
    for (const item of items) {
      await tx.query(
        `insert into public.checklist_items (id, task_id, list_id, text, position, created_by)
         values ($1, $2, $3, $4, $5, $6)`,
        [item.id, first, listId, item.text, item.position, owner.id],
      );
    }
  });

  const devices = new Map<string, Device>();
  progress.devices = devices;
  await driver.startSchedule(members, stream);

  const record: ScheduleLog = {
    listId,
    first,
    members,
    devices,
    followed: new Set(),
    makers: new Map(),
    copies: new Set(),
    ticked: new Set(),
    missing: [],
  };

  for (let step = 0; step < OPS_PER_SCHEDULE; step++) {
    const user = await driver.step(step, members, random, pick);
    if (!user) continue;
    const device = devices.get(user.name) as Device;
    const store = deviceDb(device.sync);
    const live = (await store.rows('tasks').where('list_id').equals(listId).toArray())
      .map(toTask)
      .filter((task) => !task.deleted);
    const firstLive = live.find((task) => task.id === first);
    const task = firstLive && random() < FIRST_OCCURRENCE_ODDS ? firstLive : pick(live);
    if (!task) continue;
    const repos = device.sync.repos;
    const op = pick([
      'complete',
      'complete',
      'complete',
      'complete-many',
      'reopen',
      'reopen',
      'title',
      'due',
      'rule',
      'tick',
      'tick',
    ] as const);
    try {
      if (op === 'complete' || op === 'complete-many') {
        await complete(device, user.name, task, op === 'complete-many', record, step);
      } else if (op === 'reopen') {
        await repos.tasks.setStatus(task.id, task.status === 'done' ? 'todo' : 'doing');
      } else if (op === 'title') {
        await repos.tasks.update(task.id, { title: `${user.name} renamed ${step}` });
      } else if (op === 'due') {
        await repos.tasks.update(task.id, { due_on: randomDue(random) });
      } else if (op === 'rule') {
        await repos.tasks.update(task.id, { repeat: random() < 0.15 ? null : randomRule(random) });
      } else {
        const mine = (
          await store.rows('checklist_items').where('list_id').equals(listId).toArray()
        ).filter((item: LocalRow) => item.task_id === task.id && !item.deleted_at);
        const item = mine.length ? pick(mine) : undefined;
        if (item) {
          await repos.checklist.update(item.id, { done: item.done !== true });
          record.ticked.add(item.id);
        }
      }
    } catch (error) {
      // Refused locally (a transition the task's status no longer allows): nothing queued.
      if (!(error instanceof Error && 'code' in error)) throw error;
    }
  }

  await driver.heal(members);
  return record;
}

/**
 * Completes `task` on `device` (setStatus, or completeMany as bulk complete does) and notes
 * what the checks hold the server to: the next occurrence the device holds right after (made
 * now, or there already), its checklist copies, and a completion with a rule that left none.
 */
async function complete(
  device: Device,
  who: string,
  task: TaskView,
  many: boolean,
  record: ScheduleLog,
  step: number,
): Promise<void> {
  const store = deviceDb(device.sync);
  const withRule = task.status !== 'done' && readRepeat(task.repeat) !== null;
  // What this device has queued for the task: a completion it makes changes it. (A pull may
  // bring another device's completion between the read above and the write, and then this
  // device completes nothing: setStatus to 'done' of a done task is no change.)
  const queued = async () =>
    new Set(
      (await store._outbox.where('[table+rowId]').equals(['tasks', task.id]).toArray()).map(
        (entry) => JSON.stringify(entry),
      ),
    );
  const before = await queued();
  let completed = true;
  if (many) completed = (await device.sync.repos.tasks.completeMany([task.id])).length === 1;
  else await device.sync.repos.tasks.setStatus(task.id, 'done');
  completed &&= [...(await queued())].some((entry) => !before.has(entry));
  tally.completions += 1;
  const next = await successorId(task.id);
  if (!(await store.rows('tasks').get(next))) {
    const after = toTask((await store.rows('tasks').get(task.id)) ?? {});
    if (withRule && completed && readRepeat(after.repeat)) {
      record.missing.push(`${who} completed ${task.id} (${task.repeat ?? ''}) at step ${step}`);
    }
    return;
  }
  record.followed.add(task.id);
  if (withRule && completed) {
    tally.made += 1;
    const makers = record.makers.get(task.id) ?? new Set<string>();
    if (makers.size === 1 && !makers.has(who)) tally.byTwo += 1;
    record.makers.set(task.id, makers.add(who));
  } else tally.again += 1;
  const items = await store
    .rows('checklist_items')
    .where('[task_id+position]')
    .between([next, ''], [next, '\uffff'])
    .toArray();
  for (const copy of items) record.copies.add(copy.id);
}

/** Checks a healed schedule: I2 per device, then I7 on the server and on every device. */
async function check(seed: number, record: ScheduleLog): Promise<void> {
  progress.where = 'checking';
  const { listId, members, devices } = record;
  const at = (what: string) => `seed ${seed}: ${what} (replay: ${replay(seed)})`;

  for (const user of members) {
    const device = devices.get(user.name) as Device;
    const server = await driver.settledView(user, device, at);
    expect
      .soft(diffViews(server, await deviceView(device)), at(`${user.name}: device against server`))
      .toEqual([]);
    // Nothing here is refused: members who may write, valid values. A second device's next
    // occurrence (or checklist copy) is a replay, not a refusal the user would be shown.
    const refused = await deviceDb(device.sync)._rejections.toArray();
    expect
      .soft(
        refused.map((r) => `${r.table}/${r.rowId} ${r.op}: ${r.code} ${r.message}`),
        at(`${user.name}: changes refused`),
      )
      .toEqual([]);
    // Never two next occurrences of one occurrence on a device, deleted ones included, and
    // each with the id derived from its occurrence.
    const held = (
      await deviceDb(device.sync).rows('tasks').where('list_id').equals(listId).toArray()
    )
      .map(toTask)
      .filter((task) => task.follows_id !== null);
    expect
      .soft(await misderived(held), at(`${user.name}: next occurrences on the device`))
      .toEqual([]);
  }

  const { rows: stored } = await stack.db.query<Record<string, unknown>>(
    'select id, status, repeat, follows_id, deleted_at from public.tasks where list_id = $1',
    [listId],
  );
  const tasks = stored.map(toTask);
  const successors = tasks.filter((task) => task.follows_id !== null);
  expect.soft(await misderived(successors), at('next occurrences on the server')).toEqual([]);
  const followedOnServer = new Set(successors.map((task) => task.follows_id ?? ''));
  expect
    .soft(
      [...record.followed].filter((id) => !followedOnServer.has(id)),
      at('occurrences a device completed with a rule, with no next occurrence on the server'),
    )
    .toEqual([]);
  expect
    .soft(
      [...followedOnServer].filter((id) => !record.followed.has(id)),
      at('next occurrences on the server that no completion made'),
    )
    .toEqual([]);
  expect.soft(record.missing, at('completions with a rule that made nothing')).toEqual([]);
  // The series is one chain: the first occurrence and one row after each followed one.
  expect.soft(tasks.length, at('tasks in the list')).toBe(1 + successors.length);

  // Checklists: each next occurrence's items are copies of its occurrence's, one each.
  const { rows: itemRows } = await stack.db.query<{
    id: string;
    task_id: string;
    text: string;
    position: string;
    done: boolean;
  }>('select id, task_id, text, position, done from public.checklist_items where list_id = $1', [
    listId,
  ]);
  const itemsOf = new Map<string, typeof itemRows>();
  for (const item of itemRows)
    itemsOf.set(item.task_id, [...(itemsOf.get(item.task_id) ?? []), item]);
  const wrong: string[] = [];
  for (const successor of successors) {
    const originals = itemsOf.get(successor.follows_id ?? '') ?? [];
    const byCopyId = new Map<string, (typeof itemRows)[number]>();
    for (const original of originals) {
      byCopyId.set(await copiedItemId(successor.id, original.id), original);
    }
    const copies = itemsOf.get(successor.id) ?? [];
    if (copies.length < originals.length) tally.partial += 1;
    for (const copy of copies) {
      const original = byCopyId.get(copy.id);
      if (!original) wrong.push(`${copy.id} under ${successor.id} is no copy of its occurrence's`);
      else if (copy.text !== original.text || copy.position !== original.position) {
        wrong.push(`${copy.id} differs from ${original.id}`);
      } else if (copy.done && !record.ticked.has(copy.id)) {
        wrong.push(`${copy.id} was copied ticked`);
      }
    }
  }
  const onServer = new Set(itemRows.map((item) => item.id));
  for (const copy of record.copies) {
    if (!onServer.has(copy)) wrong.push(`copy ${copy} made on a device is not on the server`);
  }
  expect.soft(wrong, at('checklist copies')).toEqual([]);
}

/** Next occurrences among `tasks` whose id is not derived from their occurrence, or twins. */
async function misderived(tasks: readonly TaskView[]): Promise<string[]> {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const task of tasks) {
    const follows = task.follows_id ?? '';
    if (seen.has(follows)) problems.push(`two follow ${follows}`);
    seen.add(follows);
    if (task.id !== (await successorId(follows))) problems.push(`${task.id} follows ${follows}`);
  }
  return problems;
}

describe('one next occurrence per occurrence under faults (I7)', () => {
  it.for(SEEDS)(
    'holds in the schedule with seed %i',
    { timeout: SCHEDULE_MAX_MS + 30_000 },
    async (seed, { onTestFailed }) => {
      onTestFailed(() =>
        console.error(`recurrence convergence: seed ${seed} failed; replay: ${replay(seed)}`),
      );
      if (!started) started = performance.now();
      progress.seed = seed;
      await driver.guarded(() => runSchedule(seed).then((record) => check(seed, record)));
      ran += 1;
    },
  );
});
