// Small behaviours a demanding user notices (issue 17): a row focused with j opens with Enter
// or o; a task added to a long list is scrolled into view; a toast never sits over the control
// in use, on a desktop or a phone; the header says "Deleting… Undo" through a delete's Undo
// window (and passes axe, light and dark); the service worker controls the very first page.
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Browser, type Locator, type Page } from '@playwright/test';

import { contextFor, newAccount } from './support/accounts';
import { addTasks, createList, expectSynced, taskRow } from './support/app';
import { taskHeading } from './support/task-detail';

/** Fractional-index digits in their sort order: `a0` < `a1` < … < `az` (one-digit keys). */
const DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

const DESKTOP = { width: 1280, height: 720 };
const PHONE = { width: 390, height: 740 };

/**
 * A signed-in person's list of `count` tasks ("Task 1"…), far longer than the screen, open
 * at `viewport` size. The tasks are written on the server (setup, not what is tested) and
 * reach the device by sync.
 */
async function longList(browser: Browser, count: number, viewport = DESKTOP) {
  const account = await newAccount('Rae');
  const context = await contextFor(browser, account, { viewport });
  const page = await context.newPage();
  const listId = await createList(page, 'Site walk');
  await expectSynced(page);
  // The worker's first install says "Ready to work offline" once, in a toast at the foot of
  // the window: let it come now, not over a row a test is about to click (CI clicked a
  // delete button through it at fa8cac9).
  await expect(page.getByRole('status').filter({ hasText: 'Ready to work offline' })).toBeVisible();
  const rows = Array.from({ length: count }, (_, i) => ({
    list_id: listId,
    title: `Task ${i + 1}`,
    position: `a${DIGITS[i]}`,
  }));
  const { error } = await account.api.from('tasks').insert(rows);
  if (error) throw error;
  await page.reload();
  await expect(page.getByText(`${count} open`)).toBeVisible({ timeout: 20_000 });
  return { page, listId, close: () => context.close() };
}

/** Whether two boxes on the page share any area. */
function overlaps(
  a: { x: number; y: number; width: number; height: number },
  b: { x: number; y: number; width: number; height: number },
): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

async function box(locator: Locator) {
  const found = await locator.boundingBox();
  if (!found) throw new Error('not on screen');
  return found;
}

async function focusedRowTitle(page: Page): Promise<string | null> {
  return page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? null);
}

