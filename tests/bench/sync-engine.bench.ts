// The sync engine's figures (issue 4), each next to its baseline in the same run: initial
// sync of 100k tasks from a devstack on Postgres 15 into fake-indexeddb vs a raw Dexie
// bulkPut of the same rows (the local limit); a push of 1,000 queued edits (the push alone,
// and with the pull that follows it); local write latency (repository write + enqueue, one
// Dexie transaction).
import 'fake-indexeddb/auto';

import Dexie from 'dexie';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';

import { SEED, startTestDevstack } from '../support/devstack';
import { FaultyNetwork } from '../support/faults';
import { startDevice } from '../support/sync-client';
import { percentile } from './percentiles';

const TASKS = 100_000;
const PULL_PATH = '/rest/v1/rpc/sync_pull';
const PUSH_EDITS = 1_000;
const LATENCY_WRITES = 1_000;
/** bulkPut chunk for the baseline: the same page size the engine applies per transaction. */
const CHUNK = 1_000;

export interface SyncEngineFigures {
  initialRows: number;
  initialMs: number;
  bulkPutMs: number;
  pushEdits: number;
  pushRequests: number;
  /** From going online until the engine is done pushing (its first pull request). */
  pushMs: number;
  /** The whole sync: the push and the pull that follows it. */
  pushThenPullMs: number;
  writeP50Ms: number;
  writeP95Ms: number;
}

export async function benchSyncEngine(): Promise<SyncEngineFigures> {
  const stack = await startTestDevstack('postgres');
  try {
    const listId = crypto.randomUUID();
    await stack.db.query(
      `insert into public.lists (id, name, color, created_by) values ($1, 'Big', 'blue', $2)`,
      [listId, SEED.alice],
    );
    for (let start = 0; start < TASKS; start += 10_000) {
      await stack.db.query(
        `insert into public.tasks (list_id, title, notes, position, created_by)
         select $1, 'Task ' || i, 'Some notes for task ' || i, 'a' || lpad(i::text, 6, '0'), $2
           from generate_series($3::int, $4::int) i`,
        [listId, SEED.alice, start, start + 9_999],
      );
    }
    await stack.db.query('analyze');

    // 1. Initial sync through the engine.
    const net = new FaultyNetwork();
    // When each pull request leaves: the engine pulls once it has pushed everything.
    const pullsSentAt: number[] = [];
    const timed: typeof fetch = (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (new URL(url).pathname === PULL_PATH) pullsSentAt.push(performance.now());
      return net.fetch(input, init);
    };
    const alice = await startDevice(stack, 'alice@example.com', {
      fetch: timed,
      online: false,
    });
    const initialStart = performance.now();
    alice.online.set(true);
    await alice.sync.engine.syncNow();
    const initialMs = performance.now() - initialStart;
    const initialRows = await alice.sync.db.rows('tasks').where('list_id').equals(listId).count();
    // A sync cut short (a timeout under load, a backoff) would make every figure below a lie.
    if (initialRows !== TASKS) {
      throw new Error(`initial sync delivered ${initialRows} of ${TASKS} tasks`);
    }

    // Baseline: the same rows written straight into a fresh database with bulkPut.
    const rows = await alice.sync.db.rows('tasks').toArray();
    const raw = new Dexie('bulkput-baseline', { indexedDB: new IDBFactory(), IDBKeyRange });
    raw.version(1).stores({ tasks: 'id, list_id, [list_id+position], status, assignee_id' });
    const bulkStart = performance.now();
    for (let i = 0; i < rows.length; i += CHUNK)
      await raw.table('tasks').bulkPut(rows.slice(i, i + CHUNK));
    const bulkPutMs = performance.now() - bulkStart;
    raw.close();

    // 2. Local write latency: one repository write (validate + row + outbox) at a time.
    alice.online.set(false);
    const ids = rows.slice(0, Math.max(PUSH_EDITS, LATENCY_WRITES)).map((r) => r.id);
    const latencies: number[] = [];
    for (let i = 0; i < LATENCY_WRITES; i++) {
      const t0 = performance.now();
      await alice.sync.repos.tasks.update(ids[i] ?? '', { title: `Edited ${i}` });
      latencies.push(performance.now() - t0);
    }

    // 3. Push of the 1,000 queued edits, then the pull that follows it.
    const before = net.count('/rest/v1/rpc/sync_push');
    const pullsBefore = pullsSentAt.length;
    const pushStart = performance.now();
    alice.online.set(true);
    await alice.sync.engine.syncNow();
    const pushThenPullMs = performance.now() - pushStart;
    const pushedAt = pullsSentAt[pullsBefore];
    if (pushedAt === undefined) throw new Error('no pull followed the push');
    const pushMs = pushedAt - pushStart;
    const pushRequests = net.count('/rest/v1/rpc/sync_push') - before;
    if ((await alice.sync.pendingCount()) !== 0) throw new Error('push did not drain the outbox');
    await alice.close();

    return {
      initialRows,
      initialMs,
      bulkPutMs,
      pushEdits: PUSH_EDITS,
      pushRequests,
      pushMs,
      pushThenPullMs,
      writeP50Ms: percentile(latencies, 0.5),
      writeP95Ms: percentile(latencies, 0.95),
    };
  } finally {
    await stack.stop();
  }
}
