// `npm run screenshots:readme`: the README's pictures of the main screens, desktop and phone,
// light and dark, taken from the real app: a production build against an in-memory seeded
// devstack, signed in as alice, on the seeded shared list. Writes docs/screenshots/*.png
// (or OUT_DIR); run it again when the screens change.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { chromium, type Page } from '@playwright/test';
import { createClient } from '@supabase/supabase-js';
import WebSocket from 'ws';

import { startDevstack } from '../devstack/server';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../tests/support/chromium';
import { startStaticServer } from '../tests/support/static-server';

/** The seeded shared list (supabase/seed.sql). */
const LIST_ID = '11570000-0000-4000-8000-000000000001';
const ROOT = join(import.meta.dirname, '..');
const OUT = resolve(process.env.OUT_DIR ?? join(ROOT, 'docs', 'screenshots'));

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

/** Each screen: where it is, and what shows once it is ready. */
const SCREENS: { name: string; open: (page: Page, base: string) => Promise<void> }[] = [
  {
    name: 'lists',
    open: async (page, base) => {
      await page.goto(`${base}/lists`);
      await page.getByRole('heading', { level: 1 }).waitFor();
    },
  },
  {
    name: 'list',
    open: async (page, base) => {
      await page.goto(`${base}/lists/${LIST_ID}`);
      await page.locator('[data-task-id]').first().waitFor();
    },
  },
  {
    name: 'task',
    open: async (page, base) => {
      await page.goto(`${base}/lists/${LIST_ID}`);
      const row = page.locator('[data-task-id]').first();
      await row.waitFor();
      const taskId = await row.getAttribute('data-task-id');
      await page.goto(`${base}/lists/${LIST_ID}/tasks/${taskId}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
    },
  },
];

const stack = await startDevstack({ port: 0 });
const dist = mkdtempSync(join(tmpdir(), 'outpost-readme-shots-'));
const server = await startStaticServer(0, dist);
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
try {
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--outDir', dist],
    {
      cwd: ROOT,
      env: { ...process.env, VITE_SUPABASE_URL: stack.url, VITE_SUPABASE_ANON_KEY: stack.anonKey },
      stdio: 'ignore',
    },
  );
  const api = createClient(stack.url, stack.anonKey, {
    auth: { persistSession: false },
    realtime: { transport: WebSocket as unknown as typeof globalThis.WebSocket },
  });
  const { data, error } = await api.auth.signInWithPassword({
    email: 'alice@example.com',
    password: 'outpost-demo',
  });
  if (error || !data.session) throw error ?? new Error('no session');
  mkdirSync(OUT, { recursive: true });
  for (const [device, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    for (const colorScheme of ['light', 'dark'] as const) {
      const context = await browser.newContext({ viewport, colorScheme });
      await context.addInitScript(([key, value]) => localStorage.setItem(key, value), [
        'outpost-auth',
        JSON.stringify(data.session),
      ] as const);
      const page = await context.newPage();
      for (const screen of SCREENS) {
        await screen.open(page, server.url);
        await page.locator('.sync-status[data-state="synced"]').waitFor({ timeout: 20_000 });
        await page.mouse.move(0, 0);
        const path = join(OUT, `${screen.name}-${device}-${colorScheme}.png`);
        await page.screenshot({ path });
        console.log(`wrote ${path}`);
      }
      await context.close();
    }
  }
} finally {
  await browser.close();
  await server.close();
  await stack.stop();
  rmSync(dist, { recursive: true, force: true });
}
