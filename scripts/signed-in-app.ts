// What both screenshot scripts stand on: a production build of the app against an in-memory
// seeded devstack, served locally, Debian's Chromium, and alice's session (the seed's demo
// user), all torn down afterwards.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { chromium, type Browser, type BrowserContextOptions, type Page } from '@playwright/test';
import { createClient, type Session } from '@supabase/supabase-js';
import WebSocket from 'ws';

import { startDevstack } from '../devstack/server';
import { devstackBuildArgs } from './devstack-build';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../tests/support/chromium';
import { startStaticServer } from '../tests/support/static-server';

/** The seeded shared list (supabase/seed.sql). */
export const SEEDED_LIST_ID = '11570000-0000-4000-8000-000000000001';
export const ROOT = join(import.meta.dirname, '..');

export interface SignedInApp {
  /** Where the build is served. */
  url: string;
  /** A page of a new context signed in as alice (close the context when done). */
  page(options: BrowserContextOptions): Promise<Page>;
  browser: Browser;
  session: Session;
}

export async function withSignedInApp(run: (app: SignedInApp) => Promise<void>): Promise<void> {
  const stack = await startDevstack({ port: 0 });
  const dist = mkdtempSync(join(tmpdir(), 'outpost-shots-'));
  const server = await startStaticServer(0, dist);
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    execFileSync(process.execPath, devstackBuildArgs(ROOT, dist), {
      cwd: ROOT,
      env: {
        ...process.env,
        VITE_SUPABASE_URL: stack.url,
        VITE_SUPABASE_PUBLISHABLE_KEY: stack.publishableKey,
      },
      stdio: 'ignore',
    });
    const api = createClient(stack.url, stack.publishableKey, {
      auth: { persistSession: false },
      realtime: { transport: WebSocket as unknown as typeof globalThis.WebSocket },
    });
    const { data, error } = await api.auth.signInWithPassword({
      email: 'alice@example.com',
      password: 'outpost-demo',
    });
    if (error || !data.session) throw error ?? new Error('no session');
    const session = data.session;
    await run({
      url: server.url,
      browser,
      session,
      async page(options) {
        const context = await browser.newContext(options);
        await context.addInitScript(([key, value]) => localStorage.setItem(key, value), [
          'outpost-auth',
          JSON.stringify(session),
        ] as const);
        return context.newPage();
      },
    });
  } finally {
    await browser.close();
    await server.close();
    await stack.stop();
    rmSync(dist, { recursive: true, force: true });
  }
}
