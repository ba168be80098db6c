// The installable shell in Chromium against the production build: the manifest and its
// icons, the service worker taking control, a cold offline start from cache, and API paths
// never answered by the app shell.
import { expect, test, type Page } from '@playwright/test';

import { contextFor, newAccount } from './support/accounts';
import {
  addTasks,
  controlledByWorker,
  createList,
  expectSynced,
  taskId,
  taskRow,
} from './support/app';

/** Width and height from a PNG's IHDR chunk. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

async function waitForControl(page: Page): Promise<void> {
  await page.goto('/');
  await page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready;
    if (registration.active?.state !== 'activated') {
      await new Promise<void>((resolve) =>
        registration.active?.addEventListener('statechange', () => resolve()),
      );
    }
  });
  // The first load is not controlled (no clientsClaim); the next one is.
  await page.reload();
  await expect
    .poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null))
    .toBe(true);
}

test('the manifest has every field an installable app needs', async ({ page, request }) => {
  await page.goto('/');
  const href = await page.locator('link[rel="manifest"]').getAttribute('href');
  expect(href).toBeTruthy();
  const manifest = (await (await request.get(href ?? '')).json()) as Record<string, unknown>;
  expect(manifest).toMatchObject({
    id: '/',
    name: expect.stringContaining('Outpost'),
    short_name: 'Outpost',
    start_url: '/',
    scope: '/',
    display: 'standalone',
  });
  for (const field of ['description', 'theme_color', 'background_color']) {
    expect(typeof manifest[field], field).toBe('string');
  }
  const icons = manifest.icons as { src: string; sizes: string; purpose?: string }[];
  const has = (size: string, purpose: string) =>
    icons.some((icon) => icon.sizes === size && (icon.purpose ?? 'any') === purpose);
  expect(has('192x192', 'any')).toBe(true);
  expect(has('512x512', 'any')).toBe(true);
  expect(has('512x512', 'maskable')).toBe(true);
  const shortcuts = manifest.shortcuts as { name: string; url: string }[];
  expect(shortcuts.map((s) => s.name)).toEqual(['New task', 'Lists']);
  const screenshots = manifest.screenshots as {
    src: string;
    sizes: string;
    form_factor?: string;
    label?: string;
  }[];
  expect(screenshots.map((shot) => shot.form_factor).sort()).toEqual(['narrow', 'wide']);
  for (const shot of screenshots) {
    expect(shot.label, shot.src).toBeTruthy();
    const response = await request.get(`/${shot.src}`);
    const [width, height] = shot.sizes.split('x').map(Number);
    expect(pngSize(await response.body()), shot.src).toEqual({ width, height });
  }

  for (const icon of icons) {
    const response = await request.get(`/${icon.src}`);
    expect(response.headers()['content-type'], icon.src).toBe('image/png');
    const [width, height] = icon.sizes.split('x').map(Number);
    expect(pngSize(await response.body()), icon.src).toEqual({ width, height });
  }
  const apple = await page.locator('link[rel="apple-touch-icon"]').getAttribute('href');
  expect(pngSize(await (await request.get(apple ?? '')).body())).toEqual({
    width: 180,
    height: 180,
  });
  expect((await request.get('/favicon.ico')).ok()).toBe(true);
  await expect(page.locator('meta[name="theme-color"]')).toHaveCount(2);
});

test('the service worker activates, controls the page and says the app works offline', async ({
  page,
}) => {
  await page.goto('/');
  await expect(page.getByRole('status').filter({ hasText: 'Ready to work offline' })).toBeVisible();
  await waitForControl(page);
});

test('starts cold from cache with the network cut', async ({ page, context }) => {
  await waitForControl(page);
  await context.setOffline(true);
  await page.reload();
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Outpost');
  // Any in-app route is the shell too.
  await page.goto('/lists/anything');
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Outpost');
  await context.setOffline(false);
});

test('never answers API paths with the app shell', async ({ page, context }) => {
  await waitForControl(page);
  await context.setOffline(true);
  for (const path of [
    '/auth/v1/verify?token=x',
    '/rest/v1/tasks',
    '/storage/v1/object/x',
    '/functions/v1/x',
  ]) {
    // The worker lets these through to the (cut) network instead of serving index.html.
    await expect(page.goto(path), path).rejects.toThrow(/ERR_INTERNET_DISCONNECTED|net::/);
  }
  await context.setOffline(false);
});

test("a cold reload with the network cut shows the user's lists, a list and a task", async ({
  browser,
}) => {
  const alice = await newAccount('Alice');
  const context = await contextFor(browser, alice);
  const page = await context.newPage();
  const listId = await createList(page, 'Basement checks');
  await addTasks(page, ['Read the gas meter', 'Check the sump pump']);
  const pumpId = await taskId(page, 'Check the sump pump');
  await page.goto(`/lists/${listId}/tasks/${pumpId}`);
  await page.getByLabel('Notes').fill('Listen for the float switch.');
  await page.getByLabel('Notes').blur();
  await expectSynced(page);
  await controlledByWorker(page);

  await context.setOffline(true);
  await page.goto('/');
  await expect(page).toHaveURL(/\/lists$/);
  await expect(page.getByRole('link', { name: 'Basement checks' })).toBeVisible();
  await page.goto(`/lists/${listId}`);
  await expect(taskRow(page, 'Read the gas meter')).toBeVisible();
  await expect(taskRow(page, 'Check the sump pump')).toBeVisible();
  await page.goto(`/lists/${listId}/tasks/${pumpId}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Check the sump pump');
  await expect(page.getByLabel('Notes')).toHaveValue('Listen for the float switch.');
  await expect(page.locator('.sync-status')).toHaveAttribute('data-state', 'offline');
  await context.close();
});
