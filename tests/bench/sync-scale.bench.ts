// Issue 16, the server at scale: what one user's incremental sync_pull and sync_push cost
// on Postgres 15 when the REST of the database (other people's lists) grows from 10,000 to
// 1,000,000 tasks. Figures are printed, not asserted (run.ts, BENCH=scale).
//
// The user is an editor of 50 lists (100 tasks and 100 comments each) owned by another
// member. Two databases on one cluster hold exactly that, plus others' data: 100 lists of
// 100 tasks (10k) in one, 10,000 lists of 100 tasks (1M) in the other, each list with an
// owner and an editor among 200 other users and a comment on every fourth task, then churn
// (2,000 edits and 20 deletes through every trigger). Samples alternate between the two
// databases (each going first every other round), so a busy moment on the shared machine hits
// both sizes alike.
//
// One sample, per database: the other member edits 100 of the user's tasks (and others edit
// 100 of theirs), then, each timed, as the signed-in user (role + JWT claims, as PostgREST
// runs an rpc, sync/kit/sql.ts): the pull that fetches those 100 rows, the pull after it
// (nothing new), and a push of 100 patches in one request (sync/push.ts sends up to 500 a
// batch); an untimed pull then takes the user's own changes back, so every timed pull starts
// from a current cursor. Each timed pull is then run again under EXPLAIN (ANALYZE, BUFFERS)
// (read-only, same cursor: the same rows) and a second push of 100 other patches with it, for
// the shared buffers they touch: the work done, which the machine's load does not move.
//
// Seeding others' rows: one INSERT … generate_series per table per chunk, with the tables'
// user triggers disabled inside that transaction (nobody else sees them off) and their
// effect reproduced: sync_stamp's version 1, created_at/updated_at = now(), deleted_at null
// and sync_xid/granted_xid = pg_current_xact_id() are the columns' own defaults; lists'
// realtime_epoch 0 likewise; tasks' completed_at = now() for done tasks; the owner
// membership lists_after_write would add is inserted explicitly. Foreign keys stay checked.
// Not reproduced: the realtime broadcast of each inserted row (realtime.messages, which
// sync_pull and sync_push never read). The user's own data and all churn go through every
// trigger.
import { actAs, asCaller, freshDatabase, type TestDatabase } from '../support/database';
import { pull, push, type Mutation } from '../support/sync-calls';
import { percentiles, type Percentiles } from './percentiles';

const MY_LISTS = 50;
const PER_LIST = 100;
const OTHER_USERS = 200;
const SIZES = [10_000, 1_000_000] as const;
/** Others' lists per seeding transaction (50,000 tasks). */
const CHUNK_LISTS = 500;
const CHANGES = 100;
const WARMUP = 5;
const SAMPLES = 30;

const ME = '5ca1e000-0000-4000-8000-000000000001';
const OWNER = '5ca1e000-0000-4000-8000-000000000002';
const CLIENT = '5ca1e000-0000-4000-8000-0000000000c1';

export interface SyncScaleSize {
  /** Tasks in other people's lists. */
  othersTasks: number;
  /** Every task in the database. */
  totalTasks: number;
  seedMs: number;
  pull: Percentiles;
  emptyPull: Percentiles;
  push: Percentiles;
  /** Shared buffers each call touched (p50): the work done, whatever the machine's load. */
  pullBuffers: number;
  emptyPullBuffers: number;
  pushBuffers: number;
}

export interface SyncScaleFigures {
  myLists: number;
  myTasks: number;
  changes: number;
  sizes: SyncScaleSize[];
}

const uuid = (prefix: string, i: string) => `md5('${prefix}:' || ${i})::uuid`;