test('a row focused with j opens its task with Enter, o or →', async ({ browser }) => {
  const { page, listId, close } = await longList(browser, 5);
  await page.keyboard.press('j');
  await expect.poll(() => focusedRowTitle(page)).toBe('Task 1');
  await page.keyboard.press('j');
  await expect.poll(() => focusedRowTitle(page)).toBe('Task 2');
  for (const key of ['Enter', 'o', 'ArrowRight']) {
    await page.keyboard.press(key);
    await expect(page).toHaveURL(new RegExp(`/lists/${listId}/tasks/[0-9a-f-]{36}$`));
    await expect(taskHeading(page)).toContainText('Task 2');
    // Back: the task closes (beside the list on this wide window) and its row has focus.
    await page.goBack();
    await expect(taskRow(page, 'Task 2')).toBeVisible();
    await expect.poll(() => focusedRowTitle(page)).toBe('Task 2');
  }
  // The row's own controls keep their keys: Space ticks the done box, Enter on Edit edits.
  const done = page.getByRole('checkbox', { name: 'Done: Task 3' });
  await done.focus();
  await page.keyboard.press('Space');
  await expect(done).toBeChecked();
  await page.getByRole('button', { name: 'Edit Task 4' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('textbox', { name: 'Title of Task 4' })).toBeFocused();
  await expect(page).toHaveURL(new RegExp(`/lists/${listId}$`));
  await close();
});

for (const [size, viewport] of [
  ['desktop', DESKTOP],
  ['phone', PHONE],
] as const) {
  test(`a task added to a long list is scrolled into view (${size})`, async ({ browser }) => {
    const { page, close } = await longList(browser, 40, viewport);
    const field = page.getByLabel('Add a task');
    await field.fill('Check the fire doors');
    await field.press('Enter');
    const row = taskRow(page, 'Check the fire doors');
    await expect(row).toBeInViewport({ ratio: 1 });
    await expect(row).toHaveClass(/tasks-row--new/);
    // The field stays in sight for the next one, clear of the app header.
    await expect(field).toBeInViewport({ ratio: 1 });
    expect((await box(field)).y).toBeGreaterThanOrEqual(
      (await box(page.locator('.app-header'))).height,
    );
    await expect(field).toBeFocused();
    // And the next one too.
    await field.fill('Photograph the meter');
    await field.press('Enter');
    await expect(taskRow(page, 'Photograph the meter')).toBeInViewport({ ratio: 1 });
    await close();
  });

  test(`a toast never covers the row that takes the deleted one's place (${size})`, async ({
    browser,
  }) => {
    const { page, close } = await longList(browser, 30, viewport);
    // The row to delete at the very foot of the window, where the toasts come.
    await taskRow(page, 'Task 12').evaluate((row) =>
      window.scrollBy(0, row.getBoundingClientRect().bottom - window.innerHeight + 8),
    );
    await page.getByRole('button', { name: 'Delete Task 12' }).click();
    const toast = page.locator('.toast', { hasText: 'Deleted “Task 12”' });
    await expect(toast).toBeVisible();
    // Focus went to the next row, now in its place; it is clear of the toast, and so are its
    // controls.
    await expect.poll(() => focusedRowTitle(page)).toBe('Task 13');
    const next = taskRow(page, 'Task 13');
    await expect
      .poll(async () => overlaps(await box(page.locator('.toaster__list')), await box(next)))
      .toBe(false);
    for (const control of [
      page.getByRole('button', { name: 'Delete Task 13' }),
      page.getByRole('link', { name: 'Task 13' }),
    ]) {
      expect(overlaps(await box(page.locator('.toaster__list')), await box(control))).toBe(false);
    }
    // The toast is in a corner, not across the middle of the page.
    const region = await box(page.locator('.toaster__list'));
    const width = page.viewportSize()?.width ?? 0;
    expect(region.x + region.width).toBeGreaterThan(width - 24);
    if (size === 'desktop') expect(region.x).toBeGreaterThan(width / 2);
    await close();
  });

  test(`a toast never covers the comment box moved to after a delete (${size})`, async ({
    browser,
  }) => {
    const { page, close } = await longList(browser, 2, viewport);
    await page.getByRole('link', { name: 'Task 1' }).click();
    await expect(taskHeading(page)).toContainText('Task 1');
    const composer = page.getByRole('textbox', { name: 'Add a comment' });
    for (const body of ['Door sticks', 'Hinge is loose']) {
      await composer.fill(body);
      await page.getByRole('button', { name: 'Comment', exact: true }).click();
      await expect(page.getByText(body, { exact: true })).toBeVisible();
    }
    await page.getByRole('button', { name: 'Delete your comment' }).first().click();
    await expect(page.locator('.toast', { hasText: 'Comment deleted' })).toBeVisible();
    // Reading on, the comment box sits at the foot of the window, where the toast is; the
    // user moves to it to write the next one.
    await composer.evaluate((field) =>
      window.scrollBy(0, field.getBoundingClientRect().bottom - window.innerHeight + 4),
    );
    await composer.focus();
    await expect
      .poll(async () => overlaps(await box(page.locator('.toaster__list')), await box(composer)))
      .toBe(false);
    await expect(composer).toBeInViewport({ ratio: 1 });
    await close();
  });
}

for (const colorScheme of ['light', 'dark'] as const) {
  test(`the header says "Deleting… Undo" while a delete can be undone (${colorScheme})`, async ({
    browser,
  }) => {
    const account = await newAccount('Sam');
    const context = await contextFor(browser, account, { colorScheme });
    const page = await context.newPage();
    await createList(page, 'Loft');
    await addTasks(page, ['Lag the tank', 'Board the floor']);
    await expectSynced(page);
    const status = page.locator('.sync-status');
    await page.getByRole('button', { name: 'Delete Lag the tank' }).click();
    await expect(status).toContainText('Deleting…');
    await expect(status).not.toContainText(/waiting|Synced/);
    // Undo from the header: the task is back, the toast has gone, and nothing was sent.
    await status.getByRole('button', { name: 'Undo delete' }).click();
    await expect(taskRow(page, 'Lag the tank')).toBeVisible();
    await expect(page.locator('.toast', { hasText: 'Deleted “Lag the tank”' })).toBeHidden();
    await expect(status).not.toContainText('Deleting');
    await expectSynced(page);
    await page.reload();
    await expect(taskRow(page, 'Lag the tank')).toBeVisible();

    // The header's Undo and the toast, as a person sees them, pass axe (checked while the
    // Undo shows; the window is short, so only the header and the toasts are checked).
    await page.getByRole('button', { name: 'Delete Board the floor' }).click();
    await expect(status.getByRole('button', { name: 'Undo delete' })).toBeVisible();
    const results = await new AxeBuilder({ page })
      .include('.app-header')
      .include('.app-overlays')
      .analyze();
    const serious = results.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => `${violation.id}: ${violation.nodes.map((n) => n.target).join(' | ')}`);
    expect(serious).toEqual([]);
    await context.close();
  });
}

test('the service worker controls the first page, without a reload', async ({ browser }) => {
  const context = await browser.newContext();
  // Noted as each document starts: a reload would note it again, controlled.
  await context.addInitScript(() => {
    (window as { controlledAtStart?: boolean }).controlledAtStart =
      navigator.serviceWorker.controller !== null;
  });
  const page = await context.newPage();
  await page.goto('/');
  await expect
    .poll(() => page.evaluate(() => navigator.serviceWorker.controller?.state ?? null), {
      timeout: 20_000,
    })
    .toBe('activated');
  // The same first page: uncontrolled when it started, never reloaded.
  expect(
    await page.evaluate(() => (window as { controlledAtStart?: boolean }).controlledAtStart),
  ).toBe(false);
  expect(
    await page.evaluate(() =>
      performance
        .getEntriesByType('navigation')
        .map((entry) => (entry as PerformanceNavigationTiming).type),
    ),
  ).toEqual(['navigate']);
  await context.close();
});
