// Accessibility (issue 5): axe-core finds no serious or critical violations on any screen,
// in light and dark colour schemes, filled with real data.
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';

import { contextFor, newAccount, shareList } from './support/accounts';
import { addTasks, createList, expectSynced, taskId } from './support/app';

async function expectNoSeriousViolations(page: Page, screen: string): Promise<void> {
  // Let lazy screens and live queries settle, so axe sees the screen as a person would.
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await page.waitForLoadState('networkidle').catch(() => undefined);
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} — ${violation.nodes
          .slice(0, 3)
          .map((node) => node.target.join(' '))
          .join(' | ')}`,
    );
  expect(serious, `${screen}: ${serious.join('\n')}`).toEqual([]);
}

for (const colorScheme of ['light', 'dark'] as const) {
  test(`every screen passes axe (${colorScheme})`, async ({ browser }) => {
    test.setTimeout(120_000);
    const [alice, bob] = await Promise.all([newAccount('Alice'), newAccount('Bob')]);

    const visitor = await browser.newContext({ colorScheme });
    const v = await visitor.newPage();
    for (const [path, name] of [
      ['/welcome', 'welcome'],
      ['/sign-in', 'sign in'],
      ['/sign-up', 'sign up'],
      ['/invite/not-a-real-token', 'invite (signed out)'],
    ] as const) {
      await v.goto(path);
      await expectNoSeriousViolations(v, name);
    }
    await visitor.close();

    const signedIn = await contextFor(browser, alice, { colorScheme });
    const page = await signedIn.newPage();
    const listId = await createList(page, 'Accessible list');
    await addTasks(page, ['First task', 'Second task', 'Third task']);
    await page.getByLabel('Done: Second task').check();
    await expectSynced(page);
    await shareList(alice, bob, listId, 'editor');
    const firstId = await taskId(page, 'First task');
    await page.goto(`/lists/${listId}/tasks/${firstId}`);
    await page.getByLabel('Add a comment').fill('Looks good to me.');
    await page.getByRole('button', { name: 'Comment' }).click();

    for (const [path, name] of [
      ['/lists', 'lists'],
      [`/lists/${listId}`, 'tasks'],
      [`/lists/${listId}/tasks/${firstId}`, 'task detail'],
      [`/lists/${listId}/members`, 'members'],
      ['/settings', 'settings'],
      ['/invite/not-a-real-token', 'invite (signed in)'],
      ['/no/such/page', 'not found'],
    ] as const) {
      await page.goto(path);
      await expectNoSeriousViolations(page, name);
    }
    await signedIn.close();
  });
}
