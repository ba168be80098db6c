// Realtime deltas end to end against the devstack: the database broadcasts each committed
// row on the private topics `list:<id>` and `user:<id>`, and a device applies it at once —
// never over a newer copy or a field still queued here, never moving the pull cursor — while
// memberships, gaps and (re)joins send it to pull. Message faults (drop, duplicate, hold and
// release in any order, a message after the pull that brought its row) come from a tap
// between the edge and the engine (tests/support/realtime-tap.ts); malformed and misrouted
// payloads are broadcast by the database itself, and so are rows on a topic the server would
// never send them to (a profile on the user's own topic, or of someone who is no member of the
// topic's list). A change of the user's own membership sends a new access token on every
// channel (seen on the device's socket). The broadcast and the topics' policies are the
// migrations' (supabase/migrations/…_realtime_deltas.sql, …_realtime_epochs.sql).
// First, before Dexie loads: its liveQuery (the outbox watch) needs a global IndexedDB.
import 'fake-indexeddb/auto';

import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';

import { REALTIME_DEBOUNCE_MS } from '../../sync/realtime';
import { deviceSuite } from '../support/device-suite';
import { SEED, type TestDevstack } from '../support/devstack';
import { FaultyNetwork } from '../../sync/kit/faults';
import { manualClocksForTests, type ManualClock } from '../support/manual-clock';
import { createUsers, testId } from '../support/database';
import { addMember } from '../support/memberships';
import { RealtimeTap } from '../support/realtime-tap';
import { clientFor, liveRows, settled, signIn, waitFor, type Device } from '../support/sync-client';
import { deviceDb } from '../../sync/testing';

let stack: TestDevstack;
const { device } = deviceSuite((started) => (stack = started));
const testClock = manualClocksForTests();
const PULL_PATH = '/rest/v1/rpc/sync_pull';

async function serverRow(table: string, id: string): Promise<Record<string, unknown>> {
  const { rows } = await stack.db.query<Record<string, unknown>>(
    `select to_jsonb(t) - 'sync_xid' - 'granted_xid' as r from public.${table} t where id = $1`,
    [id],
  );
  return (rows[0] as { r: Record<string, unknown> } | undefined)?.r ?? {};
}

const localRow = (d: Device, table: string, id: string) => deviceDb(d.sync).rows(table).get(id);

/**
 * A realtime transport that records every frame its sockets send as `{ topic, event,
 * payload }` (realtime-js writes a push as the JSON array [join_ref, ref, topic, event,
 * payload]).
 */
function recordingWebSocket() {
  const sent: { topic: string; event: string; payload: unknown }[] = [];
  class Recording extends WebSocket {
    constructor(address: string | URL, protocols?: string | string[]) {
      super(address, protocols);
      const send = this.send.bind(this) as (...args: unknown[]) => void;
      this.send = ((data: unknown, ...rest: unknown[]) => {
        if (typeof data === 'string') {
          const frame: unknown = JSON.parse(data);
          if (Array.isArray(frame)) {
            sent.push({ topic: String(frame[2]), event: String(frame[3]), payload: frame[4] });
          }
        }
        send(data, ...rest);
      }) as WebSocket['send'];
    }
  }
  return { transport: Recording as unknown as typeof WebSocket, sent };
}

let fences = 0;
/**
 * Waits until every message `alice` was handed before this call has been applied (or
 * ignored): the engine applies messages one at a time in arrival order, so once a fresh
 * edit of bob's (delivered as it comes) is on alice's device, all before it are done.
 */
async function fence(alice: Device, bob: Device, tap: RealtimeTap): Promise<void> {
  tap.fault = () => 'deliver';
  const title = `Fence ${++fences}`;
  await bob.sync.repos.tasks.update(SEED.task(16), { title });
  await waitFor(async () => (await localRow(alice, 'tasks', SEED.task(16)))?.title === title);
}

/**
 * Alice on a manual clock (nothing the engine schedules runs unless the test moves time, so
 * every pull counted is one the test let run), with a tap on her topics and a fault network
 * counting her requests; synced, her topics joined, and the pulls their joins asked for run.
 */
