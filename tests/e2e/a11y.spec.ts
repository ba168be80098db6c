// Accessibility (issue 5): axe-core finds no serious or critical violations on any screen,
// in light and dark colour schemes, filled with real data; and on what only shows in some
// states: each open dialog (keyboard shortcuts, edit list, delete list, remove member, the
// sign-out warning about unsynced changes), Settings with a rejected change listed, and
// the header while offline.
import { expect, test, type Page } from '@playwright/test';

import { contextFor, newAccount, shareList } from './support/accounts';
import { addTasks, createList, expectSynced, taskId, taskRow } from './support/app';
import { expectNoSeriousViolations } from './support/axe';

/** Checks the open dialog named `title` (and the page under it), then closes it. */
async function expectDialogPasses(page: Page, title: string, close: string): Promise<void> {
  const dialog = page.getByRole('dialog', { name: title });
  await expectNoSeriousViolations(page, `dialog “${title}”`, dialog);
  await dialog.getByRole('button', { name: close, exact: true }).click();
  await expect(dialog).toBeHidden();
}

for (const colorScheme of ['light', 'dark'] as const) {
  test(`every screen passes axe (${colorScheme})`, async ({ browser }) => {
    test.setTimeout(300_000);
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

    // Dialogs, each checked open, then cancelled.
    await page.goto('/lists');
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await page.getByRole('button', { name: 'Keyboard shortcuts' }).click();
    await expectDialogPasses(page, 'Keyboard shortcuts', 'Close');
    await page.getByRole('button', { name: 'Edit Accessible list' }).click();
    await expectDialogPasses(page, 'Edit list', 'Cancel');
    await page.getByRole('button', { name: 'Delete Accessible list' }).click();
    await expectDialogPasses(page, 'Delete “Accessible list”?', 'Cancel');

    // A rejected change in bob's Settings: he ticks a task offline while alice makes him a
    // viewer, and the server refuses it when he is back.
    const bobContext = await contextFor(browser, bob, { colorScheme });
    const b = await bobContext.newPage();
    await b.goto(`/lists/${listId}`);
    await expect(taskRow(b, 'Third task')).toBeVisible({ timeout: 20_000 });
    await bobContext.setOffline(true);
    await expect(b.locator('.sync-status')).toHaveAttribute('data-state', 'offline');
    await b.getByLabel('Done: Third task').check();

    await page.goto(`/lists/${listId}/members`);
    await expect(page.getByRole('combobox', { name: 'Role of Bob' })).toBeVisible();
    await page.getByRole('button', { name: 'Remove Bob' }).click();
    await expectDialogPasses(page, 'Remove Bob?', 'Cancel');
    await page.getByLabel('Role of Bob').selectOption('viewer');
    await expectSynced(page);
    // "Synced" can still be the state from before the change was queued: wait for the server
    // itself to hold bob as a viewer, or his tick may reach it first and be applied.
    await expect
      .poll(
        async () =>
          (
            await alice.api
              .from('memberships')
              .select('role')
              .eq('list_id', listId)
              .eq('user_id', bob.userId)
              .maybeSingle<{ role: string }>()
          ).data?.role,
        { timeout: 20_000 },
      )
      .toBe('viewer');

    await bobContext.setOffline(false);
    await expect(b.getByLabel('Done: Third task')).not.toBeChecked({ timeout: 30_000 });
    await b
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Settings' })
      .click();
    await expect(b.locator('#rejected .settings-rejection')).not.toHaveCount(0);
    await expectNoSeriousViolations(b, 'settings with a rejected change');
    await bobContext.close();

    // Offline: the header says so, and a change made now waits, so signing out warns.
    await page.goto(`/lists/${listId}`);
    await expect(taskRow(page, 'Third task')).toBeVisible();
    await signedIn.setOffline(true);
    await expect(page.locator('.sync-status')).toHaveAttribute('data-state', 'offline');
    await expectNoSeriousViolations(page, 'tasks, offline');
    await addTasks(page, ['Made offline']);
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Settings' })
      .click();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await expectDialogPasses(page, "1 change hasn't synced yet", 'Cancel');
    await expectNoSeriousViolations(page, 'settings, offline');
    await signedIn.setOffline(false);
    await signedIn.close();
  });
}
