// Real-browser figures (issue 16), each printed next to its baseline or target by run.ts's
// `browser` block, in one run: Debian's Chromium, the production build, an in-process devstack
// on Postgres 15.
// 1. In-app navigation: on /lists, a click on a list's card → its first task row rendered,
//    for a list of 10,000 tasks and for the seeded list of 30 (the baseline), back to /lists
//    by the app's own "Lists" link between samples.
// 2. A new tab opened offline on a list's URL (worker installed and controlling, device
//    synced, the context offline) → first task row rendered, for both lists.
// 3. Initial sync of 100k tasks by the real sync library in Chromium's IndexedDB (a bench
//    page, tests/bench/browser/sync-page.ts) vs a raw Dexie bulkPut of the same rows in the
//    same page.
// 4. JS heap of the app with those 100k tasks on the device, browsing the lists, each list and
//    a few tasks' screens: CDP's JSHeapUsedSize after each step, and after a forced GC.
// 5. Placeholder frames: during 1 and 2, every painted state of the list screen's counts
//    (`.tasks-screen__counts`) and of the lists screen's per-list counts
//    (`.lists-card__counts`), recorded from navigation start, checked against the device's
//    data (the server's counts, which the synced device holds).
// 6. Issue 42's floors (browser/first-visit.ts): a first visit (fresh context, cold cache, no
//    worker) → the welcome heading painted, alternating with the same for a static page of
//    the app's stylesheet and a one-line script; and that page served offline by a worker of
//    its own, a tab of it after each of figure 2's tabs.
// Times are taken inside the pages (performance.now()). Each person has a browser of their own
// with its profile on disk, as an installed app has (see profile()).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { chromium, type BrowserContext, type CDPSession, type Page } from '@playwright/test';
import type { Session } from '@supabase/supabase-js';

import { CHROMIUM_ARGS, CHROMIUM_PATH, reportOffline } from '../support/chromium';
import { SEED, startTestDevstack, type TestDevstack } from '../support/devstack';
import { startStaticServer } from '../support/static-server';
import { buildApp, seedTasks, sessionOf } from './app.bench';
import {
  installFloorWorker,
  measureFirstVisits,
  openFloorTab,
  writeContentFloor,
  writeFloorPage,
  type FirstVisitFigures,
  type FloorTab,
} from './browser/first-visit';
import { bundleBenchPage } from './browser/bench-page';
import type { SyncPageOptions, SyncRun } from './browser/sync-page';
import { percentiles, type Percentiles } from './percentiles';

const ROOT = join(import.meta.dirname, '..', '..');
/** Where the app's build and the bench page are made, served together (one origin). */
export const TMP_DIR = join(ROOT, '.tmp');
const BENCH_PAGE = '/__bench/sync.html';

const BIG_TASKS = 10_000;
const HUGE_TASKS = 100_000;
/** alice's list of 10,000 (figures 1, 2) and bob's of 100,000 (figures 3, 4). */
const BIG_LIST_ID = 'b1600000-0000-4000-8000-000000000016';
const HUGE_LIST_ID = 'b1600000-0000-4000-8000-000000100000';
const NAV_WARMUP = 3;
const NAV_SAMPLES = Number(process.env.BENCH_BROWSER_SAMPLES ?? 20);
const NEW_TAB_WARMUP = 2;
const NEW_TAB_SAMPLES = NAV_SAMPLES;
const FIRST_VISIT_WARMUP = 2;
const FIRST_VISIT_SAMPLES = NAV_SAMPLES;
/** Initial syncs of 100k timed (each with its bulkPut baseline); each takes a while. */
const SYNC_RUNS = Number(process.env.BENCH_BROWSER_SYNC_RUNS ?? 2);
/**
 * If set, a Chromium performance trace of the first measured new tab on each list is written
 * there (`<dir>/new-tab-<list>.json`, for chrome://tracing or DevTools), to see where a new
 * tab's time goes.
 */
const TRACE_DIR = process.env.BENCH_BROWSER_TRACE;
const TRACE_CATEGORIES = process.env.BENCH_BROWSER_TRACE_CATEGORIES?.split(',') ?? [
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'blink.user_timing',
  'loading',
  'v8.execute',
  // v8.compile events say whether a script's code came from the code cache (consumedCacheSize).
  'disabled-by-default-v8.compile',
  'ServiceWorker',
  // JS samples (ProfileChunk events, BENCH_BROWSER_TRACE_JS=1): which functions the main thread
  // runs. Sampling slows the traced tab down a lot (every function deserialized from the code
  // cache is logged for the profiler), so its times are not those of an untraced tab.
  ...(process.env.BENCH_BROWSER_TRACE_JS === '1' ? ['disabled-by-default-v8.cpu_profiler'] : []),
];
/** Where the app's supabase-js keeps its session (src/lib/supabase.ts). */
const AUTH_STORAGE_KEY = 'outpost-auth';

/** Bounds of every wait (ms). */
const BOUND = {
  step: 30_000,
  sync10k: 180_000,
  sync100k: 360_000,
} as const;

/** Counts as the device holds them, by list id. */
export type Counts = Record<string, { open: number; done: number }>;

/** Painted states whose counts were not the device's data, for one figure. */
export interface PlaceholderReport {
  /** Painted states (frames whose counts differ from the frame before) checked. */
  frames: number;
  /** Of those, frames showing a count that was not the device's data. */
  wrong: number;
  /**
   * Frames (no wrong count among them) where a counts element showed no count at all: blank,
   * a dash, "Loading…" (a placeholder that makes no claim; not a wrong count).
   */
  blank: number;
  /** Up to 5 examples of wrong counts: where, what it showed, what the device holds. */
  examples: string[];
}

