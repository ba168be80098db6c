// Prints the browser bench's figures (browser.bench.ts) and My work's (my-work.bench.ts) next
// to their targets. Figures the run left out (BENCH=browser-tabs) are said to be left out.
import type {
  BrowserFigures,
  BrowserNavigation,
  NewTabs,
  PlaceholderReport,
} from '../browser.bench';
import { TRACED, type MyWorkFigures } from '../my-work.bench';
import { percentile, percentiles } from '../percentiles';
import type { FirstVisitFigures } from './first-visit';
import type { SyncRun } from './sync-page';

type Fmt = (n: number, digits?: number) => string;

/** The frames that paint the new tabs' rows (their first contentful paint), by list. */
function newTabsPainted(b: BrowserFigures) {
  return [
    ['list of 30 tasks, painted', percentiles(b.newTabPainted.small)],
    ['list of 10,000 tasks, painted', percentiles(b.newTabPainted.big)],
  ] as const;
}

export function printBrowserFigures(b: BrowserFigures, fmt: Fmt): void {
  const ms = (n: number) => fmt(n, 1);
  const meets = (ok: boolean) => (ok ? 'yes' : 'NO');
  const placeholders: [string, PlaceholderReport][] = [];
  if (b.nav) {
    printNavigation(b.nav, fmt);
    placeholders.push(['in-app navigation (figure 1)', b.nav.navPlaceholders]);
  } else {
    console.log('browser: in-app navigation left out (BENCH=browser-tabs)');
  }
  const o = b.newTabOffline;
  console.log(
    `browser: new tab opened offline on a list's URL → first task row in the DOM, and the frame that paints it (worker controlling ${o.controlled}/${o.pages} tabs, the devstack unreachable from ${o.offline}/${o.pages}; ${b.newTabSmall.n} samples each)`,
  );
  console.table(
    (
      [
        ['list of 30 tasks', b.newTabSmall],
        ['list of 10,000 tasks', b.newTabBig],
        // The frame that shows them (the tab's first contentful paint).
        ...newTabsPainted(b),
      ] as const
    ).map(([measure, p]) => ({
      measure,
      'p50 ms': ms(p.p50),
      'p95 ms': ms(p.p95),
      target: 'p95 ≤ 350 ms',
      met: meets(p.p95 <= 350),
    })),
  );
  // A session's later tabs may be slower than its first ones: the p50 of 20 hides that.
  console.log(
    `  in the order the tabs were opened, ms: 30 tasks ${b.newTabOrder.small.map((v) => v.toFixed(0)).join(' ')}; 10,000 tasks ${b.newTabOrder.big.map((v) => v.toFixed(0)).join(' ')}`,
  );
  printNewTabFloor(b, fmt);
  printPhases("  where a new tab's time goes", b.newTabPhases, fmt);
  placeholders.push(['new tab offline (figure 2)', b.newTabPlaceholders]);
  if (b.compared) {
    if (b.nav && b.compared.nav) printComparedNavigation(b.nav, b.compared, fmt);
    printCompared(b, b.compared, fmt);
    placeholders.push([`new tab offline, ${b.compared.checkout}`, b.compared.placeholders]);
  }
  if (b.firstVisit) printFirstVisit(b.firstVisit, fmt);
  if (b.device100k) printDevice100k(b.device100k, fmt);
  else
    console.log(
      'browser: initial sync of 100k and the heap left out (BENCH=browser-tabs or browser-ui)',
    );
  console.log(
    "browser: painted states of the counts (list screen's and lists screen's) showing a count that was not the device's data",
  );
  console.table(
    placeholders.map(([measure, p]) => ({
      measure,
      'states painted': p.frames,
      'wrong counts': p.wrong,
      target: 0,
      met: meets(p.wrong === 0),
      'blank (no count, not wrong)': p.blank,
    })),
  );
  for (const [, p] of placeholders)
    for (const example of p.examples) console.log(`  e.g. ${example}`);
}

/** Issue 42's target for a start-up figure: its p95 against its floor's, in the same run. */
const FLOOR_TARGET = 1.5;

/**
 * Issue 42: the new tabs' paint (FCP) against the floor page's, opened offline from a worker
 * of its own, a tab after each of the app's.
 */
