// Undo and redo (issue 17): each kind of edit — a field, a move, a complete, a delete — is
// undone with Ctrl+Z after a reload (the history lives in the tab's sessionStorage), the undo
// is a new change that syncs (a second browser signed in as the same person shows the old
// value), and Shift+Ctrl+Z redoes it.
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Browser, type Page } from '@playwright/test';

import { contextFor, newAccount } from './support/accounts';
import { addTasks, createList, expectSynced, rowTitles, taskRow } from './support/app';

const TITLES = ['Alpha', 'Bravo', 'Charlie'] as const;

/** One person with a list of three tasks, open in two browsers (two devices) at once. */
async function setUp(browser: Browser, listName: string) {
  const alice = await newAccount('Alice');
  const firstContext = await contextFor(browser, alice);
  const a = await firstContext.newPage();
  const listId = await createList(a, listName);
  await addTasks(a, TITLES);
  await expectSynced(a);
  const secondContext = await contextFor(browser, alice);
  const b = await secondContext.newPage();
  await b.goto(`/lists/${listId}`);
  await expect.poll(() => rowTitles(b), { timeout: 20_000 }).toEqual(TITLES);
  return {
    a,
    b,
    close: async () => {
      await firstContext.close();
      await secondContext.close();
    },
  };
}

/** Reloads (the history must come back from sessionStorage) with focus on no text field. */
async function reload(page: Page): Promise<void> {
  await page.reload();
  await expect(taskRow(page, 'Charlie').or(taskRow(page, 'Bravo'))).not.toHaveCount(0);
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
}

const undo = (page: Page) => page.keyboard.press('ControlOrMeta+z');
const redo = (page: Page) => page.keyboard.press('ControlOrMeta+Shift+z');

test('a field change is undone after a reload, on every device, and redone', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const { a, b, close } = await setUp(browser, 'Undo a rename');
  await a.getByRole('button', { name: 'Edit Alpha' }).click();
  await a.getByLabel('Title of Alpha').fill('Alpha two');
  await a.keyboard.press('Enter');
  await expect(taskRow(a, 'Alpha two')).toBeVisible();
  await expectSynced(a);
  await expect(taskRow(b, 'Alpha two')).toBeVisible({ timeout: 20_000 });

  await reload(a);
  await undo(a);
  await expect(taskRow(a, 'Alpha')).toBeVisible();
  await expect(a.getByText('Undone: rename “Alpha”.')).toBeVisible();
  await expectSynced(a);
  await expect(taskRow(b, 'Alpha')).toBeVisible({ timeout: 20_000 });

  await redo(a);
  await expect(taskRow(a, 'Alpha two')).toBeVisible();
  await expectSynced(a);
  await expect(taskRow(b, 'Alpha two')).toBeVisible({ timeout: 20_000 });
  await close();
});

test('a move is undone after a reload, on every device, and redone', async ({ browser }) => {
  test.setTimeout(120_000);
  const { a, b, close } = await setUp(browser, 'Undo a move');
  await taskRow(a, 'Alpha').focus();
  await a.keyboard.press('Alt+ArrowDown');
  const moved = ['Bravo', 'Alpha', 'Charlie'];
  await expect.poll(() => rowTitles(a)).toEqual(moved);
  // The toast offers Undo too.
  await expect(a.getByText('Moved “Alpha”')).toBeVisible();
  await expectSynced(a);
  await expect.poll(() => rowTitles(b), { timeout: 20_000 }).toEqual(moved);

  await reload(a);
  await undo(a);
  await expect.poll(() => rowTitles(a)).toEqual(TITLES);
  await expectSynced(a);
  await expect.poll(() => rowTitles(b), { timeout: 20_000 }).toEqual(TITLES);

  await redo(a);
  await expect.poll(() => rowTitles(a)).toEqual(moved);
  await expectSynced(a);
  await expect.poll(() => rowTitles(b), { timeout: 20_000 }).toEqual(moved);
  await close();
});

test('a complete is undone after a reload, on every device, and redone', async ({ browser }) => {
  test.setTimeout(120_000);
  const { a, b, close } = await setUp(browser, 'Undo a complete');
  await a.getByLabel('Done: Bravo').check();
  await expect(a.getByText('Marked “Bravo” done')).toBeVisible();
  await expect(a.getByRole('button', { name: 'Undo' })).toBeVisible();
  await expectSynced(a);
  // Done elsewhere, it goes to the Done section (collapsed until opened, then kept open).
  await b.getByRole('button', { name: 'Done (1)' }).click({ timeout: 20_000 });
  await expect(b.getByLabel('Done: Bravo')).toBeChecked();

  await reload(a);
  await a.getByRole('button', { name: 'Done (1)' }).click();
  await undo(a);
  await expect(a.getByLabel('Done: Bravo')).not.toBeChecked();
  await expectSynced(a);
  await expect(b.getByLabel('Done: Bravo')).not.toBeChecked({ timeout: 20_000 });

  await redo(a);
  await expect(a.getByLabel('Done: Bravo')).toBeChecked();
  await expectSynced(a);
  await expect(b.getByLabel('Done: Bravo')).toBeChecked({ timeout: 20_000 });
  await close();
});

test('a delete that reached the server is undone after a reload: the task comes back everywhere', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const { a, b, close } = await setUp(browser, 'Undo a delete');
  await a.getByRole('button', { name: 'Delete Bravo' }).click();
  await expect(taskRow(a, 'Bravo')).toHaveCount(0);
  // Synced: the undo window is over and the server has the tombstone, which is final.
  await expectSynced(a);
  await expect(taskRow(b, 'Bravo')).toHaveCount(0, { timeout: 20_000 });

  await reload(a);
  await undo(a);
  await expect.poll(() => rowTitles(a)).toEqual(TITLES);
  await expect(a.getByText(/It is back as a new task/)).toBeVisible();
  await expectSynced(a);
  await expect.poll(() => rowTitles(b), { timeout: 20_000 }).toEqual(TITLES);

  await redo(a);
  await expect(taskRow(a, 'Bravo')).toHaveCount(0);
  await expectSynced(a);
  await expect(taskRow(b, 'Bravo')).toHaveCount(0, { timeout: 20_000 });
  await close();
});

for (const colorScheme of ['light', 'dark'] as const) {
  test(`the Undo toast passes axe and is reached by keyboard (${colorScheme})`, async ({
    browser,
  }) => {
    const alice = await newAccount('Alice');
    const context = await contextFor(browser, alice, { colorScheme });
    const page = await context.newPage();
    await createList(page, `Undo toast ${colorScheme}`);
    await addTasks(page, ['Alpha']);
    await page.getByLabel('Done: Alpha').check();
    const undoButton = page.getByRole('button', { name: 'Undo' });
    await expect(undoButton).toBeVisible();
    // Keyboard alone: focus holds the toast (axe takes a moment), then Enter is Undo.
    await undoButton.focus();
    const results = await new AxeBuilder({ page }).analyze();
    const serious = results.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => `${violation.id}: ${violation.help}`);
    expect(serious).toEqual([]);
    await page.keyboard.press('Enter');
    await expect(page.getByLabel('Done: Alpha')).not.toBeChecked();
    await context.close();
  });
}
