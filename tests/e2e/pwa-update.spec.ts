// Updating never loses an edit (issue 6). Version A is installed; version B is deployed at
// the same origin; the app says "New version ready"; "Reload" lets the engine settle,
// activates B and reloads. Two ways an edit can be at risk: it was made offline and still
// waits in the outbox when "Reload" is pressed (it must still be there in B and reach the
// server later), or its push is on the wire when "Reload" is pressed (the page must wait for
// the answer, so the push reaches the server once and B starts with it synced).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { expect, test, type Page } from '@playwright/test';

import { devstackBuildArgs } from '../../scripts/devstack-build';
import { contextFor, newAccount, type Account } from './support/accounts';
import { submitNewList } from './support/app';
import { E2E_PUBLISHABLE_KEY, E2E_API_URL, E2E_UPDATE_PORT } from './support/env';
import { startStaticServer, type SwitchableServer } from '../support/static-server';

const ROOT = join(import.meta.dirname, '..', '..');
const BUILDS = join(ROOT, '.tmp', 'e2e-update');
const execFileAsync = promisify(execFile);

// Built without blocking this worker's event loop: an execFileSync of a minute left the
// keep-alive sockets of earlier specs' API calls unread while the devstack closed them, and
// the next request went out on an ended one ('other side closed').
async function build(label: 'A' | 'B'): Promise<string> {
  const outDir = join(BUILDS, label);
  await execFileAsync(process.execPath, devstackBuildArgs(ROOT, outDir, { emptyOutDir: true }), {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
    env: {
      ...process.env,
      OUTPOST_APP_VERSION: `0.1.0-${label}`,
      VITE_SUPABASE_URL: E2E_API_URL,
      VITE_SUPABASE_PUBLISHABLE_KEY: E2E_PUBLISHABLE_KEY,
    },
  });
  return outDir;
}

let server: SwitchableServer;
let buildA: string;
let buildB: string;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  buildA = await build('A');
  buildB = await build('B');
  server = await startStaticServer(E2E_UPDATE_PORT, buildA);
});

test.afterAll(async () => {
  await server?.close();
});

/** How long the server's answer to the push in flight is held back (ms): well inside the
 * 5 s the app waits for its engine (RELOAD_SETTLE_TIMEOUT_MS), with room for a loaded CI box. */
const PUSH_ANSWER_HELD_MS = 2_000;

/** Opens `path` of build A and reloads until the page is controlled by A's worker. */
async function openOnVersionA(page: Page, path: string): Promise<void> {
  await page.goto(`${server.url}/settings`);
  await expect(page.getByText('0.1.0-A')).toBeVisible();
  // The first load installs the worker; the next one is controlled by it.
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.goto(`${server.url}${path}`);
  await expect
    .poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null))
    .toBe(true);
}

/** Deploys B and lets the open tab find it (the hourly check, run now). */
async function deployVersionB(page: Page): Promise<void> {
  server.serve(buildB);
  await page.evaluate(async () => {
    const registration = await navigator.serviceWorker.getRegistration();
    await registration?.update();
  });
}

/** The names of alice's lists on the server. */
async function serverListNames(alice: Account): Promise<(string | undefined)[]> {
  const pulled = await alice.api.rpc('sync_pull', { cursor: null, max_rows: 1000 });
  expect(pulled.error).toBeNull();
  return (pulled.data as { rows: { table: string; row: { name?: string } }[] }).rows
    .filter((entry) => entry.table === 'lists')
    .map((entry) => entry.row.name);
}

test('"Reload" into a new version keeps an edit made offline that has not synced yet', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const alice = await newAccount('Alice');
  const context = await contextFor(browser, alice);
  const page = await context.newPage();
  const app = server.url;
  server.serve(buildA);
  await openOnVersionA(page, '/lists');

  // The device goes offline: what alice does now can only wait on the device.
  await context.setOffline(true);
  await expect(page.locator('.sync-status')).toHaveAttribute('data-state', 'offline');
  await submitNewList(page, 'Made before the update');
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Made before the update');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Lists' }).click();
  const card = page
    .getByRole('main')
    .getByRole('listitem')
    .filter({ hasText: 'Made before the update' });
  await expect(card.getByText(/changes? waiting/)).toBeVisible();

  // B is deployed while the device is offline. The connection comes back, but not yet to the
  // API (so the edit is still waiting when alice presses Reload): the tab checks for a new
  // version by itself as it comes back online, and finds B.
  server.serve(buildB);
  await context.route(`${E2E_API_URL}/**`, (route) => route.abort('internetdisconnected'));
  await context.setOffline(false);
  const notice = page.getByRole('status').filter({ hasText: 'New version ready' });
  await expect(notice).toBeVisible({ timeout: 20_000 });
  await expect(card.getByText(/changes? waiting/)).toBeVisible();
  const reloaded = page.waitForEvent('load');
  await notice.getByRole('button', { name: 'Reload' }).click();
  await reloaded;

  // The page reloads into B with the edit still on the device, still waiting.
  await page.goto(`${app}/settings`);
  await expect(page.getByText('0.1.0-B')).toBeVisible();
  await page.goto(`${app}/lists`);
  await expect(card).toBeVisible();
  await expect(card.getByText(/changes? waiting/)).toBeVisible();

  // The API is back: the change reaches the server.
  await context.unroute(`${E2E_API_URL}/**`);
  await page.reload();
  await expect(card.getByText('Synced')).toBeVisible({ timeout: 20_000 });
  expect(await serverListNames(alice)).toContain('Made before the update');
  await context.close();
});

test('"Reload" with a push in flight waits for its answer: sent once, synced in B', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const alice = await newAccount('Alice');
  const context = await contextFor(browser, alice);
  const page = await context.newPage();
  const app = server.url;
  server.serve(buildA);
  await openOnVersionA(page, '/lists');
  await deployVersionB(page);
  const notice = page.getByRole('status').filter({ hasText: 'New version ready' });
  await expect(notice).toBeVisible({ timeout: 20_000 });

  // Each push carrying the new list reaches the server at once; its answer is held back, so
  // the push is still in flight in the page when alice presses Reload.
  const name = 'Made while the update waits';
  let pushesWithList = 0;
  let pushArrived: () => void = () => undefined;
  const arrived = new Promise<void>((resolve) => (pushArrived = resolve));
  await context.route(`${E2E_API_URL}/rest/v1/rpc/sync_push`, async (route) => {
    if (!route.request().postData()?.includes(name)) return route.continue();
    pushesWithList += 1;
    const response = await route.fetch();
    pushArrived();
    await new Promise((resolve) => setTimeout(resolve, PUSH_ANSWER_HELD_MS));
    // A page that did not wait has gone by now: its answer has nowhere to go.
    await route.fulfill({ response }).catch(() => undefined);
  });
  await submitNewList(page, name);
  await arrived;
  const reloaded = page.waitForEvent('load');
  await notice.getByRole('button', { name: 'Reload' }).click();
  await reloaded;

  // B runs, and the list is synced there without being sent again.
  await page.goto(`${app}/settings`);
  await expect(page.getByText('0.1.0-B')).toBeVisible();
  await page.goto(`${app}/lists`);
  const card = page.getByRole('main').getByRole('listitem').filter({ hasText: name });
  await expect(card.getByText('Synced')).toBeVisible({ timeout: 20_000 });
  expect(pushesWithList).toBe(1);
  expect((await serverListNames(alice)).filter((listName) => listName === name)).toHaveLength(1);
  await context.close();
});