function printNewTabFloor(b: BrowserFigures, fmt: Fmt): void {
  const ms = (n: number) => fmt(n, 1);
  const floor = percentiles(b.newTabFloor.map((tab) => tab.painted));
  const controlled = b.newTabFloor.filter((tab) => tab.controlled).length;
  const offline = b.newTabFloor.filter((tab) => tab.offline).length;
  console.log(
    `  issue 42: painted (FCP) against the floor, a static page of the app's stylesheet and a one-line script writing a heading, served offline by a worker of its own from its cache, a tab after each of the app's (its worker controlling ${controlled}/${b.newTabFloor.length}, offline ${offline}/${b.newTabFloor.length})`,
  );
  console.table(
    newTabsPainted(b).map(([measure, p]) => ({
      measure,
      'p50 ms': ms(p.p50),
      'p95 ms': ms(p.p95),
      'floor p50 / p95 ms': `${ms(floor.p50)} / ${ms(floor.p95)}`,
      'p50 / floor p50': `${fmt(p.p50 / floor.p50, 2)}×`,
      'p95 / floor p95': `${fmt(p.p95 / floor.p95, 2)}×`,
      target: `p95 ≤ ${FLOOR_TARGET}× floor`,
      met: p.p95 <= FLOOR_TARGET * floor.p95 ? 'yes' : 'NO',
    })),
  );
  // What painting the very screen costs with no app: where the app's distance to the floor
  // above is the content's, not the app's.
  const content = b.newTabContentFloor;
  const tabs = [...content.small, ...content.big];
  console.log(
    `  the content floor: the same floor page writing the list screen's own markup (as the app rendered it on this device) instead of the heading, a tab after each floor's (its worker controlling ${tabs.filter((tab) => tab.controlled).length}/${tabs.length}, offline ${tabs.filter((tab) => tab.offline).length}/${tabs.length})`,
  );
  console.table(
    (
      [
        ['list of 30 tasks', content.small, b.newTabPainted.small],
        ['list of 10,000 tasks', content.big, b.newTabPainted.big],
      ] as const
    ).map(([measure, tabsOf, app]) => {
      const rows = percentiles(tabsOf.map((tab) => tab.painted));
      const painted = percentiles(app);
      return {
        measure,
        'content floor p50 / p95 ms': `${ms(rows.p50)} / ${ms(rows.p95)}`,
        'content / floor, p50 / p95': `${fmt(rows.p50 / floor.p50, 2)}× / ${fmt(rows.p95 / floor.p95, 2)}×`,
        'app painted / content floor, p50 / p95': `${fmt(painted.p50 / rows.p50, 2)}× / ${fmt(painted.p95 / rows.p95, 2)}×`,
      };
    }),
  );
}

/** Issue 42: first visits to the app's address against the floor page's, alternating. */
export function printFirstVisit(f: FirstVisitFigures, fmt: Fmt): void {
  const ms = (n: number) => fmt(n, 1);
  const app = percentiles(f.app.map((v) => v.painted));
  const floor = percentiles(f.floor.map((v) => v.painted));
  console.log(
    `browser: first visit (a fresh context: cold HTTP cache, no worker, no storage) to the app's address → the welcome heading painted (Element Timing), against the floor: a static page of the app's stylesheet and a one-line script writing the heading, same server, the two alternating (${app.n} visits each; a worker controlled ${f.controlled} of them). "The app's own render": React's welcome screen painted (after a page index.html shows, if any)`,
  );
  const row = (measure: string, samples: FirstVisitFigures['app']) => {
    const painted = percentiles(samples.map((v) => v.painted));
    return {
      measure,
      'p50 ms': ms(painted.p50),
      'p95 ms': ms(painted.p95),
      'in the DOM p50 ms': ms(percentiles(samples.map((v) => v.inDom)).p50),
      'FCP p50 ms': ms(percentiles(samples.map((v) => v.fcp)).p50),
      "the app's own render painted, p50 / p95 ms": samples.some((v) => !Number.isNaN(v.appPainted))
        ? `${ms(percentiles(samples.map((v) => v.appPainted)).p50)} / ${ms(percentiles(samples.map((v) => v.appPainted)).p95)}`
        : '',
    };
  };
  console.table([
    { ...row('app, welcome heading', f.app), target: '', met: '' },
    { ...row('floor page, heading', f.floor), target: '', met: '' },
    {
      measure: 'ratio app / floor',
      'p50 ms': `${fmt(app.p50 / floor.p50, 2)}×`,
      'p95 ms': `${fmt(app.p95 / floor.p95, 2)}×`,
      'in the DOM p50 ms': '',
      'FCP p50 ms': '',
      "the app's own render painted, p50 / p95 ms": '',
      target: `p95 ≤ ${FLOOR_TARGET}×`,
      met: app.p95 <= FLOOR_TARGET * floor.p95 ? 'yes' : 'NO',
    },
  ]);
  console.log(
    `  in the order of the visits, ms: app ${f.app.map((v) => v.painted.toFixed(0)).join(' ')}; floor ${f.floor.map((v) => v.painted.toFixed(0)).join(' ')}`,
  );
  // What painting the welcome screen itself costs with no app: the same floor page writing its
  // markup (React's, from the first visit) instead of the heading alone.
  const content = percentiles(f.content.map((v) => v.painted));
  console.log(
    `  the content floor (the same page writing the welcome screen's own markup, visited after each floor page's): heading painted p50 / p95 ${ms(content.p50)} / ${ms(content.p95)} ms, ${fmt(content.p50 / floor.p50, 2)}× / ${fmt(content.p95 / floor.p95, 2)}× the floor; the app ${fmt(app.p50 / content.p50, 2)}× / ${fmt(app.p95 / content.p95, 2)}× the content floor`,
  );
  if (!f.compared) return;
  const other = f.compared.app;
  const theirs = percentiles(other.map((v) => v.painted));
  console.log(
    `  this checkout (B) against ${f.compared.checkout} (A), visit for visit: A p50 / p95 ${ms(theirs.p50)} / ${ms(theirs.p95)} ms (its own render ${ms(percentiles(other.map((v) => v.appPainted)).p50)} / ${ms(percentiles(other.map((v) => v.appPainted)).p95)}), A / floor p95 ${fmt(theirs.p95 / floor.p95, 2)}×; B − A, p50 of pairs ${ms(percentiles(f.app.map((v, i) => v.painted - (other[i]?.painted ?? NaN))).p50)} ms`,
  );
}

