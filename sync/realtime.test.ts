// Realtime over a scripted server (no network): a row is applied only from a topic the server
// would have sent it to (realtime_send_row: a list's rows on its topic, the list and the user's
// own memberships also on `user:<me>`, a profile only on a list its user shares with the user
// here), and a change of the user's own memberships renews the realtime token once, whether a
// realtime row or a pull brought it. On the library's fixture (test-schema.ts), where a list
// is a board and a profile a person. End to end against the devstack: sync-realtime.test.ts.
// A global IndexedDB (each device still has its own): Dexie's live reads run only where one is.
import 'fake-indexeddb/auto';

import { describe, expect, it } from 'vitest';

import { OWNER_KEY } from './account';
import { liveRead } from './live';
import { createRealtime } from './realtime';
import type { LocalRow } from './registry';
import type { Remote, RowMessage, TopicListener } from './remote';
import { boardsDevice } from './test-schema';

const ME = '0e000000-0000-4000-8000-000000000001';
const PEER = '0e000000-0000-4000-8000-000000000002';
const STRANGER = '0e000000-0000-4000-8000-000000000003';
const BOARD_A = '1a000000-0000-4000-8000-00000000000a';
const BOARD_B = '1a000000-0000-4000-8000-00000000000b';
const BOARD_C = '1a000000-0000-4000-8000-00000000000c';
/** Memberships: mine of A and B, the peer's of A only. */
const MINE_A = '3e000000-0000-4000-8000-0000000000a1';
const MINE_B = '3e000000-0000-4000-8000-0000000000b1';
const PEERS_A = '3e000000-0000-4000-8000-0000000000a2';
const TOPIC_A = `list:${BOARD_A}:0`;
const TOPIC_B = `list:${BOARD_B}:0`;
const MY_TOPIC = `user:${ME}`;

/** A row as the server has it at `version`, as the device keeps it. */
const held = (
  id: string,
  version: number,
  columns: Record<string, unknown>,
): LocalRow & { version: number } => ({
  id,
  version,
  _v: version,
  deleted_at: null,
  ...columns,
});

/** A row message as the server sends it (without the device's `_v`). */
function message(table: string, row: Record<string, unknown> & { id: string; version: number }) {
  const sent: RowMessage['row'] = { ...row };
  delete sent._v;
  return { table, row: sent } satisfies RowMessage;
}

const membership = (id: string, list: string, user: string, version: number, role = 'editor') =>
  held(id, version, { board_id: list, user_id: user, role });

/** A Remote whose every call but realtime's fails: nothing here may reach for the server. */
function realtimeRemote(renew: () => Promise<void>) {
  const listeners = new Map<string, TopicListener>();
  const never = () => Promise.reject(new Error('not in this test'));
  const remote: Remote = {
    userId: never,
    push: never,
    pull: never,
    refresh: never,
    subscribeTopic(topic, listener) {
      listeners.set(topic, listener);
      return () => listeners.delete(topic);
    },
    refreshRealtimeAuth: renew,
    onAuthChange: () => () => undefined,
    upload: never,
    signedUrl: never,
    cleanupDeletedFiles: never,
  };
  return { remote, listeners };
}

/**
 * A device of ME holding lists A and B, ME's memberships of both and PEER's of A, and both
 * profiles; realtime joined for ME (its topics: `user:<me>`, A's and B's at epoch 0).
 */
async function followed(renew: () => Promise<void> = () => Promise.resolve()) {
  const { db } = boardsDevice('realtime', ME);
  await db.setMeta(OWNER_KEY, ME);
  await db
    .rows('boards')
    .bulkPut([
      held(BOARD_A, 1, { name: 'A', realtime_epoch: 0, created_by: ME }),
      held(BOARD_B, 1, { name: 'B', realtime_epoch: 0, created_by: ME }),
    ]);
  await db
    .rows('board_members')
    .bulkPut([
      membership(MINE_A, BOARD_A, ME, 1, 'owner'),
      membership(MINE_B, BOARD_B, ME, 1),
      membership(PEERS_A, BOARD_A, PEER, 1),
    ]);
  await db
    .rows('people')
    .bulkPut([held(ME, 1, { display_name: 'Me' }), held(PEER, 1, { display_name: 'Peer' })]);
  const { remote, listeners } = realtimeRemote(renew);
  const wakes: number[] = [];
  const realtime = createRealtime(
    db,
    remote,
    (delayMs = 0) => wakes.push(delayMs),
    () => true,
    () => false,
  );
  realtime.join(ME);
  await realtime.followLists(ME);
  expect([...listeners.keys()].sort()).toEqual([TOPIC_A, TOPIC_B, MY_TOPIC].sort());
  /** Delivers `sent` on `topic` and waits until it is applied or ignored. */
  const deliver = async (topic: string, ...sent: RowMessage[]) => {
    const listener = listeners.get(topic);
    if (!listener) throw new Error(`${topic} is not joined`);
    for (const one of sent) listener.onRow(one);
    await realtime.settled();
  };
  return { db, realtime, deliver, wakes };
}

