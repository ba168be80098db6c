// My work (issue 39): two members of two shared lists; what one makes due today shows in the
// other's Today at once, each row with its list; a tick there completes it in its list for
// both, offline too. Then Today by keyboard (j/k, x, Enter), a row's chip assigning a task,
// and axe on each view.
import { expect, test, type Page } from '@playwright/test';

import { contextFor, newAccount, shareList } from './support/accounts';
import { addTasks, createList, expectSynced, taskRow } from './support/app';
import { expectNoSeriousViolations } from './support/axe';
import { propertyChip, taskHeading } from './support/task-detail';

/** A My work row, by its task's title. */
function workRow(page: Page, title: string) {
  return page.getByRole('listitem', { name: title, exact: true });
}

/** Opens a task of the open list and makes it due today, from the due date chip's quick dates. */
async function makeDueToday(page: Page, title: string): Promise<void> {
  await taskRow(page, title).getByRole('link', { name: title, exact: true }).click();
  await expect(taskHeading(page)).toContainText(title);
  await propertyChip(page, 'Due date').click();
  await page.getByRole('menuitem', { name: /^Today/ }).click();
  await expect(propertyChip(page, 'Due date')).toHaveAccessibleName('Due date: Today');
  await page.goBack();
}

test('a task due today reaches the other member’s Today live; ticked there, online and offline, it is done for both', async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const [alice, bob] = await Promise.all([newAccount('Alice'), newAccount('Bob')]);
  const aliceContext = await contextFor(browser, alice);
  const a = await aliceContext.newPage();
  const roof = await createList(a, 'Roof');
  const yard = await createList(a, 'Yard');
  await expectSynced(a);
  await shareList(alice, bob, roof, 'editor');
  await shareList(alice, bob, yard, 'editor');

  const bobContext = await contextFor(browser, bob);
  const b = await bobContext.newPage();
  await b.goto('/today');
  await expect(b.getByRole('heading', { level: 1, name: 'Today' })).toBeVisible();
  await expect(b.getByText('Nothing due today')).toBeVisible({ timeout: 20_000 });

  // Alice makes a task due today in each list; Bob's Today shows both without a reload.
  await a.goto(`/lists/${roof}`);
  await addTasks(a, ['Fix gutter']);
  await makeDueToday(a, 'Fix gutter');
  await a.goto(`/lists/${yard}`);
  await addTasks(a, ['Sweep yard']);
  await makeDueToday(a, 'Sweep yard');
  await expectSynced(a);
  await expect(workRow(b, 'Fix gutter')).toBeVisible({ timeout: 20_000 });
  await expect(workRow(b, 'Sweep yard')).toBeVisible({ timeout: 20_000 });
  await expect(workRow(b, 'Fix gutter')).toContainText('Roof');
  await expect(workRow(b, 'Sweep yard')).toContainText('Yard');
  await expect(b.getByRole('link', { name: 'Today, 2 due' })).toBeVisible();

  // Bob ticks one: done in its list, on Alice's screen too.
  await a.goto(`/lists/${roof}`);
  await b.getByRole('checkbox', { name: 'Done: Fix gutter' }).click();
  await expect(b.getByRole('checkbox', { name: 'Done: Fix gutter' })).toBeChecked();
  await expect(workRow(b, 'Fix gutter')).toHaveAttribute('data-status', 'done');
  // In its list, a task done elsewhere goes to the Done section (collapsed until opened).
  await a.getByRole('button', { name: 'Done (1)' }).click({ timeout: 20_000 });
  await expect(a.getByRole('checkbox', { name: 'Done: Fix gutter' })).toBeChecked();

  // Offline, the tick shows at once; back online it reaches Alice.
  await a.goto(`/lists/${yard}`);
  await expect(taskRow(a, 'Sweep yard')).toBeVisible();
  await bobContext.setOffline(true);
  await expect(b.locator('.sync-status')).toHaveAttribute('data-state', 'offline');
  await b.getByRole('checkbox', { name: 'Done: Sweep yard' }).click();
  await expect(b.getByRole('checkbox', { name: 'Done: Sweep yard' })).toBeChecked();
  await expect(workRow(b, 'Sweep yard')).toHaveAttribute('data-status', 'done');
  await expect(a.getByRole('checkbox', { name: 'Done: Sweep yard' })).not.toBeChecked();
  await bobContext.setOffline(false);
  await expectSynced(b);
  await a.getByRole('button', { name: 'Done (1)' }).click({ timeout: 20_000 });
  await expect(a.getByRole('checkbox', { name: 'Done: Sweep yard' })).toBeChecked();
  await expect(b.getByRole('link', { name: 'Today, 0 due' })).toBeVisible();

  await Promise.all([aliceContext.close(), bobContext.close()]);
});

