// Presence avatars against the devstack's realtime: others viewing the list appear (never
// oneself), at most four avatars then "+N", in a group named after everyone; they go when
// people leave; offline the component leaves the channel and shows nothing; without an
// account it never joins.
import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';

import { joinListPresence, type PresencePeer } from '@/lib/presence';
import {
  createTestServices,
  devstackClient,
  renderWithServices,
  type TestServices,
} from '@/testing/app-harness';
import { SEEDED_LIST, sideClient, signInAs } from '../members-test-support';
import { PresenceAvatars } from './presence-avatars';

const ALICE = 'a11ce000-0000-4000-8000-000000000001';
const BOB = 'b0b00000-0000-4000-8000-000000000002';

let services: TestServices | undefined;
const leaves: (() => void)[] = [];
afterEach(async () => {
  for (const leave of leaves.splice(0)) leave();
  await services?.close();
  services = undefined;
});

/** Someone else viewing the seeded list; `peers()` is what they see. */
function viewer(userId: string, name: string, client = sideClient()) {
  let latest: PresencePeer[] = [];
  const leave = joinListPresence(client, SEEDED_LIST, { userId, name, avatarPath: null }, (p) => {
    latest = p;
  });
  leaves.push(leave);
  return { leave, peers: () => latest };
}

const group = () => screen.queryByRole('group', { name: /^Also viewing/ });

async function renderAsAlice() {
  const supabase = await signInAs(devstackClient(), 'alice');
  services = createTestServices({ supabase, online: true });
  renderWithServices(services, <PresenceAvatars listId={SEEDED_LIST} />);
  return services;
}

describe('presence avatars', () => {
  it('shows the others viewing, four avatars then "+N", and drops those who leave', async () => {
    await renderAsAlice();
    const bob = viewer(BOB, 'Bob', await signInAs(sideClient(), 'bob'));
    // Bob sees Alice's tab, so she has joined; she does not list herself.
    await waitFor(() => expect(bob.peers().map((p) => p.userId)).toContain(ALICE));
    await waitFor(() => expect(group()).toHaveAccessibleName('Also viewing: Bob'));

    const others = ['Carol', 'Dan', 'Erin', 'Finn'].map((name) => {
      const id = crypto.randomUUID();
      return { name, id };
    });
    const joined = [];
    for (const other of others) {
      joined.push(viewer(other.id, other.name));
      // One at a time, so the order (who came first) is known.
      await waitFor(() => expect(group()?.getAttribute('aria-label')).toContain(other.name));
    }
    const shown = group();
    expect(shown).toHaveAccessibleName('Also viewing: Bob, Carol, Dan, Erin, Finn');
    expect(within(shown as HTMLElement).getAllByRole('listitem', { hidden: true })).toHaveLength(5);
    expect(shown).toHaveTextContent('+1');

    bob.leave();
    await waitFor(() =>
      expect(group()).toHaveAccessibleName('Also viewing: Carol, Dan, Erin, Finn'),
    );
    expect(group()).not.toHaveTextContent('+');
    for (const other of joined) other.leave();
    await waitFor(() => expect(group()).not.toBeInTheDocument());
  });

  it('leaves and shows nothing while offline, and comes back online', async () => {
    const app = await renderAsAlice();
    const bob = viewer(BOB, 'Bob', await signInAs(sideClient(), 'bob'));
    await waitFor(() => expect(group()).toHaveAccessibleName('Also viewing: Bob'));

    app.online.set(false);
    await waitFor(() => expect(group()).not.toBeInTheDocument());
    await waitFor(() => expect(bob.peers().map((p) => p.userId)).not.toContain(ALICE));

    app.online.set(true);
    await waitFor(() => expect(group()).toHaveAccessibleName('Also viewing: Bob'));
    await waitFor(() => expect(bob.peers().map((p) => p.userId)).toContain(ALICE));
  });

  it('never joins without an account', async () => {
    services = createTestServices({ supabase: devstackClient(), online: true });
    const { container } = renderWithServices(services, <PresenceAvatars listId={SEEDED_LIST} />);
    const bob = viewer(BOB, 'Bob', await signInAs(sideClient(), 'bob'));
    await waitFor(() => expect(bob.peers().map((p) => p.userId)).toEqual([BOB]));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(services.supabase.getChannels()).toHaveLength(0);
    expect(container).toBeEmptyDOMElement();
  });
});
