// Presence on a list's private channel `list:<id>:<epoch>:presence` (product.md §7; the seeded
// list is at epoch 0 here: nobody leaves it in this file) through the app's
// wrapper (src/lib/presence.ts) against the devstack, which authorises private channels by the
// migrations' RLS policies on realtime.messages as hosted Supabase does: members see each
// other, a leave is seen, several tabs of one person are one peer (the oldest tab's `since`);
// a signed-in stranger and anon are refused the join, so they neither see who is there nor
// track; and a payload carries a user id and a time, never a name.
import {
  REALTIME_SUBSCRIBE_STATES,
  type RealtimeChannel,
  type SupabaseClient,
} from '@supabase/supabase-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import {
  joinListPresence,
  peersOf,
  presenceTopic,
  type PresencePeer,
  type PresenceStatus,
} from '../../src/lib/presence';
import { SEED, startTestDevstack, type TestDevstack } from '../support/devstack';
import { clientFor, startDevice, waitFor, type Device } from '../support/sync-client';

let stack: TestDevstack;
const devices: Device[] = [];
const clients: SupabaseClient[] = [];
const leaves: (() => void)[] = [];

async function device(email: string) {
  const d = await startDevice(stack, email);
  devices.push(d);
  return d;
}

/** A client of nobody (the anon key only). */
function anonClient() {
  const client = clientFor(stack);
  clients.push(client);
  return client;
}

/** A signed-in user who is a member of no list. */
async function strangerClient() {
  const client = anonClient();
  const { data, error } = await client.auth.signUp({
    email: `stranger-${crypto.randomUUID()}@example.com`,
    password: 'stranger-pass',
  });
  if (error || !data.user) throw error ?? new Error('sign-up returned no user');
  return { client, id: data.user.id };
}

/** Joins the seeded list's presence; `peers()` is the latest report, `statuses` every status. */
function join(supabase: SupabaseClient, userId: string) {
  let latest: PresencePeer[] = [];
  const statuses: PresenceStatus[] = [];
  const leave = joinListPresence(
    supabase,
    presenceTopic(SEED.list, 0),
    { userId },
    (peers) => {
      latest = peers;
    },
    { onStatus: (status) => statuses.push(status) },
  );
  leaves.push(leave);
  return { peers: () => latest, leave, statuses };
}

const ids = (peers: PresencePeer[]) => peers.map((peer) => peer.userId).sort();

/** A raw private channel on the list's presence topic (what an attacker's client would do). */
async function rawChannel(supabase: SupabaseClient) {
  await supabase.realtime.setAuth();
  const channel = supabase.channel(presenceTopic(SEED.list, 0), {
    config: { private: true, presence: { key: crypto.randomUUID() } },
  });
  let heard = 0;
  const outcome = new Promise<{ status: string; error?: Error }>((resolve) => {
    channel
      .on('presence', { event: 'sync' }, () => {
        heard++;
      })
      .subscribe((status, error) => {
        if (status !== REALTIME_SUBSCRIBE_STATES.CLOSED)
          resolve({ status, ...(error ? { error } : {}) });
      });
  });
  return { channel, outcome, heard: () => heard };
}

const refusal = `Unauthorized: You do not have permissions to read from this Channel topic: ${presenceTopic(SEED.list, 0)}`;

beforeAll(async () => {
  stack = await startTestDevstack('pglite');
});
afterEach(async () => {
  for (const leave of leaves.splice(0)) leave();
  for (const d of devices.splice(0)) await d.close();
  for (const client of clients.splice(0)) {
    await client.removeAllChannels();
    await client.realtime.disconnect();
  }
});
afterAll(async () => {
  await stack?.stop();
});

