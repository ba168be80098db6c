// The email flows every account needs (issue 36), end to end against the devstack: a person
// who forgot their password asks for a reset on the sign-in screen, opens the link from the
// devstack's mail page (as the CLI's Mailpit shows it), sets a new password and is signed in;
// the new password signs in, the old one is refused. An email change waits for the mailed
// confirmation link before the address changes.
import { expect, test, type Page } from '@playwright/test';

import { apiClient, contextFor, newAccount, TEST_PASSWORD, uniqueEmail } from './support/accounts';
import { E2E_API_URL } from './support/env';

const MAIL_PAGE = `${E2E_API_URL}/_devstack/mail/`;

/** Opens the devstack's mail page and follows the link of the newest mail to `to`. */
async function openMailLink(page: Page, to: string, subject: string): Promise<void> {
  await page.goto(MAIL_PAGE);
  const mail = page
    .locator('li.mail')
    .filter({ hasText: `To ${to} ·` })
    .filter({ has: page.getByRole('heading', { name: subject }) })
    .first();
  await expect(mail).toBeVisible();
  await mail.getByRole('list').getByRole('link').first().click();
}

async function signInOnScreen(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/sign-in');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

test('a person who forgot their password resets it from the mailed link', async ({ browser }) => {
  const robin = await newAccount('Robin');
  const context = await browser.newContext();
  const page = await context.newPage();

  await page.goto('/sign-in');
  await page.getByLabel('Email').fill(robin.email);
  await page.getByRole('link', { name: 'Forgot password?' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Reset your password');
  await expect(page.getByLabel('Email')).toHaveValue(robin.email);
  await page.getByRole('button', { name: 'Send reset link' }).click();
  // GoTrue's answer can take seconds on a loaded machine (it hashes and mails).
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Check your inbox', {
    timeout: 15_000,
  });
  await expect(page.getByText(/has an Outpost account/)).toContainText(robin.email);

  // The link from the mail page opens the app's reset screen, signed in for the reset.
  await openMailLink(page, robin.email, 'Reset your password');
  await expect(page).toHaveURL(/\/reset-password$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Choose a new password');
  await expect(page.getByText(`For ${robin.email}.`)).toBeVisible();
  await page.getByLabel('New password', { exact: true }).fill('brand-new-password');
  await page.getByLabel('Repeat new password').fill('brand-new-password');
  await page.getByRole('button', { name: 'Save new password' }).click();
  await expect(page).toHaveURL(/\/lists$/, { timeout: 15_000 });
  await context.close();

  // The old password is refused, the new one signs in.
  const later = await browser.newContext();
  const again = await later.newPage();
  await signInOnScreen(again, robin.email, TEST_PASSWORD);
  await expect(again.getByRole('alert')).toHaveText('Email or password is wrong.');
  await signInOnScreen(again, robin.email, 'brand-new-password');
  await expect(again).toHaveURL(/\/lists$/);

  // The link worked once: opened again, it says it has expired.
  await openMailLink(again, robin.email, 'Reset your password');
  await expect(again.getByRole('alert')).toHaveText(
    'This link has expired or has already been used. Ask for a new one.',
  );
  await later.close();
});

test('an email change waits for the confirmation link', async ({ browser }) => {
  const sam = await newAccount('Sam');
  const newEmail = uniqueEmail('sam-new');
  const context = await contextFor(browser, sam);
  const page = await context.newPage();

  await page.goto('/settings#account');
  await expect(page.getByText(`Signed in as ${sam.email}.`)).toBeVisible();
  await page.getByLabel('New email').fill(newEmail);
  await page.getByRole('button', { name: 'Change email' }).click();
  await expect(page.getByText(/Check your inbox at both addresses/)).toBeVisible({
    timeout: 15_000,
  });

  // Not before the link: the new address does not sign in, the old one still does.
  const early = await apiClient().auth.signInWithPassword({
    email: newEmail,
    password: TEST_PASSWORD,
  });
  expect(early.error?.code).toBe('invalid_credentials');
  const still = await apiClient().auth.signInWithPassword({
    email: sam.email,
    password: TEST_PASSWORD,
  });
  expect(still.error).toBeNull();

  await openMailLink(page, newEmail, 'Confirm your new email address');
  await expect(page).toHaveURL(/\/email-confirmed$/);
  const heading = page.getByRole('heading', { level: 1 });
  // A project that wants both addresses confirmed (confirmations on) asks for the other link.
  const outcome = page.getByText(/Your email address is now|Open the link we sent to the other/);
  await expect(outcome).toBeVisible();
  if ((await outcome.textContent())?.includes('other address')) {
    await openMailLink(page, sam.email, 'Confirm your new email address');
  }
  await expect(heading).toHaveText('Email confirmed');
  await expect(page.getByText(`Your email address is now ${newEmail}.`)).toBeVisible();

  const after = await apiClient().auth.signInWithPassword({
    email: newEmail,
    password: TEST_PASSWORD,
  });
  expect(after.error).toBeNull();
  const old = await apiClient().auth.signInWithPassword({
    email: sam.email,
    password: TEST_PASSWORD,
  });
  expect(old.error?.code).toBe('invalid_credentials');

  await page.goto('/settings#account');
  await expect(page.getByText(`Signed in as ${newEmail}.`)).toBeVisible();
  await context.close();
});
