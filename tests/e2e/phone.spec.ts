// A phone (issue 40), touch-emulated at 390 × 844: the bottom bar's Search opens the command
// palette, which marks what matched; a row's status menu opens as a bottom sheet (full width,
// at the foot, finger-sized items, over a backdrop); a swipe to the right completes a task, a
// swipe to the left deletes it with Undo, a held press selects it without opening it, each
// checked on the server; Settings' section strip; axe light and dark with the sheet open and
// on Settings. On a desktop, Settings' section column follows the reader.
import { expect, test, type CDPSession, type Locator, type Page } from '@playwright/test';

import { contextFor, newAccount, type Account } from './support/accounts';
import { addTasks, createList, expectSynced, taskId, taskRow } from './support/app';
import { expectNoSeriousViolations } from './support/axe';

const PHONE = {
  viewport: { width: 390, height: 844 },
  isMobile: true,
  hasTouch: true,
} as const;

/** Each task of the list on the server, by title: its status and whether it is deleted. */
async function serverTasks(
  account: Account,
  listId: string,
): Promise<Record<string, { status: string; deleted: boolean }>> {
  const { data, error } = await account.api
    .from('tasks')
    .select('title, status, deleted_at')
    .eq('list_id', listId);
  if (error) throw error;
  return Object.fromEntries(
    data.map((row) => [
      row.title as string,
      { status: row.status as string, deleted: row.deleted_at !== null },
    ]),
  );
}

/** Where a finger would touch the middle of `target`, `dx` from its centre. */
async function point(target: Locator, dx = 0) {
  const box = await target.boundingBox();
  if (!box) throw new Error('not on screen');
  return { x: box.x + box.width / 2 + dx, y: box.y + box.height / 2 };
}

/** A finger on the row's middle, drawn `dx` px sideways in steps, then lifted. */
async function swipe(cdp: CDPSession, row: Locator, dx: number): Promise<void> {
  const start = await point(row);
  const steps = 8;
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [start] });
  for (let step = 1; step <= steps; step++) {
    await cdp.send('Input.dispatchTouchEvent', {
      type: 'touchMove',
      touchPoints: [{ x: start.x + (dx * step) / steps, y: start.y }],
    });
  }
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
}

function palette(page: Page) {
  return page.getByRole('dialog', { name: 'Command palette' });
}

test('a phone: Search in the bottom bar, menus as bottom sheets, swipe and long-press on rows', async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const account = await newAccount('Sam');
  const context = await contextFor(browser, account, PHONE);
  const page = await context.newPage();
  const listId = await createList(page, 'Van kit');
  const titles = ['Pack the ladder', 'Charge the drill', 'Load the tiles', 'Fuel the van'];
  await addTasks(page, titles);
  await expectSynced(page);

  // Search: the bottom bar's fifth entry, all five side by side within 390 px.
  const bar = page.locator('.bottom-bar');
  await expect(bar).toBeVisible();
  const entries = await bar.locator(':scope > *').evaluateAll((items) =>
    items.map((item) => ({
      name: item.textContent,
      top: Math.round(item.getBoundingClientRect().top),
      right: item.getBoundingClientRect().right,
      cut: item.scrollWidth > item.clientWidth,
    })),
  );
  expect(entries.map((entry) => entry.name)).toEqual([
    'Lists',
    'My work',
    'Search',
    'New task',
    'Settings',
  ]);
  // One row, no label cut, none past the window's edge.
  expect(new Set(entries.map((entry) => entry.top)).size).toBe(1);
  expect(entries.filter((entry) => entry.cut)).toEqual([]);
  const width = await page.evaluate(() => innerWidth);
  expect(Math.max(...entries.map((entry) => entry.right))).toBeLessThanOrEqual(width);
  await bar.getByRole('button', { name: 'Search' }).click();
  const field = palette(page).getByRole('combobox', { name: 'Search lists, tasks and actions' });
  await expect(field).toBeFocused();
  await field.fill('drill');
  const option = palette(page).getByRole('option', { name: /Charge the drill/ });
  await expect(option.locator('mark')).toHaveText('drill');
  await page.keyboard.press('Escape');
  await expect(palette(page)).toBeHidden();

  // A row's status menu: a bottom sheet over a backdrop, full width at the foot. A phone's
  // row shows its status button only once focused (as a screen reader reaches it), and Enter
  // activates it as a screen reader's double tap would.
  const status = taskRow(page, 'Load the tiles').getByRole('button', { name: /^Status/ });
  await status.focus();
  await page.keyboard.press('Enter');
  const sheet = page.locator('.popover__panel--sheet');
  await expect(sheet.getByRole('menu', { name: 'Status' })).toBeVisible();
  await expect(page.locator('.popover__backdrop')).toBeVisible();
  // Once it has slid up: its edges on the layout viewport's (what position: fixed is drawn
  // against).
  const edges = await sheet.evaluate(async (panel) => {
    await Promise.all(panel.getAnimations().map((animation) => animation.finished));
    const box = panel.getBoundingClientRect();
    const { clientWidth, clientHeight } = document.documentElement;
    return { left: box.left, right: box.right - clientWidth, bottom: box.bottom - clientHeight };
  });
  expect(edges).toEqual({ left: 0, right: 0, bottom: 0 });
  const itemHeights = await sheet
    .getByRole('menuitemradio')
    .evaluateAll((items) => items.map((item) => item.getBoundingClientRect().height));
  expect(Math.min(...itemHeights)).toBeGreaterThanOrEqual(44);
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await expectNoSeriousViolations(page, `status sheet (${colorScheme})`, sheet);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  // A tap on the backdrop closes it and does nothing under it.
  await page.touchscreen.tap(195, 100);
  await expect(sheet).toHaveCount(0);
  await expect(page).toHaveURL(new RegExp(`/lists/${listId}$`));
  await status.focus();
  await page.keyboard.press('Enter');
  await sheet.getByRole('menuitemradio', { name: 'Doing' }).click();
  await expect(sheet).toHaveCount(0);
  await expect(status).toBeFocused();
  await expect
    .poll(async () => (await serverTasks(account, listId))['Load the tiles']?.status, {
      timeout: 20_000,
    })
    .toBe('doing');

  const cdp = await context.newCDPSession(page);

  // Swipe right: done (on the server).
  await swipe(cdp, taskRow(page, 'Pack the ladder'), 160);
  await expect
    .poll(async () => (await serverTasks(account, listId))['Pack the ladder']?.status, {
      timeout: 20_000,
    })
    .toBe('done');

  // Swipe left: deleted, with Undo; undone, then deleted for good.
  await swipe(cdp, taskRow(page, 'Fuel the van'), -160);
  await expect(taskRow(page, 'Fuel the van')).toHaveCount(0);
  await page
    .locator('.toast', { hasText: 'Deleted “Fuel the van”' })
    .getByRole('button', { name: 'Undo' })
    .click();
  await expect(taskRow(page, 'Fuel the van')).toBeVisible();
  await swipe(cdp, taskRow(page, 'Fuel the van'), -160);
  await expect(taskRow(page, 'Fuel the van')).toHaveCount(0);
  await expect
    .poll(async () => (await serverTasks(account, listId))['Fuel the van']?.deleted, {
      timeout: 30_000,
    })
    .toBe(true);

  // A held press on a title selects its task and does not open it.
  const title = taskRow(page, 'Charge the drill').getByRole('link', { name: 'Charge the drill' });
  const held = await point(title);
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [held] });
  // Held until the row says it is selected (the hook's 500 ms), then lifted.
  await expect(page.getByLabel('Select Charge the drill')).toBeChecked();
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await expect(page).toHaveURL(new RegExp(`/lists/${listId}$`));
  await expect(page.getByLabel('Select Charge the drill')).toBeChecked();
  // A plain tap then opens a task as ever.
  const otherId = await taskId(page, 'Load the tiles');
  await page.getByLabel('Select Charge the drill').uncheck();
  await taskRow(page, 'Load the tiles').getByRole('link', { name: 'Load the tiles' }).tap();
  await expect(page).toHaveURL(new RegExp(`/lists/${listId}/tasks/${otherId}$`));
  await context.close();
});

