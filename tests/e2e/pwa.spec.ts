// The installable shell in Chromium against the production build: the manifest (colours that
// match the UI, icons, shortcuts that open the right screen), each file precached once, the
// service worker taking control and saying so once, a cold offline start answered by the
// worker, API paths never answered by the app shell, and attachments kept once: the app's
// downloads in IndexedDB only, a signed URL loaded directly by the worker until sign-out.
import { expect, test, type Page } from '@playwright/test';

import { ATTACHMENT_CACHE_NAME } from '../../src/lib/pwa/attachment-cache';
import { contextFor, newAccount } from './support/accounts';
import {
  addTasks,
  controlledByWorker,
  createList,
  cutNetworkForLoads,
  expectSynced,
  PHOTO_PNG,
  taskId,
  taskRow,
} from './support/app';
import { E2E_APP_URL } from './support/env';
import { notesText, taskHeading } from './support/task-detail';
import { expectAllFromWorker, recordAppRequests } from './support/worker-requests';

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
  // The first worker claims the page that installed it (src/sw.ts); a reload is controlled
  // from its start either way.
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
    expect((manifest[field] as string).trim(), field).not.toBe('');
  }
  const icons = manifest.icons as { src: string; sizes: string; purpose?: string }[];
  const has = (size: string, purpose: string) =>
    icons.some((icon) => icon.sizes === size && (icon.purpose ?? 'any') === purpose);
  expect(has('192x192', 'any')).toBe(true);
  expect(has('512x512', 'any')).toBe(true);
  expect(has('512x512', 'maskable')).toBe(true);
  // A maskable icon has its own safe-zone padding: one file serving both purposes would be
  // cropped as maskable or shown too small as 'any'.
  const srcsFor = (purpose: string) =>
    icons.filter((icon) => (icon.purpose ?? 'any') === purpose).map((icon) => icon.src);
  for (const maskable of srcsFor('maskable')) {
    expect(srcsFor('any'), maskable).not.toContain(maskable);
    const bytes = await (await request.get(`/${maskable}`)).body();
    for (const any of srcsFor('any')) {
      expect(bytes.equals(await (await request.get(`/${any}`)).body()), any).toBe(false);
    }
  }
  const shortcuts = manifest.shortcuts as {
    name: string;
    url: string;
    icons?: { src: string; sizes: string }[];
  }[];
  expect(shortcuts.map((s) => s.name)).toEqual(['New task', 'Lists']);
  for (const shortcut of shortcuts) {
    expect(shortcut.icons?.length, shortcut.name).toBeGreaterThan(0);
    for (const icon of shortcut.icons ?? []) {
      const response = await request.get(new URL(icon.src, new URL(href ?? '', E2E_APP_URL)).href);
      expect(response.status(), icon.src).toBe(200);
      expect(response.headers()['content-type'], icon.src).toBe('image/png');
      const [width, height] = icon.sizes.split('x').map(Number);
      expect(pngSize(await response.body()), icon.src).toEqual({ width, height });
    }
  }
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
  const appleIcon = await request.get(apple ?? '');
  expect(appleIcon.headers()['content-type']).toBe('image/png');
  expect(pngSize(await appleIcon.body())).toEqual({
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
  await expect(page.getByRole('link', { name: 'Garden', exact: true })).toBeVisible();
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
  const requests = recordAppRequests(page, E2E_APP_URL);
  await page.reload();
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Outpost');
  // Any in-app route is the shell too.
  await page.goto('/lists/anything');
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Outpost');
  // The page, its scripts and every screen's chunk (fetched when idle) came from the worker.
  await expectAllFromWorker(page, requests, 2);
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

  await cutNetworkForLoads(context, page);
  const requests = recordAppRequests(page, E2E_APP_URL);
  await page.goto('/');
  await expect(page).toHaveURL(/\/lists$/);
  await expect(page.getByRole('link', { name: 'Basement checks', exact: true })).toBeVisible();
  await page.goto(`/lists/${listId}`);
  await expect(taskRow(page, 'Read the gas meter')).toBeVisible();
  await expect(taskRow(page, 'Check the sump pump')).toBeVisible();
  await page.goto(`/lists/${listId}/tasks/${pumpId}`);
  await expect(taskHeading(page)).toHaveText('Check the sump pump');
  await expect(notesText(page)).toHaveText('Listen for the float switch.');
  await expect(page.locator('.sync-status')).toHaveAttribute('data-state', 'offline');
  // Each of the three navigations and the code of each screen came from the worker: a chunk
  // missing from the precache would have failed here.
  await expectAllFromWorker(page, requests, 3);
  await context.close();
});

