// Navigation (issue 17): on a wide window a sidebar of the lists (open counts, a mark while
// changes wait, the current list marked, "+ New list" by keyboard alone); on a phone a bottom
// bar instead, which never covers the last task or quick add; axe with the sidebar and the
// new-list dialog open, light and dark.
import { expect, test, type Locator, type Page } from '@playwright/test';

import { contextFor, newAccount } from './support/accounts';
import { addTasks, createList, expectStored, expectSynced, taskRow } from './support/app';
import { expectNoSeriousViolations } from './support/axe';

/** The visible "Main" navigation: the sidebar on a wide window, the bottom bar on a phone. */
function mainNav(page: Page): Locator {
  return page.getByRole('navigation', { name: 'Main' });
}

/** Presses Tab until `target` has the focus (from the top of the page), at most `max` times. */
async function tabTo(page: Page, target: Locator, max = 30): Promise<void> {
  for (let presses = 0; presses < max; presses += 1) {
    if (await target.evaluate((element) => element === document.activeElement)) return;
    await page.keyboard.press('Tab');
  }
  await expect(target).toBeFocused();
}

async function box(locator: Locator) {
  const found = await locator.boundingBox();
  if (!found) throw new Error('not on screen');
  return found;
}

test('desktop: the sidebar lists the lists with counts, opens one, and makes a new one by keyboard', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const alice = await newAccount('Alice');
  const context = await contextFor(browser, alice);
  const page = await context.newPage();
  const errands = await createList(page, 'Errands');
  await addTasks(page, ['Post office', 'Bank', 'Pharmacy']);
  await page.getByLabel('Done: Bank').check();
  // Saved on the device (the counts come from it) before the next page load: a reload within
  // milliseconds of a tap aborts the write still in flight.
  await expect(page.getByText('2 open · 1 done')).toBeVisible();
  const home = await createList(page, 'Home');
  await expectSynced(page);

  await page.goto('/settings');
  const nav = mainNav(page);
  await expect(nav.getByRole('heading', { name: 'Lists' })).toBeVisible();
  await expect(page.locator('.bottom-bar')).toBeHidden();
  const errandsLink = nav.getByRole('link', { name: 'Errands, 2 open', exact: true });
  const homeLink = nav.getByRole('link', { name: 'Home, 0 open', exact: true });
  await expect(errandsLink).toBeVisible();
  await expect(homeLink).toBeVisible();
  await expect(nav.getByRole('link', { name: 'Settings' })).toHaveAttribute('aria-current', 'page');

  // Clicking a list opens it, and the sidebar marks it.
  await errandsLink.click();
  await expect(page).toHaveURL(new RegExp(`/lists/${errands}$`));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Errands');
  await expect(errandsLink).toHaveAttribute('aria-current', 'page');
  await expect(homeLink).not.toHaveAttribute('aria-current');

  // A change made offline waits: the sidebar says so for that list only.
  await context.setOffline(true);
  await addTasks(page, ['Dry cleaning']);
  await expect(
    nav.getByRole('link', { name: 'Errands, 3 open, 1 waiting to sync', exact: true }),
  ).toBeVisible();
  await expect(homeLink).toBeVisible();
  await context.setOffline(false);
  await expect(nav.getByRole('link', { name: 'Errands, 3 open', exact: true })).toBeVisible({
    timeout: 20_000,
  });

  // "+ New list" by keyboard alone: Tab reaches it, Enter opens the dialog on its name field,
  // arrows pick a colour, Enter on "Create list" makes the list and opens it.
  await page.goto(`/lists/${home}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Home');
  await page.locator('body').focus();
  const newList = nav.getByRole('button', { name: 'New list' });
  await tabTo(page, newList);
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'New list' });
  await expect(dialog.getByLabel('List name')).toBeFocused();
  await page.keyboard.type('Garden');
  await page.keyboard.press('Tab');
  await expect(dialog.getByRole('radio', { name: 'Teal' })).toBeFocused();
  await page.keyboard.press('ArrowRight');
  await expect(dialog.getByRole('radio', { name: 'Blue' })).toBeChecked();
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await expect(dialog.getByRole('button', { name: 'Create list' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Garden');
  const garden = /\/lists\/([0-9a-f-]{36})$/.exec(page.url())?.[1];
  expect(garden).toBeTruthy();
  await expectStored(page, 'lists', garden!, 'color', 'blue');
  await expect(nav.getByRole('link', { name: /^Garden, 0 open/ })).toHaveAttribute(
    'aria-current',
    'page',
  );
  await context.close();
});

test('phone: a bottom bar instead of the sidebar, never over the last task or quick add', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const alice = await newAccount('Alice');
  const context = await contextFor(browser, alice, { viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  const titles = Array.from({ length: 14 }, (_, index) => `Task number ${index + 1}`);
  const listId = await createList(page, 'Long list');
  await addTasks(page, titles);

  await page.goto(`/lists/${listId}`);
  const bar = mainNav(page);
  await expect(bar).toHaveClass(/bottom-bar/);
  await expect(page.locator('.sidebar')).toBeHidden();
  await expect(bar.getByRole('link', { name: 'Lists' })).toBeVisible();
  await expect(bar.getByRole('link', { name: 'Settings' })).toBeVisible();
  const barBox = await box(bar);
  expect(barBox.y + barBox.height).toBeCloseTo(844, 0);

  // Scrolled to the end, the last row sits above the bar.
  const last = taskRow(page, titles.at(-1)!);
  await expect(last).toBeVisible();
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  await expect
    .poll(async () => {
      const row = await box(last);
      return row.y + row.height <= barBox.y;
    })
    .toBe(true);

  // "New task" goes to quick add, in sight above the bar.
  await bar.getByRole('link', { name: 'New task' }).click();
  const quickAdd = page.getByLabel('Add a task');
  await expect(quickAdd).toBeFocused();
  const field = await box(quickAdd);
  expect(field.y + field.height).toBeLessThanOrEqual(barBox.y);
  expect(field.y).toBeGreaterThanOrEqual(0);

  // On the lists, "New" is a new list.
  await bar.getByRole('link', { name: 'Lists' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Lists');
  await expect(bar.getByRole('link', { name: 'Lists' })).toHaveAttribute('aria-current', 'page');
  await bar.getByRole('button', { name: 'New list' }).click();
  await expect(page.getByRole('dialog', { name: 'New list' })).toBeVisible();
  await context.close();
});

for (const colorScheme of ['light', 'dark'] as const) {
  test(`the sidebar, the bottom bar and the new-list dialog pass axe (${colorScheme})`, async ({
    browser,
  }) => {
    test.setTimeout(120_000);
    const alice = await newAccount('Alice');
    const context = await contextFor(browser, alice, { colorScheme });
    const page = await context.newPage();
    const listId = await createList(page, 'Accessible list');
    await addTasks(page, ['First task']);
    await createList(page, 'Second list');
    await page.goto(`/lists/${listId}`);
    await expect(mainNav(page).getByRole('link', { name: /^Accessible list,/ })).toHaveAttribute(
      'aria-current',
      'page',
    );
    await expectNoSeriousViolations(page, 'a list with the sidebar');
    await page.goto('/lists');
    await expectNoSeriousViolations(page, 'lists overview with the sidebar');

    await mainNav(page).getByRole('button', { name: 'New list' }).click();
    const dialog = page.getByRole('dialog', { name: 'New list' });
    await dialog.getByRole('button', { name: 'Create list' }).click();
    await expect(dialog.getByText("List name can't be empty.")).toBeVisible();
    await expectNoSeriousViolations(page, 'new-list dialog with an error', dialog);
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await expect(mainNav(page).getByRole('button', { name: 'New list' })).toBeFocused();

    await page.setViewportSize({ width: 390, height: 844 });
    await expect(page.locator('.bottom-bar')).toBeVisible();
    await expectNoSeriousViolations(page, 'lists with the bottom bar');
    await context.close();
  });
}