export interface BrowserFigures {
  /** Left out (undefined) by `benchBrowser({ newTabsOnly: true })`: the in-app navigation. */
  nav?: BrowserNavigation | undefined;
  newTabSmall: Percentiles;
  newTabBig: Percentiles;
  newTabPlaceholders: PlaceholderReport;
  /** Where a new offline tab's time goes, p50 per list (ms since navigation start). */
  newTabPhases: { list: string; phases: NewTabPhases }[];
  /** Each new tab's first task row (ms), in the order the tabs were opened. */
  newTabOrder: { small: number[]; big: number[] };
  /** Each new tab's first contentful paint (ms), paired with newTabOrder's. */
  newTabPainted: { small: number[]; big: number[] };
  /** Every new tab was controlled by the worker and could not reach the devstack. */
  newTabOffline: { controlled: number; offline: number; pages: number };
  /**
   * The floor of the new tabs (issue 42): the static floor page opened offline from its own
   * worker's cache, a tab after each of this checkout's new tabs, in their order.
   */
  newTabFloor: FloorTab[];
  /**
   * The content floors' tabs (browser/first-visit.ts): the same floor page writing the list
   * screen's own markup, as the app rendered it, instead of a heading; per list, a tab right
   * after each heading floor's.
   */
  newTabContentFloor: { small: FloorTab[]; big: FloorTab[] };
  /** First visits to the app's address and to the floor page, alternating (issue 42). */
  firstVisit?: FirstVisitFigures | undefined;
  /**
   * `compareWith`'s new tabs, each opened right after this checkout's on the same list in the
   * same round (`small[i]` and `big[i]` pair with `newTabOrder`'s).
   */
  compared?: (NewTabs & { checkout: string; nav?: BrowserNavigation | undefined }) | undefined;
  /** Left out by `newTabsOnly` and `device100k: false`: bob's initial syncs of 100k tasks and the heap after them. */
  device100k?: {
    syncRuns: SyncRun[];
    /** Peak JS heap while browsing with 100k tasks on the device (bytes). */
    heap: { maxUsed: number; maxUsedAfterGc: number; steps: HeapStep[] };
  };
}

export interface BrowserNavigation {
  navBig: Percentiles;
  navSmall: Percentiles;
  /** Click → the list screen's counts element in the DOM (the screen, before its rows). */
  navBigScreen: Percentiles;
  navSmallScreen: Percentiles;
  navPlaceholders: PlaceholderReport;
}

/** p50s of a new tab's milestones (ms from navigation start). */
export interface NewTabPhases {
  /** The document's response, from the worker's precache. */
  responseEnd: number;
  domContentLoaded: number;
  /** The app's first render into #root. */
  shell: number;
  /** The list screen's counts element first in the DOM. */
  screen: number;
  firstRow: number;
  /**
   * The tab's first contentful paint: the frame that shows the first render (#root is empty
   * before it, and the first render waits for the first rows), so the rows painted, where
   * `firstRow` is when they were put in the DOM.
   */
  firstPaint: number;
}

export interface HeapStep {
  step: string;
  used: number;
  usedAfterGc: number;
}

export function progress(step: string): void {
  process.stderr.write(`  [browser bench ${new Date().toISOString().slice(11, 19)}] ${step}\n`);
}

