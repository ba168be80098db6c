// The task beside its list (issue 40), at 1280 × 800 and by keyboard: Enter on a row opens the
// task in a panel beside the list, with focus on its heading; j/k in the list move the focus
// and the panel follows (its heading and the address); Escape and Close close it back to its
// row; the task's keys (s, p, a, d, Delete) work on it, each checked on the screen and on the
// server; its notes show a web address as a link; a desktop without a camera gets no "Take
// photo". At 800 px wide the same address is the task's own page. axe, light and dark, with
// the panel open.
import { expect, test, type Page } from '@playwright/test';

import { contextFor, newAccount, type Account } from './support/accounts';
import { addTasks, createList, expectSynced, taskId, taskRow } from './support/app';
import { expectNoSeriousViolations } from './support/axe';
import { notesText, propertyChip as chip, taskHeading, taskPanel } from './support/task-detail';

const WIDE = { width: 1280, height: 800 };
const TASKS = ['Sweep the floor', 'Oil the hinges', 'Fix the vice', 'Sort the screws'] as const;

interface ServerTask {
  status: string;
  priority: number;
  due_on: string | null;
  assignee_id: string | null;
  notes: string;
  deleted_at: string | null;
}

/** Waits until the server's copy of a task satisfies `check` (sync, and a delete's Undo time). */
async function expectOnServer(
  account: Account,
  id: string,
  check: (task: ServerTask) => void,
): Promise<void> {
  await expect(async () => {
    const { data, error } = await account.api
      .from('tasks')
      .select('status, priority, due_on, assignee_id, notes, deleted_at')
      .eq('id', id)
      .single();
    if (error) throw error;
    check(data);
  }).toPass({ timeout: 30_000 });
}

/** The title of the focused row (rows are named by their task's title), or null. */
function focusedRow(page: Page): Promise<string | null> {
  return page.evaluate(() => {
    const active = document.activeElement;
    return active?.hasAttribute('data-task-id') ? active.getAttribute('aria-label') : null;
  });
}

/** Today on the browser's clock, as `YYYY-MM-DD`. */
function today(page: Page): Promise<string> {
  return page.evaluate(() => {
    const day = new Date();
    const pad = (n: number) => String(n).padStart(2, '0');
    return `${day.getFullYear()}-${pad(day.getMonth() + 1)}-${pad(day.getDate())}`;
  });
}

