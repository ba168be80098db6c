// Task rows (issue 17): no select on each row. The round tick completes a task; a small chip
// opens a menu of the allowed status changes, by keyboard; Shift+click picks a range and
// Ctrl/Cmd+click one row for the selection bar's bulk actions. Every change reaches the
// server. The list passes axe with the chip's menu open, light and dark.
import { expect, test, type Page } from '@playwright/test';

import { contextFor, newAccount, type Account } from './support/accounts';
import { addTasks, createList, expectSynced, taskRow } from './support/app';
import { expectNoSeriousViolations } from './support/axe';

async function serverStatuses(account: Account, listId: string): Promise<Record<string, string>> {
  const { data, error } = await account.api
    .from('tasks')
    .select('title, status')
    .eq('list_id', listId);
  if (error) throw error;
  return Object.fromEntries(data.map((row) => [row.title as string, row.status as string]));
}

function statusChip(page: Page, title: string, status: string) {
  return taskRow(page, title).getByRole('button', { name: `Status of ${title}: ${status}` });
}

test('rows: tick to complete, change status from the chip by keyboard, Shift-click a range and complete it', async ({
  browser,
}) => {
  const account = await newAccount('Rowan');
  const context = await contextFor(browser, account, { viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const listId = await createList(page, 'Workshop');
  await addTasks(page, ['Sand shelf', 'Oil hinges', 'Fix vice', 'Sweep', 'Sort screws']);
  // No native select on any row.
  await expect(page.locator('[data-task-id] select')).toHaveCount(0);

  // The round tick completes a task.
  await page.getByRole('checkbox', { name: 'Done: Sand shelf' }).click();
  await expect(page.getByRole('checkbox', { name: 'Done: Sand shelf' })).toBeChecked();

  // The chip's menu, by keyboard alone: ↓ opens it on the current status, ↓ Enter picks.
  await statusChip(page, 'Oil hinges', 'To do').focus();
  await page.keyboard.press('ArrowDown');
  const menu = page.getByRole('menu', { name: 'Status' });
  await expect(menu).toBeVisible();
  await expect(menu.getByRole('menuitemradio', { name: 'To do' })).toBeFocused();
  await expect(menu.getByRole('menuitemradio', { name: 'To do' })).toHaveAttribute(
    'aria-checked',
    'true',
  );
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(menu).toBeHidden();
  await expect(statusChip(page, 'Oil hinges', 'Doing')).toBeFocused();
  await expect(statusChip(page, 'Oil hinges', 'Doing')).toBeVisible();

  // The list with the menu open passes axe, light and dark; Escape gives focus back.
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await statusChip(page, 'Oil hinges', 'Doing').press('ArrowDown');
    await expect(menu.getByRole('menuitemradio', { name: 'Doing' })).toBeFocused();
    // The menu is not clipped by its row nor under the rows below: its last item is what
    // a pointer at its centre would hit.
    const onTop = await menu.getByRole('menuitemradio', { name: 'Done' }).evaluate((item) => {
      const { x, y, width, height } = item.getBoundingClientRect();
      return document.elementFromPoint(x + width / 2, y + height / 2)?.closest('[role]') === item;
    });
    expect(onTop).toBe(true);
    await expectNoSeriousViolations(page, `task list, status menu open (${colorScheme})`, menu);
    await page.keyboard.press('Escape');
    await expect(menu).toBeHidden();
    await expect(statusChip(page, 'Oil hinges', 'Doing')).toBeFocused();
  }

  // Ctrl/Cmd+click picks one row, Shift+click the range to another; the bar completes them.
  await taskRow(page, 'Fix vice')
    .getByRole('link')
    .click({ modifiers: ['ControlOrMeta'] });
  await taskRow(page, 'Sort screws')
    .getByRole('link')
    .click({ modifiers: ['Shift'] });
  await expect(page).toHaveURL(new RegExp(`/lists/${listId}$`));
  const bar = page.getByRole('region', { name: 'Selection' });
  await expect(bar).toContainText('3 selected');
  await bar.getByRole('button', { name: 'Complete' }).click();
  // Completed together, they go to the Done section (the one ticked in its row stayed put).
  await page.getByRole('button', { name: 'Done (3)' }).click();
  for (const title of ['Fix vice', 'Sweep', 'Sort screws']) {
    await expect(page.getByRole('checkbox', { name: `Done: ${title}` })).toBeChecked();
  }
  await expect(bar).toBeHidden();

  await expectSynced(page);
  expect(await serverStatuses(account, listId)).toEqual({
    'Sand shelf': 'done',
    'Oil hinges': 'doing',
    'Fix vice': 'done',
    Sweep: 'done',
    'Sort screws': 'done',
  });
  await context.close();
});
