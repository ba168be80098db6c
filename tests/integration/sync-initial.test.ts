// A first sync (a pull from scratch) of several pages: each page is asked for while the one
// before it is written, rows are written in bulk without reading the device's copies while
// nothing is queued, a change made on the device in the middle of it is never hidden, and the
// status says how far it has come (rows so far, of how many the server said).
import { describe, expect, it } from 'vitest';

import type { Download } from '../../sync/status';
import { deviceSuite } from '../support/device-suite';
import { SEED, type TestDevstack } from '../support/devstack';
import { deviceDb } from '../../sync/testing';

let stack: TestDevstack;
const { device } = deviceSuite((started) => (stack = started));

/** More tasks in the seeded list, so a first pull takes several pages of 1,000. */
const EXTRA_TASKS = 3_200;

describe('a first sync of several pages', () => {
  it('fetches ahead, keeps a change made meanwhile, and reports its progress', async () => {
    await stack.db.query(
      `insert into public.tasks (list_id, title, position, created_by)
       select $1, 'Bulk ' || i, 'b' || lpad(i::text, 5, '0'), $2 from generate_series(1, $3) i`,
      [SEED.list, SEED.alice, EXTRA_TASKS],
    );
    const { rows: counted } = await stack.db.query<{ n: number }>(
      `select count(*)::int as n from public.tasks where list_id = $1`,
      [SEED.list],
    );
    const tasksOnServer = counted[0]?.n ?? 0;

    // How many tasks the device holds when each page is asked for; at the third, an edit on
    // the device and one on the server of a task from page 1.
    const heldAtAsk: number[] = [];
    let edited: string | undefined;
    const titlesAtPush: string[] = [];
    const alice = await device('alice@example.com', {
      online: false,
      wrapRemote: (real) => ({
        ...real,
        async pull(cursor, maxRows) {
          const tasks = deviceDb(alice.sync).rows('tasks');
          heldAtAsk.push(await tasks.count());
          if (heldAtAsk.length === 3) {
            edited = (await tasks.where('list_id').equals(SEED.list).first())?.id;
            if (!edited) throw new Error('page 1 is not on the device');
            await alice.sync.repos.tasks.update(edited, { title: 'Edited on the device' });
            await stack.db.query(
              `update public.tasks set notes = 'Edited on the server' where id = $1`,
              [edited],
            );
          }
          return real.pull(cursor, maxRows);
        },
        async push(clientId, mutations) {
          // The edit goes out after the pull: by then the pull has written the server's newer
          // row, which must not have hidden the edit still queued.
          const row = await deviceDb(alice.sync)
            .rows('tasks')
            .get(edited ?? '');
          titlesAtPush.push(String(row?.title));
          return real.push(clientId, mutations);
        },
      }),
    });
    const downloads: (Download | null)[] = [];
    const stop = alice.sync.engine.status.subscribe(() => {
      const { download } = alice.sync.engine.status.getSnapshot();
      if (download !== downloads.at(-1)) downloads.push(download);
    });
    alice.online.set(true);
    const status = await alice.sync.engine.syncNow();
    stop();
    expect(status.phase).toBe('synced');

    // Fetched ahead: page 2 is asked for before page 1 is written (nothing on the device
    // yet), page 3 before page 2 (page 1 only).
    expect(heldAtAsk.length).toBeGreaterThanOrEqual(4);
    expect(heldAtAsk.slice(0, 3)).toEqual([0, 0, heldAtAsk[2]]);
    expect(heldAtAsk[2]).toBeGreaterThan(0);
    expect(heldAtAsk[2]).toBeLessThanOrEqual(1_000);

    // The change made on the device mid-pull is kept, laid over the server's newer row: on
    // the device all along (when its push went out, after the pull) and once synced.
    expect(titlesAtPush).toEqual(['Edited on the device']);
    const row = await deviceDb(alice.sync)
      .rows('tasks')
      .get(edited ?? '');
    expect(row?.title).toBe('Edited on the device');
    expect(row?.notes).toBe('Edited on the server');

    // Progress: from 0 up, by page, to every row delivered, of the number the server said;
    // then null once the pull has ended.
    const during = downloads.filter((d): d is Download => d !== null);
    expect(during[0]).toEqual({ received: 0, expected: null });
    const received = during.map((d) => d.received);
    expect(received).toEqual([...received].sort((a, b) => a - b));
    const last = during.at(-1);
    expect(last?.received).toBeGreaterThanOrEqual(tasksOnServer);
    // Every row counted by the first page, once; the task changed on the server mid-pull
    // came twice (its first version on page 1, its new one later).
    expect(last?.expected).toBe((last?.received ?? 0) - 1);
    expect(downloads.at(-1)).toBeNull();
    expect(status.download).toBeNull();
  });
});
