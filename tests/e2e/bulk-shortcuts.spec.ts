// The bulk bar and the single-key shortcuts (issue 40), by keyboard alone after sign-in: three
// rows selected with x and Shift+j get a status, a priority, an assignee and a due date by
// s, p, a and d, two are deleted with Delete and brought back with Ctrl+Z, three move to
// another list by m; then one focused row gets each of its keys (s, p, a, d, Delete). Each
// step is checked on the screen and on the server. axe finds no serious issue with the bar's
// menus open, light and dark.
import { expect, test, type Page } from '@playwright/test';

import { contextFor, newAccount, type Account } from './support/accounts';
import { rowTitles, taskRow } from './support/app';
import { expectNoSeriousViolations } from './support/axe';

interface ServerTask {
  title: string;
  status: string;
  priority: number;
  due_on: string | null;
  assignee_id: string | null;
}

/** The live tasks of a list on the server, by title. */
async function serverTasks(account: Account, listId: string): Promise<Record<string, ServerTask>> {
  const { data, error } = await account.api
    .from('tasks')
    .select('title, status, priority, due_on, assignee_id')
    .eq('list_id', listId)
    .is('deleted_at', null);
  if (error) throw error;
  return Object.fromEntries((data as ServerTask[]).map((row) => [row.title, row]));
}

/** Waits until the server's live tasks of a list satisfy `check` (sync and the undo window). */
async function expectOnServer(
  account: Account,
  listId: string,
  check: (tasks: Record<string, ServerTask>) => void,
): Promise<void> {
  await expect(async () => check(await serverTasks(account, listId))).toPass({ timeout: 30_000 });
}

/** A new list by keyboard: n on the lists screen, its name, Enter; resolves with its id. */
async function newListByKeys(page: Page, name: string): Promise<string> {
  await page.goto('/lists');
  await expect(page.getByRole('heading', { level: 1, name: 'Lists' })).toBeVisible();
  await page.keyboard.press('n');
  const dialog = page.getByRole('dialog', { name: 'New list' });
  await expect(dialog.getByLabel('List name')).toBeFocused();
  await page.keyboard.type(name);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 1 })).toContainText(name);
  const match = /\/lists\/([0-9a-f-]{36})/.exec(page.url());
  if (!match?.[1]) throw new Error(`not on a list page: ${page.url()}`);
  return match[1];
}

/** Today plus `days` on the browser's clock, as `YYYY-MM-DD`. */
function isoDay(page: Page, days: number): Promise<string> {
  return page.evaluate((offset) => {
    const day = new Date();
    day.setDate(day.getDate() + offset);
    const pad = (n: number) => String(n).padStart(2, '0');
    return `${day.getFullYear()}-${pad(day.getMonth() + 1)}-${pad(day.getDate())}`;
  }, days);
}

