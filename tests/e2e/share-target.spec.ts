// "Share to Outpost" (issue 17): the manifest's share_target, and a photo shared from another
// app the way the phone's share sheet sends it (a multipart POST to /share, taken by the
// service worker) arriving as an attachment of the task picked by keyboard, online and with
// no connection at all (then uploaded once back online). Another site's form posted to /share
// keeps nothing (issue 35).
import { expect, test, type BrowserContext, type Page } from '@playwright/test';

import { contextFor, newAccount, type Account } from './support/accounts';
import { expectNoSeriousViolations } from './support/axe';
import { E2E_APP_URL } from './support/env';
import { startOtherSite } from './support/other-site';
import {
  addTasks,
  controlledByWorker,
  createList,
  expectSynced,
  PHOTO_PNG,
  taskId,
} from './support/app';
import { taskHeading } from './support/task-detail';

interface SharedFile {
  name: string;
  mimeType: string;
  buffer: Buffer;
}

const PHOTO: SharedFile = { name: 'crack.png', mimeType: 'image/png', buffer: PHOTO_PNG };
const VIDEO: SharedFile = {
  name: 'walkround.mp4',
  mimeType: 'video/mp4',
  buffer: Buffer.from('mp4'),
};

/**
 * Shares files to the app as the share sheet does: a navigation that POSTs the manifest's
 * params (title, text, files) as multipart/form-data to its action. The real share sheet
 * cannot be driven here (desktop Chromium on Linux has none, and no DevTools command makes a
 * POST navigation), so a form of the app's own page stands in for it: to the worker the two
 * differ only in the Origin header (the app's here, "null" for the share sheet, which has no
 * initiator), and both are taken (src/lib/pwa/share-origin.ts, whose unit test covers the
 * share sheet's exact signals).
 */
async function shareToOutpost(
  page: Page,
  shared: { title?: string; text?: string; files: SharedFile[]; signedOut?: boolean },
): Promise<void> {
  const manifest = await readManifest(page);
  const target = manifest.share_target as { action: string };
  await page.evaluate(
    ({ action, title, text }) => {
      const form = document.createElement('form');
      form.id = 'e2e-share-sheet';
      form.method = 'post';
      form.enctype = 'multipart/form-data';
      form.action = action;
      for (const [name, value] of [
        ['title', title],
        ['text', text],
      ] as const) {
        const input = document.createElement('input');
        input.type = 'hidden';
        input.name = name;
        input.value = value;
        form.append(input);
      }
      const files = document.createElement('input');
      files.type = 'file';
      files.name = 'files';
      files.multiple = true;
      form.append(files);
      document.body.append(form);
    },
    { action: target.action, title: shared.title ?? '', text: shared.text ?? '' },
  );
  await page.locator('#e2e-share-sheet input[type=file]').setInputFiles(shared.files);
  await page.evaluate(() =>
    (document.getElementById('e2e-share-sheet') as HTMLFormElement).submit(),
  );
  if (shared.signedOut) return;
  await expect(page).toHaveURL(/\/share\?id=[0-9a-f-]{36}$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Add to Outpost' })).toBeVisible();
}

async function readManifest(page: Page): Promise<Record<string, unknown>> {
  const href = await page.locator('link[rel="manifest"]').getAttribute('href');
  const response = await page.request.get(new URL(href ?? '', page.url()).href);
  return (await response.json()) as Record<string, unknown>;
}

/** The stored rows of a task's attachments on this device (the device database). */
function deviceAttachments(page: Page, task: string) {
  return page.evaluate(async (id) => {
    const open = indexedDB.open('outpost');
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error ?? new Error('indexedDB.open failed'));
    });
    try {
      const request = db.transaction('attachments').objectStore('attachments').getAll();
      const rows = await new Promise<Record<string, unknown>[]>((resolve) => {
        request.onsuccess = () => resolve(request.result as Record<string, unknown>[]);
      });
      return rows
        .filter((row) => row.task_id === id && !row.deleted_at)
        .map((row) => ({ fileName: String(row.file_name), objectPath: String(row.object_path) }));
    } finally {
      db.close();
    }
  }, task);
}