const profile = (id: string, version: number, name: string) =>
  message('people', { id, version, display_name: name });

describe('a realtime row is applied only from a topic the server sends it to', () => {
  it("a profile: only on a list's topic where both the user and the profile's owner are members here", async () => {
    const { db, deliver } = await followed();
    const name = async (id: string) => (await db.rows('people').get(id))?.display_name;

    // The server sends a profile to the topics of its owner's lists, never to `user:<id>`.
    await deliver(MY_TOPIC, profile(PEER, 2, 'On my own topic'));
    // The peer is not a member of B: the server never sends their profile there.
    await deliver(TOPIC_B, profile(PEER, 2, 'On a list they are not in'));
    // Someone who is no member of A here at all.
    await deliver(TOPIC_A, profile(STRANGER, 1, 'A stranger'));
    expect(await name(PEER)).toBe('Peer');
    expect(await db.rows('people').get(STRANGER)).toBeUndefined();

    // Where the server does send it: applied.
    await deliver(TOPIC_A, profile(PEER, 2, 'On our list'), profile(ME, 2, 'Me, renamed'));
    expect(await name(PEER)).toBe('On our list');
    expect(await name(ME)).toBe('Me, renamed');
  });

  it('a profile on the topic of a list the user is no longer a member of here is ignored', async () => {
    const { db, deliver } = await followed();
    // The user left A (a tombstone here, queued behind it: the topic is not left yet).
    await db.rows('board_members').update(MINE_A, { deleted_at: '2026-12-01T00:00:00Z' });
    await deliver(TOPIC_A, profile(PEER, 2, 'After I left'));
    expect((await db.rows('people').get(PEER))?.display_name).toBe('Peer');
    // Nor the peer's, once they are no member of it here.
    await db.rows('board_members').update(MINE_A, { deleted_at: null });
    await db.rows('board_members').update(PEERS_A, { deleted_at: '2026-12-01T00:00:00Z' });
    await deliver(TOPIC_A, profile(PEER, 2, 'After they left'));
    expect((await db.rows('people').get(PEER))?.display_name).toBe('Peer');
  });

  it("a list's row only on that list's topic or the user's own; its other rows only on its topic", async () => {
    const { db, deliver } = await followed();
    const card = (id: string, list: string | undefined, title: string) =>
      message('cards', {
        id,
        version: 1,
        title,
        position: 'a0',
        ...(list === undefined ? {} : { board_id: list }),
      });
    const cardId = (n: number) => `7a000000-0000-4000-8000-00000000000${n}`;
    const [onB, noList, onMine, onA] = [cardId(1), cardId(2), cardId(3), cardId(4)];
    await deliver(TOPIC_A, card(onB, BOARD_B, 'B on A'), card(noList, undefined, 'No list'));
    await deliver(MY_TOPIC, card(onMine, BOARD_A, 'On my topic'));
    await deliver(TOPIC_B, message('boards', { id: BOARD_A, version: 2, name: 'A on B' }));
    for (const id of [onB, noList, onMine]) expect(await db.rows('cards').get(id)).toBeUndefined();
    expect((await db.rows('boards').get(BOARD_A))?.name).toBe('A');

    await deliver(TOPIC_A, card(onA, BOARD_A, 'A on A'));
    // An epoch move comes on the user's own topic.
    await deliver(
      MY_TOPIC,
      message('boards', { id: BOARD_B, version: 2, name: 'B', realtime_epoch: 1 }),
    );
    expect((await db.rows('cards').get(onA))?.title).toBe('A on A');
    expect((await db.rows('boards').get(BOARD_B))?.realtime_epoch).toBe(1);
  });

  it("a membership: on its list's topic, or the user's own topic when it is the user's", async () => {
    const { deliver, wakes } = await followed();
    const row = (id: string, list: string, user: string) =>
      message('board_members', membership(id, list, user, 2));
    // The peer's membership on my own topic; mine of B on A's topic.
    await deliver(MY_TOPIC, row(PEERS_A, BOARD_A, PEER));
    await deliver(TOPIC_A, row(MINE_B, BOARD_B, ME));
    expect(wakes).toEqual([]);
    await deliver(TOPIC_A, row(PEERS_A, BOARD_A, PEER));
    await deliver(MY_TOPIC, row(MINE_B, BOARD_B, ME));
    expect(wakes).toEqual([0, 0]);
  });
});