test('Settings on a phone: a strip of its sections, and axe light and dark', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const account = await newAccount('Noor');
  const context = await contextFor(browser, account, PHONE);
  const page = await context.newPage();
  await page.goto('/lists');
  await page.locator('.bottom-bar').getByRole('link', { name: 'Settings' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
  const nav = page.getByRole('navigation', { name: 'Settings sections' });
  // One line that scrolls sideways, not the page.
  const strip = await nav.locator('ul').evaluate((list) => ({
    height: list.getBoundingClientRect().height,
    scrolls: list.scrollWidth > list.clientWidth,
    page: document.documentElement.scrollWidth,
  }));
  expect(strip.height).toBeLessThan(60);
  expect(strip.scrolls).toBe(true);
  expect(strip.page).toBeLessThanOrEqual(390);

  // Appearance → the density choice, kept on the device.
  await nav.getByRole('link', { name: 'Appearance' }).tap();
  await expect(nav.getByRole('link', { name: 'Appearance' })).toHaveAttribute(
    'aria-current',
    'location',
  );
  await expect(page.locator('#appearance')).toBeFocused();
  await page.getByRole('radio', { name: 'Compact' }).check();
  expect(await page.evaluate(() => localStorage.getItem('outpost:density'))).toBe('compact');
  // The last section: its link is scrolled into the strip's view.
  await nav.getByRole('link', { name: 'About' }).tap();
  const about = nav.getByRole('link', { name: 'About' });
  await expect(about).toHaveAttribute('aria-current', 'location');
  await expect(about).toBeInViewport({ ratio: 0.99 });
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await expectNoSeriousViolations(page, `settings on a phone (${colorScheme})`);
  }
  await context.close();
});

test('Settings on a desktop: a sticky column of its sections that follows the reader', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const account = await newAccount('Ines');
  const context = await contextFor(browser, account, { viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto('/settings');
  const nav = page.getByRole('navigation', { name: 'Settings sections' });
  const current = nav.locator('[aria-current="location"]');
  await expect(current).toHaveText('Profile');
  const column = await nav.boundingBox();
  const cards = await page.locator('#profile').boundingBox();
  // Beside the cards, not above them.
  expect(column!.x + column!.width).toBeLessThanOrEqual(cards!.x);

  await nav.getByRole('link', { name: 'Storage' }).click();
  await expect(current).toHaveText('Storage');
  await expect(page.locator('#storage')).toBeFocused();
  // Still there after the page scrolled (sticky), and it follows the reader's own scrolling.
  await expect(nav).toBeInViewport();
  await page.mouse.move(900, 400);
  await page.mouse.wheel(0, -100_000);
  await expect(current).toHaveText('Profile');
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await expectNoSeriousViolations(page, `settings on a desktop (${colorScheme})`);
  }
  await context.close();
});