function printNavigation(nav: BrowserNavigation, fmt: Fmt): void {
  const ms = (n: number) => fmt(n, 1);
  const meets = (ok: boolean) => (ok ? 'yes' : 'NO');
  const ratio = nav.navBig.p50 / nav.navSmall.p50;
  const ratio95 = nav.navBig.p95 / nav.navSmall.p95;
  console.log(
    `browser: in-app navigation, click on a list on /lists → its first task row (back by the app's Lists link; ${nav.navBig.n} samples each after a warm-up; "screen": click → the list screen's header, before its rows)`,
  );
  console.table([
    {
      measure: 'list of 10,000 tasks',
      'p50 ms': ms(nav.navBig.p50),
      'p95 ms': ms(nav.navBig.p95),
      'screen p50 ms': ms(nav.navBigScreen.p50),
      target: `≤ 1.2× baseline`,
      met: meets(ratio <= 1.2 && ratio95 <= 1.2),
    },
    {
      measure: 'list of 30 tasks (baseline)',
      'p50 ms': ms(nav.navSmall.p50),
      'p95 ms': ms(nav.navSmall.p95),
      'screen p50 ms': ms(nav.navSmallScreen.p50),
      target: 'p95 ≤ 150 ms',
      met: meets(nav.navSmall.p95 <= 150),
    },
    {
      measure: 'ratio 10,000 / 30',
      'p50 ms': `${fmt(ratio, 2)}×`,
      'p95 ms': `${fmt(ratio95, 2)}×`,
      'screen p50 ms': '',
      target: '≤ 1.2×',
      met: meets(ratio <= 1.2 && ratio95 <= 1.2),
    },
  ]);
}

function printDevice100k(device: NonNullable<BrowserFigures['device100k']>, fmt: Fmt): void {
  printInitialSync(device.syncRuns, fmt);
  const meets = (ok: boolean) => (ok ? 'yes' : 'NO');
  const { heap } = device;
  const mb = (bytes: number) => fmt(bytes / 2 ** 20, 1);
  console.log(
    `browser: JS heap (CDP JSHeapUsedSize) with 100k tasks on the device, browsing lists → each list → a few tasks → back (${heap.steps.length} steps)`,
  );
  console.table(
    heap.steps.map((s) => ({
      step: s.step,
      'used MB': mb(s.used),
      'after GC MB': mb(s.usedAfterGc),
    })),
  );
  console.table([
    {
      measure: 'max JS heap used',
      MB: mb(heap.maxUsed),
      target: '≤ 100 MB',
      met: meets(heap.maxUsed <= 100 * 2 ** 20),
    },
    {
      measure: 'max JS heap used after GC',
      MB: mb(heap.maxUsedAfterGc),
      target: '≤ 100 MB',
      met: meets(heap.maxUsedAfterGc <= 100 * 2 ** 20),
    },
  ]);
}