/** Rejects with a clear message when `work` has not settled within `ms`. */
export async function within<T>(what: string, ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`browser bench: ${what}: not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } catch (error) {
    // Playwright's own timeouts say which locator; say which step too.
    if (error instanceof Error && !error.message.startsWith('browser bench:')) {
      throw new Error(`browser bench: ${what}: ${error.message}`, { cause: error });
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Waits until `predicate(arg)` holds in the page, checked at every animation frame (or every
 * `polling` ms), for at most `ms`. Synchronous predicates only: Playwright's waitForFunction
 * takes the Promise an async predicate returns as a truthy value and resolves at once (see
 * `untilResolved`).
 */
export async function until<A>(
  page: Page,
  what: string,
  ms: number,
  predicate: (arg: A) => boolean,
  arg: A,
  polling: number | 'raf' = 'raf',
): Promise<void> {
  await within(
    what,
    ms + 1_000,
    page
      .waitForFunction(predicate as (arg: unknown) => boolean, arg as unknown, {
        timeout: ms,
        polling,
      })
      .then(() => undefined),
  );
}

/** Waits until the async `predicate(arg)` resolves true in the page, every `every` ms. */
async function untilResolved<A>(
  page: Page,
  what: string,
  ms: number,
  predicate: (arg: A) => Promise<boolean>,
  arg: A,
  every = 500,
): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`browser bench: ${what}: not within ${ms} ms`);
    const done = await within(
      what,
      left,
      page.evaluate(predicate as (arg: unknown) => Promise<boolean>, arg as unknown),
    );
    if (done) return;
    await new Promise((resolve) => setTimeout(resolve, every));
  }
}

/** The probe logs this (console.debug) when a page's first task row is in the DOM. */
const FIRST_ROW_MESSAGE = '[browser bench] first task row';

/**
 * In every page of a context, from navigation start: when a click on a list's link or on a My
 * work view's (capturing listener) happened and when the first task row appeared after it
 * (MutationObserver), and the screen before it (the list screen's counts, My work's heading);
 * when the first task row appeared at all; and every painted state of the counts elements
 * (a MutationObserver asks for the next animation frame, which reads what is about to be
 * painted; a state is kept when it differs from the one before). Also defines `__name`
 * (tsx's keepNames wraps functions inside page.evaluate callbacks in it).
 */
export const PROBE = `
  window.__name = (fn) => fn;
  const FIRST_ROW_MESSAGE = ${JSON.stringify(FIRST_ROW_MESSAGE)};
  (() => {
    const b = (window.__bench = {
      clickAt: null, clickHref: null, rowAt: null, firstRowAt: null, shellAt: null, screenAt: null, navScreenAt: null,
      frames: [],
      lastKey: '',
    });
    const listOf = (href) => (href || '').split('/')[2] || '';
    const snapshot = () => {
      const counts = [];
      for (const el of document.querySelectorAll('.tasks-screen__counts')) {
        // The list the screen shows: on a navigation the URL changes before the screen does.
        const shown = el.closest('[data-list-id]')?.getAttribute('data-list-id');
        counts.push({ screen: 'list', list: shown || listOf(location.pathname), text: el.textContent });
      }
      for (const el of document.querySelectorAll('.lists-card__counts')) {
        const link = el.closest('.lists-card')?.querySelector('a[href^="/lists/"]');
        counts.push({ screen: 'lists', list: listOf(link?.getAttribute('href')), text: el.textContent });
      }
      return counts;
    };
    let scheduled = false;
    const frame = () => {
      scheduled = false;
      const counts = snapshot();
      const key = JSON.stringify(counts);
      if (key === b.lastKey) return;
      b.lastKey = key;
      b.frames.push({ at: performance.now(), path: location.pathname, counts });
    };
    const changed = () => {
      if (b.shellAt === null && document.getElementById('root')?.firstElementChild)
        b.shellAt = performance.now();
      const row = document.querySelector('[data-task-id]');
      if (row && b.firstRowAt === null) {
        b.firstRowAt = performance.now();
        // The new-tab bench waits for this message rather than polling the page, which would
        // run Playwright's injected script on the main thread while the tab starts.
        console.debug(FIRST_ROW_MESSAGE);
      }
      if (b.screenAt === null && document.querySelector('.tasks-screen__counts'))
        b.screenAt = performance.now();
      if (row && b.clickAt !== null && b.rowAt === null) b.rowAt = performance.now();
      if (b.clickAt !== null && b.navScreenAt === null && document.querySelector('.tasks-screen__counts, .my-work h1'))
        b.navScreenAt = performance.now();
      if (!scheduled) { scheduled = true; requestAnimationFrame(frame); }
    };
    addEventListener('click', (event) => {
      const link = event.target instanceof Element ? event.target.closest('a[href]') : null;
      const href = link ? link.getAttribute('href') : '';
      if (!/^\\/(lists\\/[^/]+|today|upcoming|assigned)$/.test(href || '')) return;
      b.clickAt = performance.now();
      b.clickHref = href;
      b.rowAt = null;
      b.navScreenAt = null;
    }, true);
    const start = () => {
      changed();
      new MutationObserver(changed).observe(document.documentElement, {
        childList: true, subtree: true, characterData: true,
      });
    };
    if (document.documentElement) start(); else document.addEventListener('DOMContentLoaded', start);
  })();
`;

export interface ProbeState {
  clickAt: number | null;
  clickHref: string | null;
  rowAt: number | null;
  /** After the click: when the list screen's counts element (or My work's heading) was first in the DOM. */
  navScreenAt: number | null;
  firstRowAt: number | null;
  /** When #root first had an element (the app's first render). */
  shellAt: number | null;
  /** When the list screen's counts element was first in the DOM. */
  screenAt: number | null;
  frames: Frame[];
  lastKey: string;
}

interface Frame {
  at: number;
  path: string;
  counts: { screen: 'list' | 'lists'; list: string; text: string | null }[];
}

export const probe = (page: Page) =>
  page.evaluate(() => (window as unknown as { __bench: ProbeState }).__bench);

/** Checks painted states against the device's counts. */
function checkFrames(frames: readonly Frame[], expected: Counts, into: PlaceholderReport): void {
  for (const frame of frames) {
    into.frames += 1;
    const bad: string[] = [];
    let blank = false;
    for (const count of frame.counts) {
      const want = expected[count.list];
      const text = count.text ?? '';
      // No digit at all: no count shown (blank, "…", "Loading…").
      if (!/\d/.test(text)) {
        blank = true;
        continue;
      }
      const match = /([\d,.\s\u202f]+)\s*open\s*·\s*([\d,.\s\u202f]+)\s*done/.exec(text);
      const shown = match
        ? {
            open: Number((match[1] ?? '').replace(/\D/g, '')),
            done: Number((match[2] ?? '').replace(/\D/g, '')),
          }
        : undefined;
      if (!want || !shown || shown.open !== want.open || shown.done !== want.done) {
        bad.push(
          `${count.screen === 'list' ? 'list screen' : 'lists screen card'} of ${count.list} showed "${text}" (device: ${want ? `${want.open} open · ${want.done} done` : 'no such list'})`,
        );
      }
    }
    if (bad.length > 0) {
      into.wrong += 1;
      if (into.examples.length < 5) {
        into.examples.push(`${frame.path} at ${frame.at.toFixed(0)} ms: ${bad.join('; ')}`);
      }
    } else if (blank) {
      into.blank += 1;
    }
  }
}

/** Seeds alice's list of 10,000 and, with `huge`, bob's of 100,000. */
async function seed(stack: TestDevstack, { huge }: { huge: boolean }): Promise<Counts> {
  await stack.db.query(
    `insert into public.lists (id, name, color, created_by) values ($1, 'Ten thousand', 'blue', $2)`,
    [BIG_LIST_ID, SEED.alice],
  );
  await seedTasks(stack, BIG_LIST_ID, SEED.alice, BIG_TASKS);
  // bob's: alice is not in it, so her device (figures 1, 2) stays at 10,030 tasks.
  await stack.db.query(
    `insert into public.lists (id, name, color, created_by) values ($1, 'Hundred thousand', 'green', $2)`,
    [HUGE_LIST_ID, SEED.bob],
  );
  for (let start = 0; huge && start < HUGE_TASKS; start += 10_000) {
    await stack.db.query(
      `insert into public.tasks (list_id, title, notes, status, position, created_by)
       select $1, 'Task ' || i, 'Some notes for task ' || i,
              (array['todo','doing','done'])[1 + i % 3], 'a' || lpad(i::text, 6, '0'), $2
         from generate_series($3::int, $4::int) i`,
      [HUGE_LIST_ID, SEED.bob, start, Math.min(start + 9_999, HUGE_TASKS - 1)],
    );
  }
  return analyzedCounts(stack);
}

/** Once the seed is in: the planner's statistics refreshed, and each list's counts. */
export async function analyzedCounts(stack: TestDevstack): Promise<Counts> {
  await stack.db.query('analyze');
  const { rows } = await stack.db.query<{ list_id: string; open: number; done: number }>(
    `select list_id,
            (count(*) filter (where status <> 'done'))::int as open,
            (count(*) filter (where status = 'done'))::int as done
       from public.tasks where deleted_at is null group by list_id`,
  );
  const counts: Counts = {};
  for (const row of rows) counts[row.list_id] = { open: row.open, done: row.done };
  return counts;
}

/**
 * A browser with its profile on disk, as an installed app has (not an off-the-record context:
 * Chromium keeps those contexts' IndexedDB in memory, and in Chromium 150 a put there costs
 * more the more rows the store already holds: 1,000 puts took 0.18 s into an empty store and
 * 1.8 s at 40,000 rows, so 100k rows never finished). Closing it deletes the profile.
 */
export async function profile(
  name: string,
): Promise<{ context: BrowserContext; page: Page; close: () => Promise<void> }> {
  const dir = mkdtempSync(join(TMP_DIR, `profile-${name}-`));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    close: async () => {
      await context.close(); // a second close (the bench's `finally`) does nothing
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Starts a Chromium performance trace (TRACE_CATEGORIES) through `page`'s DevTools session;
 * the function returned ends it and writes it to `path` (for chrome://tracing or DevTools).
 */
async function startTrace(page: Page): Promise<(path: string) => Promise<void>> {
  const cdp = await page.context().newCDPSession(page);
  const events: unknown[] = [];
  cdp.on('Tracing.dataCollected', ({ value }) => events.push(...value));
  const complete = new Promise<void>((resolve) =>
    cdp.once('Tracing.tracingComplete', () => resolve()),
  );
  await cdp.send('Tracing.start', {
    traceConfig: { includedCategories: TRACE_CATEGORIES },
    transferMode: 'ReportEvents',
  });
  return async (path) => {
    await cdp.send('Tracing.end');
    await within('the trace', BOUND.step, complete);
    writeFileSync(path, JSON.stringify({ traceEvents: events }));
    await cdp.detach();
  };
}

/** Puts `session` where the app looks for it, in every page of the context. */
export async function signedIn(context: BrowserContext, session: Session): Promise<void> {
  await context.addInitScript(
    ([key, value]) => {
      if (!localStorage.getItem(key)) localStorage.setItem(key, value);
    },
    [AUTH_STORAGE_KEY, JSON.stringify(session)] as const,
  );
}

/** Waits until the page's device holds exactly the given counts for each list. */
export async function waitForDevice(page: Page, counts: Counts, lists: string[], ms: number) {
  const want = lists.map((id) => [id, (counts[id]?.open ?? 0) + (counts[id]?.done ?? 0)] as const);
  await untilResolved(
    page,
    `device synced (${want.map(([id, n]) => `${n} tasks in ${id}`).join(', ')})`,
    ms,
    async (expected) => {
      const open = indexedDB.open('outpost');
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error ?? new Error('indexedDB.open failed'));
      });
      try {
        if (!db.objectStoreNames.contains('tasks')) return false;
        for (const [id, n] of expected) {
          const request = db.transaction('tasks').objectStore('tasks').index('list_id').count(id);
          const got = await new Promise<number>(
            (resolve) => (request.onsuccess = () => resolve(request.result)),
          );
          if (got !== n) return false;
        }
        return true;
      } finally {
        db.close();
      }
    },
    want,
  );
}

/** Back to the lists screen by the header's Lists link (in the app), until it is ready. */
export async function backToLists(page: Page, counts: Counts, lists: string[]): Promise<void> {
  await within(
    'click on the header’s Lists link',
    BOUND.step,
    page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Lists', exact: true })
      .click({ timeout: BOUND.step }),
  );
  await listsReady(page, counts, lists);
}

/** The lists screen shows a card with the device's counts for each of `lists`, no task rows. */
export async function listsReady(page: Page, counts: Counts, lists: string[]): Promise<void> {
  // Digits only: "6667 open · 3333 done" and "6,667 open · 3,333 done" are the same counts.
  const want = lists.map((id) => [id, `${counts[id]?.open} ${counts[id]?.done}`]);
  await until(
    page,
    'lists screen with every list and its counts',
    BOUND.step,
    (expected) =>
      location.pathname === '/lists' &&
      !document.querySelector('[data-task-id]') &&
      expected.every(
        ([id, text]) =>
          document
            .querySelector(`.lists-card a[href="/lists/${id}"]`)
            ?.closest('.lists-card')
            ?.querySelector('.lists-card__counts')
            ?.textContent?.replace(/\D+/g, ' ')
            .trim() === text,
      ),
    want,
  );
}

/** Clicks a list's card on the lists screen, within the bound of a step. */
function clickListCard(page: Page, listId: string): Promise<void> {
  return within(
    `click on list ${listId}`,
    BOUND.step,
    page.locator(`.lists-card a[href="/lists/${listId}"]`).click({ timeout: BOUND.step }),
  );
}

/** Click on the list's card → first row; returns the in-page time, then goes back to /lists. */
async function navigateOnce(
  page: Page,
  listId: string,
  counts: Counts,
  lists: string[],
): Promise<{ row: number; screen: number }> {
  await page.evaluate(() => {
    const b = (window as unknown as { __bench: ProbeState }).__bench;
    b.clickAt = null;
    b.rowAt = null;
  });
  await clickListCard(page, listId);
  await until(
    page,
    `first task row of list ${listId} after the click`,
    BOUND.step,
    (id) => {
      const b = (window as unknown as { __bench: ProbeState }).__bench;
      return b.rowAt !== null && location.pathname === `/lists/${id}`;
    },
    listId,
  );
  const state = await probe(page);
  if (state.clickAt === null || state.rowAt === null || state.clickHref !== `/lists/${listId}`) {
    throw new Error(`browser bench: the click on ${listId} was not recorded`);
  }
  const sample = {
    row: state.rowAt - state.clickAt,
    screen: (state.navScreenAt ?? NaN) - state.clickAt,
  };
  await backToLists(page, counts, lists);
  // A person does not click again within the frame the screen appeared in.
  await page.waitForTimeout(150);
  return sample;
}

/**
 * Figure 1 for each app in `pages` (this checkout's, and `compareWith`'s): rounds of a click on
 * the 10,000-task list and on the 30-task list, the apps taking turns round by round.
 */
async function measureNavigation(
  pages: { page: Page; appUrl: string }[],
  counts: Counts,
): Promise<BrowserNavigation[]> {
  const lists = [SEED.list, BIG_LIST_ID];
  // A fresh page on the synced device: its painted states are checked from navigation start.
  for (const { page, appUrl } of pages) {
    await within('open /lists', BOUND.step, page.goto(`${appUrl}/lists`));
    await listsReady(page, counts, lists);
  }
  const samples = pages.map(() => ({
    big: [] as number[],
    small: [] as number[],
    bigScreen: [] as number[],
    smallScreen: [] as number[],
  }));
  for (let round = 0; round < NAV_WARMUP + NAV_SAMPLES; round++) {
    // Interleaved, lists and apps, so drift on the shared machine hits all alike.
    for (const [i, { page }] of pages.entries()) {
      await page.bringToFront();
      const b = await navigateOnce(page, BIG_LIST_ID, counts, lists);
      const s = await navigateOnce(page, SEED.list, counts, lists);
      const mine = samples[i];
      if (round >= NAV_WARMUP && mine) {
        mine.big.push(b.row);
        mine.small.push(s.row);
        mine.bigScreen.push(b.screen);
        mine.smallScreen.push(s.screen);
      }
    }
  }
  const figures: BrowserNavigation[] = [];
  for (const [i, { page }] of pages.entries()) {
    const placeholders: PlaceholderReport = { frames: 0, wrong: 0, blank: 0, examples: [] };
    checkFrames((await probe(page)).frames, counts, placeholders);
    const mine = samples[i];
    if (!mine) continue;
    figures.push({
      navBig: percentiles(mine.big),
      navSmall: percentiles(mine.small),
      navBigScreen: percentiles(mine.bigScreen),
      navSmallScreen: percentiles(mine.smallScreen),
      navPlaceholders: placeholders,
    });
  }
  return figures;
}

/** The worker is active and controls `page` (reloading once if it does not yet). */
async function controlled(page: Page): Promise<void> {
  await within(
    'service worker ready',
    BOUND.step,
    page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined)),
  );
  if (await page.evaluate(() => navigator.serviceWorker.controller === null)) {
    await within('reload for the worker', BOUND.step, page.reload());
  }
  if (await page.evaluate(() => navigator.serviceWorker.controller === null)) {
    throw new Error('browser bench: the service worker does not control the page');
  }
}

/** One app's new tabs (measureNewTabs). */
export interface NewTabs {
  small: number[];
  big: number[];
  /** Each tab's first contentful paint (NewTabPhases.firstPaint), paired with small and big. */
  painted: { small: number[]; big: number[] };
  placeholders: PlaceholderReport;
  offline: BrowserFigures['newTabOffline'];
  phases: BrowserFigures['newTabPhases'];
}

/**
 * New tabs opened offline on each list of each app in `appUrls` (an origin each, its worker
 * controlling and its device synced), one app after the other within each round, so that the
 * apps' tabs share the machine's moment (BENCH_BROWSER_AB).
 */
async function measureNewTabs(
  context: BrowserContext,
  appUrls: string[],
  apiUrl: string,
  counts: Counts,
): Promise<{
  apps: NewTabs[];
  floor: FloorTab[];
  content: { small: FloorTab[]; big: FloorTab[] };
}> {
  const floor: FloorTab[] = [];
  const content = { small: [] as FloorTab[], big: [] as FloorTab[] };
  const results = appUrls.map(() => ({
    small: [] as number[],
    big: [] as number[],
    milestones: new Map<string, Record<keyof NewTabPhases, number[]>>(
      [SEED.list, BIG_LIST_ID].map((id) => [
        id,
        {
          responseEnd: [],
          domContentLoaded: [],
          shell: [],
          screen: [],
          firstRow: [],
          firstPaint: [],
        },
      ]),
    ),
    placeholders: { frames: 0, wrong: 0, blank: 0, examples: [] },
    offline: { controlled: 0, offline: 0, pages: 0 },
  }));
  await context.setOffline(true);
  try {
    for (let round = 0; round < NEW_TAB_WARMUP + NEW_TAB_SAMPLES; round++) {
      for (const [app, appUrl] of appUrls.entries()) {
        const r = results[app]!;
        for (const listId of [SEED.list, BIG_LIST_ID]) {
          const page = await context.newPage();
          await reportOffline(page); // the context is offline already
          const stopTrace =
            TRACE_DIR !== undefined && round === NEW_TAB_WARMUP && app === 0
              ? await startTrace(page)
              : undefined;
          try {
            const firstRow = page.waitForEvent('console', {
              predicate: (message) => message.text() === FIRST_ROW_MESSAGE,
              timeout: BOUND.step,
            });
            await within(
              `open a new tab on /lists/${listId} offline`,
              BOUND.step,
              page.goto(`${appUrl}/lists/${listId}`, { waitUntil: 'commit', timeout: BOUND.step }),
            );
            await within(`first task row in a new offline tab on ${listId}`, BOUND.step, firstRow);
            // The frames up to the rows and a moment after (a count that corrects itself late).
            await page.waitForTimeout(300);
            if (stopTrace && TRACE_DIR !== undefined) {
              mkdirSync(TRACE_DIR, { recursive: true });
              await stopTrace(
                join(TRACE_DIR, `new-tab-${listId === BIG_LIST_ID ? 'big' : 'small'}.json`),
              );
            }
            const state = await probe(page);
            const facts = await page.evaluate(async (api) => {
              const nav = performance.getEntriesByType('navigation')[0] as
                PerformanceNavigationTiming | undefined;
              return {
                // Offline for real: the devstack, which is up, cannot be reached.
                online: await fetch(api, { cache: 'no-store', mode: 'no-cors' }).then(
                  () => true,
                  () => false,
                ),
                controlled: navigator.serviceWorker.controller !== null,
                responseEnd: nav?.responseEnd ?? NaN,
                domContentLoaded: nav?.domContentLoadedEventEnd ?? NaN,
                firstPaint:
                  performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
              };
            }, `${apiUrl}/rest/v1/`);
            if (round < NEW_TAB_WARMUP) continue;
            r.offline.pages += 1;
            if (facts.controlled) r.offline.controlled += 1;
            if (!facts.online) r.offline.offline += 1;
            (listId === BIG_LIST_ID ? r.big : r.small).push(state.firstRowAt ?? NaN);
            const m = r.milestones.get(listId);
            m?.responseEnd.push(facts.responseEnd);
            m?.domContentLoaded.push(facts.domContentLoaded);
            m?.shell.push(state.shellAt ?? NaN);
            m?.screen.push(state.screenAt ?? NaN);
            m?.firstRow.push(state.firstRowAt ?? NaN);
            m?.firstPaint.push(facts.firstPaint);
            checkFrames(state.frames, counts, r.placeholders);
          } finally {
            await page.close();
          }
          // The floor page's tab right after this checkout's (issue 42).
          if (app === 0) {
            const tab = await within(
              'the floor page in a new offline tab',
              BOUND.step,
              openFloorTab(context, appUrl, apiUrl),
            );
            const which = listId === BIG_LIST_ID ? 'big' : 'small';
            const rows = await within(
              'the content floor in a new offline tab',
              BOUND.step,
              openFloorTab(context, appUrl, apiUrl, which),
            );
            if (round >= NEW_TAB_WARMUP) {
              floor.push(tab);
              content[which].push(rows);
            }
          }
        }
      }
    }
  } finally {
    await context.setOffline(false);
  }
  const p50 = (samples: number[]) => percentiles(samples).p50;
  const apps = results.map(({ milestones, ...r }) => ({
    ...r,
    painted: {
      small: milestones.get(SEED.list)?.firstPaint ?? [],
      big: milestones.get(BIG_LIST_ID)?.firstPaint ?? [],
    },
    phases: [...milestones].map(([list, m]) => ({
      list: list === BIG_LIST_ID ? 'list of 10,000 tasks' : 'list of 30 tasks',
      phases: {
        responseEnd: p50(m.responseEnd),
        domContentLoaded: p50(m.domContentLoaded),
        shell: p50(m.shell),
        screen: p50(m.screen),
        firstRow: p50(m.firstRow),
        firstPaint: p50(m.firstPaint),
      },
    })),
  }));
  return { apps, floor, content };
}

async function heapSample(cdp: CDPSession, step: string): Promise<HeapStep> {
  const used = async () => {
    const { metrics } = await cdp.send('Performance.getMetrics');
    const value = metrics.find((m) => m.name === 'JSHeapUsedSize')?.value;
    if (value === undefined) throw new Error('browser bench: no JSHeapUsedSize metric');
    return value;
  };
  const before = await within(`heap after ${step}`, BOUND.step, used());
  await within('forced GC', BOUND.step, cdp.send('HeapProfiler.collectGarbage'));
  const after = await within(`heap after GC, ${step}`, BOUND.step, used());
  return { step, used: before, usedAfterGc: after };
}

/** Browses the app of a device holding 100k tasks, sampling the heap after each step. */
async function measureHeap(
  context: BrowserContext,
  page: Page,
  appUrl: string,
  counts: Counts,
): Promise<NonNullable<BrowserFigures['device100k']>['heap']> {
  const lists = [SEED.list, HUGE_LIST_ID];
  await within('open /lists', BOUND.step, page.goto(`${appUrl}/lists`));
  await listsReady(page, counts, lists);
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  await cdp.send('HeapProfiler.enable');
  const steps: HeapStep[] = [await heapSample(cdp, 'lists screen')];
  for (const listId of lists) {
    const name = listId === HUGE_LIST_ID ? '100,000-task list' : '30-task list';
    await clickListCard(page, listId);
    await until(
      page,
      `first task row of ${listId}`,
      BOUND.step,
      (id) => location.pathname === `/lists/${id}` && !!document.querySelector('[data-task-id]'),
      listId,
    );
    steps.push(await heapSample(cdp, name));
    // A few tasks' screens, by their title links in the rows; back by the browser's back.
    for (let i = 0; i < 2; i++) {
      const link = page.locator('[data-task-id] a.tasks-row__title').nth(i);
      const title = (await link.textContent({ timeout: BOUND.step })) ?? '';
      await within(`open task ${title}`, BOUND.step, link.click({ timeout: BOUND.step }));
      await until(
        page,
        `task screen of ${title}`,
        BOUND.step,
        (wanted) =>
          /\/tasks\//.test(location.pathname) &&
          document.querySelector('.task-detail__title')?.textContent === wanted,
        title,
      );
      steps.push(await heapSample(cdp, `task screen (${name}, "${title}")`));
      await within('back to the list', BOUND.step, page.goBack({ timeout: BOUND.step }));
      await until(
        page,
        `rows of ${listId} again`,
        BOUND.step,
        (id) => location.pathname === `/lists/${id}` && !!document.querySelector('[data-task-id]'),
        listId,
      );
    }
    await backToLists(page, counts, lists);
    steps.push(await heapSample(cdp, `lists screen after the ${name}`));
  }
  await cdp.detach();
  return {
    maxUsed: Math.max(...steps.map((s) => s.used)),
    maxUsedAfterGc: Math.max(...steps.map((s) => s.usedAfterGc)),
    steps,
  };
}

/** The bench page: sync-page.ts bundled for the browser, beside the app's build. */
export function buildBenchPage(outDir: string): Promise<void> {
  return bundleBenchPage(outDir, {
    entry: 'sync-page.ts',
    script: 'sync-page.js',
    html: 'sync.html',
    title: 'sync bench',
  });
}

/** Figure 6's first visits, the app's and the floor page's (and `other`'s app), alternating. */
function firstVisits(
  appUrl: string,
  outDir: string,
  other?: { checkout: string; url: string },
): Promise<FirstVisitFigures> {
  progress(
    `first visits and the floor pages': ${FIRST_VISIT_WARMUP} + ${FIRST_VISIT_SAMPLES} rounds`,
  );
  return within(
    'first visits',
    BOUND.step * 2 * (FIRST_VISIT_WARMUP + FIRST_VISIT_SAMPLES),
    measureFirstVisits(
      appUrl,
      outDir,
      { warmup: FIRST_VISIT_WARMUP, samples: FIRST_VISIT_SAMPLES },
      other,
    ),
  );
}

