// The production build loads in Chromium, renders, and talks to the e2e devstack.
import { expect, test } from '@playwright/test';

import { E2E_API_URL } from './support/env';

test('the app shell renders without console errors', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('response', (response) => {
    if (response.status() >= 400) errors.push(`${response.status()} ${response.url()}`);
  });
  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Outpost');
  expect(errors).toEqual([]);
});

test('the devstack the build points at is up and seeded', async ({ request }) => {
  const response = await request.get(`${E2E_API_URL}/`);
  expect(response.ok()).toBe(true);
  expect(await response.json()).toMatchObject({ name: 'outpost devstack' });
});
