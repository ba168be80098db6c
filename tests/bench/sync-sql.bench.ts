// Figures for the sync SQL on both engines, printed side by side (not asserted):
// sync_pull of 100k tasks in pages of 1,000 and sync_push of 1,000 patches in 2 batches.
import { createUsers, freshDatabase, testId, type EngineKind } from '../support/database';
import { pull, push, type Mutation } from '../support/sync-calls';

const TASKS = 100_000;
const INSERT_TXNS = 20;
const PAGE = 1000;
const PATCHES = 1000;
const BATCH = 500;

export interface SyncSqlFigures {
  engine: EngineKind;
  pullRows: number;
  pullPages: number;
  pullMs: number;
  pullRowsPerSec: number;
  pushMs: number;
  pushRequests: number;
  pushApplied: number;
}

export async function benchSyncSql(kind: EngineKind): Promise<SyncSqlFigures> {
  const db = await freshDatabase(kind, { seed: false });
  try {
    const user = testId('0a');
    const list = testId('11');
    await createUsers(db.engine, { user });
    await db.engine.query(`insert into lists (id, name, created_by) values ($1, 'Big', $2)`, [
      list,
      user,
    ]);
    const perTxn = TASKS / INSERT_TXNS;
    for (let t = 0; t < INSERT_TXNS; t += 1) {
      await db.engine.query(
        `insert into tasks (list_id, title, notes, position, created_by)
         select $1, 'Task ' || i, 'Some notes for task ' || i, 'a' || lpad(i::text, 6, '0'), $2
         from generate_series($3::int, $4::int) i`,
        [list, user, t * perTxn, (t + 1) * perTxn - 1],
      );
    }
    await db.engine.query('analyze');

    let cursor: string | null = null;
    let rows = 0;
    let pages = 0;
    const pullStart = performance.now();
    for (;;) {
      const page = await pull(db.engine, user, cursor, PAGE);
      rows += page.rows.length;
      pages += 1;
      cursor = page.cursor;
      if (!page.has_more) break;
    }
    const pullMs = performance.now() - pullStart;

    const { rows: ids } = await db.engine.query<{ id: string }>(
      'select id from tasks order by id limit $1',
      [PATCHES],
    );
    const mutations: Mutation[] = ids.map((r, i) => ({
      seq: i + 1,
      table: 'tasks',
      op: 'patch',
      id: r.id,
      data: { title: `Edited ${i}`, priority: i % 4 },
    }));
    const client = testId('c1');
    let applied = 0;
    const pushStart = performance.now();
    for (let i = 0; i < mutations.length; i += BATCH) {
      const res = await push(db.engine, user, client, mutations.slice(i, i + BATCH));
      applied += res.results.filter((r) => r.status === 'applied').length;
    }
    const pushMs = performance.now() - pushStart;

    return {
      engine: kind,
      pullRows: rows,
      pullPages: pages,
      pullMs,
      pullRowsPerSec: rows / (pullMs / 1000),
      pushMs,
      pushRequests: Math.ceil(PATCHES / BATCH),
      pushApplied: applied,
    };
  } finally {
    await db.close();
  }
}
