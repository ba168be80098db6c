// Issue 42's start-up figures against their floor pages (browser.bench.ts calls these).
// - First visit: a fresh browser context (cold HTTP cache, no service worker, no storage)
//   opens the app's address, navigation start → the welcome screen's heading painted; its
//   floor is a static page with the app's own stylesheet and a one-line script that writes a
//   heading (floor/index.html below), served by the same server. The two alternate, visit for
//   visit, in one browser.
// - Offline new tab: the same floor page, served offline by a tiny worker of its own (its own
//   scope, /__bench/floor/, on the app's origin) from its cache, in alice's browser, each tab
//   opened right after one of the app's offline new tabs (browser.bench.ts, measureNewTabs).
//   And a content floor: the same page writing, instead of the heading, the very screen the
//   app's tab shows (the list screen's markup as the app rendered it, read from the synced
//   device before going offline): what painting those rows costs with no app at all.
// "Painted" is the paint of the heading itself (Element Timing's renderTime: the bench's init
// script marks every <h1> with `elementtiming` as it is put in the page, before it is painted),
// for the floor and the app alike; a new tab's is its first contentful paint, as the app's
// offline new tab figure is.
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { chromium, type Browser, type BrowserContext, type Page } from '@playwright/test';

import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../support/chromium';

/** The floor page's folder on the app's origin, and its worker's scope. */
export const FLOOR_PATH = '/__bench/floor/';
/** The floor page itself (the static server answers a folder with the app's index.html). */
const FLOOR_PAGE = `${FLOOR_PATH}index.html`;
/** What the floor page's one-line script writes (the app's welcome heading). */
const FLOOR_HEADING = 'Welcome to Outpost';
/** The init script logs this when a heading's paint is reported. */
const HEADING_PAINTED = '[first visit] heading painted';
/** …and this when it is a heading React rendered (the app's own render, not a page before it). */
const REACT_HEADING_PAINTED = '[first visit] React heading painted';
/** A floor tab's init script logs this at its first contentful paint. */
const FLOOR_PAINTED = '[floor] painted';
/** The `elementtiming` identifier the init script gives every heading. */
const HEADING_TIMING = 'first-visit-heading';
/** The cache of the floor's worker (apart from the app's worker's, which never touches it). */
const FLOOR_CACHE = 'bench-floor';

/** The floor worker's list of the files it caches, in its folder. */
const FLOOR_FILES = 'files.json';

/** Bound of every wait (ms). */
const STEP_MS = 30_000;

/** The same floor with another screen's markup: `rows-<name>.html`, its script `rows-<name>.js`. */
const CONTENT_FLOORS = ['small', 'big', 'welcome'] as const;
export type ContentFloor = (typeof CONTENT_FLOORS)[number];

/** A floor page: the app's stylesheets, and a one-line deferred script (`script`). */
function floorHtml(stylesheets: string[], script: string): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="UTF-8" />',
    '<meta name="viewport" content="width=device-width, initial-scale=1" />',
    '<meta name="color-scheme" content="light dark" />',
    // No favicon request.
    '<link rel="icon" href="data:," />',
    '<title>Outpost floor</title>',
    `<script defer src="${FLOOR_PATH}${script}"></script>`,
    ...stylesheets,
    '</head>',
    '<body><div id="root"></div></body>',
    '</html>',
  ].join('\n');
}

/** A one-line script putting `html` in #root. */
const writing = (html: string) =>
  `document.getElementById('root').insertAdjacentHTML('beforeend', ${JSON.stringify(html)});\n`;

/**
 * The floor page beside the app's build (`outDir`, served at the app's origin): the app's
 * stylesheets as its index.html links them, a one-line deferred script writing the welcome
 * heading, and the worker that serves them from its cache; and the content floors, the same
 * page writing a whole screen of the app's instead (writeContentFloor fills them in before
 * the worker installs).
 */
export function writeFloorPage(outDir: string): void {
  const appHtml = readFileSync(join(outDir, 'index.html'), 'utf8');
  const stylesheets = [...appHtml.matchAll(/<link\b[^>]*\brel="stylesheet"[^>]*>/g)].map(
    (match) => match[0],
  );
  if (stylesheets.length === 0) throw new Error('first visit: the app links no stylesheet');
  const dir = join(outDir, FLOOR_PATH);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'index.html'), floorHtml(stylesheets, 'heading.js'));
  writeFileSync(join(dir, 'heading.js'), writing(`<h1>${FLOOR_HEADING}</h1>`));
  const pages = [FLOOR_PAGE, `${FLOOR_PATH}heading.js`];
  for (const name of CONTENT_FLOORS) {
    writeFileSync(join(dir, `rows-${name}.html`), floorHtml(stylesheets, `rows-${name}.js`));
    writeFileSync(join(dir, `rows-${name}.js`), writing(''));
    pages.push(`${FLOOR_PATH}rows-${name}.html`, `${FLOOR_PATH}rows-${name}.js`);
  }
  const files = pages.concat(stylesheets.map((link) => /\bhref="([^"]+)"/.exec(link)?.[1] ?? ''));
  writeFileSync(join(dir, FLOOR_FILES), JSON.stringify(files));
  writeFileSync(
    join(dir, 'sw.js'),
    [
      // Every file its pages load, read when it installs (writeContentFloor adds the images).
      `self.addEventListener('install', (event) => event.waitUntil(fetch(${JSON.stringify(FLOOR_FILES)}).then((r) => r.json()).then((files) => caches.open(${JSON.stringify(FLOOR_CACHE)}).then((cache) => cache.addAll(files)))));`,
      `self.addEventListener('fetch', (event) => event.respondWith(caches.match(event.request, { ignoreSearch: true }).then((hit) => hit || fetch(event.request))));`,
      '',
    ].join('\n'),
  );
}