test('Today by keyboard, a row’s chip assigns a task, and every view passes axe', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const account = await newAccount('Kim');
  const context = await contextFor(browser, account, { viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const listId = await createList(page, 'Workshop');
  await addTasks(page, ['Oil hinges', 'Fix vice']);
  await makeDueToday(page, 'Oil hinges');
  await makeDueToday(page, 'Fix vice');
  await expect(page).toHaveURL(new RegExp(`/lists/${listId}$`));

  await page.getByRole('link', { name: 'Today, 2 due' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Today' })).toBeVisible();
  await expect(workRow(page, 'Fix vice')).toBeVisible();
  await expectNoSeriousViolations(page, 'Today');

  // j enters the rows, j/k move, x ticks, Enter opens.
  await page.keyboard.press('j');
  await expect(workRow(page, 'Oil hinges')).toBeFocused();
  await page.keyboard.press('j');
  await expect(workRow(page, 'Fix vice')).toBeFocused();
  await page.keyboard.press('k');
  await expect(workRow(page, 'Oil hinges')).toBeFocused();
  await page.keyboard.press('x');
  await expect(page.getByRole('checkbox', { name: 'Done: Oil hinges' })).toBeChecked();
  await expect(workRow(page, 'Oil hinges')).toBeFocused();
  await page.keyboard.press('j');
  await page.keyboard.press('Enter');
  await expect(taskHeading(page)).toContainText('Fix vice');
  await page.goBack();

  // The row's assignee chip: Kim takes the task; it shows in Assigned to me.
  await workRow(page, 'Fix vice')
    .getByRole('button', { name: 'Assignee of Fix vice: Unassigned' })
    .click();
  await page.getByRole('menuitemradio', { name: /Kim/ }).click();
  await expect(
    workRow(page, 'Fix vice').getByRole('button', { name: /^Assignee of Fix vice: Kim/ }),
  ).toBeVisible();
  await page.getByRole('link', { name: 'Assigned to me, 1 open' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Assigned to me' })).toBeVisible();
  await expect(page.getByRole('heading', { level: 2, name: /Workshop/ })).toBeVisible();
  await expect(workRow(page, 'Fix vice')).toBeVisible();
  await expectNoSeriousViolations(page, 'Assigned to me');

  await page.getByRole('link', { name: 'Upcoming' }).click();
  await expect(page.getByText('Nothing due in the next 4 weeks')).toBeVisible();
  await expectNoSeriousViolations(page, 'Upcoming');

  // On a phone: My work in the bottom bar, the views as tabs.
  await page.setViewportSize({ width: 390, height: 800 });
  await page.goto('/lists');
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'My work' })
    .click();
  await expect(page.getByRole('heading', { level: 1, name: 'Today' })).toBeVisible();
  await page
    .getByRole('navigation', { name: 'My work' })
    .getByRole('link', { name: 'Upcoming' })
    .click();
  await expect(page.getByRole('heading', { level: 1, name: 'Upcoming' })).toBeVisible();
  await context.close();
});