/** Waits until the server's storage holds the shared photo's bytes for that task. */
async function expectUploaded(account: Account, page: Page, task: string): Promise<void> {
  const [row] = await deviceAttachments(page, task);
  expect(row?.fileName).toBe(PHOTO.name);
  await expect
    .poll(
      async () => {
        const { data } = await account.api.storage.from('attachments').download(row!.objectPath);
        return data ? Buffer.from(await data.arrayBuffer()).equals(PHOTO.buffer) : false;
      },
      { timeout: 30_000 },
    )
    .toBe(true);
}

async function signedInWithLists(
  browser: import('@playwright/test').Browser,
): Promise<{ account: Account; context: BrowserContext; page: Page; listId: string }> {
  const account = await newAccount('Alice');
  const context = await contextFor(browser, account);
  const page = await context.newPage();
  await createList(page, 'Attic');
  const listId = await createList(page, 'Block C snags');
  await addTasks(page, ['Check fire exits', 'Seal window']);
  await expectSynced(page);
  await controlledByWorker(page);
  return { account, context, page, listId };
}

test('the manifest offers Outpost in the share sheet for photos and PDFs', async ({ page }) => {
  await page.goto('/welcome');
  expect((await readManifest(page)).share_target).toEqual({
    action: '/share',
    method: 'POST',
    enctype: 'multipart/form-data',
    params: {
      title: 'title',
      text: 'text',
      url: 'url',
      files: [
        {
          name: 'files',
          accept: ['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'application/pdf'],
        },
      ],
    },
  });
});

test('a shared photo becomes an attachment of the task picked by keyboard', async ({ browser }) => {
  test.setTimeout(120_000);
  const { account, page, listId } = await signedInWithLists(browser);
  const sealWindow = await taskId(page, 'Seal window');

  await shareToOutpost(page, { files: [PHOTO, VIDEO] });
  // The photo with its size and a thumbnail of it (decoded from the device's copy).
  const photo = page.getByRole('listitem').filter({ hasText: PHOTO.name });
  await expect(photo).toContainText(/\d+(\.\d+)? (B|KB)/);
  await expect
    .poll(() => photo.locator('img').evaluate((img: HTMLImageElement) => img.naturalWidth))
    .toBe(64);
  await expect(page.getByText('This file can’t be added:')).toBeVisible();
  await expect(page.getByText(/walkround\.mp4: Only JPEG, PNG, WebP, GIF/)).toBeVisible();

  // Keyboard alone: the list, the task, Attach.
  const attic = page.getByRole('radio', { name: 'Attic' });
  await expect(attic).toBeChecked();
  await attic.focus();
  await page.keyboard.press('ArrowDown');
  await expect(page.getByRole('radio', { name: 'Block C snags' })).toBeChecked();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('radio', { name: 'New task' })).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await expect(page.getByRole('radio', { name: 'Seal window' })).toBeChecked();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('button', { name: 'Attach' })).toBeFocused();
  await page.keyboard.press('Enter');

  await expect(page).toHaveURL(`/lists/${listId}/tasks/${sealWindow}`);
  await expect(taskHeading(page)).toContainText('Seal window');
  await expect(page.getByText(PHOTO.name)).toBeVisible();
  await expectUploaded(account, page, sealWindow);

  // The share is gone from the device once attached.
  await page.goBack();
  await expect(page.getByText('Nothing to add')).toBeVisible();
});

test('with no connection, a shared photo goes on a new task and uploads once back online', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const { account, context, page } = await signedInWithLists(browser);
  await context.setOffline(true);
  await expect(page.locator('.sync-status')).toHaveAttribute('data-state', 'offline');

  await shareToOutpost(page, { title: 'Meter reading', text: 'Boiler room', files: [PHOTO] });
  await expect(page.getByRole('radio', { name: 'New task' })).toBeChecked();
  await expect(page.getByLabel('Title')).toHaveValue('Meter reading');
  await page.getByLabel('Title').press('Enter');

  await expect(taskHeading(page)).toContainText('Meter reading');
  await expect(page.getByText(PHOTO.name)).toBeVisible();
  await expect(page.getByText('Waiting to upload')).toBeVisible();
  const match = /\/tasks\/([0-9a-f-]{36})$/.exec(page.url());
  const newTask = match?.[1] ?? '';

  await context.setOffline(false);
  await expect(page.getByText('Waiting to upload')).toHaveCount(0, { timeout: 30_000 });
  await expectUploaded(account, page, newTask);
});

