// Presence on `list:{id}` (product.md §7) through the app's wrapper (src/lib/presence.ts) against the devstack:
// two members see each other, a leave is seen, and several tabs of one person are one peer
// (the oldest tab's `since`). Presence topics are public channels on the devstack as on
// hosted Supabase, so who may join is not asserted here: the app only joins lists it has.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { joinListPresence, peersOf, type PresencePeer } from '../../src/lib/presence';
import { SEED, startTestDevstack, type TestDevstack } from '../support/devstack';
import { startDevice, waitFor, type Device } from '../support/sync-client';

let stack: TestDevstack;
const devices: Device[] = [];
const leaves: (() => void)[] = [];

async function device(email: string) {
  const d = await startDevice(stack, email);
  devices.push(d);
  return d;
}

/** Joins the seeded list's presence on a device; `peers()` is the latest report. */
function join(d: Device, userId: string, name: string) {
  let latest: PresencePeer[] = [];
  const leave = joinListPresence(
    d.supabase,
    SEED.list,
    { userId, name, avatarPath: null },
    (peers) => {
      latest = peers;
    },
  );
  leaves.push(leave);
  return { peers: () => latest, leave };
}

const ids = (peers: PresencePeer[]) => peers.map((peer) => peer.userId).sort();

beforeAll(async () => {
  stack = await startTestDevstack('pglite');
});
afterEach(async () => {
  for (const leave of leaves.splice(0)) leave();
  for (const d of devices.splice(0)) await d.close();
});
afterAll(async () => {
  await stack?.stop();
});

describe('list presence', () => {
  it('shows two members to each other, and drops one who leaves', async () => {
    const alice = join(await device('alice@example.com'), SEED.alice, 'Alice');
    const bob = join(await device('bob@example.com'), SEED.bob, 'Bob');

    await waitFor(() => ids(alice.peers()).length === 2);
    await waitFor(() => ids(bob.peers()).length === 2);
    expect(ids(alice.peers())).toEqual([SEED.alice, SEED.bob].sort());
    expect(ids(bob.peers())).toEqual([SEED.alice, SEED.bob].sort());
    expect(alice.peers().find((peer) => peer.userId === SEED.bob)).toMatchObject({
      name: 'Bob',
      avatarPath: null,
    });

    bob.leave();
    await waitFor(() => !ids(alice.peers()).includes(SEED.bob));
    expect(ids(alice.peers())).toEqual([SEED.alice]);
  });

  it('merges the tabs of one person into one peer, the oldest tab first', async () => {
    const alice = join(await device('alice@example.com'), SEED.alice, 'Alice');
    join(await device('bob@example.com'), SEED.bob, 'Bob'); // the first tab
    await waitFor(() => ids(alice.peers()).includes(SEED.bob));
    const firstSince = alice.peers().find((peer) => peer.userId === SEED.bob)?.since ?? 0;
    expect(firstSince).toBeGreaterThan(0);

    // A second tab, joined visibly later: still one Bob, and his `since` is the first tab's.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const secondTab = join(await device('bob@example.com'), SEED.bob, 'Bob');
    await waitFor(() => secondTab.peers().length === 2);
    const secondSince = secondTab.peers().find((peer) => peer.userId === SEED.bob)?.since ?? 0;
    expect(secondSince).toBe(firstSince); // the second tab sees itself merged too
    expect(alice.peers().filter((peer) => peer.userId === SEED.bob)).toHaveLength(1);
    expect(alice.peers().find((peer) => peer.userId === SEED.bob)?.since).toBe(firstSince);
  });

  // A person's tabs each have their own presence key (sync/presence.ts): with one key per
  // person, realtime-js's onJoin stripped `phx_ref` from the metas it already held, so the
  // first tab's leave never matched and that person lingered after closing every tab.
  it('drops a person once every one of their tabs has left', async () => {
    const alice = join(await device('alice@example.com'), SEED.alice, 'Alice');
    const firstTab = join(await device('bob@example.com'), SEED.bob, 'Bob');
    await waitFor(() => ids(alice.peers()).includes(SEED.bob));
    const firstSince = alice.peers().find((peer) => peer.userId === SEED.bob)?.since ?? 0;
    await new Promise((resolve) => setTimeout(resolve, 20));
    const secondTab = join(await device('bob@example.com'), SEED.bob, 'Bob');
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
        { userId: 'b', name: 'Bob (tab 2)', avatarPath: 'b/2.png', since: 300 },
        { userId: 'b', name: 'Bob', avatarPath: null, since: 100 },
      ],
      'a-key': [{ userId: 'a', name: 'Alice', avatarPath: null, since: 200 }],
      junk: [{ name: 'no user id' }, null, 'text'],
      'c-key': [{ userId: 'c', name: 'Carol' }],
    };
    expect(peersOf(state)).toEqual([
      { userId: 'c', name: 'Carol', avatarPath: null, since: 0 },
      { userId: 'b', name: 'Bob', avatarPath: null, since: 100 },
      { userId: 'a', name: 'Alice', avatarPath: null, since: 200 },
    ]);
  });
});
