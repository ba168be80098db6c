// Checklists and repeating tasks (issue 39) on the task screen, used without an account: a
// checklist made by keyboard alone is there, in order, after a reload; a task set to repeat
// weekly and ticked brings the next one with its checklist unticked and the next due date;
// axe with the repeat menu open and with a checklist.
import { expect, test, type Page } from '@playwright/test';

import { addTasks, createList, taskId, taskRow } from './support/app';
import { expectNoSeriousViolations } from './support/axe';
import { pickDueDate, propertyChip as chip, taskHeading } from './support/task-detail';

/** Friday 4 December 2026, 10:00 UTC: "today" for the whole test. */
const FRIDAY = Date.UTC(2026, 11, 4, 10);

async function itemTexts(page: Page): Promise<string[]> {
  return page
    .getByRole('region', { name: /Checklist/ })
    .getByRole('textbox', { name: /^Item: / })
    .evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value));
}

test('a checklist by keyboard, and a weekly task that comes back with it unticked', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const context = await browser.newContext({ timezoneId: 'UTC' });
  const page = await context.newPage();
  await page.clock.setFixedTime(FRIDAY);
  await page.goto('/');
  await page.getByRole('button', { name: 'Use without an account' }).click();
  await expect(page).toHaveURL(/\/lists$/);

  const listId = await createList(page, 'House');
  await addTasks(page, ['Water the plants']);
  const id = await taskId(page, 'Water the plants');
  await page.goto(`/lists/${listId}/tasks/${id}`);
  await expect(taskHeading(page)).toHaveText('Water the plants');

  // The checklist by keyboard alone: Add item, Enter after each; Enter in the first opens a
  // line after it; Alt+↓ moves an item.
  await page.getByRole('textbox', { name: 'Add item' }).focus();
  for (const text of ['Fern', 'Cactus', 'Basil']) {
    await page.keyboard.type(text);
    await page.keyboard.press('Enter');
  }
  await expect.poll(() => itemTexts(page)).toEqual(['Fern', 'Cactus', 'Basil']);
  await page.getByRole('textbox', { name: 'Item: Fern' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('textbox', { name: 'New item' })).toBeFocused();
  await page.keyboard.type('Ivy');
  await page.keyboard.press('Enter');
  await expect.poll(() => itemTexts(page)).toEqual(['Fern', 'Ivy', 'Cactus', 'Basil']);
  await page.keyboard.press('Backspace');
  await expect(page.getByRole('textbox', { name: 'Item: Ivy' })).toBeFocused();
  await page.keyboard.press('Alt+ArrowDown');
  await expect.poll(() => itemTexts(page)).toEqual(['Fern', 'Cactus', 'Ivy', 'Basil']);
  await expect(page.getByRole('textbox', { name: 'Item: Ivy' })).toBeFocused();
  // Space on a tick.
  await page.getByRole('checkbox', { name: 'Done: Fern' }).focus();
  await page.keyboard.press('Space');
  await expect(page.getByRole('heading', { name: /Checklist/ })).toContainText('1/4');
  await expectNoSeriousViolations(page, 'task screen with a checklist');

  await page.reload();
  await expect(taskHeading(page)).toHaveText('Water the plants');
  await expect.poll(() => itemTexts(page)).toEqual(['Fern', 'Cactus', 'Ivy', 'Basil']);
  await expect(page.getByRole('checkbox', { name: 'Done: Fern' })).toBeChecked();

  // Due today (a Friday), repeating every week on Friday.
  await pickDueDate(page, '2026-12-04');
  await chip(page, 'Repeat').click();
  const dialog = page.getByRole('dialog', { name: 'Repeat' });
  await expect(dialog.getByRole('menuitemradio', { name: /Never/ })).toBeFocused();
  await expectNoSeriousViolations(page, 'repeat menu', dialog);
  await dialog.getByRole('menuitemradio', { name: /Every week on Friday/ }).click();
  await expect(chip(page, 'Repeat')).toHaveAccessibleName('Repeat: Every Fri');
  await expect(
    page.getByText(/Repeats every Fri · Next: Fri, Dec 11|Next: Fri 11 Dec/),
  ).toBeVisible();

  // Done: the next one is there, due a week on, its checklist unticked.
  await chip(page, 'Status').click();
  await page.getByRole('menuitemradio', { name: /Done/ }).click();
  const next = page.getByRole('link', { name: /^Next one, due / });
  await expect(next).toBeVisible();
  await next.click();
  await expect(taskHeading(page)).toHaveText('Water the plants');
  await expect(chip(page, 'Status')).toHaveAccessibleName('Status: To do');
  await expect(chip(page, 'Due date')).toHaveAccessibleName(/Dec 11|11 Dec/);
  await expect.poll(() => itemTexts(page)).toEqual(['Fern', 'Cactus', 'Ivy', 'Basil']);
  await expect(page.getByRole('checkbox', { name: 'Done: Fern' })).not.toBeChecked();
  await expect(page.getByRole('heading', { name: /Checklist/ })).toContainText('0/4');

  // In the list: the next one is open, with its repeat mark.
  await page.goto(`/lists/${listId}`);
  // The done one is in the Done section after the open ones.
  await page.getByRole('button', { name: 'Done (1)' }).click();
  const rows = page.locator('[data-task-id][aria-label="Water the plants"]');
  await expect(rows).toHaveCount(2);
  await expect(
    taskRow(page, 'Water the plants').first().getByTitle('Repeats every Fri'),
  ).toBeVisible();
  await context.close();
});
