// The badge kept by the open app: changes waiting plus tasks assigned and due, cleared when
// both are 0, on a device used without an account and on sign-out; and the periodic refresh
// registered once signed in, where the browser grants it.
import { screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';

import { clearQueue } from '@sync/testing';
import { aliceDevice, fakeBrowser, restoreBrowser } from '@/lib/pwa/testing/fake-browser';
import { useSession } from '@/lib/session';
import { ALICE_ID, localOnlyServices, renderWithServices } from '@/testing/app-harness';
import { todayIso } from '@/utils/format';

import { useAppBadge, useBackgroundUpkeep } from './use-background-upkeep';

afterEach(restoreBrowser);

function Badge() {
  useAppBadge();
  return null;
}

/** The hooks, and the session's mode for the test to wait on. */
function Upkeep() {
  useBackgroundUpkeep();
  return <p>{useSession().mode}</p>;
}

/** The badge's last call: a number set, or 0 for a clear. */
function lastBadge(stubs: ReturnType<typeof fakeBrowser>): number | undefined {
  const set = stubs.setAppBadge.mock.invocationCallOrder.at(-1) ?? 0;
  const cleared = stubs.clearAppBadge.mock.invocationCallOrder.at(-1) ?? 0;
  if (set === 0 && cleared === 0) return undefined;
  return set > cleared ? stubs.setAppBadge.mock.calls.at(-1)?.[0] : 0;
}

describe('useAppBadge', () => {
  it('shows changes waiting plus tasks assigned to the person and due, and clears at 0', async () => {
    const stubs = fakeBrowser({ badging: true });
    const services = await aliceDevice();
    const { repos } = services.sync;
    const listId = await repos.lists.create({ name: 'Crew', color: 'teal' });
    await clearQueue(services.sync);
    renderWithServices(services, <Badge />);
    await waitFor(() => expect(lastBadge(stubs)).toBe(0));

    const today = todayIso(Date.now());
    const due = await repos.tasks.create(listId, {
      title: 'Due',
      assignee_id: ALICE_ID,
      due_on: today,
    });
    const pending = await services.sync.pendingCount();
    expect(pending).toBeGreaterThan(0);
    await waitFor(() => expect(lastBadge(stubs)).toBe(pending + 1));

    // Sent: only the task due is left.
    await clearQueue(services.sync);
    await waitFor(() => expect(lastBadge(stubs)).toBe(1));
    await repos.tasks.update(due, { status: 'done' });
    await clearQueue(services.sync);
    await waitFor(() => expect(lastBadge(stubs)).toBe(0));
  });

  it('clears the badge on a device used without an account, and when unmounted (sign-out)', async () => {
    const stubs = fakeBrowser({ badging: true });
    const local = localOnlyServices();
    await local.sync.repos.lists.create({ name: 'Mine', color: 'teal' });
    expect(await local.sync.pendingCount()).toBeGreaterThan(0);
    const first = renderWithServices(local, <Badge />);
    await waitFor(() => expect(stubs.clearAppBadge).toHaveBeenCalled());
    expect(stubs.setAppBadge).not.toHaveBeenCalled();
    first.unmount();

    const services = await aliceDevice();
    await services.sync.repos.lists.create({ name: 'Crew', color: 'teal' });
    const view = renderWithServices(services, <Badge />);
    await waitFor(() => expect(lastBadge(stubs)).toBeGreaterThan(0));
    view.unmount();
    await waitFor(() => expect(lastBadge(stubs)).toBe(0));
  });
});

describe('useBackgroundUpkeep', () => {
  it('registers the periodic refresh once signed in and the worker is ready', async () => {
    const stubs = fakeBrowser({ periodicSync: 'granted' });
    renderWithServices(await aliceDevice(), <Upkeep />);
    await waitFor(() => expect(stubs.register).toHaveBeenCalledTimes(1));
    expect(stubs.register.mock.calls[0]?.[0]).toBe('outpost-refresh');
  });

  it('does not register it on a device used without an account', async () => {
    const stubs = fakeBrowser({ periodicSync: 'granted' });
    const local = localOnlyServices();
    await local.sync.repos.lists.create({ name: 'Mine', color: 'teal' });
    renderWithServices(local, <Upkeep />);
    await screen.findByText('local');
    // What a signed-in session would have waited on has answered.
    await navigator.serviceWorker.ready;
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(stubs.register).not.toHaveBeenCalled();
  });
});
