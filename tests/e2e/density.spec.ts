// A denser list (issue 40), measured on the demo list ("Site inspection — Block C", 23 open
// tasks and 7 done, signed in as its owner alice): at 1280×800 at least 16 rows are fully in
// sight before any scrolling, on a 390×844 phone at least 9, and no title of up to 36
// characters (the list's longest) is cut there; the compact density shows more rows than the
// comfortable one. The counts are printed. The header fits one line on a desktop and two on
// the phone, the bar of quick add, filter and search two at most. The list passes axe, light
// and dark, with its Done section open and a row's priority menu open.
import {
  expect,
  test,
  type Browser,
  type BrowserContextOptions,
  type Page,
} from '@playwright/test';

import { apiClient, contextFor, type Account } from './support/accounts';
import { taskRow } from './support/app';
import { expectNoSeriousViolations } from './support/axe';

/** The seeded demo list (supabase/seed.sql). */
const DEMO_LIST = '11570000-0000-4000-8000-000000000001';
const DEMO_OPEN = 23;
const DEMO_DONE = 7;
/** The longest title of the demo list. */
const LONGEST_TITLE = 36;

const DESKTOP = { viewport: { width: 1280, height: 800 } } as const;
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } as const;

/** The seeded owner of the demo list (password from supabase/seed.sql). */
async function alice(): Promise<Account> {
  const api = apiClient();
  const email = 'alice@example.com';
  const password = 'outpost-demo';
  const { data, error } = await api.auth.signInWithPassword({ email, password });
  if (error || !data.session || !data.user) throw error ?? new Error('sign-in gave no session');
  return { name: 'Alice', email, password, userId: data.user.id, session: data.session, api };
}

interface Shown {
  /** Rows of the open tasks entirely on screen, clear of the header, the bar and the bottom bar. */
  rows: number;
  /** The titles (of up to LONGEST_TITLE characters) among them whose text is cut. */
  cut: string[];
}

/** What the open list shows before any scrolling. */
function shownRows(page: Page): Promise<Shown> {
  return page.evaluate((longest) => {
    // The text's own width against its box's, unrounded: scrollWidth and clientWidth are
    // whole pixels, and a title a fraction of a pixel too wide still loses its last letters
    // to the ellipsis.
    const isCut = (title: HTMLElement) => {
      const text = document.createRange();
      text.selectNodeContents(title);
      return text.getBoundingClientRect().width > title.getBoundingClientRect().width + 0.01;
    };
    const bottomBar = document.querySelector('.bottom-bar');
    const barTop = bottomBar?.checkVisibility() ? bottomBar.getBoundingClientRect().top : Infinity;
    const bottom = Math.min(window.innerHeight, barTop);
    const stickyBar = document.querySelector('.tasks-bar')?.getBoundingClientRect().bottom ?? 0;
    const list = document.querySelector('[role="list"][aria-label="Tasks"]');
    const rows = Array.from(list?.querySelectorAll<HTMLElement>('[data-task-id]') ?? []).filter(
      (row) => {
        const box = row.getBoundingClientRect();
        return box.top >= stickyBar && box.bottom <= bottom;
      },
    );
    const cut = rows
      .map((row) => row.querySelector<HTMLElement>('.tasks-row__title'))
      .filter(
        (title): title is HTMLElement =>
          title !== null && (title.textContent ?? '').length <= longest && isCut(title),
      )
      .map((title) => title.textContent ?? '');
    return { rows: rows.length, cut };
  }, LONGEST_TITLE);
}

/** How many lines the visible boxes of what `selector` matches take (by their tops). */
function lines(page: Page, selector: string): Promise<number> {
  return page.evaluate((query) => {
    const tops = Array.from(document.querySelectorAll<HTMLElement>(query))
      .filter((element) => element.checkVisibility() && element.getBoundingClientRect().width > 1)
      .map((element) => element.getBoundingClientRect().top);
    const sorted = tops.sort((a, b) => a - b);
    // Boxes whose tops are within half a line of each other share a line.
    return sorted.filter((top, i) => i === 0 || top - (sorted[i - 1] ?? top) > 12).length;
  }, selector);
}

