// Presence avatars against the devstack's realtime (private channel `list:<id>:<epoch>:presence`):
// others viewing the list appear (never oneself) by their own profile on this device, at most
// four avatars then "+N", in a focusable group named after everyone; they go when people
// leave; a payload's claims never show (a name, or a user id that is not a member); offline
// the component leaves the channel and shows nothing; without an account it never joins.
import { REALTIME_SUBSCRIBE_STATES, type SupabaseClient } from '@supabase/supabase-js';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';

import { joinListPresence, presenceTopic, type PresencePeer } from '@/lib/presence';
import {
  createTestServices,
  devstackClient,
  onlineServices,
  renderWithServices,
  signUpFresh,
  type TestServices,
} from '@/testing/app-harness';
import { addMember, ownList, SEEDED_LIST, sideClient, signInAs } from '../members-test-support';
import { PresenceAvatars } from './presence-avatars';

const ALICE = 'a11ce000-0000-4000-8000-000000000001';
const BOB = 'b0b00000-0000-4000-8000-000000000002';
/** signUpFresh's password. */
const TEST_PASSWORD = 'test-password-1';

let services: TestServices | undefined;
const leaves: (() => void)[] = [];
afterEach(() => {
  for (const leave of leaves.splice(0)) leave();
});

/**
 * Someone viewing a list (at its realtime `epoch`) through the app's wrapper; `peers()` is
 * what they see.
 */
function viewer(
  client: SupabaseClient,
  userId: string,
  listId = SEEDED_LIST,
  taskId?: string,
  epoch = 0,
) {
  let latest: PresencePeer[] = [];
  const leave = joinListPresence(
    client,
    presenceTopic(listId, epoch),
    { userId, ...(taskId ? { taskId } : {}) },
    (p) => {
      latest = p;
    },
  );
  leaves.push(leave);
  return { leave, peers: () => latest };
}

/** A client that tracks whatever it likes on a list's presence (a hostile member's). */
async function spoof(client: SupabaseClient, listId: string, payload: Record<string, unknown>) {
  await client.realtime.setAuth();
  const channel = client.channel(presenceTopic(listId, 0), {
    config: { private: true, presence: { key: crypto.randomUUID() } },
  });
  leaves.push(() => void client.removeChannel(channel));
  await new Promise<void>((resolve, reject) => {
    channel
      .on('presence', { event: 'sync' }, () => undefined)
      .subscribe((status, error) => {
        if (status === REALTIME_SUBSCRIBE_STATES.SUBSCRIBED) resolve();
        else if (status !== REALTIME_SUBSCRIBE_STATES.CLOSED) reject(error ?? new Error(status));
      });
  });
  expect(await channel.track(payload)).toBe('ok');
}

/**
 * A new person, signed in on a client of their own, made a member of `listId` by `owner`;
 * `anotherTab()` signs them in on one more client (one channel per topic per client).
 */
async function newMember(owner: SupabaseClient, listId: string, name: string) {
  const client = sideClient();
  const { id, email } = await signUpFresh(client, name);
  await addMember(owner, client, listId);
  const anotherTab = async () => {
    const tab = sideClient();
    const { error } = await tab.auth.signInWithPassword({ email, password: TEST_PASSWORD });
    if (error) throw error;
    return tab;
  };
  return { id, client, anotherTab };
}

const group = () => screen.queryByRole('group', { name: /^Also viewing/ });

/**
 * `owner` removes `userId` from `listId` (a delete through sync_push, as the owner's device
 * would send it): the server moves the list to its next realtime epoch.
 */
async function removeMember(owner: SupabaseClient, listId: string, userId: string) {
  const { data, error } = await owner
    .from('memberships')
    .select('id')
    .eq('list_id', listId)
    .eq('user_id', userId)
    .single<{ id: string }>();
  if (error) throw error;
  const pushed = await owner.rpc('sync_push', {
    client_id: crypto.randomUUID(),
    mutations: [{ seq: 1, table: 'memberships', op: 'delete', id: data.id, data: {} }],
  });
  if (pushed.error) throw pushed.error;
  expect(pushed.data).toMatchObject({ results: [{ status: 'applied' }] });
}

