// Local-only use (product.md §1, §4 "Account"): someone uses Outpost without an account, then
// signs up; what they made is uploaded and is there when they sign in on another device.
import { expect, test } from '@playwright/test';

import { TEST_PASSWORD, uniqueEmail } from './support/accounts';
import { createList, expectSynced, taskRow } from './support/app';

test('work made without an account is uploaded on sign-up and seen on a second device', async ({
  browser,
}) => {
  const email = uniqueEmail('dana');
  const first = await browser.newContext();
  const page = await first.newPage();
  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Welcome to Outpost');
  await page.getByRole('button', { name: 'Use without an account' }).click();
  await expect(page).toHaveURL(/\/lists$/);
  await expect(page.locator('.sync-status')).toHaveAttribute('data-state', 'local');

  const listId = await createList(page, 'Allotment jobs');
  await page.getByLabel('Add a task').fill('Turn the compost');
  await page.keyboard.press('Enter');
  await page.getByLabel('Add a task').fill('Net the brassicas');
  await page.keyboard.press('Enter');
  await expect(taskRow(page, 'Net the brassicas')).toBeVisible();

  // Signing up keeps everything and uploads it.
  await page.locator('.sync-status a').click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Create an account');
  await expect(page.getByText(/will be uploaded to your new account/)).toBeVisible();
  await page.getByLabel('Name').fill('Dana');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(TEST_PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page).toHaveURL(/\/lists$/);
  await expectSynced(page);

  // Another device: sign in, and the list and its tasks are there.
  const second = await browser.newContext();
  const other = await second.newPage();
  await other.goto('/sign-in');
  await other.getByLabel('Email').fill(email);
  await other.getByLabel('Password').fill(TEST_PASSWORD);
  await other.getByRole('button', { name: 'Sign in' }).click();
  await expect(other).toHaveURL(/\/lists$/);
  await other.getByRole('link', { name: 'Allotment jobs', exact: true }).click();
  await expect(other).toHaveURL(new RegExp(`/lists/${listId}$`));
  await expect(taskRow(other, 'Turn the compost')).toBeVisible({ timeout: 20_000 });
  await expect(taskRow(other, 'Net the brassicas')).toBeVisible();

  await first.close();
  await second.close();
});