async function seedMine(db: TestDatabase): Promise<void> {
  const e = db.engine;
  await e.query(
    `insert into auth.users (id, aud, role, email, raw_user_meta_data, created_at, updated_at)
     values ($1, 'authenticated', 'authenticated', 'me@example.com', '{"display_name":"Me"}', now(), now()),
            ($2, 'authenticated', 'authenticated', 'owner@example.com', '{"display_name":"Owner"}', now(), now())`,
    [ME, OWNER],
  );
  await e.query(
    `insert into auth.users (id, aud, role, email, raw_user_meta_data, created_at, updated_at)
     select ${uuid('user', 'i')}, 'authenticated', 'authenticated', 'user' || i || '@example.com',
            jsonb_build_object('display_name', 'User ' || i), now(), now()
     from generate_series(1, ${OTHER_USERS}) i`,
  );
  // Through every trigger: lists_after_write makes the owner's membership.
  await e.query(
    `insert into lists (id, name, created_by)
     select ${uuid('mylist', 'i')}, 'Mine ' || i, $1 from generate_series(0, ${MY_LISTS - 1}) i`,
    [OWNER],
  );
  // Half the tasks before the user joins (delivered at the grant), half after.
  const tasks = (from: number, to: number) =>
    e.query(
      `insert into tasks (id, list_id, title, notes, position, created_by)
       select ${uuid('mytask', 'i')}, ${uuid('mylist', `(i % ${MY_LISTS})`)}, 'Task ' || i,
              'Notes for task ' || i, 'a' || lpad(i::text, 6, '0'), $1
       from generate_series(${from}, ${to - 1}) i`,
      [OWNER],
    );
  const myTasks = MY_LISTS * PER_LIST;
  await tasks(0, myTasks / 2);
  await e.query(
    `insert into memberships (list_id, user_id, role)
     select ${uuid('mylist', 'i')}, $1, 'editor' from generate_series(0, ${MY_LISTS - 1}) i`,
    [ME],
  );
  await tasks(myTasks / 2, myTasks);
  await e.query(
    `insert into comments (task_id, list_id, author_id, body)
     select ${uuid('mytask', 'i')}, ${uuid('mylist', `(i % ${MY_LISTS})`)}, $1, 'Comment ' || i
     from generate_series(0, ${myTasks - 1}) i`,
    [OWNER],
  );
}

/** Others' lists [from, to), 100 tasks each, in one transaction (see the header). */
async function seedOthers(db: TestDatabase, from: number, to: number): Promise<void> {
  const tables = ['lists', 'memberships', 'tasks', 'comments'];
  const owner = uuid('user', `(i % ${OTHER_USERS} + 1)`);
  const editor = uuid('user', `((i + 1) % ${OTHER_USERS} + 1)`);
  await db.engine.transaction(async (tx) => {
    for (const t of tables) await tx.query(`alter table public.${t} disable trigger user`);
    await tx.query(
      `insert into lists (id, name, created_by)
       select ${uuid('list', 'i')}, 'List ' || i, ${owner} from generate_series(${from}, ${to - 1}) i`,
    );
    await tx.query(
      `insert into memberships (list_id, user_id, role)
       select ${uuid('list', 'i')}, ${owner}, 'owner' from generate_series(${from}, ${to - 1}) i
       union all
       select ${uuid('list', 'i')}, ${editor}, 'editor' from generate_series(${from}, ${to - 1}) i`,
    );
    await tx.query(
      `insert into tasks (id, list_id, title, notes, status, priority, position, completed_at, created_by)
       select ${uuid('task', 'i')}, ${uuid('list', `(i / ${PER_LIST})`)}, 'Task ' || i,
              'Some notes for task ' || i,
              case i % 3 when 0 then 'done' when 1 then 'doing' else 'todo' end, i % 4,
              'a' || lpad((i % ${PER_LIST})::text, 6, '0'),
              case when i % 3 = 0 then now() end,
              ${uuid('user', `((i / ${PER_LIST}) % ${OTHER_USERS} + 1)`)}
       from generate_series(${from * PER_LIST}, ${to * PER_LIST - 1}) i`,
    );
    await tx.query(
      `insert into comments (task_id, list_id, author_id, body)
       select ${uuid('task', 'i')}, ${uuid('list', `(i / ${PER_LIST})`)},
              ${uuid('user', `((i / ${PER_LIST}) % ${OTHER_USERS} + 1)`)}, 'Comment ' || i
       from generate_series(${from * PER_LIST}, ${to * PER_LIST - 1}, 4) i`,
    );
    for (const t of tables) await tx.query(`alter table public.${t} enable trigger user`);
  });
}

