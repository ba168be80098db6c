// Sync with the app closed (issue 38), in Chromium with the built app and its service worker:
// a task added with no network, then every tab of the app closed, then the network back and
// the browser waking the worker's Background Sync (fired as DevTools fires it, CDP
// ServiceWorker.dispatchSyncEvent: the browser itself decides by the machine's real network,
// which Playwright's offline switch does not change) → the task's row on the server, read by
// polling the REST API every 5 ms as its owner. Measured from the moment the network comes
// back, once the last tab has closed and let go of the engine's lock.
// One warm-up round, then SAMPLES rounds, each with its own task.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { chromium } from '@playwright/test';

import { backgroundSyncEvents } from '../support/background-sync-events';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../support/chromium';
import { SEED, startTestDevstack } from '../support/devstack';
import { startStaticServer } from '../support/static-server';
import { buildApp, sessionOf } from './app.bench';
import { percentiles, type Percentiles } from './percentiles';

const ROOT = join(import.meta.dirname, '..', '..');
const TMP_DIR = join(ROOT, '.tmp');
const SAMPLES = Number(process.env.BENCH_BACKGROUND_SAMPLES ?? 10);
/** Where the app keeps the session it starts with (src/lib/auth-storage.ts). */
const AUTH_STORAGE_KEY = 'outpost-auth';
/** How long one step may take before the bench gives up (ms). */
const STEP_MS = 30_000;
const POLL_MS = 5;

export interface BackgroundFigures {
  /** Network back, every tab closed → the row on the server (ms), in the order measured. */
  samples: number[];
  closedToServer: Percentiles;
}

async function within<T>(what: string, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`background bench: ${what} took over ${STEP_MS} ms`)),
      STEP_MS,
    );
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export async function benchBackgroundSync(): Promise<BackgroundFigures> {
  const stack = await startTestDevstack('postgres');
  mkdirSync(TMP_DIR, { recursive: true });
  const outDir = mkdtempSync(join(TMP_DIR, 'bench-background-'));
  const server = await startStaticServer(0, outDir);
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    buildApp(stack.url, stack.publishableKey, outDir);
    const session = await sessionOf(stack, 'alice@example.com');
    const api = stack.client();
    const signIn = await api.auth.signInWithPassword({
      email: 'alice@example.com',
      password: 'outpost-demo',
    });
    if (signIn.error) throw signIn.error;
    const context = await browser.newContext();
    await context.addInitScript(
      ([key, value]) => {
        if (!localStorage.getItem(key)) localStorage.setItem(key, value);
      },
      [AUTH_STORAGE_KEY, JSON.stringify(session)] as const,
    );
    const listUrl = `${server.url}/lists/${SEED.list}`;
    const first = await context.newPage();
    await within('open the app', first.goto(listUrl));
    await within(
      'the worker in control',
      first.evaluate(() => navigator.serviceWorker.ready.then(() => undefined)),
    );
    await first.reload();
    const worker = await within(
      'the worker registration',
      backgroundSyncEvents(context, server.url),
    );
    await first.close();

    const samples: number[] = [];
    for (let round = 0; round <= SAMPLES; round++) {
      const title = `Background ${round} ${Date.now()}`;
      const page = await context.newPage();
      await within('open the list', page.goto(listUrl));
      const field = page.getByLabel('Add a task');
      await within('the quick add', field.waitFor());
      await context.setOffline(true);
      await field.fill(title);
      await field.press('Enter');
      await within(
        'the task on screen',
        page.locator(`[data-task-id][aria-label="${title}"]`).waitFor(),
      );
      await page.close();
      await within('the tab letting go', worker.untilNoTabLeads(STEP_MS));
      const online = performance.now();
      await context.setOffline(false);
      await worker.fire('sync');
      await within(
        'the task on the server',
        (async () => {
          for (;;) {
            const { data } = await api.from('tasks').select('id').eq('title', title);
            if (data && data.length > 0) return;
            await new Promise((resolve) => setTimeout(resolve, POLL_MS));
          }
        })(),
      );
      if (round > 0) samples.push(performance.now() - online);
    }
    await context.close();
    return { samples, closedToServer: percentiles(samples) };
  } finally {
    await browser.close();
    await server.close();
    await stack.stop();
    rmSync(outDir, { recursive: true, force: true });
  }
}
