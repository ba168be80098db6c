// Small steps the browser tests share, written as a person would do them in the UI.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { expect, type BrowserContext, type Page } from '@playwright/test';

import { reportOffline } from '../../support/chromium';

/** On the lists screen: "New list", the name in the dialog, "Create list". */
export async function submitNewList(page: Page, name: string): Promise<void> {
  await page.getByRole('main').getByRole('button', { name: 'New list' }).click();
  const dialog = page.getByRole('dialog', { name: 'New list' });
  await dialog.getByLabel('List name').fill(name);
  await dialog.getByRole('button', { name: 'Create list' }).click();
}

/** Creates a list on the lists screen; resolves with its id once the list is open. */
export async function createList(page: Page, name: string): Promise<string> {
  await page.goto('/lists');
  await submitNewList(page, name);
  await expect(page.getByRole('heading', { level: 1 })).toContainText(name);
  const match = /\/lists\/([0-9a-f-]{36})/.exec(page.url());
  if (!match?.[1]) throw new Error(`not on a list page: ${page.url()}`);
  return match[1];
}

/** Waits until the header says everything on this device has reached the server. */
export async function expectSynced(page: Page, timeout = 20_000): Promise<void> {
  const status = page.locator('.sync-status');
  await expect(status).toHaveAttribute('data-state', 'synced', { timeout });
  await expect(status).not.toContainText('waiting', { timeout });
}

/** Adds tasks with the quick-add field of the open list, waiting for each to show. */
export async function addTasks(page: Page, titles: readonly string[]): Promise<void> {
  const field = page.getByLabel('Add a task');
  for (const title of titles) {
    await field.fill(title);
    await field.press('Enter');
    await expect(taskRow(page, title)).toBeVisible();
  }
}

/** The row of a task on the open list, by its exact title. */
export function taskRow(page: Page, title: string) {
  return page.locator(`[data-task-id][aria-label="${title.replace(/"/g, '\\"')}"]`);
}

/** Titles of the rows on screen, top to bottom. */
export function rowTitles(page: Page): Promise<string[]> {
  return page
    .locator('[data-task-id]')
    .evaluateAll((rows) => rows.map((row) => row.getAttribute('aria-label') ?? ''));
}

/** The id of a task row on the open list. */
export async function taskId(page: Page, title: string): Promise<string> {
  const id = await taskRow(page, title).getAttribute('data-task-id');
  if (!id) throw new Error(`no task "${title}"`);
  return id;
}

/** Waits until the page is controlled by the service worker (so it reloads offline). */
export async function controlledByWorker(page: Page): Promise<void> {
  await page.evaluate(() => navigator.serviceWorker.ready);
  if (await page.evaluate(() => navigator.serviceWorker.controller === null)) await page.reload();
  await expect
    .poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null))
    .toBe(true);
}

/** A real PNG (the app's 64 px icon), standing in for a photo taken on the spot. */
export const PHOTO_PNG = readFileSync(
  join(import.meta.dirname, '..', '..', '..', 'public', 'pwa-64x64.png'),
);

/** Waits until the device database holds `value` in a field of a row (the write committed). */
export async function expectStored(
  page: Page,
  table: string,
  id: string,
  field: string,
  value: unknown,
): Promise<void> {
  await expect
    .poll(
      () =>
        page.evaluate(
          async ([store, key, column]) => {
            const open = indexedDB.open('outpost');
            const db = await new Promise<IDBDatabase>((resolve, reject) => {
              open.onsuccess = () => resolve(open.result);
              open.onerror = () => reject(open.error ?? new Error('indexedDB.open failed'));
            });
            try {
              const request = db.transaction(store).objectStore(store).get(key);
              const row = await new Promise<Record<string, unknown> | undefined>((resolve) => {
                request.onsuccess = () => resolve(request.result as Record<string, unknown>);
              });
              return row?.[column];
            } finally {
              db.close();
            }
          },
          [table, id, field] as const,
        ),
      { timeout: 10_000 },
    )
    .toEqual(value);
}

/** Cuts `context`'s network, as with no signal, for the documents `page` loads from now on too. */
export async function cutNetworkForLoads(context: BrowserContext, page: Page): Promise<void> {
  await context.setOffline(true);
  await reportOffline(page);
}
