// Settings › Sync: the connection state in a sentence, never a guess before the engine has said.
import { act, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { setDeviceOwner } from '@sync/testing';
import {
  ALICE_ID,
  createTestServices,
  renderWithServices,
  storeAliceSession,
} from '@/testing/app-harness';

import { SyncSection } from './sync-section';

const state = () => document.querySelector('.settings-sync__state');

describe('settings › sync', () => {
  it('says sync is starting until the engine has said how it stands, then says that', async () => {
    storeAliceSession();
    const s = createTestServices({ online: true });
    await setDeviceOwner(s.sync, ALICE_ID);
    renderWithServices(s, <SyncSection />);
    expect(await screen.findByText('Starting sync…')).toBeInTheDocument();
    expect(state()).toHaveAttribute('data-state', 'starting');
    act(() => s.sync.engine.status.set({ phase: 'synced', lastSyncedAt: Date.now() }));
    expect(state()).toHaveAttribute('data-state', 'synced');
    expect(state()).toHaveTextContent(/^Synced/);
  });

  it('says offline at once without a network, engine or not', async () => {
    storeAliceSession();
    const s = createTestServices({ online: false });
    await setDeviceOwner(s.sync, ALICE_ID);
    renderWithServices(s, <SyncSection />);
    expect(await screen.findByText(/They sync when you are back online/)).toBeInTheDocument();
    expect(state()).toHaveAttribute('data-state', 'offline');
  });
});
