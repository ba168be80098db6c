// The command palette (issue 17) in Chromium with the network cut: Ctrl+K, part of a task's
// title, Enter, and that task's screen shows, found in the device's own database; an action
// runs; Escape puts focus back; and axe finds no serious or critical violation with the
// palette open, light and dark.
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';

import { contextFor, newAccount } from './support/accounts';
import { addTasks, controlledByWorker, createList, expectSynced } from './support/app';
import { taskHeading } from './support/task-detail';

function palette(page: Page) {
  return page.getByRole('dialog', { name: 'Command palette' });
}

function paletteField(page: Page) {
  return palette(page).getByRole('combobox', { name: 'Search lists, tasks and actions' });
}

async function openPalette(page: Page): Promise<void> {
  await page.keyboard.press('Control+k');
  await expect(paletteField(page)).toBeFocused();
}

test('the palette finds a task offline, runs an action, and passes axe light and dark', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const pat = await newAccount('Pat');
  const context = await contextFor(browser, pat);
  const page = await context.newPage();
  const listId = await createList(page, 'Roof crew');
  await addTasks(page, ['Check the gutters', 'Order slate tiles', 'Sweep the loft']);
  await expectSynced(page);
  // The palette's code then comes from the service worker's precache, as on a phone offline.
  await controlledByWorker(page);
  await page.goto('/lists');
  await expect(page.getByRole('heading', { level: 1, name: 'Lists' })).toBeVisible();

  await context.setOffline(true);
  await expect(page.locator('.sync-status')).toHaveAttribute('data-state', 'offline');

  // Jump to a task by part of its title.
  await openPalette(page);
  await paletteField(page).fill('slate');
  const option = palette(page).getByRole('option', { name: /Order slate tiles/ });
  await expect(option).toHaveAttribute('aria-selected', 'true');
  await expect(option).toContainText('Roof crew');
  await expect(option).toContainText('Task');
  await page.keyboard.press('Enter');
  await expect(palette(page)).toBeHidden();
  await expect(page).toHaveURL(new RegExp(`/lists/${listId}/tasks/[0-9a-f-]{36}$`));
  // On its own page or beside its list (wide windows): the task's own heading.
  await expect(taskHeading(page)).toContainText('Order slate tiles');

  // An action: "New task" goes to the task's list with the quick-add field ready.
  await openPalette(page);
  await paletteField(page).fill('new task');
  await expect(palette(page).getByRole('option', { selected: true })).toContainText('In Roof crew');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/lists/${listId}$`));
  await expect(page.getByLabel('Add a task')).toBeFocused();

  // Escape closes it, and focus goes back where it was.
  await openPalette(page);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Escape');
  await expect(palette(page)).toBeHidden();
  await expect(page.getByLabel('Add a task')).toBeFocused();

  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await openPalette(page);
    await paletteField(page).fill('roof');
    await expect(palette(page).getByRole('option')).not.toHaveCount(0);
    const results = await new AxeBuilder({ page }).analyze();
    const serious = results.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map(
        (violation) =>
          `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
      );
    expect(serious, `palette (${colorScheme})`).toEqual([]);
    await page.keyboard.press('Escape');
    await expect(palette(page)).toBeHidden();
  }
  await context.close();
});
