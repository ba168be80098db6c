// Issue 35: a sign-out leaves nothing of the person on the device. Frank fills every place
// the app and its worker keep data (the device database, an undo history in each of two
// tabs with a rename and a delete, a file attached and one loaded by its signed URL, a share
// not yet attached), signs out in one tab, and then every storage each tab can see is listed
// (IndexedDB databases and the rows of each store, localStorage, sessionStorage, every
// cache and its keys) and must hold exactly what is meant to stay (src/README.md
// "What sign-out leaves"): the app's own precache, the empty device database, and a few
// device flags that say nothing of anyone.
import { expect, test, type Page } from '@playwright/test';

import { newAccount } from './support/accounts';
import {
  addTasks,
  controlledByWorker,
  createList,
  expectSynced,
  PHOTO_PNG,
  taskId,
  taskRow,
} from './support/app';

/** Everything a page of the app's origin can list of what the device keeps. */
interface Kept {
  /** Database → store → its rows (a Blob shown as 'Blob'). */
  indexedDB: Record<string, Record<string, unknown[]>>;
  localStorage: Record<string, string>;
  sessionStorage: Record<string, string>;
  /** Cache name → the URLs of its requests. */
  caches: Record<string, string[]>;
}

function keptOn(page: Page): Promise<Kept> {
  return page.evaluate(async () => {
    const done = <T>(request: IDBRequest<T>) =>
      new Promise<T>((resolve, reject) => {
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error ?? new Error('IndexedDB request failed'));
      });
    const plain = (value: unknown): unknown =>
      value instanceof Blob
        ? 'Blob'
        : Array.isArray(value)
          ? value.map(plain)
          : value && typeof value === 'object'
            ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]))
            : value;
    const indexed: Kept['indexedDB'] = {};
    for (const { name } of await indexedDB.databases()) {
      if (!name) continue;
      const db = await done(indexedDB.open(name));
      try {
        const stores: Record<string, unknown[]> = {};
        for (const store of db.objectStoreNames) {
          const rows = await done(db.transaction(store).objectStore(store).getAll());
          stores[store] = rows.map(plain);
        }
        indexed[name] = stores;
      } finally {
        db.close();
      }
    }
    const entries = (storage: Storage) =>
      Object.fromEntries(Object.keys(storage).map((key) => [key, storage.getItem(key) ?? '']));
    const cached: Kept['caches'] = {};
    for (const name of await caches.keys()) {
      cached[name] = (await (await caches.open(name)).keys()).map((request) => request.url);
    }
    return {
      indexedDB: indexed,
      localStorage: entries(localStorage),
      sessionStorage: entries(sessionStorage),
      caches: cached,
    };
  });
}

/** The device flags that may stay: each says only that something was asked or shown here. */
const DEVICE_FLAGS = new Set([
  'outpost:persist-asked',
  'outpost:offline-ready-shown',
  'outpost:created-something',
  'outpost:install-dismissed',
]);

/**
 * What may stay after a sign-out, as one comparable shape: the device database with every
 * store empty, workbox's record of cache ages empty, no session storage, the device flags
 * (each '1'), and only the app's own precache, holding only the app's files.
 */
function leftover(kept: Kept, origin: string) {
  const precache = Object.entries(kept.caches).filter(([name]) =>
    name.startsWith('workbox-precache-v2-'),
  );
  return {
    indexedDB: Object.fromEntries(
      Object.entries(kept.indexedDB)
        .map(
          ([db, stores]) =>
            [
              db,
              Object.entries(stores)
                .filter(([, rows]) => rows.length > 0)
                .map(([store, rows]) => ({ store, rows })),
            ] as const,
        )
        // The session's store and the background state stay as empty databases, or were
        // never made: either way nothing of the person is in them.
        .filter(([db, stores]) => stores.length > 0 || !EMPTIED_DATABASES.has(db)),
    ),
    localStorage: Object.entries(kept.localStorage).filter(
      ([key, value]) => !(DEVICE_FLAGS.has(key) && value === '1'),
    ),
    sessionStorage: kept.sessionStorage,
    otherCaches: Object.keys(kept.caches).filter((name) => !name.startsWith('workbox-precache-')),
    precacheNotTheApps: precache.flatMap(([, urls]) =>
      urls.filter(
        (url) =>
          !url.startsWith(`${origin}/`) ||
          /^\/(share|storage|rest|auth|realtime)(\/|$)/.test(new URL(url).pathname),
      ),
    ),
  };
}

/** Databases a sign-out empties rather than deletes (shared-auth-storage.ts, background-state.ts). */
const EMPTIED_DATABASES = new Set(['outpost-auth', 'outpost-background']);

const NOTHING_LEFT = {
  indexedDB: { outpost: [] },
  localStorage: [],
  sessionStorage: {},
  otherCaches: [],
  precacheNotTheApps: [],
};