/** The URLs kept in the share inbox (the worker's CacheStorage). */
function sharesKept(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    if (!(await caches.has('outpost-shares'))) return [];
    const cache = await caches.open('outpost-shares');
    return (await cache.keys()).map((request) => new URL(request.url).pathname).sort();
  });
}

test('a form of another site posted to /share keeps nothing and says so', async ({ browser }) => {
  test.setTimeout(120_000);
  const { page } = await signedInWithLists(browser);
  // A real share first: the other site's post must not touch it either.
  await shareToOutpost(page, { files: [PHOTO] });
  const realShare = page.url();
  const before = await sharesKept(page);
  expect(before).toHaveLength(2);

  const otherSite = await startOtherSite(`${E2E_APP_URL}/share`);
  try {
    await page.goto(otherSite.url);
    await page.getByLabel('Files').setInputFiles([PHOTO]);
    await page.getByRole('button', { name: 'Send' }).click();
    await expect(page).toHaveURL(`${E2E_APP_URL}/share`);
    await expect(
      page.getByRole('heading', { level: 1, name: 'Not added to Outpost' }),
    ).toBeVisible();
    await expect(page.getByText('This was sent by another website')).toBeVisible();
    await expect(page.getByText('Nothing of it was kept on this device.')).toBeVisible();
    expect(await sharesKept(page)).toEqual(before);
    await page.getByRole('link', { name: 'Go to your lists' }).click();
    await expect(page).toHaveURL(new RegExp(`^${E2E_APP_URL}/lists`));
  } finally {
    await otherSite.close();
  }

  // The real share is still there, untouched.
  await page.goto(realShare);
  await expect(page.getByRole('heading', { level: 1, name: 'Add to Outpost' })).toBeVisible();
  await expect(page.getByText(PHOTO.name)).toBeVisible();
  await expect(page.getByText('Planted')).toHaveCount(0);
});

test('signing out forgets an unfinished share; signed out, a share opens after signing in', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const { account, page } = await signedInWithLists(browser);
  const sharesKept = () => page.evaluate(() => caches.has('outpost-shares'));
  await shareToOutpost(page, { files: [PHOTO] });
  expect(await sharesKept()).toBe(true);
  await page.goto('/settings');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/welcome/);
  await expect.poll(sharesKept).toBe(false);

  // Signed out: the share is kept, the welcome screen asks to sign in, then shows it.
  await shareToOutpost(page, { files: [PHOTO], signedOut: true });
  await expect(page).toHaveURL(/\/welcome\?next=%2Fshare%3Fid%3D[0-9a-f-]{36}$/);
  await page.getByRole('link', { name: 'Sign in' }).click();
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Add to Outpost' })).toBeVisible();
  await expect(page).toHaveURL(/\/share\?id=[0-9a-f-]{36}$/);
  await expect(page.getByText(PHOTO.name)).toBeVisible();
  await expect(page.getByRole('radio', { name: 'Block C snags' })).toBeVisible({ timeout: 20_000 });
});

for (const colorScheme of ['light', 'dark'] as const) {
  test(`the share screen passes axe (${colorScheme})`, async ({ browser }) => {
    const { page } = await signedInWithLists(browser);
    await page.emulateMedia({ colorScheme });
    await shareToOutpost(page, { title: 'Meter reading', files: [PHOTO, VIDEO] });
    await page.getByRole('radio', { name: 'Block C snags' }).check();
    await expect(page.getByRole('radio', { name: 'Seal window' })).toBeVisible();
    await expect(page.getByText('This file can’t be added:')).toBeVisible();
    await expectNoSeriousViolations(page, `share (${colorScheme})`);
  });
}