/** The attachment files this device keeps in IndexedDB (`_files`): path and size of each. */
function deviceFiles(page: Page): Promise<{ objectPath: string; bytes: number }[]> {
  return page.evaluate(async () => {
    const open = indexedDB.open('outpost');
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error ?? new Error('indexedDB.open failed'));
    });
    try {
      const request = db.transaction('_files').objectStore('_files').getAll();
      const rows = await new Promise<{ objectPath: string; blob: Blob }[]>((resolve) => {
        request.onsuccess = () => resolve(request.result as { objectPath: string; blob: Blob }[]);
      });
      return rows.map((row) => ({ objectPath: row.objectPath, bytes: row.blob.size }));
    } finally {
      db.close();
    }
  });
}

test('an attachment is kept once, on the device; the worker keeps only signed URLs loaded directly, without the token; sign-out clears both', async ({
  browser,
}) => {
  test.setTimeout(120_000); // two devices, an upload, an offline reload and a sign-out
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
  const taskPath = `/lists/${listId}/tasks/${id}`;
  await page.goto(taskPath);
  const thumbnail = page.getByRole('button', { name: /gutter\.png/ }).locator('img');
  const shown = () => thumbnail.evaluate((img: HTMLImageElement) => img.naturalWidth);
  await expect.poll(shown, { timeout: 20_000 }).toBe(64);
  const cached = () =>
    page.evaluate(async (name) => {
      if (!(await caches.has(name))) return [];
      return (await (await caches.open(name)).keys()).map((request) => request.url);
    }, ATTACHMENT_CACHE_NAME);
  // Its bytes are on the device once: in IndexedDB (shown offline, counted in Settings), not
  // a second time in the worker's cache.
  const files = await deviceFiles(page);
  expect(files.map((file) => file.bytes)).toEqual([PHOTO_PNG.length]);
  expect(await cached()).toEqual([]);

  // With the network cut, the app still shows it, from IndexedDB.
  await laptop.setOffline(true);
  await page.reload();
  await expect.poll(shown, { timeout: 20_000 }).toBe(64);
  await laptop.setOffline(false);

  // A signed URL the page loads itself is kept by the worker, keyed without its token...
  const signed = await alice.api.storage
    .from('attachments')
    .createSignedUrl(files[0]?.objectPath ?? '', 60);
  expect(signed.error).toBeNull();
  const direct = await page.evaluate(async (url) => {
    const response = await fetch(url);
    return { ok: response.ok, bytes: (await response.arrayBuffer()).byteLength };
  }, signed.data?.signedUrl ?? '');
  expect(direct).toEqual({ ok: true, bytes: PHOTO_PNG.length });
  await expect.poll(cached).toHaveLength(1);
  const [key] = await cached();
  expect(key).toMatch(/\/storage\/v1\/object\/sign\/attachments\/\S+$/);
  expect(key).not.toContain('?');

  // ...so with the network cut, the same file under a freshly signed URL comes from it.
  await laptop.setOffline(true);
  const served = await page.evaluate(async (url) => {
    const response = await fetch(`${url}?token=signed-again`);
    return { ok: response.ok, bytes: (await response.arrayBuffer()).byteLength };
  }, key ?? '');
  expect(served).toEqual({ ok: true, bytes: PHOTO_PNG.length });
  await laptop.setOffline(false);

  // Signing out leaves none of her files on the laptop.
  await page.goto('/settings');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/welcome/);
  await expect.poll(cached).toEqual([]);
  await expect.poll(() => deviceFiles(page)).toEqual([]);
  await laptop.close();
});