describe("a change of the user's own memberships renews the realtime token", () => {
  it('once per change, by realtime (on both its topics) or by a pull; never for a membership gained', async () => {
    let renewals = 0;
    const { db, realtime, deliver } = await followed(() => {
      renewals += 1;
      return Promise.resolve();
    });
    const mine = (id: string, list: string, version: number, extra: Record<string, unknown> = {}) =>
      message('board_members', { ...membership(id, list, ME, version, 'viewer'), ...extra });

    // A new role on A: the server sends it to A's topic and to the user's.
    await deliver(TOPIC_A, mine(MINE_A, BOARD_A, 2));
    await deliver(MY_TOPIC, mine(MINE_A, BOARD_A, 2));
    expect(renewals).toBe(1);
    // A list gained: what is joined next is checked at its join.
    await deliver(MY_TOPIC, mine('3e000000-0000-4000-8000-0000000000c1', BOARD_C, 1));
    // Someone else's membership changes nothing of the user's.
    await deliver(TOPIC_A, message('board_members', membership(PEERS_A, BOARD_A, PEER, 2)));
    expect(renewals).toBe(1);

    // The pull then brings the new role realtime announced: no second renewal.
    await db.rows('board_members').update(MINE_A, { _v: 2, version: 2, role: 'viewer' });
    await realtime.followLists(ME);
    expect(renewals).toBe(1);
    // A pull brings a change realtime did not (its topics were down): a new role on B.
    await db.rows('board_members').update(MINE_B, { _v: 2, version: 2, role: 'viewer' });
    await realtime.followLists(ME);
    expect(renewals).toBe(2);
    // And a removal from B (the pull purges the list, membership and all).
    await db.rows('board_members').delete(MINE_B);
    await realtime.followLists(ME);
    expect(renewals).toBe(3);
    // Nothing changed since: nothing renewed.
    await realtime.followLists(ME);
    expect(renewals).toBe(3);
  });

  it('one renewal at a time: those asked for meanwhile are one more, after it', async () => {
    const finish: (() => void)[] = [];
    const { deliver } = await followed(() => new Promise<void>((resolve) => finish.push(resolve)));
    const mine = (id: string, list: string, version: number) =>
      message('board_members', membership(id, list, ME, version, 'viewer'));
    await deliver(MY_TOPIC, mine(MINE_A, BOARD_A, 2));
    await deliver(MY_TOPIC, mine(MINE_B, BOARD_B, 2), mine(MINE_A, BOARD_A, 3));
    expect(finish).toHaveLength(1);
    finish[0]?.();
    await expect.poll(() => finish.length).toBe(2);
    finish[1]?.();
  });
});

describe("a realtime row and the device's live reads", () => {
  it("reads again a live count of the row's own list, not of every list", async () => {
    const { db, deliver } = await followed();
    const card = (id: string, board: string, version: number, status: string) =>
      message('cards', { id, version, board_id: board, title: `${status} card`, status });
    const [onA, onB, newOnB] = [1, 2, 3].map((n) => `7b000000-0000-4000-8000-00000000000${n}`);
    await deliver(TOPIC_A, card(onA!, BOARD_A, 1, 'todo'));
    await deliver(TOPIC_B, card(onB!, BOARD_B, 1, 'todo'));
    /** A live count of a board's cards by status (an index), and how often it was read. */
    const liveCount = (board: string) => {
      const seen = { reads: 0, counts: [] as number[] };
      const subscription = liveRead(() => {
        seen.reads += 1;
        return db.rows('cards').where('[board_id+status]').equals([board, 'todo']).count();
      }).subscribe({ next: (count) => seen.counts.push(count) });
      return { seen, stop: () => subscription.unsubscribe() };
    };
    const a = liveCount(BOARD_A);
    const b = liveCount(BOARD_B);
    await expect.poll(() => [a.seen.counts, b.seen.counts]).toEqual([[1], [1]]);

    // A's card done: A's count is read again; B's is not.
    await deliver(TOPIC_A, card(onA!, BOARD_A, 2, 'done'));
    await expect.poll(() => a.seen.counts).toEqual([1, 0]);
    // A read of the store after it: any read the row caused has been asked for by now.
    await db.rows('cards').count();
    expect(b.seen.reads).toBe(1);
    // A card new on B: B's count follows.
    await deliver(TOPIC_B, card(newOnB!, BOARD_B, 1, 'todo'));
    await expect.poll(() => b.seen.counts).toEqual([1, 2]);
    a.stop();
    b.stop();
  });
});