/** The demo list open in a new context of `options`, at `density`, settled. */
async function openDemo(
  browser: Browser,
  account: Account,
  options: BrowserContextOptions,
  density: 'comfortable' | 'compact',
): Promise<Page> {
  const context = await contextFor(browser, account, options);
  await context.addInitScript((value) => localStorage.setItem('outpost:density', value), density);
  const page = await context.newPage();
  await page.goto(`/lists/${DEMO_LIST}`);
  await expect(page.locator('.tasks-screen__counts')).toHaveText(
    `${DEMO_OPEN} open · ${DEMO_DONE} done`,
    { timeout: 20_000 },
  );
  await expect(page.getByRole('list', { name: 'Tasks' })).toHaveAttribute('data-density', density);
  await page.waitForLoadState('networkidle').catch(() => undefined);
  return page;
}

test('the demo list shows 16+ rows on a desktop and 9+ uncut on a phone; compact shows more', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const account = await alice();
  const counts: Record<string, number> = {};
  for (const [name, options] of [
    ['desktop 1280×800', DESKTOP],
    ['phone 390×844', PHONE],
  ] as const) {
    for (const density of ['comfortable', 'compact'] as const) {
      const page = await openDemo(browser, account, options, density);
      const shown = await shownRows(page);
      counts[`${name} ${density}`] = shown.rows;
      expect(shown.cut, `${name} ${density}: titles cut`).toEqual([]);
      if (density === 'comfortable') {
        const header = await lines(
          page,
          '.tasks-screen__title, .tasks-screen__counts, .tasks-screen__header-side > *',
        );
        expect(header, `${name}: lines of the list header`).toBe(name.startsWith('phone') ? 2 : 1);
        const bar = await lines(
          page,
          '.tasks-quick-add__row, .tasks-toolbar__filters, .tasks-toolbar__search',
        );
        expect(bar, `${name}: lines of the bar`).toBeLessThanOrEqual(2);
      }
      await page.context().close();
    }
  }
  console.log(
    `Rows of the demo list fully in sight before scrolling: ${Object.entries(counts)
      .map(([where, rows]) => `${where}: ${rows}`)
      .join('; ')}`,
  );
  expect(counts['desktop 1280×800 comfortable']).toBeGreaterThanOrEqual(16);
  expect(counts['phone 390×844 comfortable']).toBeGreaterThanOrEqual(9);
  expect(counts['desktop 1280×800 compact']).toBeGreaterThan(
    counts['desktop 1280×800 comfortable'] ?? Infinity,
  );
  expect(counts['phone 390×844 compact']).toBeGreaterThan(
    counts['phone 390×844 comfortable'] ?? Infinity,
  );
});

test('the list passes axe with its Done section and a priority menu open, light and dark', async ({
  browser,
}) => {
  const account = await alice();
  const page = await openDemo(browser, account, DESKTOP, 'comfortable');
  const toggle = page.getByRole('button', { name: `Done (${DEMO_DONE})` });
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await expect(page.getByRole('list', { name: 'Done tasks' })).toHaveCount(0);
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  const done = page.getByRole('list', { name: 'Done tasks' });
  await expect(done.locator('[data-task-id]')).toHaveCount(DEMO_DONE);

  const title = 'Photograph cracked render, east wall';
  const priority = taskRow(page, title).getByRole('button', { name: `Priority of ${title}: Low` });
  const menu = page.getByRole('menu', { name: 'Priority' });
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await priority.click();
    await expect(menu).toBeVisible();
    await expectNoSeriousViolations(
      page,
      `task list, Done open, priority menu (${colorScheme})`,
      menu,
    );
    await page.keyboard.press('Escape');
    await expect(menu).toBeHidden();
    await expect(priority).toBeFocused();
  }
  // The section stays open for the rest of the tab's session.
  await page.reload();
  await expect(page.getByRole('button', { name: `Done (${DEMO_DONE})` })).toHaveAttribute(
    'aria-expanded',
    'true',
  );
  await page.context().close();
});
