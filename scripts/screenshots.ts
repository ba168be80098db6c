// `npm run screenshots`: the manifest's screenshots (Chromium's richer install dialog), taken
// from the real app: a production build against an in-memory seeded devstack, signed in as
// alice, showing the seeded list. Writes public/screenshots/tasks-{wide,narrow}.png; run it
// again when the screens change.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { chromium } from '@playwright/test';
import { createClient } from '@supabase/supabase-js';
import WebSocket from 'ws';

import { startDevstack } from '../devstack/server';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../tests/support/chromium';
import { startStaticServer } from '../tests/support/static-server';

/** The seeded shared list (supabase/seed.sql). */
const LIST_ID = '11570000-0000-4000-8000-000000000001';
const ROOT = join(import.meta.dirname, '..');
const OUT = join(ROOT, 'public', 'screenshots');
/** Sizes written into the manifest (vite.config.ts); keep them in step. */
export const SHOTS = [
  { name: 'tasks-wide', width: 1280, height: 800, colorScheme: 'light' },
  { name: 'tasks-narrow', width: 390, height: 844, colorScheme: 'light' },
] as const;

const stack = await startDevstack({ port: 0 });
const dist = mkdtempSync(join(tmpdir(), 'outpost-shots-'));
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
  for (const shot of SHOTS) {
    const context = await browser.newContext({
      viewport: { width: shot.width, height: shot.height },
      colorScheme: shot.colorScheme,
    });
    await context.addInitScript(([key, value]) => localStorage.setItem(key, value), [
      'outpost-auth',
      JSON.stringify(data.session),
    ] as const);
    const page = await context.newPage();
    await page.goto(`${server.url}/lists/${LIST_ID}`);
    await page.locator('[data-task-id]').first().waitFor();
    await page.locator('.sync-status[data-state="synced"]').waitFor({ timeout: 20_000 });
    await page.mouse.move(0, 0);
    await page.screenshot({ path: join(OUT, `${shot.name}.png`) });
    console.log(`wrote public/screenshots/${shot.name}.png (${shot.width}×${shot.height})`);
    await context.close();
  }
} finally {
  await browser.close();
  await server.close();
  await stack.stop();
  rmSync(dist, { recursive: true, force: true });
}