/**
 * A content floor's markup: `html`, a screen as the app rendered it (#root's), put in by the
 * floor's one-line script. Written before installFloorWorker, which caches it.
 */
export function writeContentFloor(outDir: string, name: ContentFloor, html: string): void {
  const dir = join(outDir, FLOOR_PATH);
  writeFileSync(join(dir, `rows-${name}.js`), writing(html));
  // Its images from the worker's cache, as the app's tab has them from the app's worker.
  const files = JSON.parse(readFileSync(join(dir, FLOOR_FILES), 'utf8')) as string[];
  const images = [...html.matchAll(/<img\b[^>]*\bsrc="(\/[^"]*)"/g)].map((match) => match[1]!);
  writeFileSync(join(dir, FLOOR_FILES), JSON.stringify([...new Set([...files, ...images])]));
}

/**
 * In every page of a first-visit context: marks each <h1> for Element Timing as it is put in
 * the document (a MutationObserver on the document itself, there before <html> is parsed),
 * and keeps each heading's paint and when it was put in the DOM.
 */
const FIRST_VISIT_PROBE = `
  (() => {
    const b = (window.__firstVisit = { inserted: [], painted: [] });
    // React keeps its fiber on the elements it made.
    const byReact = (el) => !!el && Object.keys(el).some((key) => key.startsWith('__reactFiber'));
    const mark = (node) => {
      if (!(node instanceof Element)) return;
      const headings = node.matches('h1') ? [node] : node.querySelectorAll('h1');
      for (const h of headings) {
        if (h.hasAttribute('elementtiming')) continue;
        h.setAttribute('elementtiming', ${JSON.stringify(HEADING_TIMING)});
        b.inserted.push(performance.now());
      }
    };
    new MutationObserver((records) => {
      for (const record of records) for (const node of record.addedNodes) mark(node);
    }).observe(document, { childList: true, subtree: true });
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        if (entry.identifier !== ${JSON.stringify(HEADING_TIMING)}) continue;
        const react = byReact(entry.element);
        b.painted.push({ at: entry.renderTime || entry.loadTime, text: entry.element?.textContent ?? '', react });
        console.debug(${JSON.stringify(HEADING_PAINTED)});
        if (react) console.debug(${JSON.stringify(REACT_HEADING_PAINTED)});
      }
    }).observe({ type: 'element', buffered: true });
  })();
`;

interface FirstVisitProbe {
  /** When each heading was put in the document (ms from navigation start). */
  inserted: number[];
  /** Each heading's paint, in order (ms from navigation start), and whether React made it. */
  painted: { at: number; text: string; react: boolean }[];
}

/** One visit's times (ms from navigation start). */
export interface VisitSample {
  /** The heading painted (the first one painted). */
  painted: number;
  /** The app's own render of it painted (React's heading), NaN for a page without React. */
  appPainted: number;
  /** The heading first in the DOM. */
  inDom: number;
  /** The page's first contentful paint. */
  fcp: number;
}

export interface FirstVisitFigures {
  /** The app's address, in order of the visits. */
  app: VisitSample[];
  /** The floor page, each visit right after the app's of the same index. */
  floor: VisitSample[];
  /**
   * The content floor: the same page writing the welcome screen's own markup (React's, read
   * from the first visit) instead of the heading alone, each visit right after the floor's.
   */
  content: VisitSample[];
  /** Visits whose page had a service worker controlling it at the start (must be 0). */
  controlled: number;
  /** BENCH_BROWSER_AB's checkout: its app's first visits, each right after this one's. */
  compared?: { checkout: string; app: VisitSample[] } | undefined;
}

/**
 * Opens `url` in a fresh context of `browser` and times its welcome heading; the context
 * (cache, storage, any worker the visit registered) is thrown away.
 */
