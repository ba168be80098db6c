// Issue 14 item 1, as an attacker would do it: an editor stores HTML with a script as a
// "PDF" attachment, straight through supabase-js, and another member opens it in the app.
// Storage must refuse the type list that Chromium renders as HTML, and whatever type the
// bytes are served with, the app must hand them over as a download: no document of ours
// runs the script, and the session in localStorage stays unread.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';

import { expect, test, type Download, type Page } from '@playwright/test';

import { contextFor, newAccount, shareList, type Account } from './support/accounts';
import { addTasks, createList, expectSynced, taskId } from './support/app';
import { E2E_API_URL } from './support/env';

/** The key the script looks for (src/lib/supabase.ts AUTH_STORAGE_KEY) and where it leaves it. */
const SESSION_KEY = 'outpost-auth';
const STOLEN_KEY = 'stolen-session';

/** What the attacker uploads: a page that copies the session wherever it runs. */
const HOSTILE_HTML = `<!doctype html><html><body><h1>Quarterly report</h1><script>
localStorage.setItem(${JSON.stringify(STOLEN_KEY)}, localStorage.getItem(${JSON.stringify(SESSION_KEY)}) || 'script ran');
document.title = 'pwned';
</script></body></html>`;

/** Types Chromium renders as HTML (it takes the last type of a list) once checked by `;`. */
const HOSTILE_TYPES = ['application/pdf ; x=1, text/html', 'application/pdf;,text/html'];

/** Stores an attachment as `editor` through the API, as any client could: bytes, then row. */
async function plantAttachment(
  editor: Account,
  listId: string,
  task: string,
  fileName: string,
): Promise<string> {
  const id = randomUUID();
  const objectPath = `${listId}/${task}/${id}.pdf`;
  const bucket = editor.api.storage.from('attachments');
  for (const contentType of HOSTILE_TYPES) {
    const refused = await bucket.upload(objectPath, Buffer.from(HOSTILE_HTML), { contentType });
    expect(refused.error, `storage accepted ${contentType}`).toMatchObject({ statusCode: '415' });
  }
  // The best storage lets through: the same bytes, labelled as the PDF they are not.
  const stored = await bucket.upload(objectPath, Buffer.from(HOSTILE_HTML), {
    contentType: 'application/pdf',
  });
  expect(stored.error).toBeNull();
  const push = await editor.api.rpc('sync_push', {
    client_id: randomUUID(),
    mutations: [
      {
        seq: 1,
        table: 'attachments',
        op: 'insert',
        id,
        data: {
          task_id: task,
          list_id: listId,
          object_path: objectPath,
          file_name: fileName,
          mime_type: 'application/pdf',
          size_bytes: Buffer.byteLength(HOSTILE_HTML),
        },
      },
    ],
  });
  expect(push.error).toBeNull();
  expect(push.data).toMatchObject({ results: [{ status: 'applied' }] });
  return objectPath;
}

/**
 * Opens an attachment's preview and presses its PDF action (whatever it is called), then
 * says what the browser did: a download, or a new page (which is given time to load, so a
 * script in it has run before the caller looks).
 */
async function pressPdfAction(
  page: Page,
  fileName: string,
): Promise<{ kind: 'download'; download: Download } | { kind: 'page' }> {
  await page.getByRole('button', { name: `Preview ${fileName}` }).click();
  const dialog = page.getByRole('dialog', { name: fileName });
  const action = dialog.getByRole('link', { name: /PDF/ });
  await expect(action).toBeVisible();
  const context = page.context();
  const outcome = await Promise.race([
    page.waitForEvent('download').then((download) => ({ kind: 'download' as const, download })),
    context.waitForEvent('page').then(async (opened) => {
      await opened.waitForLoadState('load');
      return { kind: 'page' as const };
    }),
    action.click().then(() => new Promise<never>(() => undefined)),
  ]);
  await dialog.getByRole('button', { name: 'Close' }).click();
  return outcome;
}

test('a hostile "PDF" from an editor never runs script on the app origin', async ({ browser }) => {
  const alice = await newAccount('Alice');
  const bob = await newAccount('Bob');
  // No service worker: context.route below must see the app's storage download.
  const context = await contextFor(browser, alice, { serviceWorkers: 'block' });
  const page = await context.newPage();
  // The app itself must live within its policy (images, realtime socket, styles).
  const violations: string[] = [];
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) violations.push(message.text());
  });
  const listId = await createList(page, 'Site reports');
  await addTasks(page, ['Survey']);
  const task = await taskId(page, 'Survey');
  await expectSynced(page);
  await shareList(alice, bob, listId, 'editor');

  await plantAttachment(bob, listId, task, 'served.pdf');
  // The second one is served the way storage served it before the fix (and the way any
  // server that echoes a stored type might): the app must not believe the label.
  // Its name claims a web page too: the device must still save it as the PDF it is labelled.
  const echoed = await plantAttachment(bob, listId, task, 'echoed.html');
  const echoedUrl = `${E2E_API_URL}/storage/v1/object/sign/attachments/${echoed}`;
  await context.route(
    // The signed URL's GET only (its token in the query), not the POST that signs it.
    (url) => `${url.origin}${url.pathname}` === echoedUrl && url.searchParams.has('token'),
    (route) =>
      route.fulfill({
        status: 200,
        headers: {
          'content-type': HOSTILE_TYPES[0]!,
          'access-control-allow-origin': '*',
        },
        body: HOSTILE_HTML,
      }),
  );

  await page.goto(`/lists/${listId}/tasks/${task}`);
  const savedAs = { 'served.pdf': 'served.pdf', 'echoed.html': 'echoed.html.pdf' };
  for (const [fileName, saved] of Object.entries(savedAs)) {
    await expect(page.getByText(fileName, { exact: true })).toBeVisible({ timeout: 20_000 });
    const outcome = await pressPdfAction(page, fileName);
    // Checked first, so a failure says what was taken.
    expect(await page.evaluate((key) => localStorage.getItem(key), STOLEN_KEY)).toBeNull();
    expect(outcome.kind).toBe('download');
    if (outcome.kind === 'download') {
      expect(outcome.download.suggestedFilename()).toBe(saved);
      // The bytes are handed over untouched; only where they open has changed.
      expect(readFileSync(await outcome.download.path(), 'utf8')).toBe(HOSTILE_HTML);
    }
  }

  expect(context.pages()).toEqual([page]);
  expect(violations).toEqual([]);
  expect(await page.title()).not.toBe('pwned');
  expect(await page.evaluate((key) => localStorage.getItem(key), STOLEN_KEY)).toBeNull();
  // Still signed in: the session is where supabase-js keeps it.
  expect(await page.evaluate((key) => localStorage.getItem(key), SESSION_KEY)).toContain(
    'access_token',
  );
  await context.close();
});