test('a task opens beside its list, follows j/k, closes to its row and takes its keys', async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const alice = await newAccount('Alice');
  const context = await contextFor(browser, alice, { viewport: WIDE });
  const page = await context.newPage();
  const listId = await createList(page, 'Workshop');
  await addTasks(page, TASKS);
  await expectSynced(page);
  const [, oil = '', vice = ''] = await Promise.all(TASKS.map((title) => taskId(page, title)));
  const panel = page.getByRole('complementary');

  // Enter on a row: the task beside the list, focus on its heading.
  await taskRow(page, 'Sweep the floor').focus();
  await page.keyboard.press('j');
  await expect.poll(() => focusedRow(page)).toBe('Oil the hinges');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/lists/${listId}/tasks/${oil}$`));
  await expect(taskPanel(page, 'Oil the hinges')).toBeVisible();
  await expect(taskHeading(page)).toHaveText('Oil the hinges');
  await expect(taskHeading(page)).toBeFocused();
  const listHeading = page.getByRole('heading', { level: 1, name: /Workshop/ });
  await expect(listHeading).toBeInViewport();
  const row = await taskRow(page, 'Oil the hinges').boundingBox();
  const beside = await panel.boundingBox();
  expect(row && beside && beside.x >= row.x + row.width).toBe(true);

  // j/k: back into the list on the open task's row, then on; the panel follows.
  await page.keyboard.press('j');
  await expect.poll(() => focusedRow(page)).toBe('Oil the hinges');
  await page.keyboard.press('j');
  await expect.poll(() => focusedRow(page)).toBe('Fix the vice');
  await expect(taskHeading(page)).toHaveText('Fix the vice');
  await expect(taskPanel(page, 'Fix the vice')).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`/lists/${listId}/tasks/${vice}$`));
  await page.keyboard.press('k');
  await expect.poll(() => focusedRow(page)).toBe('Oil the hinges');
  await expect(taskHeading(page)).toHaveText('Oil the hinges');
  await expect(page).toHaveURL(new RegExp(`/lists/${listId}/tasks/${oil}$`));
  await expect(listHeading).toBeInViewport();

  // Enter on its row goes into the panel; Escape there closes it, back to the row.
  await page.keyboard.press('Enter');
  await expect(taskHeading(page)).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(panel).toHaveCount(0);
  await expect(page).toHaveURL(new RegExp(`/lists/${listId}$`));
  await expect.poll(() => focusedRow(page)).toBe('Oil the hinges');

  // So does Close (just before the heading).
  await page.keyboard.press('Enter');
  await expect(taskHeading(page)).toBeFocused();
  await page.keyboard.press('Shift+Tab');
  await expect(panel.getByRole('button', { name: 'Close' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(panel).toHaveCount(0);
  await expect.poll(() => focusedRow(page)).toBe('Oil the hinges');

  // Notes with a web address show it as a link; no camera here, so no "Take photo".
  await page.keyboard.press('Enter');
  await expect(taskHeading(page)).toBeFocused();
  await panel.getByLabel('Notes').fill('Quote at https://example.com/hinges.');
  await page.keyboard.press('Tab');
  const link = notesText(page).getByRole('link', { name: 'https://example.com/hinges' });
  await expect(link).toHaveAttribute('href', 'https://example.com/hinges');
  await expect(link).toHaveAttribute('target', '_blank');
  await expect(link).toHaveAttribute('rel', 'noopener noreferrer');
  await expect(notesText(page)).toHaveText('Quote at https://example.com/hinges.');
  await expect(panel.getByText('Add file')).toBeVisible();
  await expect(panel.getByText('Take photo')).toHaveCount(0);
  await expectOnServer(alice, oil, (task) =>
    expect(task.notes).toBe('Quote at https://example.com/hinges.'),
  );

  // The task's keys, from its heading: s, p, a, d, each its chip's menu.
  await taskHeading(page).focus();
  await page.keyboard.press('s');
  await expect(page.getByRole('menuitemradio', { name: 'To do' })).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(chip(page, 'Status')).toHaveAccessibleName('Status: Doing');
  await expect(chip(page, 'Status')).toBeFocused();
  await page.keyboard.press('p');
  await expect(page.getByRole('menu', { name: 'Priority' })).toBeVisible();
  await page.keyboard.press('h');
  await page.keyboard.press('Enter');
  await expect(chip(page, 'Priority')).toHaveAccessibleName('Priority: High');
  await page.keyboard.press('a');
  const assignees = page.getByRole('menu', { name: 'Assignee' });
  await expect(assignees).toBeVisible();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(assignees).toHaveCount(0);
  await expect(chip(page, 'Assignee')).not.toHaveAccessibleName('Assignee: Unassigned');
  await page.keyboard.press('d');
  await expect(page.getByRole('menuitem', { name: /^Today/ })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(chip(page, 'Due date')).toHaveAccessibleName('Due date: Today');
  const due = await today(page);
  await expectOnServer(alice, oil, (task) =>
    expect(task).toMatchObject({
      status: 'doing',
      priority: 3,
      assignee_id: alice.userId,
      due_on: due,
    }),
  );

  // Delete: the task goes (with Undo), the panel closes, focus is on the row in its place.
  await page.keyboard.press('Delete');
  await expect(panel).toHaveCount(0);
  await expect(page.locator('.toast', { hasText: 'Deleted “Oil the hinges”' })).toBeVisible();
  await expect(taskRow(page, 'Oil the hinges')).toHaveCount(0);
  await expect(page).toHaveURL(new RegExp(`/lists/${listId}$`));
  await expect.poll(() => focusedRow(page)).toBe('Fix the vice');
  await expectOnServer(alice, oil, (task) => expect(task.deleted_at).not.toBeNull());

  // 800 px wide: the same address is the task's own page, with its way back.
  await page.keyboard.press('Enter');
  await expect(taskPanel(page, 'Fix the vice')).toBeVisible();
  await page.setViewportSize({ width: 800, height: 800 });
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Fix the vice');
  await expect(page.getByRole('link', { name: 'Workshop', exact: true })).toBeVisible();
  await expect(panel).toHaveCount(0);
  await page.goto(`/lists/${listId}/tasks/${vice}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Fix the vice');
  await expect(panel).toHaveCount(0);
  await context.close();
});

for (const colorScheme of ['light', 'dark'] as const) {
  test(`a task beside its list passes axe (${colorScheme})`, async ({ browser }) => {
    test.setTimeout(120_000);
    const alice = await newAccount('Alice');
    const context = await contextFor(browser, alice, { viewport: WIDE, colorScheme });
    const page = await context.newPage();
    const listId = await createList(page, 'Workshop');
    await addTasks(page, TASKS);
    const id = await taskId(page, 'Fix the vice');
    await page.goto(`/lists/${listId}/tasks/${id}`);
    const panel = taskPanel(page, 'Fix the vice');
    await panel.getByLabel('Notes').fill('Manual: https://example.com/vice');
    await panel.getByLabel('Add a comment').fill('Jaw is loose.');
    await panel.getByRole('button', { name: 'Comment', exact: true }).click();
    await expect(panel.getByText('Jaw is loose.')).toBeVisible();
    await expect(notesText(page).getByRole('link')).toBeVisible();
    await expectNoSeriousViolations(page, 'task beside its list', panel);
    await chip(page, 'Status').click();
    await expectNoSeriousViolations(
      page,
      'status menu in the panel',
      page.getByRole('menu', { name: 'Status' }),
    );
    await context.close();
  });
}