describe('list presence', () => {
  it('shows two members to each other, sends no names, and drops one who leaves', async () => {
    const aliceDevice = await device('alice@example.com');
    const alice = join(aliceDevice.supabase, SEED.alice);
    const bob = join((await device('bob@example.com')).supabase, SEED.bob);

    await waitFor(() => ids(alice.peers()).length === 2);
    await waitFor(() => ids(bob.peers()).length === 2);
    expect(ids(alice.peers())).toEqual([SEED.alice, SEED.bob].sort());
    expect(ids(bob.peers())).toEqual([SEED.alice, SEED.bob].sort());
    expect(alice.statuses).toContainEqual({ state: 'joined' });

    // What went over the wire: a user id and a time, nothing that could be displayed.
    const channel = aliceDevice.supabase
      .getChannels()
      .find((c) => c.topic === `realtime:${presenceTopic(SEED.list, 0)}`) as RealtimeChannel;
    const metas = Object.values(channel.presenceState()).flat();
    expect(metas).toHaveLength(2);
    for (const meta of metas) {
      const keys = Object.keys(meta).filter((key) => key !== 'presence_ref');
      expect(keys.sort()).toEqual(['since', 'userId']);
    }

    bob.leave();
    await waitFor(() => !ids(alice.peers()).includes(SEED.bob));
    expect(ids(alice.peers())).toEqual([SEED.alice]);
  });

  it('refuses a signed-in stranger and anon: they see nobody and track nothing', async () => {
    const alice = join((await device('alice@example.com')).supabase, SEED.alice);
    await waitFor(() => ids(alice.peers()).includes(SEED.alice));

    // Through the app's wrapper: the refusal is reported, with no peers.
    const stranger = await strangerClient();
    const strangerView = join(stranger.client, stranger.id);
    const anonView = join(anonClient(), SEED.bob); // anon even claims to be Bob
    await waitFor(() => strangerView.statuses.length > 0 && anonView.statuses.length > 0);
    for (const view of [strangerView, anonView]) {
      expect(view.statuses[0]).toMatchObject({ state: 'refused', error: { message: refusal } });
      expect(view.statuses).not.toContainEqual({ state: 'joined' });
      expect(view.peers()).toEqual([]);
    }

    // Raw clients, as an attacker would write them: the join is refused, no presence state
    // arrives, and a track goes nowhere (realtime-js holds it for a join that never comes).
    const raws = [{ client: (await strangerClient()).client }, { client: anonClient() }].map(
      ({ client }) => ({ client, raw: rawChannel(client) }),
    );
    for (const { raw } of raws) {
      const { outcome, heard, channel } = await raw;
      expect(await outcome).toMatchObject({ status: 'CHANNEL_ERROR', error: { message: refusal } });
      expect(heard()).toBe(0);
      expect(channel.presenceState()).toEqual({});
    }
    // realtime-js buffers a push on a channel that never joined and answers 'timed out' when
    // its timer fires: the answer is the same after one second as after its default ten.
    const tracks = await Promise.all(
      raws.map(async ({ raw }) =>
        (await raw).channel.track({ userId: SEED.bob, since: 1 }, { timeout: 1_000 }),
      ),
    );
    expect(tracks).toEqual(['timed out', 'timed out']);
    for (const { client, raw } of raws) await client.removeChannel((await raw).channel);

    // A member joining now gets the whole presence state: only Alice is in it.
    const bob = join((await device('bob@example.com')).supabase, SEED.bob);
    await waitFor(() => ids(bob.peers()).length === 2);
    expect(ids(bob.peers())).toEqual([SEED.alice, SEED.bob].sort());
    expect(ids(alice.peers())).toEqual([SEED.alice, SEED.bob].sort());
  });

  it('merges the tabs of one person into one peer, the oldest tab first', async () => {
    const alice = join((await device('alice@example.com')).supabase, SEED.alice);
    join((await device('bob@example.com')).supabase, SEED.bob); // the first tab
    await waitFor(() => ids(alice.peers()).includes(SEED.bob));
    const firstSince = alice.peers().find((peer) => peer.userId === SEED.bob)?.since ?? 0;
    expect(firstSince).toBeGreaterThan(0);

    // A second tab, joined visibly later: still one Bob, and his `since` is the first tab's.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const secondTab = join((await device('bob@example.com')).supabase, SEED.bob);
    await waitFor(() => secondTab.peers().length === 2);
    const secondSince = secondTab.peers().find((peer) => peer.userId === SEED.bob)?.since ?? 0;
    expect(secondSince).toBe(firstSince); // the second tab sees itself merged too
    expect(alice.peers().filter((peer) => peer.userId === SEED.bob)).toHaveLength(1);
    expect(alice.peers().find((peer) => peer.userId === SEED.bob)?.since).toBe(firstSince);
  });

  // A person's tabs each have their own presence key: with one key per person, realtime-js's
  // onJoin stripped `phx_ref` from the metas it already held, so the first tab's leave never
  // matched and that person lingered after closing every tab.
  it('drops a person once every one of their tabs has left', async () => {
    const alice = join((await device('alice@example.com')).supabase, SEED.alice);
    const firstTab = join((await device('bob@example.com')).supabase, SEED.bob);
    await waitFor(() => ids(alice.peers()).includes(SEED.bob));
    const firstSince = alice.peers().find((peer) => peer.userId === SEED.bob)?.since ?? 0;
    await new Promise((resolve) => setTimeout(resolve, 20));
    const secondTab = join((await device('bob@example.com')).supabase, SEED.bob);
    await waitFor(() => secondTab.peers().length === 2);

    // The first tab closes: Bob is still there, now since the second tab joined.
    firstTab.leave();
    await waitFor(
      () => (alice.peers().find((peer) => peer.userId === SEED.bob)?.since ?? 0) > firstSince,
    );
    secondTab.leave();
    await waitFor(() => !ids(alice.peers()).includes(SEED.bob));
  });

  it('flattens presence state: one peer per user, oldest since wins, junk ignored, oldest first', () => {
    const state = {
      'b-key': [
        { userId: 'b', name: 'Bob (tab 2)', since: 300 },
        { userId: 'b', since: 100 },
      ],
      'a-key': [{ userId: 'a', since: 200 }],
      junk: [{ name: 'no user id' }, { userId: '' }, null, 'text'],
      'c-key': [{ userId: 'c', name: 'Carol', since: 'soon' }],
    };
    // Whatever else a payload claims (a name), a peer is an id, a time and the tasks open.
    expect(peersOf(state)).toEqual([
      { userId: 'c', since: 0, taskIds: [] },
      { userId: 'b', since: 100, taskIds: [] },
      { userId: 'a', since: 200, taskIds: [] },
    ]);
  });
});