async function aliceOnClock(): Promise<{
  alice: Device;
  clock: ManualClock;
  net: FaultyNetwork;
  tap: RealtimeTap;
  pulls: () => number;
}> {
  const clock = testClock();
  const net = new FaultyNetwork({ clock });
  const tap = new RealtimeTap();
  const alice = await device('alice@example.com', {
    fetch: net.fetch,
    clock,
    wrapRemote: tap.wrap,
  });
  await clock.settle(alice.sync.engine.syncNow(), { quiet: net.idle, maxAdvanceMs: 0 });
  await waitFor(() => tap.joined.has(`user:${SEED.alice}`) && Boolean(tap.listTopic(SEED.list)));
  await clock.runTo(clock.now() + REALTIME_DEBOUNCE_MS, { quiet: net.idle });
  await clock.settle(alice.sync.engine.syncNow(), { quiet: net.idle, maxAdvanceMs: 0 });
  return { alice, clock, net, tap, pulls: () => net.count(PULL_PATH) };
}

describe('realtime deltas', () => {
  it("applies bob's edit on alice's device with no pull in between", async () => {
    const { alice, tap, pulls } = await aliceOnClock();
    const bob = await device('bob@example.com');
    await bob.sync.engine.syncNow();
    const id = SEED.task(3);
    const before = pulls();
    const cursor = await deviceDb(alice.sync).getMeta<string>('cursor');

    await bob.sync.repos.tasks.update(id, { title: 'Live from bob' });
    await settled(bob);
    await waitFor(async () => (await localRow(alice, 'tasks', id))?.title === 'Live from bob');

    expect(pulls()).toBe(before);
    const server = await serverRow('tasks', id);
    expect(await localRow(alice, 'tasks', id)).toMatchObject({ ...server, _v: server.version });
    // Realtime never moves the cursor: the next pull starts where the last one stopped.
    expect(await deviceDb(alice.sync).getMeta<string>('cursor')).toBe(cursor);
    expect(tap.rowsFor('tasks', id).length).toBeGreaterThanOrEqual(1);
  });

  it('keeps a field alice still has queued, and applies the field bob changed', async () => {
    const { alice, tap } = await aliceOnClock();
    const bob = await device('bob@example.com');
    await bob.sync.engine.syncNow();
    const id = SEED.task(4);
    // Pending on alice: offline, so nothing is pushed (her socket still hears).
    alice.online.set(false);
    await alice.sync.repos.tasks.update(id, { title: 'Pending on alice' });

    await bob.sync.repos.tasks.update(id, { notes: 'Pushed by bob' });
    await settled(bob);
    const version = Number((await serverRow('tasks', id)).version);
    await waitFor(() => tap.rowsFor('tasks', id).some((m) => m.row.version === version));
    await waitFor(async () => (await localRow(alice, 'tasks', id))?._v === version);

    expect(await localRow(alice, 'tasks', id)).toMatchObject({
      title: 'Pending on alice',
      notes: 'Pushed by bob',
    });
    expect(await alice.sync.pendingCount()).toBe(1);
  });

  it('is unharmed by duplicated and reordered messages; a jump in versions pulls', async () => {
    const { alice, clock, net, tap, pulls } = await aliceOnClock();
    const bob = await device('bob@example.com');
    await bob.sync.engine.syncNow();
    const id = SEED.task(6);
    tap.fault = (message) => (message.table === 'tasks' ? 'hold' : 'deliver');

    await bob.sync.repos.tasks.update(id, { title: 'First' });
    await settled(bob);
    await bob.sync.repos.tasks.update(id, { title: 'Second', priority: 2 });
    await settled(bob);
    await waitFor(() => tap.held.length >= 2);
    const before = pulls();
    const last = Number((await serverRow('tasks', id)).version);

    // Newest first (a gap: one version is missing), then the older one, each twice.
    expect(tap.release('reverse', 2)).toBe(2);
    await fence(alice, bob, tap);
    expect(await localRow(alice, 'tasks', id)).toMatchObject({
      title: 'Second',
      priority: 2,
      _v: last,
    });
    expect(pulls()).toBe(before);
    // The gap asked for a pull, due now (time may not move on: the pull a join asks for would
    // need 100 ms), and it changes nothing. Waited for, not read at once: the cycle does its
    // local work before it sends the pull.
    await clock.until(() => pulls() > before, { quiet: net.idle, maxAdvanceMs: 0 });
    await clock.settle(alice.sync.engine.syncNow(), { quiet: net.idle, maxAdvanceMs: 0 });
    const server = await serverRow('tasks', id);
    expect(await localRow(alice, 'tasks', id)).toMatchObject({ ...server, _v: server.version });
  });

  it('a message and the pull that brings the same row converge, in either order', async () => {
    const { alice, clock, net, tap } = await aliceOnClock();
    const bob = await device('bob@example.com');
    await bob.sync.engine.syncNow();
    const early = SEED.task(7);
    const late = SEED.task(8);
    // `early`'s message is delivered before the pull; `late`'s is held until after it.
    tap.fault = (message) => (message.row.id === late ? 'hold' : 'deliver');

    await bob.sync.repos.tasks.update(early, { title: 'Message first' });
    await bob.sync.repos.tasks.update(late, { title: 'Pull first' });
    await settled(bob);
    await waitFor(async () => (await localRow(alice, 'tasks', early))?.title === 'Message first');
    await waitFor(() => tap.held.length >= 1);
    await clock.settle(alice.sync.engine.syncNow(), { quiet: net.idle, maxAdvanceMs: 0 });
    expect((await localRow(alice, 'tasks', late))?.title).toBe('Pull first');
    tap.release();
    await fence(alice, bob, tap);

    for (const id of [early, late]) {
      const server = await serverRow('tasks', id);
      await waitFor(async () => (await localRow(alice, 'tasks', id))?._v === server.version);
      expect(await localRow(alice, 'tasks', id)).toMatchObject({ ...server, _v: server.version });
    }
  });

  it('a dropped message is found by the next pull', async () => {
    const { alice, clock, net, tap } = await aliceOnClock();
    const bob = await device('bob@example.com');
    await bob.sync.engine.syncNow();
    const id = SEED.task(9);
    tap.fault = () => 'drop';
    await bob.sync.repos.tasks.update(id, { title: 'Dropped on the way' });
    await settled(bob);
    await waitFor(() => tap.rowsFor('tasks', id).length >= 1);
    await fence(alice, bob, tap);
    expect((await localRow(alice, 'tasks', id))?.title).not.toBe('Dropped on the way');
    await clock.settle(alice.sync.engine.syncNow(), { quiet: net.idle, maxAdvanceMs: 0 });
    expect((await localRow(alice, 'tasks', id))?.title).toBe('Dropped on the way');
  });

  it('joins a list alice is invited to and backfills it, then leaves and purges it when she is removed', async () => {
    const tap = new RealtimeTap();
    const alice = await device('alice@example.com', { wrapRemote: tap.wrap });
    const bob = await device('bob@example.com');
    await Promise.all([alice.sync.engine.syncNow(), bob.sync.engine.syncNow()]);
    await waitFor(() => tap.joined.has(`user:${SEED.alice}`));
    const listId = await bob.sync.repos.lists.create({ name: 'Bob invites alice', color: 'blue' });
    const taskId = await bob.sync.repos.tasks.create(listId, { title: 'Already there' });
    await settled(bob);
    expect(tap.listTopic(listId)).toBeUndefined();

    // No syncNow on alice from here on: her user topic, then the pull it asks for.
    const membership = await addMember(stack.db, listId, SEED.bob, SEED.alice, 'editor');
    await waitFor(async () => (await localRow(alice, 'tasks', taskId))?.title === 'Already there');
    await waitFor(() => tap.listTopic(listId) === `list:${listId}:0`);
    // Now live on the new topic.
    await bob.sync.repos.tasks.update(taskId, { title: 'Said live' });
    await waitFor(async () => (await localRow(alice, 'tasks', taskId))?.title === 'Said live');
    expect(tap.rowsFor('tasks', taskId).some((m) => m.row.title === 'Said live')).toBe(true);

    // An edit just before the removal, its message held until the list is purged: coming
    // after the purge, it must not bring the list's task back.
    tap.fault = (message) => (message.table === 'tasks' ? 'hold' : 'deliver');
    await bob.sync.repos.tasks.update(taskId, { title: 'Heard too late' });
    await settled(bob);
    await waitFor(() => tap.held.length === 1);
    await bob.sync.repos.memberships.remove(membership);
    await settled(bob);
    await waitFor(async () => (await deviceDb(alice.sync).rows('lists').get(listId)) === undefined);
    await waitFor(() => tap.listTopic(listId) === undefined);
    tap.release();
    await fence(alice, bob, tap);
    for (const table of ['tasks', 'memberships']) {
      const rows = await deviceDb(alice.sync).rows(table).where('list_id').equals(listId).count();
      expect(rows, table).toBe(0);
    }
  });

  it('follows a list to its next epoch when another member is removed, and hears it there', async () => {
    // Alice on a manual clock: no pull of hers runs unless the test moves time, so only her
    // user topic can take her to the new epoch.
    const { alice, clock, net, tap, pulls } = await aliceOnClock();
    const bob = await device('bob@example.com');
    await bob.sync.engine.syncNow();
    const listId = await bob.sync.repos.lists.create({ name: 'Three of us', color: 'teal' });
    const taskId = await bob.sync.repos.tasks.create(listId, { title: 'Before' });
    await settled(bob);
    const dave = testId('da7e');
    await createUsers(stack.db, { dave });
    await addMember(stack.db, listId, SEED.bob, SEED.alice, 'editor');
    const daves = await addMember(stack.db, listId, SEED.bob, dave, 'viewer');
    await clock.settle(alice.sync.engine.syncNow(), { quiet: net.idle, maxAdvanceMs: 0 });
    await waitFor(() => tap.listTopic(listId) === `list:${listId}:0`);
    await bob.sync.engine.syncNow();
    const before = pulls();

    // Bob removes dave: the list moves to epoch 1, and alice's device follows it there.
    await bob.sync.repos.memberships.remove(daves);
    await settled(bob);
    await waitFor(() => tap.listTopic(listId) === `list:${listId}:1`);
    expect(tap.joined.has(`list:${listId}:0`)).toBe(false);
    expect((await deviceDb(alice.sync).rows('lists').get(listId))?.realtime_epoch).toBe(1);
    expect(pulls()).toBe(before);

    // Live there: bob's next edit arrives by realtime on the new topic.
    await bob.sync.repos.tasks.update(taskId, { title: 'After dave' });
    await waitFor(async () => (await localRow(alice, 'tasks', taskId))?.title === 'After dave');
    expect(
      tap.received.some(
        (r) => r.topic === `list:${listId}:1` && r.message.row.title === 'After dave',
      ),
    ).toBe(true);
    expect(pulls()).toBe(before);
  });

  it("drops an attachment's bytes when its tombstone arrives, as a pull would", async () => {
    const { alice, clock, net, pulls } = await aliceOnClock();
    const png = new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3])], {
      type: 'image/png',
    });
    const id = await alice.sync.repos.attachments.add(SEED.task(13), png, 'live.png');
    await clock.settle(alice.sync.engine.syncNow(), { quiet: net.idle, maxAdvanceMs: 0 });
    expect((await deviceDb(alice.sync)._files.get(id))?.state).toBe('uploaded');
    const bob = await device('bob@example.com');
    await bob.sync.engine.syncNow();
    const before = pulls();

    await bob.sync.repos.attachments.delete(id);
    await settled(bob);
    await waitFor(async () => Boolean((await localRow(alice, 'attachments', id))?.deleted_at));
    expect(await deviceDb(alice.sync)._files.get(id)).toBeUndefined();
    expect(pulls()).toBe(before);
  });

  it('ignores malformed payloads and rows that do not belong to the topic', async () => {
    const { alice, tap } = await aliceOnClock();
    const id = SEED.task(10);
    const before = await localRow(alice, 'tasks', id);
    const topic = tap.listTopic(SEED.list);
    if (!topic) throw new Error('alice is not on the list topic');
    const send = (payload: unknown) =>
      stack.db.query(`select realtime.send($1::jsonb, 'row', $2, true)`, [
        JSON.stringify(payload),
        topic,
      ]);
    const forged = { ...before, title: 'Forged', version: Number(before?.version) + 1 };
    await send({ table: 'tasks', row: { id, title: 'No version' }, xid: '1' });
    await send({ table: 'tasks', row: { ...forged, version: 'high' }, xid: '1' });
    await send({ table: 'tasks', row: 'not a row', xid: '1' });
    await send({ table: 42, row: forged, xid: '1' });
    // Well formed, but not for this topic, or not a synced table.
    await send({ table: 'tasks', row: { ...forged, list_id: SEED.task(99) }, xid: '1' });
    await send({ table: 'secrets', row: forged, xid: '1' });
    // A fence: a real change after them, on the same topic.
    const bob = await device('bob@example.com');
    await bob.sync.engine.syncNow();
    await bob.sync.repos.tasks.update(SEED.task(11), { title: 'Fence' });
    await waitFor(async () => (await localRow(alice, 'tasks', SEED.task(11)))?.title === 'Fence');

    expect(tap.malformed()).toBe(4);
    expect(await localRow(alice, 'tasks', id)).toEqual(before);
    expect((await liveRows(alice, 'tasks')).some((t) => t.title === 'Forged')).toBe(false);
  });

  it('applies a profile only where the server sends it: a list topic of a list its owner shares', async () => {
    const { alice, tap } = await aliceOnClock();
    const bob = await device('bob@example.com');
    await bob.sync.engine.syncNow();
    const topic = tap.listTopic(SEED.list);
    if (!topic) throw new Error('alice is not on the list topic');
    const send = (payload: unknown, to: string) =>
      stack.db.query(`select realtime.send($1::jsonb, 'row', $2, true)`, [
        JSON.stringify(payload),
        to,
      ]);
    const bobs = await serverRow('profiles', SEED.bob);
    const renamed = (name: string, version: number) => ({
      table: 'profiles',
      row: { ...bobs, display_name: name, version },
      xid: '1',
    });
    const stranger = testId('57a4');
    // Bob's profile on alice's own topic (the server sends profiles to list topics only), and
    // the profile of someone who is no member of the list on its topic.
    await send(renamed('On her own topic', Number(bobs.version) + 1), `user:${SEED.alice}`);
    await send(
      { table: 'profiles', row: { id: stranger, version: 1, display_name: 'Stranger' }, xid: '1' },
      topic,
    );
    await fence(alice, bob, tap);
    expect(tap.rowsFor('profiles', SEED.bob)).toHaveLength(1);
    expect(tap.rowsFor('profiles', stranger)).toHaveLength(1);
    expect(await localRow(alice, 'profiles', SEED.bob)).toMatchObject({
      display_name: bobs.display_name,
      _v: bobs.version,
    });
    expect(await localRow(alice, 'profiles', stranger)).toBeUndefined();

    // Where the server sends it: on the topic of a list both are members of.
    await send(renamed('On their list', Number(bobs.version) + 2), topic);
    await waitFor(
      async () => (await localRow(alice, 'profiles', SEED.bob))?.display_name === 'On their list',
    );
  });

  it("sends a new access token on every channel when one of alice's memberships changes", async () => {
    const socket = recordingWebSocket();
    const supabase = clientFor(stack, undefined, socket.transport);
    await signIn(supabase, 'alice@example.com');
    const tap = new RealtimeTap();
    const alice = await device('alice@example.com', { supabase, wrapRemote: tap.wrap });
    const bob = await device('bob@example.com');
    await Promise.all([alice.sync.engine.syncNow(), bob.sync.engine.syncNow()]);
    const listId = await bob.sync.repos.lists.create({ name: 'Roles change', color: 'blue' });
    await settled(bob);
    const membership = await addMember(stack.db, listId, SEED.bob, SEED.alice, 'editor');
    await waitFor(() => tap.listTopic(listId) === `list:${listId}:0`);
    await bob.sync.engine.syncNow();
    const tokens = () => socket.sent.filter((frame) => frame.event === 'access_token');
    const before = tokens().length;

    // Bob makes alice a viewer: her device renews the token, and realtime-js sends it on
    // each channel joined, where the server checks the channel again.
    await bob.sync.repos.memberships.changeRole(membership, 'viewer');
    await settled(bob);
    // Her topics: her own, the new list's, and those of lists she shares from earlier tests.
    const joined = [...tap.joined];
    expect(joined).toEqual(
      expect.arrayContaining([`user:${SEED.alice}`, `list:${SEED.list}:0`, `list:${listId}:0`]),
    );
    await waitFor(() => tokens().length - before >= joined.length);
    const renewed = tokens().slice(before);
    expect(renewed.map((frame) => frame.topic).sort()).toEqual(
      joined.map((topic) => `realtime:${topic}`).sort(),
    );
    const [token] = new Set(renewed.map((frame) => JSON.stringify(frame.payload)));
    const session = (await supabase.auth.getSession()).data.session;
    expect(token).toBe(JSON.stringify({ access_token: session?.access_token }));
  });

  it('leaves every topic at sign-out', async () => {
    const tap = new RealtimeTap();
    const alice = await device('alice@example.com', { wrapRemote: tap.wrap });
    await alice.sync.engine.syncNow();
    await waitFor(() => tap.joined.has(`user:${SEED.alice}`) && Boolean(tap.listTopic(SEED.list)));
    expect((await alice.sync.signOut({ force: true })).signedOut).toBe(true);
    await waitFor(() => tap.joined.size === 0);
  });
});