/**
 * The initial syncs of 100k tasks in Chromium (browser.bench.ts figure 3, and BENCH=browser-initial
 * alone), each against the faster of its two bulkPut baselines (chunks of 1,000, or one bulkPut of
 * every row), with the median of the runs against issue 42's target: baseline time / sync time ≥ 0.9.
 */
export function printInitialSync(runs: readonly SyncRun[], fmt: Fmt): void {
  const baseline = (r: SyncRun) => Math.min(r.bulkPutMs, r.bulkPutOneMs);
  const ratios = runs.map((r) => baseline(r) / r.engineMs);
  const median = percentile(ratios, 0.5);
  const meets = (ok: boolean) => (ok ? 'yes' : 'NO');
  console.log(
    `browser: initial sync of 100k tasks into Chromium IndexedDB (createOutpostSync, syncNow from an empty device) vs raw Dexie bulkPut of the same rows into a fresh database with the device's indexes (chunks of 1,000, and one bulkPut of all; the faster is the baseline), same page; ${runs.length} runs, every other one timing the baselines first`,
  );
  console.table([
    ...runs.map((r, i) => ({
      run: String(i + 1),
      'timed first': r.baselineFirst ? 'baselines' : 'sync',
      rows: fmt(r.rows),
      'engine ms': fmt(r.engineMs),
      'bulkPut 1,000s ms': fmt(r.bulkPutMs),
      'one bulkPut ms': fmt(r.bulkPutOneMs),
      'baseline / engine': `${fmt(ratios[i] ?? NaN, 2)}×`,
      'sync_pull requests': String(r.pulls),
      'waiting on them ms': fmt(r.pullWaitMs),
      target: '',
      met: '',
    })),
    {
      run: 'median',
      'timed first': '',
      rows: '',
      'engine ms': '',
      'bulkPut 1,000s ms': '',
      'one bulkPut ms': '',
      'baseline / engine': `${fmt(median, 2)}×`,
      'sync_pull requests': '',
      'waiting on them ms': '',
      target: '≥ 0.9×',
      met: meets(median >= 0.9),
    },
  ]);
}

/**
 * BENCH_BROWSER_AB: this checkout's new tabs next to the other checkout's, and the p50 of the
 * paired differences (each tab against the other app's tab on the same list, same round).
 */
function printCompared(b: BrowserFigures, other: NewTabs & { checkout: string }, fmt: Fmt): void {
  const ms = (n: number) => fmt(n, 1);
  console.log(
    `browser: the same new tabs, this checkout (B) against ${other.checkout} (A), tab for tab in one browser (A's worker controlling ${other.offline.controlled}/${other.offline.pages}, offline ${other.offline.offline}/${other.offline.pages})`,
  );
  console.table(
    (
      [
        ['list of 30 tasks', b.newTabOrder.small, other.small],
        ['list of 10,000 tasks', b.newTabOrder.big, other.big],
        ['list of 30 tasks, painted', b.newTabPainted.small, other.painted.small],
        ['list of 10,000 tasks, painted', b.newTabPainted.big, other.painted.big],
      ] as const
    ).map(([measure, mine, theirs]) => {
      const a = percentiles(theirs);
      const own = percentiles(mine);
      const differences = mine.map((value, i) => value - (theirs[i] ?? NaN));
      return {
        measure,
        'A p50 / p95 ms': `${ms(a.p50)} / ${ms(a.p95)}`,
        'B p50 / p95 ms': `${ms(own.p50)} / ${ms(own.p95)}`,
        'B − A, p50 of pairs ms': ms(percentiles(differences).p50),
        'pairs where B is faster': `${differences.filter((d) => d < 0).length} of ${differences.length}`,
      };
    }),
  );
  printPhases("  A: where a new tab's time goes", other.phases, fmt);
}

/** The in-app navigation of both checkouts, round for round in one browser. */
function printComparedNavigation(
  mine: BrowserNavigation,
  other: { checkout: string; nav?: BrowserNavigation | undefined },
  fmt: Fmt,
): void {
  const theirs = other.nav;
  if (!theirs) return;
  const ms = (n: number) => fmt(n, 1);
  console.log(
    `browser: the same in-app navigation, this checkout (B) against ${other.checkout} (A), round for round in one browser`,
  );
  console.table(
    (
      [
        ['list of 30 tasks', mine.navSmall, theirs.navSmall],
        ['list of 10,000 tasks', mine.navBig, theirs.navBig],
        ['list of 30 tasks, screen', mine.navSmallScreen, theirs.navSmallScreen],
        ['list of 10,000 tasks, screen', mine.navBigScreen, theirs.navBigScreen],
      ] as const
    ).map(([measure, b, a]) => ({
      measure,
      'A p50 / p95 ms': `${ms(a.p50)} / ${ms(a.p95)}`,
      'B p50 / p95 ms': `${ms(b.p50)} / ${ms(b.p95)}`,
      'B / A p50': `${fmt(b.p50 / a.p50, 2)}×`,
    })),
  );
}

