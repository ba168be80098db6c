// The header's sync status: one state per situation of product.md §4 "Connection", offline never
// styled as an error, a retry after a failure still reads "retrying" until it succeeds.
import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';

import { SyncError } from '@sync/index';
import { setDeviceOwner, storedRow } from '@sync/testing';
import { Toaster } from '@/components/ui/toaster';
import { useDeleteWithUndo } from '@/hooks/use-delete-with-undo';
import { AUTH_STORAGE_KEY } from '@/lib/supabase';
import {
  ALICE_ID,
  createTestServices,
  localOnlyServices,
  renderWithServices,
  storeAliceSession,
  type TestServices,
} from '@/testing/app-harness';

import { QUIET_SYNC_MS, SyncStatus } from './sync-status';

let services: TestServices | undefined;

function render(s: TestServices) {
  renderWithServices(s, <SyncStatus />);
  return () => document.querySelector('.sync-status');
}

/** A signed-in device: a stored session and data owned by that account. */
async function ownedDevice(online: boolean): Promise<TestServices> {
  storeAliceSession();
  services = createTestServices({ online });
  await setDeviceOwner(services.sync, ALICE_ID);
  return services;
}

describe('sync status', () => {
  it('says the data lives on this device when used without an account', async () => {
    services = localOnlyServices();
    const status = render(services);
    await screen.findAllByText('On this device only');
    expect(status()).toHaveAttribute('data-state', 'local');
  });

  it('never counts waiting changes without an account: they wait for one, not for a network', async () => {
    services = localOnlyServices();
    const s = services;
    const status = render(s);
    await screen.findAllByText('On this device only');
    act(() => s.sync.engine.status.set({ phase: 'offline', pending: 1 }));
    expect(status()).toHaveAttribute('data-state', 'local');
    expect(status()).not.toHaveTextContent(/waiting/);
    expect(screen.getByRole('link')).toHaveAccessibleName('On this device only');
  });

  it('is plainly offline, with the waiting count, when there is no network', async () => {
    const s = await ownedDevice(false);
    const status = render(s);
    act(() => s.sync.engine.status.set({ phase: 'offline', pending: 3 }));
    expect(await screen.findByText('Offline')).toBeInTheDocument();
    expect(status()).toHaveAttribute('data-state', 'offline');
    expect(status()).toHaveTextContent('3 changes waiting — saved on this device');
  });

  it('says nothing online until the engine has said how sync stands, and "Offline" at once without a network', async () => {
    const s = await ownedDevice(true);
    const status = render(s);
    // The test services' engine has not run: the store is as a new tab finds it.
    expect(s.sync.engine.status.getSnapshot().phase).toBe('starting');
    await act(async () => {}); // the session is read
    expect(status()).toHaveAttribute('data-state', 'starting');
    expect(status()).toBeEmptyDOMElement();
    expect(screen.queryByText('Offline')).toBeNull();
    act(() => s.sync.engine.status.set({ phase: 'synced', lastSyncedAt: Date.now() }));
    expect(status()).toHaveAttribute('data-state', 'synced');

    const offline = await ownedDevice(false);
    const offlineStatus = () => document.querySelectorAll('.sync-status')[1];
    renderWithServices(offline, <SyncStatus />);
    expect(offline.sync.engine.status.getSnapshot().phase).toBe('starting');
    expect(await screen.findByText('Offline')).toBeInTheDocument();
    expect(offlineStatus()).toHaveAttribute('data-state', 'offline');
  });

  it('keeps saying "retrying" through a retry until a sync succeeds', async () => {
    const s = await ownedDevice(true);
    const status = render(s);
    const failure = new SyncError('SERVER_ERROR', 'Service Unavailable', 503);
    act(() => s.sync.engine.status.set({ phase: 'backing-off', lastError: failure, pending: 1 }));
    await screen.findByText('Sync paused, retrying');
    act(() => s.sync.engine.status.set({ phase: 'syncing' }));
    expect(status()).toHaveAttribute('data-state', 'retrying');
    act(() =>
      s.sync.engine.status.set({ phase: 'synced', lastError: null, lastSyncedAt: Date.now() }),
    );
    expect(status()).toHaveAttribute('data-state', 'synced');
    expect(status()).toHaveTextContent('Synced just now');
  });

  it('says "Syncing…" while it runs, and how long ago it last synced', async () => {
    const s = await ownedDevice(true);
    const status = render(s);
    act(() => s.sync.engine.status.set({ phase: 'syncing', lastError: null }));
    expect(await screen.findByText('Syncing…')).toBeInTheDocument();
    expect(status()).toHaveAttribute('data-state', 'syncing');
    act(() =>
      s.sync.engine.status.set({ phase: 'synced', lastSyncedAt: Date.now() - 2.4 * 60_000 }),
    );
    expect(status()).toHaveTextContent('Synced 2 min ago');
  });

  it('shows "Synced" through the first second of a quiet sync, never through an edit going out', async () => {
    const s = await ownedDevice(true);
    const status = render(s);
    act(() => s.sync.engine.status.set({ phase: 'synced', lastSyncedAt: Date.now() }));
    expect(await screen.findByText('Synced just now')).toBeInTheDocument();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const states: (string | null | undefined)[] = [];
      const seen = () => states.push(status()?.getAttribute('data-state'));
      // A pull with nothing waiting (the catch-up once realtime has joined) that ends soon.
      act(() => s.sync.engine.status.set({ phase: 'syncing' }));
      seen();
      act(() => {
        vi.advanceTimersByTime(QUIET_SYNC_MS - 1);
      });
      seen();
      act(() => s.sync.engine.status.set({ phase: 'synced', lastSyncedAt: Date.now() }));
      seen();
      expect(states).toEqual(['synced', 'synced', 'synced']);
      // One that lasts: "Syncing…" once it has run for QUIET_SYNC_MS.
      act(() => s.sync.engine.status.set({ phase: 'syncing' }));
      act(() => {
        vi.advanceTimersByTime(QUIET_SYNC_MS - 1);
      });
      expect(status()).toHaveAttribute('data-state', 'synced');
      act(() => {
        vi.advanceTimersByTime(1);
      });
      expect(status()).toHaveAttribute('data-state', 'syncing');
      expect(screen.getByText('Syncing…')).toBeInTheDocument();
      act(() => s.sync.engine.status.set({ phase: 'synced', lastSyncedAt: Date.now() }));
      // An edit going out shows at once, and still once it is sent while the sync runs on.
      act(() => s.sync.engine.status.set({ pending: 1 }));
      act(() => s.sync.engine.status.set({ phase: 'syncing' }));
      expect(status()).toHaveAttribute('data-state', 'syncing');
      act(() => s.sync.engine.status.set({ pending: 0 }));
      expect(status()).toHaveAttribute('data-state', 'syncing');
    } finally {
      vi.useRealTimers();
    }
  });

  it('shows how far a first sync has come: items so far, of how many, with a bar', async () => {
    const s = await ownedDevice(true);
    const status = render(s);
    act(() =>
      s.sync.engine.status.set({ phase: 'syncing', download: { received: 0, expected: null } }),
    );
    expect(await screen.findByText('Downloading your lists…')).toBeInTheDocument();
    expect(status()).toHaveTextContent('0 items so far');
    expect(screen.queryByRole('progressbar')).toBeNull();
    act(() => s.sync.engine.status.set({ download: { received: 12_000, expected: 100_000 } }));
    expect(status()).toHaveTextContent('12,000 of 100,000 items');
    const bar = screen.getByRole('progressbar', { name: 'First sync' });
    expect(bar).toHaveAttribute('value', '12000');
    expect(bar).toHaveAttribute('max', '100000');
    // Done: back to the usual wording, no bar.
    act(() =>
      s.sync.engine.status.set({ phase: 'synced', download: null, lastSyncedAt: Date.now() }),
    );
    expect(status()).toHaveTextContent('Synced just now');
    expect(screen.queryByRole('progressbar')).toBeNull();
  });

  it('says "Refreshing all data" while everything is pulled again (CURSOR_EXPIRED)', async () => {
    const s = await ownedDevice(true);
    const status = render(s);
    act(() =>
      s.sync.engine.status.set({
        phase: 'syncing',
        lastError: new SyncError('CURSOR_EXPIRED', 'Refreshing all data'),
      }),
    );
    expect(await screen.findByText('Refreshing all data')).toBeInTheDocument();
    expect(status()).toHaveAttribute('data-state', 'syncing');
  });

  it('asks to sign in again when the session is gone, and offers the update when outdated', async () => {
    const s = await ownedDevice(true);
    localStorage.removeItem(AUTH_STORAGE_KEY);
    const status = render(s);
    act(() => s.sync.engine.status.set({ phase: 'signed-out' }));
    expect(await screen.findByRole('link', { name: /Sign in again to sync/ })).toHaveAttribute(
      'href',
      '/sign-in',
    );
    act(() =>
      s.sync.engine.status.set({ lastError: new SyncError('APP_OUTDATED', 'Update available') }),
    );
    expect(status()).toHaveAttribute('data-state', 'outdated');
    expect(screen.getByRole('button', { name: /Update available/ })).toBeInTheDocument();
  });

  it('says "Deleting… Undo" through a delete\'s Undo window, not "1 change waiting"', async () => {
    const s = await ownedDevice(true);
    const listId = await s.sync.repos.lists.create({ name: 'Block C', color: 'teal' });
    const taskId = await s.sync.repos.tasks.create(listId, { title: 'Fix the door' });
    function DeleteTask() {
      const deleteWithUndo = useDeleteWithUndo();
      return (
        <button type="button" onClick={() => void deleteWithUndo('tasks', taskId, 'Fix the door')}>
          Delete it
        </button>
      );
    }
    renderWithServices(
      s,
      <>
        <SyncStatus />
        <DeleteTask />
        <Toaster />
      </>,
    );
    const status = () => document.querySelector('.sync-status');
    act(() => s.sync.engine.status.set({ phase: 'synced', lastSyncedAt: Date.now(), pending: 0 }));
    expect(status()).toHaveTextContent('Synced just now');
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Delete it' }));
    await screen.findByText('Deleted “Fix the door”');
    // The held delete is in the outbox: the engine counts it.
    act(() => s.sync.engine.status.set({ pending: 1 }));
    expect(status()).toHaveTextContent('Deleting…');
    expect(status()).not.toHaveTextContent(/waiting|Synced/);
    // The header's Undo brings the task back, and the toast goes: nothing is left to undo.
    await user.click(within(status() as HTMLElement).getByRole('button', { name: 'Undo delete' }));
    await expect
      .poll(async () => (await storedRow(s.sync, 'tasks', taskId))?.deleted_at)
      .toBeNull();
    expect(screen.queryByText('Deleted “Fix the door”')).toBeNull();
    act(() => s.sync.engine.status.set({ pending: 0 }));
    expect(status()).toHaveTextContent('Synced just now');
    expect(screen.queryByRole('button', { name: 'Undo delete' })).toBeNull();
  });
});