/**
 * BENCH=first-visit: figure 6's first visits alone (the app built for an empty devstack),
 * a minute or two, to try a change to the first visit. `compareWith`: another checkout,
 * built and served from a second origin, whose first visits alternate with this one's.
 */
export async function benchFirstVisit({
  compareWith,
}: { compareWith?: string | undefined } = {}): Promise<FirstVisitFigures> {
  const stack = await startTestDevstack('postgres');
  mkdirSync(TMP_DIR, { recursive: true });
  const outDir = mkdtempSync(join(TMP_DIR, 'bench-first-visit-'));
  const server = await startStaticServer(0, outDir);
  const otherDir = compareWith ? mkdtempSync(join(TMP_DIR, 'bench-first-visit-other-')) : undefined;
  const otherServer = otherDir ? await startStaticServer(0, otherDir) : undefined;
  try {
    progress('building the app and the floor page');
    buildApp(stack.url, stack.publishableKey, outDir);
    if (compareWith && otherDir) buildApp(stack.url, stack.publishableKey, otherDir, compareWith);
    writeFloorPage(outDir);
    return await firstVisits(
      server.url,
      outDir,
      compareWith && otherServer ? { checkout: compareWith, url: otherServer.url } : undefined,
    );
  } finally {
    await server.close();
    await otherServer?.close();
    await stack.stop();
    rmSync(outDir, { recursive: true, force: true });
    if (otherDir) rmSync(otherDir, { recursive: true, force: true });
  }
}