/** Others edit `n` of their tasks (through every trigger), starting at task `at`. */
async function churn(db: TestDatabase, othersTasks: number, at: number, n: number) {
  await db.engine.query(
    `update tasks set priority = (priority + 1) % 4, title = 'Churned ' || $1::int
     where id in (select ${uuid('task', `((i * 7919) % ${othersTasks})`)}
                  from generate_series($1::int, $1::int + ${n - 1}) i)`,
    [at],
  );
}

/** Seeds the user's lists and `othersTasks` tasks of others' (exported for EXPLAIN sessions). */
export async function seedSyncScale(db: TestDatabase, othersTasks: number): Promise<void> {
  await seedMine(db);
  const lists = othersTasks / PER_LIST;
  for (let from = 0; from < lists; from += CHUNK_LISTS) {
    await seedOthers(db, from, Math.min(lists, from + CHUNK_LISTS));
  }
  await churn(db, othersTasks, 0, 2000);
  // Some tombstones (c_after_delete takes their comments along).
  await db.engine.query(
    `update tasks set deleted_at = now()
     where id in (select ${uuid('task', `((i * 104729) % ${othersTasks})`)}
                  from generate_series(1, 20) i)`,
  );
  // What autovacuum would have done after so many inserts.
  await db.engine.exec('vacuum analyze');
}

interface Sampler {
  db: TestDatabase;
  othersTasks: number;
  cursor: string | null;
  seq: number;
  round: number;
  pull: number[];
  empty: number[];
  push: number[];
  pullBuffers: number[];
  emptyBuffers: number[];
  pushBuffers: number[];
}

/**
 * Shared buffers (hit + read) one call touched, its function's statements included, from
 * EXPLAIN (ANALYZE, BUFFERS) run as the user: the same call, deterministic under any load.
 */
async function buffersOf(s: Sampler, call: string, params: string[]): Promise<number> {
  return asCaller(s.db.engine, { uid: ME }, async (tx) => {
    const { rows } = await tx.query<{ 'QUERY PLAN': [{ Plan: Record<string, number> }] }>(
      `explain (analyze, buffers, format json) select ${call}`,
      params,
    );
    const plan = rows[0]?.['QUERY PLAN'][0].Plan;
    return (plan?.['Shared Hit Blocks'] ?? 0) + (plan?.['Shared Read Blocks'] ?? 0);
  });
}

async function pullToEnd(s: Sampler): Promise<number> {
  let rows = 0;
  for (;;) {
    const page = await pull(s.db.engine, ME, s.cursor);
    rows += page.rows.length;
    s.cursor = page.cursor;
    if (!page.has_more) return rows;
  }
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const result = await fn();
  return [result, performance.now() - start];
}

/** 100 distinct tasks of the user's lists (37 and 5,000 are coprime): windows of n apart by
 * 100 or more (mod 5,000) never share a task. */
const myTasks = (n: number) =>
  `select ${uuid('mytask', `((i * 37) % ${MY_LISTS * PER_LIST})`)} as id
   from generate_series(${n}, ${n + CHANGES - 1}) i`;