async function visit(
  browser: Browser,
  url: string,
  { react }: { react: boolean },
): Promise<VisitSample & { controlled: boolean; html: string }> {
  const context = await browser.newContext();
  try {
    await context.addInitScript(FIRST_VISIT_PROBE);
    const page = await context.newPage();
    const painted = page.waitForEvent('console', {
      predicate: (message) => message.text() === (react ? REACT_HEADING_PAINTED : HEADING_PAINTED),
      timeout: STEP_MS,
    });
    await page.goto(url, { waitUntil: 'commit', timeout: STEP_MS });
    await painted;
    const { probe, fcp, controlled, html } = await page.evaluate(() => ({
      probe: (window as unknown as { __firstVisit: FirstVisitProbe }).__firstVisit,
      html: document.getElementById('root')?.innerHTML ?? '',
      fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
      controlled: navigator.serviceWorker.controller !== null,
    }));
    const first = probe.painted[0];
    if (!first || first.text !== FLOOR_HEADING) {
      throw new Error(`first visit: ${url} painted "${first?.text}", not "${FLOOR_HEADING}"`);
    }
    return {
      painted: first.at,
      appPainted: probe.painted.find((each) => each.react)?.at ?? NaN,
      inDom: probe.inserted[0] ?? NaN,
      fcp,
      controlled,
      html,
    };
  } finally {
    await context.close();
  }
}

/**
 * `warmup` + `samples` rounds of a first visit to the app at `appUrl`, one to the floor page
 * on the same server and one to the content floor (its markup written by `writeContent`, from
 * the first visit's screen, served from `outDir`), and with `other`, one to that checkout's
 * app, in one browser of their own.
 */
export async function measureFirstVisits(
  appUrl: string,
  outDir: string,
  { warmup, samples }: { warmup: number; samples: number },
  other?: { checkout: string; url: string },
): Promise<FirstVisitFigures> {
  if (warmup < 1) throw new Error('first visit: the content floor needs a warm-up round');
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  const figures: FirstVisitFigures = {
    app: [],
    floor: [],
    content: [],
    controlled: 0,
    compared: other ? { checkout: other.checkout, app: [] } : undefined,
  };
  try {
    for (let round = 0; round < warmup + samples; round++) {
      const app = await visit(browser, `${appUrl}/`, { react: true });
      const theirs = other ? await visit(browser, `${other.url}/`, { react: true }) : undefined;
      const floor = await visit(browser, `${appUrl}${FLOOR_PAGE}`, { react: false });
      if (round === 0) writeContentFloor(outDir, 'welcome', app.html);
      const content = await visit(browser, `${appUrl}${FLOOR_PATH}rows-welcome.html`, {
        react: false,
      });
      if (round < warmup) continue;
      figures.app.push(app);
      figures.floor.push(floor);
      figures.content.push(content);
      if (theirs) figures.compared?.app.push(theirs);
      figures.controlled += Number(app.controlled) + Number(floor.controlled);
    }
  } finally {
    await browser.close();
  }
  return figures;
}

/**
 * Registers the floor page's worker in `page`'s context (online), and waits until it is
 * active, so that the floor page opens from its cache offline.
 */
export async function installFloorWorker(page: Page): Promise<void> {
  await page.evaluate(
    async ({ path }) => {
      const registration = await navigator.serviceWorker.register(`${path}sw.js`, {
        scope: path,
      });
      const worker = registration.installing ?? registration.waiting ?? registration.active;
      if (!worker) throw new Error('first visit: the floor worker did not install');
      if (worker.state === 'activated') return;
      await new Promise<void>((resolve, reject) => {
        worker.addEventListener('statechange', () => {
          if (worker.state === 'activated') resolve();
          if (worker.state === 'redundant') reject(new Error('the floor worker failed'));
        });
      });
    },
    { path: FLOOR_PATH },
  );
}

/** A floor tab opened offline: its first contentful paint, and whether it was as it must be. */
export interface FloorTab {
  painted: number;
  controlled: boolean;
  /** The devstack, which is up, could not be reached from the tab. */
  offline: boolean;
}

/**
 * Opens the floor page in a new tab of `context` (offline, its worker installed), or with
 * `content`, that content floor.
 */
export async function openFloorTab(
  context: BrowserContext,
  appUrl: string,
  apiUrl: string,
  content?: ContentFloor,
): Promise<FloorTab> {
  const page = await context.newPage();
  try {
    await page.addInitScript(
      // The first contentful paint's entry, not the first paint's, which can come a frame before
      // it (and left the figure NaN when read then).
      `new PerformanceObserver((list) => { if (list.getEntriesByName('first-contentful-paint').length > 0) console.debug(${JSON.stringify(FLOOR_PAINTED)}); }).observe({ type: 'paint', buffered: true });`,
    );
    const painted = page.waitForEvent('console', {
      predicate: (message) => message.text() === FLOOR_PAINTED,
      timeout: STEP_MS,
    });
    const floorPage = content ? `${FLOOR_PATH}rows-${content}.html` : FLOOR_PAGE;
    await page.goto(`${appUrl}${floorPage}`, { waitUntil: 'commit', timeout: STEP_MS });
    await painted;
    return await page.evaluate(
      async (api) => ({
        painted: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
        controlled: navigator.serviceWorker.controller !== null,
        offline: await fetch(api, { cache: 'no-store', mode: 'no-cors' }).then(
          () => false,
          () => true,
        ),
      }),
      `${apiUrl}/rest/v1/`,
    );
  } finally {
    await page.close();
  }
}
