// The installable shell in Chromium against the production build: the manifest (colours that
// match the UI, icons, shortcuts that open the right screen), each file precached once, the
// service worker taking control and saying so once, a cold offline start from cache, API
// paths never answered by the app shell, and attachment downloads kept by the worker until
// sign-out.
import { expect, test, type Page } from '@playwright/test';

import { ATTACHMENT_CACHE_NAME } from '../../src/lib/pwa/attachment-cache';
import { contextFor, newAccount } from './support/accounts';
import {
  addTasks,
  controlledByWorker,
  createList,
  expectSynced,
  PHOTO_PNG,
  taskId,
  taskRow,
} from './support/app';

/** Width and height from a PNG's IHDR chunk. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** `#rrggbb` as the browser computes colours: `rgb(r, g, b)`. */
function rgb(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16));
  return `rgb(${r}, ${g}, ${b})`;
}

/** The page background the UI paints in a colour scheme. */
async function uiBackground(page: Page, scheme: 'light' | 'dark'): Promise<string> {
  await page.emulateMedia({ colorScheme: scheme });
  return page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
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
  const favicon = await request.get('/favicon.ico');
  expect(favicon.headers()['content-type']).toMatch(/^image\/(x-icon|vnd\.microsoft\.icon)$/);
  expect([...(await favicon.body()).subarray(0, 4)]).toEqual([0, 0, 1, 0]); // an ICO header

  // Colours: the splash screen and title bar are the page's own background, in each scheme.
  const metas = await page.locator('meta[name="theme-color"]').evaluateAll((tags) =>
    tags.map((tag) => ({
      media: tag.getAttribute('media'),
      content: tag.getAttribute('content'),
    })),
  );
  expect(metas.map((meta) => meta.media)).toEqual([
    '(prefers-color-scheme: light)',
    '(prefers-color-scheme: dark)',
  ]);
  const [light, dark] = metas.map((meta) => meta.content ?? '');
  expect(rgb(light ?? '')).toBe(await uiBackground(page, 'light'));
  expect(rgb(dark ?? '')).toBe(await uiBackground(page, 'dark'));
  expect(manifest.theme_color).toBe(light);
  expect(manifest.background_color).toBe(light);
});

test("the manifest's shortcuts open the lists and a new task in the last list", async ({
  browser,
  request,
}) => {
  const manifest = (await (await request.get('/manifest.webmanifest')).json()) as {
    shortcuts: { name: string; url: string }[];
  };
  const url = (name: string) => manifest.shortcuts.find((s) => s.name === name)?.url ?? '';
  expect(url('New task')).toBe('/lists?new=task');
  expect(url('Lists')).toBe('/lists');

  const alice = await newAccount('Alice');
  const context = await contextFor(browser, alice);
  const page = await context.newPage();
  const listId = await createList(page, 'Garden');
  await page.goto(url('Lists'));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Lists');
  await expect(page.getByRole('link', { name: 'Garden' })).toBeVisible();
  await page.goto(url('New task'));
  await expect(page).toHaveURL(new RegExp(`/lists/${listId}$`));
  await expect(page.getByLabel('Add a task')).toBeFocused();
  await context.close();
});

test('precaches every file of the shell once, and no screenshots', async ({ request }) => {
  const worker = await (await request.get('/sw.js')).text();
  const urls = [...worker.matchAll(/"url":"([^"]+)"/g)].map((match) => match[1] ?? '');
  expect(urls.length).toBeGreaterThan(20);
  expect(urls.filter((url, at) => urls.indexOf(url) !== at)).toEqual([]);
  for (const file of [
    'index.html',
    'manifest.webmanifest',
    'favicon.ico',
    'icon.svg',
    'apple-touch-icon-180x180.png',
    'pwa-192x192.png',
    'pwa-512x512.png',
    'maskable-icon-512x512.png',
  ]) {
    expect(urls, file).toContain(file);
  }
  expect(urls.filter((url) => url.startsWith('screenshots/'))).toEqual([]);
});

test('the service worker activates, controls the page and says the app works offline once', async ({
  page,
}) => {
  const said = page.getByRole('status').filter({ hasText: 'Ready to work offline' });
  await page.goto('/');
  await expect(said).toBeVisible();
  await waitForControl(page);
  // Another load: the worker is there already, nothing new to say.
  await page.reload();
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Outpost');
  await page.evaluate(() => navigator.serviceWorker.ready);
  // An absence needs a window to be seen in: the first load said it well within this. Then
  // a count now, not a retrying assertion: the toast leaves by itself after 6 s.
  await page.waitForTimeout(1_500);
  expect(await said.count()).toBe(0);
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
    '/auth',
    '/rest/v1/tasks',
    '/rest',
    '/storage/v1/object/x',
    '/storage?x=1',
    '/functions/v1/x',
    '/functions?x=1',
    '/realtime/v1/websocket',
    '/realtime',
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

test('an attachment viewed online is kept by the worker without its token; sign-out clears it', async ({
  browser,
}) => {
  const alice = await newAccount('Alice');
  // Alice's phone adds a photo to a task.
  const phone = await contextFor(browser, alice);
  const p = await phone.newPage();
  const listId = await createList(p, 'Roof survey');
  await addTasks(p, ['Photograph the gutters']);
  const id = await taskId(p, 'Photograph the gutters');
  await p.goto(`/lists/${listId}/tasks/${id}`);
  await p.getByLabel('Add file').setInputFiles({
    name: 'gutter.png',
    mimeType: 'image/png',
    buffer: PHOTO_PNG,
  });
  await expect(p.getByText('gutter.png')).toBeVisible();
  await expectSynced(p, 30_000);
  await phone.close();

  // Her laptop, under the worker, downloads it once through a signed URL to show it.
  const laptop = await contextFor(browser, alice);
  const page = await laptop.newPage();
  await page.goto('/lists');
  await controlledByWorker(page);
  await page.goto(`/lists/${listId}/tasks/${id}`);
  const thumbnail = page.getByRole('button', { name: /gutter\.png/ }).locator('img');
  await expect
    .poll(() => thumbnail.evaluate((img: HTMLImageElement) => img.naturalWidth), {
      timeout: 20_000,
    })
    .toBe(64);
  const cached = () =>
    page.evaluate(async (name) => {
      if (!(await caches.has(name))) return [];
      return (await (await caches.open(name)).keys()).map((request) => request.url);
    }, ATTACHMENT_CACHE_NAME);
  const keys = await cached();
  expect(keys).toHaveLength(1);
  expect(keys[0]).toMatch(/\/storage\/v1\/object\/sign\/attachments\/\S+$/);
  expect(keys[0]).not.toContain('?');

  // With the network cut, the same file under a freshly signed URL comes from that cache.
  await laptop.setOffline(true);
  const served = await page.evaluate(async (url) => {
    const response = await fetch(`${url}?token=signed-again`);
    return { ok: response.ok, bytes: (await response.arrayBuffer()).byteLength };
  }, keys[0] ?? '');
  expect(served).toEqual({ ok: true, bytes: PHOTO_PNG.length });
  await laptop.setOffline(false);

  // Signing out leaves none of her files on the laptop.
  await page.goto('/settings');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/welcome/);
  await expect.poll(cached).toEqual([]);
  await laptop.close();
});
