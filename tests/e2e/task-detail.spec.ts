// The task screen (issue 17): the title edited in place and each property changed through its
// chip's menu (status, priority, due date, repeat, assignee) by keyboard alone, all still there
// after a reload; axe on every menu open, light and dark, and on a viewer's read-only screen.
import { expect, test } from '@playwright/test';

import { contextFor, newAccount, shareList } from './support/accounts';
import { addTasks, createList, expectStored, expectSynced, taskId } from './support/app';
import { expectNoSeriousViolations } from './support/axe';
import { notesText, propertyChip as chip, taskHeading } from './support/task-detail';

const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` of a time, in UTC (the contexts here run in UTC). */
function iso(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}

/** The same day a month on, or that month's last day (as the calendar's PageDown). */
function monthLater(date: string): string {
  const [year = 0, month = 1, day = 1] = date.split('-').map(Number);
  const last = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return iso(Date.UTC(year, month, Math.min(day, last)));
}

test('every property changes by keyboard alone and is still there after a reload', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const [alice, bob] = await Promise.all([newAccount('Alice'), newAccount('Bob')]);
  const context = await contextFor(browser, alice, { timezoneId: 'UTC' });
  const page = await context.newPage();
  // The page's clock stands still at the test's start: "today" cannot change under it.
  const now = Date.now();
  await page.clock.setFixedTime(now);
  const today = iso(now);

  const listId = await createList(page, 'Keyboard list');
  await addTasks(page, ['Paint the fence']);
  // An invite needs the list on the server.
  await expectSynced(page);
  await shareList(alice, bob, listId, 'editor');
  const id = await taskId(page, 'Paint the fence');
  await page.goto(`/lists/${listId}/tasks/${id}`);
  const heading = taskHeading(page);
  await expect(heading).toHaveText('Paint the fence');

  // Title: F2 on it, the new words, Enter.
  const title = heading.getByRole('button');
  await title.focus();
  await page.keyboard.press('F2');
  await expect(page.getByLabel('Title', { exact: true })).toBeFocused();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type('Paint the back fence');
  await page.keyboard.press('Enter');
  await expect(heading).toHaveText('Paint the back fence');
  await expect(title).toBeFocused();
  await expectStored(page, 'tasks', id, 'title', 'Paint the back fence');

  // Status: Tab to its chip, Enter, ↓ to Doing, Enter.
  await page.keyboard.press('Tab');
  await expect(chip(page, 'Status')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('menuitemradio', { name: 'To do' })).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('menu')).toHaveCount(0);
  await expect(chip(page, 'Status')).toHaveAccessibleName('Status: Doing');
  await expect(chip(page, 'Status')).toBeFocused();
  await expectStored(page, 'tasks', id, 'status', 'doing');

  // Priority: ↓ opens the menu too; a letter goes to High.
  await page.keyboard.press('Tab');
  await expect(chip(page, 'Priority')).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(page.getByRole('menu', { name: 'Priority' })).toBeVisible();
  await page.keyboard.press('h');
  await expect(page.getByRole('menuitemradio', { name: 'High' })).toBeFocused();
  // Space picks too, and its key-up on the chip that gets focus back does not reopen it.
  await page.keyboard.press(' ');
  await expect(chip(page, 'Priority')).toHaveAccessibleName('Priority: High');
  await expect(page.getByRole('menu')).toHaveCount(0);
  await expectStored(page, 'tasks', id, 'priority', 3);

  // Due date: Tomorrow from the quick dates, then a day on the calendar.
  await page.keyboard.press('Tab');
  await expect(chip(page, 'Due date')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('menuitem', { name: /^Today/ })).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(chip(page, 'Due date')).toHaveAccessibleName('Due date: Tomorrow');
  await expectStored(page, 'tasks', id, 'due_on', iso(now + DAY_MS));
  await expect(chip(page, 'Due date')).toBeFocused();
  await page.keyboard.press('Enter');
  // Past the quick dates and the month buttons to the grid, on the chosen day.
  for (let i = 0; i < 3; i++) await page.keyboard.press('Tab');
  await expect(page.locator(`[data-date="${iso(now + DAY_MS)}"]`)).toBeFocused();
  await page.keyboard.press('ArrowDown'); // a week on
  await page.keyboard.press('PageDown'); // a month on
  const picked = monthLater(iso(now + 8 * DAY_MS));
  await expect(page.locator(`[data-date="${picked}"]`)).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('dialog', { name: 'Due date' })).toHaveCount(0);
  await expectStored(page, 'tasks', id, 'due_on', picked);
  await expect(chip(page, 'Due date')).toBeFocused();

  // Repeat: every day, from its menu by arrows.
  await page.keyboard.press('Tab');
  await expect(chip(page, 'Repeat')).toBeFocused();
  await page.keyboard.press('Enter');
  const repeat = page.getByRole('dialog', { name: 'Repeat' });
  await expect(repeat.getByRole('menuitemradio', { name: /Never/ })).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(repeat.getByRole('menuitemradio', { name: /Every day/ })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(chip(page, 'Repeat')).toHaveAccessibleName('Repeat: Every day');
  await expectStored(page, 'tasks', id, 'repeat', 'daily');
  await expect(chip(page, 'Repeat')).toBeFocused();
  // Assignee: Bob, once his membership has reached this device.
  await page.keyboard.press('Tab');
  await expect(chip(page, 'Assignee')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('menuitemradio', { name: 'Bob' })).toBeVisible({ timeout: 20_000 });
  await page.keyboard.press('b');
  await page.keyboard.press('Enter');
  await expect(chip(page, 'Assignee')).toHaveAccessibleName('Assignee: Bob');
  await expectStored(page, 'tasks', id, 'assignee_id', bob.userId);

  // Notes, next in the Tab order; leaving the field saves them.
  await page.keyboard.press('Tab');
  await expect(page.getByLabel('Notes')).toBeFocused();
  await page.keyboard.type('Two coats.');
  await page.keyboard.press('Tab');
  await expectStored(page, 'tasks', id, 'notes', 'Two coats.');

  await expectSynced(page);
  await page.reload();
  await expect(heading).toHaveText('Paint the back fence');
  await expect(chip(page, 'Status')).toHaveAccessibleName('Status: Doing');
  await expect(chip(page, 'Priority')).toHaveAccessibleName('Priority: High');
  await expect(chip(page, 'Due date')).toHaveAccessibleName(
    `Due date: ${new Date(`${picked}T00:00:00Z`).toLocaleDateString('en-US', {
      weekday: 'short',
      day: 'numeric',
      month: 'short',
      ...(picked.slice(0, 4) === today.slice(0, 4) ? {} : { year: 'numeric' }),
      timeZone: 'UTC',
    })}`,
  );
  await expect(chip(page, 'Repeat')).toHaveAccessibleName('Repeat: Every day');
  await expect(chip(page, 'Assignee')).toHaveAccessibleName('Assignee: Bob');
  await expect(notesText(page)).toHaveText('Two coats.');
  // And on the server: what another device would get.
  const { data } = await alice.api
    .from('tasks')
    .select('title, status, priority, due_on, repeat, assignee_id, notes')
    .eq('id', id)
    .single();
  expect(data).toEqual({
    title: 'Paint the back fence',
    status: 'doing',
    priority: 3,
    due_on: picked,
    repeat: 'daily',
    assignee_id: bob.userId,
    notes: 'Two coats.',
  });
  await context.close();
});

for (const colorScheme of ['light', 'dark'] as const) {
  test(`the task screen passes axe with each menu open, and read-only (${colorScheme})`, async ({
    browser,
  }) => {
    test.setTimeout(120_000);
    const [alice, bob] = await Promise.all([newAccount('Alice'), newAccount('Bob')]);
    const context = await contextFor(browser, alice, { colorScheme });
    const page = await context.newPage();
    const listId = await createList(page, 'Menus list');
    await addTasks(page, ['Hang the door']);
    // An invite needs the list on the server.
    await expectSynced(page);
    await shareList(alice, bob, listId, 'viewer');
    const id = await taskId(page, 'Hang the door');
    await page.goto(`/lists/${listId}/tasks/${id}`);
    await expectNoSeriousViolations(page, 'task detail');

    for (const [property, popup] of [
      ['Status', page.getByRole('menu', { name: 'Status' })],
      ['Priority', page.getByRole('menu', { name: 'Priority' })],
      ['Due date', page.getByRole('dialog', { name: 'Due date' })],
      ['Assignee', page.getByRole('menu', { name: 'Assignee' })],
    ] as const) {
      await chip(page, property).click();
      await expectNoSeriousViolations(page, `${property} menu open`, popup);
      await page.keyboard.press('Escape');
      await expect(popup).toHaveCount(0);
      await expect(chip(page, property)).toBeFocused();
    }
    await expectSynced(page);

    const viewer = await contextFor(browser, bob, { colorScheme });
    const b = await viewer.newPage();
    await b.goto(`/lists/${listId}/tasks/${id}`);
    await expect(b.getByText('You can view this list but not edit it.')).toBeVisible({
      timeout: 20_000,
    });
    await expect(taskHeading(b)).toHaveText('Hang the door');
    await expect(taskHeading(b).getByRole('button')).toHaveCount(0);
    await expect(chip(b, 'Status')).toHaveCount(0);
    await expectNoSeriousViolations(b, 'task detail, read-only');
    await viewer.close();
    await context.close();
  });
}
