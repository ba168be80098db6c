// Invite by link (product.md §2, §7): alice creates a link on the members screen; someone new
// opens it, creates an account on the way, accepts, and sees the list.
import { expect, test } from '@playwright/test';

import { contextFor, newAccount, TEST_PASSWORD, uniqueEmail } from './support/accounts';
import { createList, expectSynced } from './support/app';

test('a new person signs up through an invite link and sees the list', async ({ browser }) => {
  const alice = await newAccount('Alice');
  const aliceContext = await contextFor(browser, alice);
  const owner = await aliceContext.newPage();
  const listId = await createList(owner, 'Crew rota');
  await expectSynced(owner);

  await owner.goto(`/lists/${listId}/members`);
  await expect(owner.getByRole('heading', { level: 1 })).toHaveText('Members of Crew rota');
  await owner.getByLabel('Role for the invited person').selectOption('editor');
  await owner.getByRole('button', { name: 'Create invite link' }).click();
  const link = await owner.getByLabel(/Invite link/).inputValue();
  expect(link).toMatch(/\/invite\/[0-9a-f]{64}$/);

  // Someone with no account yet opens the link.
  const newcomer = await browser.newContext();
  const page = await newcomer.newPage();
  await page.goto(link);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText("You're invited to a list");
  await page.getByRole('link', { name: /create an account/i }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Create an account');
  await page.getByLabel('Name').fill('Casey');
  await page.getByLabel('Email').fill(uniqueEmail('casey'));
  await page.getByLabel('Password').fill(TEST_PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();

  // Back on the invite, now signed in.
  await expect(page).toHaveURL(/\/invite\//);
  await page.getByRole('button', { name: 'Accept invite' }).click();
  await expect(page).toHaveURL(new RegExp(`/lists/${listId}$`), { timeout: 20_000 });
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Crew rota');

  // Alice sees Casey among the members, live.
  await expect(owner.getByLabel('Role of Casey')).toBeVisible({ timeout: 20_000 });

  // The link was for one person: opening it again says so.
  await page.goto(link);
  await page.getByRole('button', { name: 'Accept invite' }).click();
  await expect(page.getByText(/already a member|already been used/)).toBeVisible();

  await newcomer.close();
  await aliceContext.close();
});