/** A new tab's milestones, p50 per list. */
function printPhases(title: string, phases: BrowserFigures['newTabPhases'], fmt: Fmt): void {
  const ms = (n: number) => fmt(n, 1);
  console.log(`${title}, p50 ms from navigation start`);
  console.table(
    phases.map(({ list, phases: p }) => ({
      measure: list,
      'document (worker)': ms(p.responseEnd),
      DOMContentLoaded: ms(p.domContentLoaded),
      'app first render': ms(p.shell),
      'list screen': ms(p.screen),
      'first task row': ms(p.firstRow),
      'painted (FCP)': ms(p.firstPaint),
    })),
  );
}

/** BENCH=my-work (my-work.bench.ts): Today with 100k tasks on the device next to a 30-task list. */
export function printMyWorkFigures(m: MyWorkFigures, fmt: Fmt): void {
  const ms = (n: number) => fmt(n, 1);
  const ratio = m.today.p50 / m.list.p50;
  const ratio95 = m.today.p95 / m.list.p95;
  const met = ratio <= 1.2 && ratio95 <= 1.2 ? 'yes' : 'NO';
  const shown = ([least, most]: [number, number]) =>
    least === most ? String(least) : `${least}–${most}`;
  console.log(
    `my work: on /lists, a click on the sidebar's "Today" → its first task row, next to a click on the sidebar's 30-task list → its first row; ${fmt(m.deviceTasks)} tasks on bob's device; alternating, ${m.today.n} samples each after a warm-up, back by the sidebar's "Lists" link; "screen": click → Today's heading or the list's counts, before the rows`,
  );
  console.table([
    {
      measure: `Today (${fmt(m.rows.todayTasks)} tasks due)`,
      'p50 ms': ms(m.today.p50),
      'p95 ms': ms(m.today.p95),
      'screen p50 ms': ms(m.todayScreen.p50),
      'rows in the DOM': shown(m.rows.todayShown),
      target: '≤ 1.2× the list',
      met,
    },
    {
      measure: `list of ${fmt(m.rows.listTasks)} tasks (baseline)`,
      'p50 ms': ms(m.list.p50),
      'p95 ms': ms(m.list.p95),
      'screen p50 ms': ms(m.listScreen.p50),
      'rows in the DOM': shown(m.rows.listShown),
      target: '',
      met: '',
    },
    {
      measure: 'ratio Today / list',
      'p50 ms': `${fmt(ratio, 2)}×`,
      'p95 ms': `${fmt(ratio95, 2)}×`,
      'screen p50 ms': '',
      'rows in the DOM': '',
      target: '≤ 1.2×',
      met,
    },
  ]);
  console.log(
    `  where the time goes, click → first row on the main thread (p50 of ${TRACED} traced rounds after the samples, ms; "waiting": the thread idle, IndexedDB answering from its own thread or the next frame)`,
  );
  console.table(
    (
      [
        ['Today', m.todaySplit],
        ['list of 30 tasks', m.listSplit],
      ] as const
    ).map(([measure, s]) => ({
      measure,
      'click → row': ms(s.window),
      script: ms(s.script),
      'style + layout': ms(s.styleLayout),
      paint: ms(s.paint),
      waiting: ms(s.idle),
    })),
  );
  console.log(
    `  Today's reads alone on raw IndexedDB in the page (lists, memberships, [status+due_on] through today for todo and doing: ${m.query.tasks} tasks), p50 of 20: walked by a cursor ${ms(m.query.cursor)} ms, one getAll per range ${ms(m.query.getAll)} ms`,
  );
  if (!m.profile) return;
  console.log(
    `  CPU profile (BENCH_MY_WORK_PROFILE=1), click → first row: self time per click, ms (${TRACED} clicks each)`,
  );
  const { today, list } = m.profile;
  console.table(
    Array.from({ length: Math.max(today.length, list.length) }, (_, i) => ({
      Today: today[i] ? `${ms(today[i].ms)}  ${today[i].where}` : '',
      'list of 30 tasks': list[i] ? `${ms(list[i].ms)}  ${list[i].where}` : '',
    })),
  );
}