async function sample(s: Sampler, record: boolean): Promise<void> {
  s.round += 1;
  const base = s.round * CHANGES;
  // The other member changes 100 of the user's tasks (under RLS, as the API would).
  await s.db.engine.transaction(async (tx) => {
    await actAs(tx, { uid: OWNER });
    await tx.query(
      `update tasks set title = 'Edited ' || $1::int, priority = ($1::int) % 4
       where id in (${myTasks(base)})`,
      [s.round],
    );
  });
  await churn(s.db, s.othersTasks, 10_000 + base, CHANGES);

  const from = s.cursor;
  if (from === null) throw new Error('the initial sync comes first');
  const [page, pullMs] = await timed(() => pull(s.db.engine, ME, from));
  if (page.has_more || page.rows.length !== CHANGES) {
    throw new Error(`incremental pull got ${page.rows.length} rows, expected ${CHANGES}`);
  }
  // The same pull again (read-only: same rows), for its buffers.
  const pullBuffers = await buffersOf(s, 'public.sync_pull($1, 1000)', [from]);
  s.cursor = page.cursor;
  const [empty, emptyMs] = await timed(() => pull(s.db.engine, ME, page.cursor));
  if (empty.rows.length !== 0) throw new Error(`empty pull got ${empty.rows.length} rows`);
  const emptyBuffers = await buffersOf(s, 'public.sync_pull($1, 1000)', [page.cursor]);
  s.cursor = empty.cursor;

  const patches = async (at: number, title: string): Promise<Mutation[]> => {
    const { rows: ids } = await s.db.engine.query<{ id: string }>(myTasks(at));
    return ids.map((r, i) => ({
      seq: (s.seq += 1),
      table: 'tasks',
      op: 'patch',
      id: r.id,
      data: { title: `${title}.${i}`, status: i % 2 ? 'doing' : 'todo' },
    }));
  };
  const mutations = await patches(base + 1700, `Mine ${s.round}`);
  const [pushed, pushMs] = await timed(() => push(s.db.engine, ME, CLIENT, mutations));
  const applied = pushed.results.filter((r) => r.status === 'applied').length;
  if (applied !== CHANGES) throw new Error(`push applied ${applied} of ${CHANGES}`);
  // A push is not repeatable: its buffers are those of a second, untimed push like it.
  const again = await patches(base + 3400, `Again ${s.round}`);
  const pushBuffers = await buffersOf(s, 'public.sync_push($1, $2::jsonb)', [
    CLIENT,
    JSON.stringify(again),
  ]);
  const { rows: done } = await s.db.engine.query<{ n: number }>(
    `select count(*)::integer as n from tasks where title like $1`,
    [`Again ${s.round}.%`],
  );
  if (done[0]?.n !== CHANGES) throw new Error(`second push applied ${done[0]?.n} of ${CHANGES}`);
  // The user's own changes come back once; the next timed pull starts current again.
  await pullToEnd(s);

  if (record) {
    s.pull.push(pullMs);
    s.empty.push(emptyMs);
    s.push.push(pushMs);
    s.pullBuffers.push(pullBuffers);
    s.emptyBuffers.push(emptyBuffers);
    s.pushBuffers.push(pushBuffers);
  }
}

export async function benchSyncScale(): Promise<SyncScaleFigures> {
  const dbs: TestDatabase[] = [];
  try {
    const samplers: Sampler[] = [];
    const seedMs: number[] = [];
    for (const othersTasks of SIZES) {
      const db = await freshDatabase('postgres', { seed: false });
      dbs.push(db);
      const [, ms] = await timed(() => seedSyncScale(db, othersTasks));
      seedMs.push(ms);
      const s: Sampler = {
        db,
        othersTasks,
        cursor: null,
        seq: 0,
        round: 0,
        pull: [],
        empty: [],
        push: [],
        pullBuffers: [],
        emptyBuffers: [],
        pushBuffers: [],
      };
      await pullToEnd(s); // the initial sync: the cursor is current from here on
      samplers.push(s);
    }
    for (let i = 0; i < WARMUP + SAMPLES; i += 1) {
      // ABBA: each size goes first every other round, so an order effect falls on both.
      const order = i % 2 ? [...samplers].reverse() : samplers;
      for (const s of order) await sample(s, i >= WARMUP);
    }
    const sizes: SyncScaleSize[] = [];
    for (const [i, s] of samplers.entries()) {
      const { rows } = await s.db.engine.query<{ n: number }>(
        'select count(*)::integer as n from tasks',
      );
      sizes.push({
        othersTasks: s.othersTasks,
        totalTasks: rows[0]?.n ?? 0,
        seedMs: seedMs[i] ?? 0,
        pull: percentiles(s.pull),
        emptyPull: percentiles(s.empty),
        push: percentiles(s.push),
        pullBuffers: percentiles(s.pullBuffers).p50,
        emptyPullBuffers: percentiles(s.emptyBuffers).p50,
        pushBuffers: percentiles(s.pushBuffers).p50,
      });
    }
    return { myLists: MY_LISTS, myTasks: MY_LISTS * PER_LIST, changes: CHANGES, sizes };
  } finally {
    for (const db of dbs) await db.close();
  }
}
