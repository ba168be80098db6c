// Signing out against the devstack: with changes that never reached the server, the app
// warns first (Cancel keeps everything), and "Sign out anyway" wipes the device and lands on
// the welcome screen. The edit is made offline, so nothing reaches the shared devstack.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { AUTH_STORAGE_KEY } from '@/lib/supabase';
import {
  createTestServices,
  findHeading,
  renderApp,
  type TestServices,
} from '@/testing/app-harness';

import { SEEDED_LIST, signedInClient } from '../settings-test-support';

let services: TestServices | undefined;

function section(name: string): HTMLElement {
  const element = screen.getByRole('heading', { level: 2, name }).closest('section');
  if (!element) throw new Error(`no section around ${name}`);
  return element;
}

describe('settings › account, signed in', () => {
  it('warns before signing out with unsynced changes; Cancel keeps them, "Sign out anyway" wipes', async () => {
    const supabase = await signedInClient('alice');
    services = createTestServices({ supabase, online: true, startEngine: true });
    const app = services;
    const user = userEvent.setup();
    const { router } = renderApp(app, '/settings');
    await findHeading('Settings');
    expect(section('Account')).toHaveTextContent('Signed in as alice@example.com');

    // Synced: the seeded list's tasks are on the device.
    await waitFor(
      async () => {
        expect(await app.sync.db.rows('tasks').where('list_id').equals(SEEDED_LIST).count()).toBe(
          30,
        );
        expect(app.sync.engine.status.getSnapshot().phase).toBe('synced');
      },
      { timeout: 15_000 },
    );
    expect(await within(section('Sync')).findByText(/^Synced/)).toBeInTheDocument();

    app.online.set(false);
    const task = await app.sync.db.rows('tasks').where('list_id').equals(SEEDED_LIST).first();
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
    expect(await app.sync.db.rows('tasks').count()).toBe(31);
    expect(localStorage.getItem(AUTH_STORAGE_KEY)).not.toBeNull();
    expect(router.state.location.pathname).toBe('/settings');

    await user.click(within(section('Account')).getByRole('button', { name: 'Sign out' }));
    const again = await screen.findByRole('dialog', { name: "2 changes haven't synced yet" });
    await user.click(within(again).getByRole('button', { name: 'Sign out anyway' }));

    await findHeading(/welcome/i);
    expect(router.state.location.pathname).toBe('/welcome');
    expect(await app.sync.db.rows('tasks').count()).toBe(0);
    expect(await app.sync.db.rows('lists').count()).toBe(0);
    expect(await app.sync.pendingCount()).toBe(0);
    expect(localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
  });
});