/** Renders the avatars of `listId` for `who`, with the engine running (members, profiles). */
async function renderAs(who: 'alice' | 'bob', listId = SEEDED_LIST, taskId?: string) {
  const supabase = await signInAs(devstackClient(), who);
  services = onlineServices(supabase);
  renderWithServices(services, <PresenceAvatars listId={listId} taskId={taskId} />);
  return services;
}

describe('presence avatars', () => {
  it('shows the others viewing, four avatars then "+N", and drops those who leave', async () => {
    const owner = await signInAs(sideClient(), 'alice');
    const listId = await ownList(owner, 'Presence crowd');
    const bobClient = await signInAs(sideClient(), 'bob');
    await addMember(owner, bobClient, listId);
    const others = [];
    for (const name of ['Carol', 'Dan', 'Erin', 'Finn']) {
      others.push(await newMember(owner, listId, name));
    }

    await renderAs('alice', listId);
    const bob = viewer(bobClient, BOB, listId);
    // Bob sees Alice's tab, so she has joined; she does not list herself.
    await waitFor(() => expect(bob.peers().map((p) => p.userId)).toContain(ALICE));
    await waitFor(() => expect(group()).toHaveAccessibleName('Also viewing: Bob'));

    const joined = [];
    for (const [i, other] of others.entries()) {
      joined.push(viewer(other.client, other.id, listId));
      // One at a time, so the order (who came first) is known.
      const names = ['Bob', 'Carol', 'Dan', 'Erin', 'Finn'].slice(0, i + 2).join(', ');
      await waitFor(() => expect(group()).toHaveAccessibleName(`Also viewing: ${names}`));
    }
    const shown = group() as HTMLElement;
    expect(within(shown).getAllByRole('listitem', { hidden: true })).toHaveLength(5);
    expect(shown).toHaveTextContent('+1');

    bob.leave();
    await waitFor(() =>
      expect(group()).toHaveAccessibleName('Also viewing: Carol, Dan, Erin, Finn'),
    );
    expect(group()).not.toHaveTextContent('+');
    for (const other of joined) other.leave();
    await waitFor(() => expect(group()).not.toBeInTheDocument());
  });

  it('on a task, shows only those with that task open, and says who is here', async () => {
    const owner = await signInAs(sideClient(), 'alice');
    const listId = await ownList(owner, 'Presence on a task');
    const bobClient = await signInAs(sideClient(), 'bob');
    await addMember(owner, bobClient, listId);
    const eve = await newMember(owner, listId, 'Eve');
    const task = crypto.randomUUID();
    await renderAs('alice', listId, task);
    const here = () => screen.queryByRole('group', { name: / here$/ });
    /** Joins, and waits until the server has echoed the tab's own presence. */
    const joined = async (client: SupabaseClient, userId: string, taskId?: string) => {
      const tab = viewer(client, userId, listId, taskId);
      await waitFor(() => expect(tab.peers().map((p) => p.userId)).toContain(userId));
      return tab;
    };
    // Bob views the list, and another task in a second tab; then Eve opens this task. The
    // server relays presence changes one after the other: once Eve shows, Bob's have come.
    await joined(bobClient, BOB);
    await joined(await signInAs(sideClient(), 'bob'), BOB, crypto.randomUUID());
    await joined(eve.client, eve.id, task);
    await waitFor(() => expect(here()).toHaveAccessibleName('Eve is here'));
    expect(here()).toHaveTextContent(/Eve is here$/);
    // Bob opens it too, in a third tab.
    await joined(await signInAs(sideClient(), 'bob'), BOB, task);
    await waitFor(() => expect(here()).toHaveAccessibleName('Bob and Eve are here'));
  });

  it("joins the list's presence at its epoch, and moves to the next when a member is removed", async () => {
    const owner = await signInAs(sideClient(), 'alice');
    const listId = await ownList(owner, 'Presence epochs');
    const bobClient = await signInAs(sideClient(), 'bob');
    await addMember(owner, bobClient, listId);
    const eve = await newMember(owner, listId, 'Eve');
    const app = await renderAs('alice', listId);
    const presenceChannels = () =>
      app.client
        .getChannels()
        .map((channel) => channel.topic)
        .filter((topic) => topic.endsWith(':presence'));
    const bob = viewer(bobClient, BOB, listId, undefined, 0);
    await waitFor(() => expect(bob.peers().map((p) => p.userId)).toContain(ALICE));
    expect(presenceChannels()).toEqual([`realtime:${presenceTopic(listId, 0)}`]);

    // Eve is removed: the list moves to epoch 1, which Alice's device hears on her own topic.
    await removeMember(owner, listId, eve.id);
    await waitFor(() =>
      expect(presenceChannels()).toEqual([`realtime:${presenceTopic(listId, 1)}`]),
    );
    // Bob, who stays, views at the new epoch too: they see each other there.
    bob.leave();
    const bobAgain = viewer(await signInAs(sideClient(), 'bob'), BOB, listId, undefined, 1);
    await waitFor(() => expect(bobAgain.peers().map((p) => p.userId)).toContain(ALICE));
    await waitFor(() => expect(group()).toHaveAccessibleName('Also viewing: Bob'));
  });

  it('shows the names on keyboard focus as on hover', async () => {
    await renderAs('alice');
    viewer(await signInAs(sideClient(), 'bob'), BOB);
    await waitFor(() => expect(group()).toHaveAccessibleName('Also viewing: Bob'));
    const shown = group() as HTMLElement;
    await userEvent.setup().tab();
    expect(shown).toHaveFocus();
    // The names written out next to the avatars (hidden from screen readers: the label says it).
    expect(
      within(shown).getByText('Bob', { selector: '.members-presence__names' }),
    ).toHaveAttribute('aria-hidden', 'true');
  });

  it("never shows a payload's claims: not its name, not a user id that is not a member", async () => {
    const owner = await signInAs(sideClient(), 'alice');
    const listId = await ownList(owner, 'Presence spoof');
    await addMember(owner, await signInAs(sideClient(), 'bob'), listId);
    const eve = await newMember(owner, listId, 'Eve');
    const strangerId = crypto.randomUUID();

    await renderAs('bob', listId);
    // Eve, a member, tracks Alice's id under the name "Mallory" with an avatar of her choosing,
    // and the id of someone who is not a member; then she views the list honestly. The server
    // relays one presence change after the other, so once Bob's screen shows Eve the spoofs
    // have reached it too.
    await spoof(await eve.anotherTab(), listId, {
      userId: ALICE,
      name: 'Mallory',
      avatarPath: `${ALICE}/mallory.png`,
      since: 1,
    });
    await spoof(await eve.anotherTab(), listId, {
      userId: strangerId,
      name: 'Stranger Sam',
      since: 2,
    });
    const eveTab = viewer(eve.client, eve.id, listId);
    await waitFor(() => expect(group()).toHaveAccessibleName('Also viewing: Alice, Eve'));
    // Eve's own tab hears both claims and itself: they did arrive, and were dropped or
    // renamed. (The server sends each subscriber its copy on its own: Bob's screen can show Eve
    // before her own tab has heard her.)
    await waitFor(() =>
      expect(eveTab.peers().map((p) => p.userId)).toEqual(
        expect.arrayContaining([ALICE, strangerId, eve.id]),
      ),
    );
    const shown = group() as HTMLElement;
    expect(within(shown).getAllByRole('listitem', { hidden: true })).toHaveLength(2);
    expect(shown).toHaveTextContent(/^AEAlice, Eve$/); // initials, then the names on hover
    expect(shown.querySelector('img')).toBeNull(); // Alice has no picture; the claimed one is not used
    expect(screen.queryByText(/Mallory|Stranger Sam/)).not.toBeInTheDocument();

    // The real Alice views too: one Alice, by her own profile.
    viewer(owner, ALICE, listId);
    await waitFor(() => expect(eveTab.peers().filter((p) => p.userId === ALICE)).toHaveLength(1));
    expect(group()).toHaveAccessibleName('Also viewing: Alice, Eve');
  });

  it('leaves and shows nothing while offline, and comes back online', async () => {
    const app = await renderAs('alice');
    const bob = viewer(await signInAs(sideClient(), 'bob'), BOB);
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
    const bob = viewer(await signInAs(sideClient(), 'bob'), BOB);
    await waitFor(() => expect(bob.peers().map((p) => p.userId)).toEqual([BOB]));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(services.client.getChannels()).toHaveLength(0);
    expect(container).toBeEmptyDOMElement();
  });
});
