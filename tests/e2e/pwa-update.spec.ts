// Updating never loses an edit (issue 6): version A is installed and has a change it cannot
// send (the API is cut off, so the change waits in the outbox); version B is deployed at the
// same origin; the app says "New version ready"; "Reload" lets the engine settle, activates
// B and reloads; the pending change is still there, B is running, and once the API is back
// the change reaches the server.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

import { expect, test } from '@playwright/test';

import { contextFor, newAccount } from './support/accounts';
import { E2E_ANON_KEY, E2E_API_URL, E2E_UPDATE_PORT } from './support/env';
import { startStaticServer, type SwitchableServer } from '../support/static-server';

const ROOT = join(import.meta.dirname, '..', '..');
const BUILDS = join(ROOT, '.tmp', 'e2e-update');

function build(label: 'A' | 'B'): string {
  const outDir = join(BUILDS, label);
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--outDir', outDir, '--emptyOutDir'],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        OUTPOST_APP_VERSION: `0.1.0-${label}`,
        VITE_SUPABASE_URL: E2E_API_URL,
        VITE_SUPABASE_ANON_KEY: E2E_ANON_KEY,
      },
      stdio: 'ignore',
    },
  );
  return outDir;
}

let server: SwitchableServer;
let buildA: string;
let buildB: string;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  buildA = build('A');
  buildB = build('B');
  server = await startStaticServer(E2E_UPDATE_PORT, buildA);
});

test.afterAll(async () => {
  await server?.close();
});

test('"Reload" into a new version keeps an edit that has not synced yet', async ({ browser }) => {
  test.setTimeout(120_000);
  const alice = await newAccount('Alice');
  const context = await contextFor(browser, alice);
  const page = await context.newPage();
  const app = server.url;

  await page.goto(`${app}/settings`);
  await expect(page.getByText('0.1.0-A')).toBeVisible();
  // The first load installs the worker; the next one is controlled by it.
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.reload();
  await expect
    .poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null))
    .toBe(true);

  // The API goes away: what alice does now can only wait on the device.
  await context.route(`${E2E_API_URL}/**`, (route) => route.abort('internetdisconnected'));
  await page.goto(`${app}/lists`);
  await page.getByLabel('List name').fill('Made before the update');
  await page.getByRole('button', { name: 'Create list' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Made before the update');
  await page.goto(`${app}/lists`);
  const card = page.getByRole('listitem').filter({ hasText: 'Made before the update' });
  await expect(card.getByText(/changes? waiting/)).toBeVisible();

  // Version B is deployed; the open tab finds it (the hourly check, run now).
  server.serve(buildB);
  await page.evaluate(async () => {
    const registration = await navigator.serviceWorker.getRegistration();
    await registration?.update();
  });
  const notice = page.getByRole('status').filter({ hasText: 'New version ready' });
  await expect(notice).toBeVisible({ timeout: 20_000 });
  await notice.getByRole('button', { name: 'Reload' }).click();

  // The page reloads into B with the edit still on the device, still waiting.
  await page.waitForEvent('load');
  await page.goto(`${app}/settings`);
  await expect(page.getByText('0.1.0-B')).toBeVisible();
  await page.goto(`${app}/lists`);
  await expect(card).toBeVisible();
  await expect(card.getByText(/changes? waiting/)).toBeVisible();

  // The API is back: the change reaches the server.
  await context.unroute(`${E2E_API_URL}/**`);
  await page.reload();
  await expect(card.getByText('Synced')).toBeVisible({ timeout: 20_000 });
  const pulled = await alice.api.rpc('sync_pull', { cursor: null, max_rows: 1000 });
  expect(pulled.error).toBeNull();
  const names = (pulled.data as { rows: { table: string; row: { name?: string } }[] }).rows
    .filter((entry) => entry.table === 'lists')
    .map((entry) => entry.row.name);
  expect(names).toContain('Made before the update');
  await context.close();
});