/** Shares a photo as the share sheet does: a navigation POSTing the manifest's form. */
async function shareToOutpost(page: Page): Promise<void> {
  await page.evaluate(() => {
    const form = document.createElement('form');
    form.id = 'e2e-share-sheet';
    form.method = 'post';
    form.enctype = 'multipart/form-data';
    form.action = '/share';
    const files = document.createElement('input');
    files.type = 'file';
    files.name = 'files';
    form.append(files);
    document.body.append(form);
  });
  await page.locator('#e2e-share-sheet input[type=file]').setInputFiles({
    name: 'badge-scan.png',
    mimeType: 'image/png',
    buffer: PHOTO_PNG,
  });
  await page.evaluate(() =>
    (document.getElementById('e2e-share-sheet') as HTMLFormElement).submit(),
  );
  await expect(page.getByRole('heading', { level: 1, name: 'Add to Outpost' })).toBeVisible();
}

/** Renames a task of the open list through its edit field (an edit undo can take back). */
async function rename(page: Page, from: string, to: string): Promise<void> {
  await page.getByRole('button', { name: `Edit ${from}` }).click();
  await page.getByLabel(`Title of ${from}`).fill(to);
  await page.keyboard.press('Enter');
  await expect(taskRow(page, to)).toBeVisible();
}

test('signing out leaves only what is meant to stay, in every tab', async ({ browser }) => {
  test.setTimeout(180_000);
  const frank = await newAccount('Frank');
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto('/sign-in');
  await page.getByLabel('Email').fill(frank.email);
  await page.getByLabel('Password').fill(frank.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/lists/);
  const origin = new URL(page.url()).origin;

  const listId = await createList(page, 'Payroll');
  await addTasks(page, ['Salary review', 'Dismiss Carol', 'Badge photo']);
  await rename(page, 'Salary review', 'Salary review: Dave -10%');
  await page.getByRole('button', { name: 'Delete Dismiss Carol' }).click();
  await expect(taskRow(page, 'Dismiss Carol')).toHaveCount(0);

  // A file on a task, and the same file loaded by its signed URL (kept by the worker).
  const badge = await taskId(page, 'Badge photo');
  await page.goto(`/lists/${listId}/tasks/${badge}`);
  await page.getByLabel('Add file').setInputFiles({
    name: 'badge.png',
    mimeType: 'image/png',
    buffer: PHOTO_PNG,
  });
  await expect(page.getByText('badge.png')).toBeVisible();
  await expectSynced(page, 30_000);
  await controlledByWorker(page);
  const objectPath = (await keptOn(page)).indexedDB.outpost?._files?.map(
    (file) => (file as { objectPath: string }).objectPath,
  )[0];
  const signed = await frank.api.storage.from('attachments').createSignedUrl(objectPath ?? '', 60);
  expect(signed.error).toBeNull();
  expect(
    await page.evaluate(async (url) => (await fetch(url)).ok, signed.data?.signedUrl ?? ''),
  ).toBe(true);

  // A share not yet attached.
  await shareToOutpost(page);

  // A second tab, with an undo history of its own.
  const other = await context.newPage();
  await other.goto(`/lists/${listId}`);
  await rename(other, 'Badge photo', 'Badge photo (Frank)');
  await expectSynced(other);

  // Everything is there before the sign-out (else the test could not fail).
  await expect
    .poll(async () => Object.keys((await keptOn(page)).caches).sort(), { timeout: 10_000 })
    .toEqual(expect.arrayContaining(['outpost-attachments', 'outpost-shares']));
  const before = await keptOn(page);
  expect(before.sessionStorage['outpost-undo']).toContain('Dismiss Carol');
  expect((await keptOn(other)).sessionStorage['outpost-undo']).toContain('Badge photo');
  expect(before.indexedDB['workbox-expiration']?.['cache-entries']).toHaveLength(1);
  expect(before.indexedDB.outpost?.tasks?.length).toBe(3);
  expect(Object.keys(before.localStorage)).toContain('outpost-auth');

  await page.goto('/settings');
  await page.getByRole('button', { name: 'Sign out' }).click();
  for (const tab of [page, other]) {
    await expect(tab.getByRole('heading', { level: 1 })).toHaveText('Welcome to Outpost');
  }
  for (const tab of [page, other]) {
    await expect
      .poll(async () => leftover(await keptOn(tab), origin), { timeout: 20_000 })
      .toEqual({
        ...NOTHING_LEFT,
        // Workbox's database stays (its worker holds it open), with no row of Frank's.
        indexedDB: { ...NOTHING_LEFT.indexedDB, 'workbox-expiration': [] },
      });
  }
  // The app's precache is still there: the app still starts offline.
  expect(
    Object.keys((await keptOn(page)).caches).some((n) => n.startsWith('workbox-precache-')),
  ).toBe(true);
  await context.close();
});
