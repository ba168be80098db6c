// Signing out with no network (issue 14, item 6): on a shared field tablet the next person
// must not get the previous user's account. Sign-out ends the session on the device at once,
// in every open tab, across a reload, and once the network is back the server refuses the
// old refresh token (the app revokes it then) while the device stays signed out and empty.
import { expect, test, type Page } from '@playwright/test';

import { contextFor, newAccount } from './support/accounts';
import { addTasks, controlledByWorker, createList, expectSynced } from './support/app';
import { E2E_PUBLISHABLE_KEY, E2E_API_URL } from './support/env';

/** Where the app's supabase-js keeps its session (src/lib/supabase.ts AUTH_STORAGE_KEY). */
const AUTH_STORAGE_KEY = 'outpost-auth';

function storedSession(page: Page): Promise<string | null> {
  return page.evaluate((key) => localStorage.getItem(key), AUTH_STORAGE_KEY);
}

/** Refresh tokens still waiting to be revoked (the sync library's `…:revoke` keys). */
function pendingRevocations(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    Object.keys(localStorage)
      .filter((key) => key.endsWith(':revoke'))
      .map((key) => localStorage.getItem(key) ?? ''),
  );
}

/** Rows in one store of the device database. */
function storedCount(page: Page, store: string): Promise<number> {
  return page.evaluate(async (name) => {
    const open = indexedDB.open('outpost');
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error ?? new Error('indexedDB.open failed'));
    });
    try {
      const request = db.transaction(name).objectStore(name).count();
      return await new Promise<number>((resolve) => {
        request.onsuccess = () => resolve(request.result);
      });
    } finally {
      db.close();
    }
  }, store);
}

test('signing out offline signs out every tab for good, and the session is revoked once online', async ({
  browser,
}) => {
  const erin = await newAccount('Erin');
  const context = await contextFor(browser, erin);
  const page = await context.newPage();
  await createList(page, 'Night shift checks');
  await addTasks(page, ['Lock the gate', 'Log the meter']);
  await expectSynced(page);
  await controlledByWorker(page);
  const other = await context.newPage();
  await other.goto('/lists');
  await expect(other.getByRole('link', { name: 'Night shift checks', exact: true })).toBeVisible();

  const session = await storedSession(page);
  const refreshToken = (JSON.parse(session ?? '{}') as { refresh_token?: string }).refresh_token;
  expect(refreshToken).toBeTruthy();

  await context.setOffline(true);
  await page.getByRole('link', { name: 'Settings' }).click();
  await page.getByRole('button', { name: 'Sign out' }).click();
  const welcome = (p: Page) =>
    expect(p.getByRole('heading', { level: 1 })).toHaveText('Welcome to Outpost');
  await welcome(page);
  // The other tab follows at once.
  await welcome(other);
  expect(await storedSession(page)).toBeNull();
  expect(await pendingRevocations(page)).toEqual([JSON.stringify([refreshToken])]);

  // A reload with no network: still signed out, nothing of Erin's on the device.
  await page.reload();
  await welcome(page);
  await page.goto('/lists');
  await welcome(page);
  expect(await storedSession(page)).toBeNull();
  expect(await storedCount(page, 'lists')).toBe(0);
  expect(await storedCount(page, 'tasks')).toBe(0);

  // The network comes back: the app revokes the old session, and nothing comes back.
  await context.setOffline(false);
  await expect.poll(() => pendingRevocations(page)).toEqual([]);
  await welcome(page);
  await welcome(other);
  expect(await storedSession(page)).toBeNull();
  expect(await storedCount(page, 'lists')).toBe(0);

  const answer = await fetch(`${E2E_API_URL}/auth/v1/token?grant_type=refresh_token`, {
    method: 'POST',
    headers: { apikey: E2E_PUBLISHABLE_KEY, 'Content-Type': 'application/json' },
    body: JSON.stringify({ refresh_token: refreshToken }),
  });
  expect(answer.status).toBe(400);
  expect(await answer.json()).toMatchObject({ error_code: 'refresh_token_not_found' });

  await context.close();
});