/**
 * `newTabsOnly`: alice's new tabs alone (no in-app navigation, no 100k sync or heap), a
 * couple of minutes instead of six, to try a change to the new tab's start-up.
 * `device100k: false`: the in-app navigation and the new tabs, without bob's 100k sync and heap.
 * `compareWith`: another checkout of Outpost (its own node_modules), built too and served from
 * a second origin; alice's in-app navigation rounds and new tabs alternate between the two
 * apps, round for round and tab for tab, and its figures come back as `compared` (this
 * checkout's stay the figures). A change worth 20 ms is
 * lost in the drift between two runs minutes apart on a busy machine; paired tabs see the same
 * machine.
 */
export async function benchBrowser({
  newTabsOnly = false,
  device100k = !newTabsOnly,
  compareWith,
}: {
  newTabsOnly?: boolean;
  device100k?: boolean;
  compareWith?: string | undefined;
} = {}): Promise<BrowserFigures> {
  const stack = await startTestDevstack('postgres');
  const profiles: { close: () => Promise<void> }[] = [];
  mkdirSync(TMP_DIR, { recursive: true });
  const outDir = mkdtempSync(join(TMP_DIR, 'bench-browser-'));
  const server = await startStaticServer(0, outDir);
  const otherDir = compareWith ? mkdtempSync(join(TMP_DIR, 'bench-browser-other-')) : undefined;
  const otherServer = otherDir ? await startStaticServer(0, otherDir) : undefined;
  try {
    progress(
      newTabsOnly
        ? `seeding ${BIG_TASKS.toLocaleString('en-US')} tasks`
        : `seeding ${BIG_TASKS.toLocaleString('en-US')} + ${HUGE_TASKS.toLocaleString('en-US')} tasks`,
    );
    const counts = await seed(stack, { huge: device100k });
    progress('building the app and the bench page');
    buildApp(stack.url, stack.publishableKey, outDir);
    if (compareWith && otherDir) buildApp(stack.url, stack.publishableKey, otherDir, compareWith);
    await buildBenchPage(outDir);
    writeFloorPage(outDir);
    const appUrl = server.url;

    const firstVisit = await firstVisits(appUrl, outDir);
    const aliceSession = await sessionOf(stack, 'alice@example.com');

    // Figures 1, 2 and 5: alice, her 30-task and 10,000-task lists.
    progress('alice: initial sync of 10,030 tasks in the app');
    const aliceProfile = await profile('alice');
    profiles.push(aliceProfile);
    const { context: alice, page } = aliceProfile;
    await signedIn(alice, aliceSession);
    await alice.addInitScript(PROBE);
    await within('open the app', BOUND.step, page.goto(`${appUrl}/lists`));
    await waitForDevice(page, counts, [SEED.list, BIG_LIST_ID], BOUND.sync10k);
    await controlled(page);
    // The other app's device, on its own origin (its own database and worker), stays open too.
    const otherPage = otherServer ? await alice.newPage() : undefined;
    if (otherServer && otherPage) {
      progress('alice: the same in the app to compare with');
      await within('open the other app', BOUND.step, otherPage.goto(`${otherServer.url}/lists`));
      await waitForDevice(otherPage, counts, [SEED.list, BIG_LIST_ID], BOUND.sync10k);
      await controlled(otherPage);
    }
    let nav: BrowserNavigation | undefined;
    let otherNav: BrowserNavigation | undefined;
    if (!newTabsOnly) {
      progress(`in-app navigation: ${NAV_WARMUP} + ${NAV_SAMPLES} rounds`);
      [nav, otherNav] = await measureNavigation(
        [
          { page, appUrl },
          ...(otherPage && otherServer ? [{ page: otherPage, appUrl: otherServer.url }] : []),
        ],
        counts,
      );
    }
    progress(`new tabs offline: ${NEW_TAB_WARMUP} + ${NEW_TAB_SAMPLES} rounds`);
    await controlled(page);
    if (otherPage) await controlled(otherPage);
    // The content floors: each list's screen as the app renders it, from this synced device.
    for (const [name, listId] of [
      ['small', SEED.list],
      ['big', BIG_LIST_ID],
    ] as const) {
      await within(
        'open a list for its markup',
        BOUND.step,
        page.goto(`${appUrl}/lists/${listId}`),
      );
      await until(
        page,
        `the list screen of ${listId} with its rows`,
        BOUND.step,
        (id) =>
          document.querySelector(`[data-list-id="${id}"] [data-task-id]`) !== null &&
          document.querySelector('.tasks-screen__counts') !== null,
        listId,
      );
      await page.waitForTimeout(500); // what comes a moment after (the sidebar's counts)
      const html = await page.evaluate(() => document.getElementById('root')?.innerHTML ?? '');
      writeContentFloor(outDir, name, html);
    }
    await within('the floor page’s worker', BOUND.step, installFloorWorker(page));
    const {
      apps: [tabs, other],
      floor,
      content,
    } = await measureNewTabs(
      alice,
      otherServer ? [appUrl, otherServer.url] : [appUrl],
      stack.url,
      counts,
    );
    if (!tabs) throw new Error('browser bench: no new tabs measured');
    await aliceProfile.close();
    const figures: BrowserFigures = {
      nav,
      newTabSmall: percentiles(tabs.small),
      newTabBig: percentiles(tabs.big),
      newTabPlaceholders: tabs.placeholders,
      newTabOffline: tabs.offline,
      newTabFloor: floor,
      newTabContentFloor: content,
      firstVisit,
      newTabPhases: tabs.phases,
      newTabOrder: { small: tabs.small, big: tabs.big },
      newTabPainted: tabs.painted,
      compared:
        other && compareWith ? { checkout: compareWith, ...other, nav: otherNav } : undefined,
    };
    if (newTabsOnly || !device100k) return figures;

    // Figures 3 and 4: bob, his 100,000-task list (and the seeded one).
    progress(`initial sync of 100k tasks in the bench page (${SYNC_RUNS} run(s))`);
    const bobProfile = await profile('bob');
    profiles.push(bobProfile);
    const { context: bob, page: bobPage } = bobProfile;
    await bob.addInitScript(PROBE);
    await within('open the bench page', BOUND.step, bobPage.goto(`${appUrl}${BENCH_PAGE}`));
    await until(
      bobPage,
      'bench page loaded',
      BOUND.step,
      () => '__syncBench' in window,
      undefined,
      100,
    );
    const options: SyncPageOptions = {
      url: stack.url,
      publishableKey: stack.publishableKey,
      email: 'bob@example.com',
      password: 'outpost-demo',
      storageKey: AUTH_STORAGE_KEY,
      listId: HUGE_LIST_ID,
      expected: HUGE_TASKS,
      runs: SYNC_RUNS,
    };
    const syncRuns = await within(
      'initial sync of 100k tasks and its bulkPut baseline',
      BOUND.sync100k * SYNC_RUNS,
      bobPage.evaluate(
        (opts) =>
          (
            window as unknown as { __syncBench: (o: SyncPageOptions) => Promise<SyncRun[]> }
          ).__syncBench(opts),
        options,
      ),
    );
    progress('JS heap with 100k tasks on the device');
    await waitForDevice(bobPage, counts, [SEED.list, HUGE_LIST_ID], BOUND.step);
    const heap = await measureHeap(bob, bobPage, appUrl, counts);
    await bobProfile.close();

    return { ...figures, device100k: { syncRuns, heap } };
  } finally {
    for (const open of profiles) await open.close();
    await server.close();
    await otherServer?.close();
    await stack.stop();
    rmSync(outDir, { recursive: true, force: true });
    if (otherDir) rmSync(otherDir, { recursive: true, force: true });
  }
}
