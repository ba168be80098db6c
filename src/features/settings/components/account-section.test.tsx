// Signing out against the devstack: with changes that never reached the server, the app
// warns first (Cancel keeps everything), and "Sign out anyway" wipes the device and lands on
// the welcome screen. The edit is made with the network cut, so nothing reaches the shared
// devstack.
// Signing out with no network at all signs out too, and the session is revoked on the server
// once it is reachable.
import { createClient } from '@supabase/supabase-js';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, inject, it } from 'vitest';
import WebSocket from 'ws';

import { storedRows } from '@sync/testing';
import { OWNER_EMAIL_KEY, rememberDeviceOwnerEmail } from '@/lib/auth';
import { AUTH_STORAGE_KEY } from '@/lib/supabase';
import {
  findHeading,
  onlineServices,
  renderApp,
  signInDemo,
  type TestServices,
} from '@/testing/app-harness';

import { SEEDED_LIST } from '../settings-test-support';

let services: TestServices | undefined;

function section(name: string): HTMLElement {
  const element = screen.getByRole('heading', { level: 2, name }).closest('section');
  if (!element) throw new Error(`no section around ${name}`);
  return element;
}

/** Waits until the seeded list's 30 tasks are on the device and the engine says synced. */
async function seededListSynced(app: TestServices): Promise<void> {
  await waitFor(
    async () => {
      expect(
        (await storedRows(app.sync, 'tasks')).filter((row) => row.list_id === SEEDED_LIST).length,
      ).toBe(30);
      expect(app.sync.engine.status.getSnapshot().phase).toBe('synced');
    },
    { timeout: 15_000 },
  );
}

describe('settings › account, signed in', () => {
  it('warns before signing out with unsynced changes; Cancel keeps them, "Sign out anyway" wipes', async () => {
    const { supabase, network } = cuttableClient();
    await signInDemo(supabase, 'alice');
    services = onlineServices(supabase);
    const app = services;
    const user = userEvent.setup();
    const { router } = renderApp(app, '/settings');
    await findHeading('Settings');
    expect(section('Account')).toHaveTextContent('Signed in as alice@example.com');

    // Synced: the seeded list's tasks are on the device.
    await seededListSynced(app);
    expect(await within(section('Sync')).findByText(/^Synced/)).toBeInTheDocument();

    // The network goes, not only the signal: a sync already under way (the pull its topics'
    // joins asked for) must not carry the edits to the shared devstack.
    network.up = false;
    app.online.set(false);
    const task = (await storedRows(app.sync, 'tasks')).find((row) => row.list_id === SEEDED_LIST);
    await app.sync.repos.tasks.update(String(task?.id), { title: 'Edited on the plane' });
    await app.sync.repos.tasks.create(SEEDED_LIST, { title: 'Added on the plane' });
    expect(await app.sync.pendingCount()).toBe(2);
    expect(
      await within(section('Sync')).findByText('2 changes are waiting to sync.'),
    ).toBeInTheDocument();
    expect(within(section('Sync')).getByRole('button', { name: 'Sync now' })).toBeDisabled();

    await user.click(within(section('Account')).getByRole('button', { name: 'Sign out' }));
    const dialog = await screen.findByRole('dialog', { name: "2 changes haven't synced yet" });
    expect(dialog).toHaveTextContent(/Signing out deletes Outpost's data from this device/);
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus();
    // Offline: syncing first is not on offer.
    expect(within(dialog).queryByRole('button', { name: 'Sync now' })).toBeNull();

    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(await app.sync.pendingCount()).toBe(2);
    expect(await storedRows(app.sync, 'tasks')).toHaveLength(31);
    expect(localStorage.getItem(AUTH_STORAGE_KEY)).not.toBeNull();
    expect(router.state.location.pathname).toBe('/settings');

    await user.click(within(section('Account')).getByRole('button', { name: 'Sign out' }));
    const again = await screen.findByRole('dialog', { name: "2 changes haven't synced yet" });
    await user.click(within(again).getByRole('button', { name: 'Sign out anyway' }));

    await findHeading(/welcome/i);
    expect(router.state.location.pathname).toBe('/welcome');
    expect(await storedRows(app.sync, 'tasks')).toHaveLength(0);
    expect(await storedRows(app.sync, 'lists')).toHaveLength(0);
    expect(await app.sync.pendingCount()).toBe(0);
    expect(localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
  });
});

/** The app's client of the test devstack, whose requests fail while `network.up` is false. */
function cuttableClient() {
  const { url, publishableKey } = inject('devstack');
  const network = { up: true };
  const supabase = createClient(url, publishableKey, {
    global: {
      fetch: (input, init) =>
        network.up ? fetch(input, init) : Promise.reject(new TypeError('Failed to fetch')),
    },
    realtime: { transport: WebSocket as unknown as typeof globalThis.WebSocket },
    auth: {
      persistSession: true,
      autoRefreshToken: false,
      detectSessionInUrl: false,
      storageKey: AUTH_STORAGE_KEY,
    },
  });
  return { supabase, network, url, publishableKey };
}

/** The stored session's refresh token, as a thief of the device would read it. */
function storedRefreshToken(): string {
  const raw = localStorage.getItem(AUTH_STORAGE_KEY);
  const token = raw ? (JSON.parse(raw) as { refresh_token?: unknown }).refresh_token : undefined;
  if (typeof token !== 'string') throw new Error('no stored session');
  return token;
}

/** The keys where refresh tokens wait to be revoked (one per device database). */
function revocationKeys(): string[] {
  return Object.keys(localStorage).filter((key) => key.endsWith(':revoke'));
}

describe('settings › account, signing out with no network', () => {
  it('signs out at once, stays signed out, and the session is revoked once the server is reachable', async () => {
    const { supabase, network, url, publishableKey } = cuttableClient();
    await signInDemo(supabase, 'alice');
    rememberDeviceOwnerEmail('alice@example.com'); // as the sign-in screen does
    services = onlineServices(supabase);
    const app = services;
    const user = userEvent.setup();
    const { router } = renderApp(app, '/settings');
    await findHeading('Settings');
    await seededListSynced(app);
    const refreshToken = storedRefreshToken();

    // The network goes: every request fails, as on a plane.
    network.up = false;
    app.online.set(false);
    await user.click(within(section('Account')).getByRole('button', { name: 'Sign out' }));

    await findHeading(/welcome/i);
    expect(localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
    expect((await supabase.auth.getSession()).data.session).toBeNull();
    expect(await storedRows(app.sync, 'tasks')).toHaveLength(0);
    expect(localStorage.getItem(OWNER_EMAIL_KEY)).toBeNull();
    // Only the refresh token waits, away from the auth client's storage.
    expect(revocationKeys().map((key) => localStorage.getItem(key))).toEqual([
      JSON.stringify([refreshToken]),
    ]);

    // The network comes back: the token is revoked, and the device stays signed out.
    network.up = true;
    app.online.set(true);
    await waitFor(() => expect(revocationKeys()).toEqual([]), { timeout: 15_000 });
    expect(router.state.location.pathname).toBe('/welcome');
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent(/welcome/i);
    expect(localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
    expect(await storedRows(app.sync, 'tasks')).toHaveLength(0);

    // Whoever kept the old refresh token cannot use it.
    const answer = await fetch(`${url}/auth/v1/token?grant_type=refresh_token`, {
      method: 'POST',
      headers: { apikey: publishableKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ refresh_token: refreshToken }),
    });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ error_code: 'refresh_token_not_found' });
  });
});
