// BENCH=browser-initial (issue 42): the browser bench's initial sync of 100k tasks into
// Chromium's IndexedDB against its bulkPut baseline (browser.bench.ts, figure 3), alone: the
// same bench page (sync-page.ts) in the same Chromium with a profile on disk, without the app's
// build, alice's navigation and new tabs, or the heap walk after it. Minutes instead of a
// quarter of an hour, to try a change to the initial sync.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { SEED, startTestDevstack } from '../../support/devstack';
import { startStaticServer } from '../../support/static-server';
import { seedTasks } from '../app.bench';
import { buildBenchPage, profile, progress, TMP_DIR, until, within } from '../browser.bench';
import type { SyncPageOptions, SyncRun } from './sync-page';

const TASKS = 100_000;
/** Bob's list of TASKS (alice is not in it). */
const LIST_ID = 'b1600000-0000-4000-8000-000000142100';
/** Initial syncs timed, each with its bulkPut baseline (BENCH_BROWSER_SYNC_RUNS). */
const RUNS = Number(process.env.BENCH_BROWSER_SYNC_RUNS ?? 3);
/** Bounds of the waits (ms): a page load, and one initial sync with its baseline. */
const STEP_MS = 30_000;
const RUN_MS = 360_000;

/** `runs` initial syncs of 100k tasks in Chromium, each with its bulkPut baseline. */
export async function benchBrowserInitialSync(runs = RUNS): Promise<SyncRun[]> {
  const stack = await startTestDevstack('postgres');
  mkdirSync(TMP_DIR, { recursive: true });
  const outDir = mkdtempSync(join(TMP_DIR, 'bench-initial-'));
  const server = await startStaticServer(0, outDir);
  const bob = await profile('bob-initial');
  try {
    progress(`seeding ${TASKS.toLocaleString('en-US')} tasks`);
    await stack.db.query(
      `insert into public.lists (id, name, color, created_by) values ($1, 'Hundred thousand', 'green', $2)`,
      [LIST_ID, SEED.bob],
    );
    await seedTasks(stack, LIST_ID, SEED.bob, TASKS);
    await stack.db.query('analyze');
    await buildBenchPage(outDir);
    // What the server answers for any other path (the browser's favicon request).
    writeFileSync(join(outDir, 'index.html'), '<!doctype html><title>bench</title>');
    await within('open the bench page', STEP_MS, bob.page.goto(`${server.url}/__bench/sync.html`));
    await until(bob.page, 'bench page loaded', STEP_MS, () => '__syncBench' in window, undefined);
    const options: SyncPageOptions = {
      url: stack.url,
      publishableKey: stack.publishableKey,
      email: 'bob@example.com',
      password: 'outpost-demo',
      storageKey: 'outpost-auth',
      listId: LIST_ID,
      expected: TASKS,
      runs,
    };
    progress(`initial sync of 100k tasks in the bench page (${runs} run(s))`);
    return await within(
      'initial sync of 100k tasks and its bulkPut baseline',
      RUN_MS * runs,
      bob.page.evaluate(
        (opts) =>
          (
            window as unknown as { __syncBench: (o: SyncPageOptions) => Promise<SyncRun[]> }
          ).__syncBench(opts),
        options,
      ),
    );
  } finally {
    await bob.close();
    await server.close();
    await stack.stop();
    rmSync(outDir, { recursive: true, force: true });
  }
}
