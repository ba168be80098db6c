// Works from 320 px wide (issue 5): on a 320 × 640 phone and a 390 px one, no screen scrolls
// sideways (the page is never wider than the viewport) and the header stays on one line,
// filled with real data: long list and task names, a comment, a second member.
import { expect, test, type Page } from '@playwright/test';

import { contextFor, newAccount, shareList } from './support/accounts';
import { addTasks, createList, expectSynced, taskId, taskRow } from './support/app';

const PHONES = [
  { width: 320, height: 640 },
  { width: 390, height: 844 },
] as const;

const LIST_NAME = 'Site inspection — Block C, east wing and stairwells';
const TASKS = [
  'Replace the cracked window in the third-floor stairwell before the Friday walkthrough',
  'Photograph every fire door',
  'Check the emergency lighting on all floors and note any fittings that need new batteries',
] as const;

/** How wide the page is against the viewport (a page wider than it scrolls sideways). */
function widths(page: Page) {
  return page.evaluate(() => ({
    page: document.scrollingElement?.scrollWidth ?? document.documentElement.scrollWidth,
    viewport: window.innerWidth,
  }));
}

/**
 * The vertical extent of everything visible in the header: every line box of its text (a
 * wrapped label has two) and every image or button. One line means a horizontal line
 * crosses them all: the lowest top is above the highest bottom. Text only screen readers
 * get (a 1 px clipped box) is left out.
 */
function headerBoxes(page: Page) {
  return page.locator('.app-header').evaluate((header) => {
    const boxes: { what: string; top: number; bottom: number }[] = [];
    const shown = (element: Element) => {
      const rect = element.getBoundingClientRect();
      return (
        element.checkVisibility({ opacityProperty: true }) && rect.width > 1 && rect.height > 1
      );
    };
    const walker = document.createTreeWalker(header, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent?.trim();
      const parent = node.parentElement;
      if (!text || !parent || !shown(parent)) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const rect of Array.from(range.getClientRects())) {
        if (rect.width > 0) boxes.push({ what: text, top: rect.top, bottom: rect.bottom });
      }
    }
    for (const element of Array.from(header.querySelectorAll('img, svg, button, a'))) {
      if (!shown(element)) continue;
      const rect = element.getBoundingClientRect();
      boxes.push({ what: element.tagName.toLowerCase(), top: rect.top, bottom: rect.bottom });
    }
    return boxes;
  });
}

async function expectFits(page: Page, screen: string): Promise<void> {
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  // Let lazy screens and live queries settle, so the screen is measured as a person sees it.
  await page.waitForLoadState('networkidle').catch(() => undefined);
  const { page: pageWidth, viewport } = await widths(page);
  expect(
    pageWidth,
    `${screen}: the page is wider than the ${viewport} px viewport`,
  ).toBeLessThanOrEqual(viewport);
  const boxes = await headerBoxes(page);
  expect(boxes.length, `${screen}: nothing visible in the header`).toBeGreaterThan(0);
  const lowestTop = Math.max(...boxes.map((box) => box.top));
  const highestBottom = Math.min(...boxes.map((box) => box.bottom));
  expect(
    lowestTop,
    `${screen}: the header wraps onto a second line: ${JSON.stringify(boxes)}`,
  ).toBeLessThan(highestBottom);
}

for (const viewport of PHONES) {
  test(`every screen fits ${viewport.width} px wide with a one-line header`, async ({
    browser,
  }) => {
    test.setTimeout(120_000);
    const visitor = await browser.newContext({ viewport });
    const v = await visitor.newPage();
    for (const [path, name] of [
      ['/welcome', 'welcome'],
      ['/sign-in', 'sign in'],
    ] as const) {
      await v.goto(path);
      await expectFits(v, name);
    }
    await visitor.close();

    const [owner, member] = await Promise.all([newAccount('Alexandra'), newAccount('Bob')]);
    const context = await contextFor(browser, owner, { viewport });
    const page = await context.newPage();
    await page.goto('/lists');
    await expectFits(page, 'lists (empty)');
    const listId = await createList(page, LIST_NAME);
    await addTasks(page, TASKS);
    await expectSynced(page);
    await shareList(owner, member, listId, 'editor');
    const firstId = await taskId(page, TASKS[0]);
    await page.goto(`/lists/${listId}/tasks/${firstId}`);
    await page.getByLabel('Add a comment').fill('The glazier can come on Thursday morning.');
    await page.getByRole('button', { name: 'Comment' }).click();
    await expect(page.getByText('The glazier can come on Thursday morning.')).toBeVisible();

    for (const [path, name] of [
      ['/lists', 'lists'],
      [`/lists/${listId}`, 'a list with tasks'],
      [`/lists/${listId}/tasks/${firstId}`, 'task detail'],
      [`/lists/${listId}/members`, 'members'],
      ['/settings', 'settings'],
    ] as const) {
      await page.goto(path);
      if (name === 'a list with tasks') await expect(taskRow(page, TASKS[2])).toBeVisible();
      await expectFits(page, name);
    }
    await context.close();
  });
}
