// Test people for browser tests: accounts made through the real auth API (the devstack
// confirms at once), a browser context already signed in as one (the session placed where
// supabase-js keeps it, before any page script runs), and lists shared through the real
// create-invite / accept-invite functions. Each test makes its own people and lists, so
// tests never see each other's data.
import { randomUUID } from 'node:crypto';

import type { Browser, BrowserContext, BrowserContextOptions } from '@playwright/test';
import { createClient, type Session, type SupabaseClient } from '@supabase/supabase-js';
import WebSocket from 'ws';

import { E2E_PUBLISHABLE_KEY, E2E_API_URL } from './env';

/** Where the app's supabase-js keeps its session (src/lib/supabase.ts AUTH_STORAGE_KEY). */
const AUTH_STORAGE_KEY = 'outpost-auth';
export const TEST_PASSWORD = 'e2e-password-1';

export interface Account {
  name: string;
  email: string;
  password: string;
  userId: string;
  session: Session;
  /** A Node-side client signed in as this person (for setup, never for what is tested). */
  api: SupabaseClient;
}

export function apiClient(): SupabaseClient {
  return createClient<unknown>(E2E_API_URL, E2E_PUBLISHABLE_KEY, {
    // Node 20 has no WebSocket of its own.
    realtime: { transport: WebSocket as unknown as typeof globalThis.WebSocket },
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
  });
}

export function uniqueEmail(name: string): string {
  return `${name.toLowerCase()}-${randomUUID().slice(0, 8)}@example.com`;
}

export async function newAccount(name: string): Promise<Account> {
  const api = apiClient();
  const email = uniqueEmail(name);
  const { data, error } = await api.auth.signUp({
    email,
    password: TEST_PASSWORD,
    options: { data: { display_name: name } },
  });
  if (error || !data.session || !data.user) throw error ?? new Error('sign-up gave no session');
  return { name, email, password: TEST_PASSWORD, userId: data.user.id, session: data.session, api };
}

/** A fresh browser context signed in as `account` (as if they had signed in earlier). */
export async function contextFor(
  browser: Browser,
  account: Account,
  options: BrowserContextOptions = {},
): Promise<BrowserContext> {
  const context = await browser.newContext(options);
  await context.addInitScript(
    ([key, value]) => {
      // Only on the first load: a later sign-out must stay signed out across reloads.
      if (!sessionStorage.getItem('e2e-session-placed')) {
        sessionStorage.setItem('e2e-session-placed', '1');
        localStorage.setItem(key, value);
      }
    },
    [AUTH_STORAGE_KEY, JSON.stringify(account.session)] as const,
  );
  return context;
}

/** Makes `member` an editor or viewer of `listId`, through the real invite functions. */
export async function shareList(
  owner: Account,
  member: Account,
  listId: string,
  role: 'editor' | 'viewer',
): Promise<void> {
  const created = await owner.api.functions.invoke<{ token: string }>('create-invite', {
    body: { list_id: listId, role },
  });
  if (created.error || !created.data) throw created.error ?? new Error('no invite');
  const accepted = await member.api.functions.invoke('accept-invite', {
    body: { token: created.data.token },
  });
  if (accepted.error) throw accepted.error;
}