test('the bulk bar and single keys, by keyboard alone, reach the server', async ({ browser }) => {
  test.setTimeout(180_000);
  const kit = await newAccount('Kit');
  const context = await contextFor(browser, kit, { viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const depotId = await newListByKeys(page, 'Depot');
  const siteId = await newListByKeys(page, 'Site work');

  // Five tasks through quick add (n focuses it), then out of the field and into the list.
  const titles = ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo'];
  await page.keyboard.press('n');
  await expect(page.getByLabel('Add a task')).toBeFocused();
  for (const title of titles) {
    await page.keyboard.type(title);
    await page.keyboard.press('Enter');
    await expect(taskRow(page, title)).toBeVisible();
  }
  for (let tabs = 0; tabs < 6; tabs++) {
    await page.keyboard.press('Tab');
    const typing = await page.evaluate(() => document.activeElement?.tagName === 'INPUT');
    if (!typing) break;
  }
  await page.keyboard.press('j');
  await expect(taskRow(page, 'Alpha')).toBeFocused();

  // Three rows: x, then Shift+j twice.
  await page.keyboard.press('x');
  await page.keyboard.press('Shift+J');
  await page.keyboard.press('Shift+J');
  const bar = page.getByRole('region', { name: 'Selection' });
  await expect(bar).toContainText('3 selected');
  const picked = ['Alpha', 'Bravo', 'Charlie'];

  // s: Status → Doing.
  await page.keyboard.press('s');
  const statusMenu = page.getByRole('menu', { name: 'Status' });
  await expect(statusMenu.getByRole('menuitemradio', { name: 'To do' })).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(page.getByText('3 tasks set to Doing')).toBeVisible();
  await expect(taskRow(page, 'Charlie')).toBeFocused();
  await expect(bar).toContainText('3 selected');
  for (const title of picked) {
    await expect(taskRow(page, title)).toHaveAttribute('data-status', 'doing');
  }

  // p: Priority → High.
  await page.keyboard.press('p');
  await expect(
    page
      .getByRole('menu', { name: 'Priority' })
      .getByRole('menuitemradio', { name: 'No priority' }),
  ).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(page.getByText('3 tasks set to High')).toBeVisible();

  // a: Assignee → Kit (the only member, after "Unassigned").
  await page.keyboard.press('a');
  await expect(page.getByRole('menu', { name: 'Assignee' })).toBeVisible();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(page.getByText(/^3 tasks assigned to /)).toBeVisible();

  // d: Due date → Tomorrow.
  const tomorrow = await isoDay(page, 1);
  await page.keyboard.press('d');
  const dates = page.getByRole('dialog', { name: 'Due date' });
  await expect(dates.getByRole('menuitem', { name: /^Today/ })).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(page.getByText('3 tasks due Tomorrow')).toBeVisible();
  await expect(taskRow(page, 'Charlie')).toBeFocused();

  await expectOnServer(kit, siteId, (tasks) => {
    for (const title of picked) {
      expect(tasks[title]).toEqual({
        title,
        status: 'doing',
        priority: 3,
        due_on: tomorrow,
        assignee_id: kit.userId,
      });
    }
    expect(tasks.Delta).toMatchObject({ status: 'todo', priority: 0, due_on: null });
  });

  // Escape clears the selection; Delta and Echo are deleted with Delete, and Ctrl+Z brings
  // them back (within the undo window: the server never has the delete).
  await page.keyboard.press('Escape');
  await expect(bar).toBeHidden();
  await page.keyboard.press('j');
  await expect(taskRow(page, 'Delta')).toBeFocused();
  await page.keyboard.press('x');
  await page.keyboard.press('Shift+J');
  await expect(bar).toContainText('2 selected');
  await page.keyboard.press('Delete');
  await expect(page.getByText('Deleted 2 tasks')).toBeVisible();
  await expect.poll(() => rowTitles(page)).toEqual(picked);
  await page.keyboard.press('ControlOrMeta+z');
  await expect(page.getByText('Undone: delete 2 tasks.')).toBeVisible();
  await expect.poll(() => rowTitles(page)).toEqual(titles);
  await expectOnServer(kit, siteId, (tasks) => {
    expect(Object.keys(tasks).sort()).toEqual(titles);
  });

  // m: the three move to Depot, with their properties; the selection ends. j enters the
  // list on the row last focused (Echo); k goes up to Alpha.
  await page.keyboard.press('j');
  await expect(taskRow(page, 'Echo')).toBeFocused();
  for (let up = 0; up < 4; up++) await page.keyboard.press('k');
  await expect(taskRow(page, 'Alpha')).toBeFocused();
  await page.keyboard.press('x');
  await page.keyboard.press('Shift+J');
  await page.keyboard.press('Shift+J');
  await expect(bar).toContainText('3 selected');
  await page.keyboard.press('m');
  const moveMenu = page.getByRole('menu', { name: 'Move to' });
  await expect(moveMenu.getByRole('menuitem', { name: 'Depot' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByText('Moved 3 tasks to “Depot”')).toBeVisible();
  await expect.poll(() => rowTitles(page)).toEqual(['Delta', 'Echo']);
  await expect(bar).toBeHidden();
  await expectOnServer(kit, depotId, (tasks) => {
    expect(Object.values(tasks).sort((x, y) => x.title.localeCompare(y.title))).toEqual(
      picked.map((title) => ({
        title,
        status: 'doing',
        priority: 3,
        due_on: tomorrow,
        assignee_id: kit.userId,
      })),
    );
  });
  await expectOnServer(kit, siteId, (tasks) => {
    expect(Object.keys(tasks).sort()).toEqual(['Delta', 'Echo']);
  });

  // One focused row, no selection: s, p, a, d open its own menus; focus comes back to it.
  await page.keyboard.press('j');
  const delta = taskRow(page, 'Delta');
  await expect(delta).toBeFocused();
  await page.keyboard.press('s');
  await expect(page.getByRole('menu', { name: 'Status' })).toBeVisible();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(delta).toHaveAttribute('data-status', 'doing');
  await expect(delta).toBeFocused();
  await page.keyboard.press('p');
  await expect(page.getByRole('menu', { name: 'Priority' })).toBeVisible();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(delta).toBeFocused();
  await page.keyboard.press('a');
  await expect(page.getByRole('menu', { name: 'Assignee' })).toBeVisible();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(delta).toBeFocused();
  const today = await isoDay(page, 0);
  await page.keyboard.press('d');
  await expect(page.getByRole('dialog', { name: 'Due date' })).toBeVisible();
  await page.keyboard.press('Enter');
  await expect(delta).toBeFocused();
  await expectOnServer(kit, siteId, (tasks) => {
    expect(tasks.Delta).toEqual({
      title: 'Delta',
      status: 'doing',
      priority: 3,
      due_on: today,
      assignee_id: kit.userId,
    });
    expect(tasks.Echo).toMatchObject({ status: 'todo', priority: 0, due_on: null });
  });

  // Delete on the row deletes it, with Undo in its toast; once the window is over, the server
  // has the delete.
  await page.keyboard.press('Delete');
  await expect(page.getByText('Deleted “Delta”')).toBeVisible();
  await expect.poll(() => rowTitles(page)).toEqual(['Echo']);
  await expect(taskRow(page, 'Echo')).toBeFocused();
  await expectOnServer(kit, siteId, (tasks) => {
    expect(Object.keys(tasks)).toEqual(['Echo']);
  });

  // axe, light and dark, with each of the bar's menus open.
  await page.keyboard.press('x');
  await expect(bar).toContainText('1 selected');
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    for (const [key, popup] of [
      ['s', page.getByRole('menu', { name: 'Status' })],
      ['p', page.getByRole('menu', { name: 'Priority' })],
      ['a', page.getByRole('menu', { name: 'Assignee' })],
      ['d', page.getByRole('dialog', { name: 'Due date' })],
      ['m', page.getByRole('menu', { name: 'Move to' })],
    ] as const) {
      await page.keyboard.press(key);
      await expect(popup).toBeVisible();
      await expectNoSeriousViolations(page, `bulk bar, ${key} open (${colorScheme})`, popup);
      await page.keyboard.press('Escape');
      await expect(popup).toBeHidden();
    }
  }
  await context.close();
});
