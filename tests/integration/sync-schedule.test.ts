// When the engine runs, and when it must not: backoff that writes cannot cut short, a 401
// that ends in "signed out" instead of a loop, a hung request that times out, realtime
// storms that cannot postpone a pull, the 60 s safety pull and the pull on tab focus, a
// restart after sign-out in the same tab, and tabs that follow the leader. Devices run
// against the devstack; where a test waits on time (a schedule of seconds or minutes, a
// request's timeout, a follower's wait), the engine's clock is a ManualClock and time moves
// only when and as far as the test says. Nothing waits on a fixed sleep.
// Before Dexie loads (the engine's constants bring it): it looks for a global IndexedDB once,
// and without one its liveQuery (the engine's watch on the outbox) stays silent.
import 'fake-indexeddb/auto';

import { createClient } from '@supabase/supabase-js';
import { describe, expect, it } from 'vitest';

import { REALTIME_DEBOUNCE_MS } from '../../sync/realtime';
import { PERIODIC_SYNC_MS, PUSH_DEBOUNCE_MS } from '../../sync/schedule';
import { SyncError } from '../../sync/errors';
import { supabaseRemote, type Remote } from '../../sync/remote';
import { TRANSFER_TIMEOUT_FACTOR } from '../../sync/requests';
import type { TabChannel, TabMessage } from '../../sync/tabs';
import { deviceSuite } from '../support/device-suite';
import { SEED, type TestDevstack } from '../support/devstack';
import { cuttableWebSocket, FaultyNetwork } from '../../sync/kit/faults';
import { RealtimeTap } from '../support/realtime-tap';
import { ManualClock, manualClocksForTests } from '../support/manual-clock';
import {
  liveRows,
  settled,
  signIn,
  waitFor,
  type Device,
  type DeviceOptions,
  synced,
  track,
} from '../support/sync-client';
import { deviceDb } from '../../sync/testing';

let stack: TestDevstack;
const { device } = deviceSuite((started) => (stack = started));

/** Manual clocks, run out before the devices close when a test fails. */
const testClock = manualClocksForTests();
const PUSH = /\/rpc\/sync_push$/;
const PULL_PATH = '/rest/v1/rpc/sync_pull';
const PUSH_PATH = '/rest/v1/rpc/sync_push';
const TOKEN_PATH = '/auth/v1/token';

/**
 * syncNow on a device whose engine runs on `clock`: its timers only fire as time moves, and
 * here only those due now do (a forced run is a timer of 0 ms).
 */
function syncOn(d: Device, clock: ManualClock, net: FaultyNetwork) {
  return clock.settle(d.sync.engine.syncNow(), { quiet: net.idle, maxAdvanceMs: 0 });
}

async function serverTitle(id: string): Promise<string | undefined> {
  const { rows } = await stack.db.query<{ title: string }>(
    'select title from public.tasks where id = $1',
    [id],
  );
  return rows[0]?.title;
}

/**
 * A client signed in as `email` on a manual clock and a fault network, whose realtime
 * socket the test can cut. Realtime-js reconnects on its own timers (1 s, 2 s, 5 s…), not
 * the engine's clock: here it tries again at once, and the test decides when the server is
 * back.
 */
async function cuttableClient(email: string) {
  const sockets = cuttableWebSocket();
  const clock = testClock();
  const net = new FaultyNetwork({ clock });
  const client = createClient<unknown>(stack.url, stack.publishableKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: {
      transport: sockets.transport as unknown as typeof globalThis.WebSocket,
      reconnectAfterMs: () => 20,
    },
    global: { fetch: net.fetch },
  });
  await signIn(client, email);
  return { sockets, clock, net, client };
}

/**
 * A Remote whose first push waits on the wire until `release()`; `pushes` counts them and
 * `sizes` says how many mutations each carried.
 */
function firstPushHeld() {
  const held = {
    pushes: 0,
    sizes: [] as number[],
    release: () => undefined as void,
    wrapRemote: (real: Remote): Remote => ({
      ...real,
      async push(client, mutations) {
        held.pushes += 1;
        held.sizes.push(mutations.length);
        if (held.pushes === 1) await new Promise<void>((resolve) => (held.release = resolve));
        return real.push(client, mutations);
      },
    }),
  };
  return held;
}

/** Alice's device on a manual clock, with a fault network on it, synced once. */
async function onClock(options: DeviceOptions = {}) {
  const clock = testClock();
  const net = new FaultyNetwork({ clock });
  const alice = await device('alice@example.com', { fetch: net.fetch, clock, ...options });
  await syncOn(alice, clock, net);
  return { clock, net, alice };
}

/**
 * After a write, the request that sends it meets `fault` (it never answers): the device is
 * still waiting for it, sending nothing else, until the clock has passed its time
 * (`timeoutMs` after it was sent); then it gives up, retries, and is synced.
 */
async function stillWaitingUntilTimeout(
  clock: ManualClock,
  net: FaultyNetwork,
  d: Device,
  fault: 'hang' | 'stall',
  timeoutMs: number,
) {
  const quiet = net.idle;
  await clock.until(() => net.fired.get(fault) === 1, { quiet, maxAdvanceMs: PUSH_DEBOUNCE_MS });
  const sentAt = clock.now();
  const requests = [...net.forwarded.values()].reduce((sum, n) => sum + n, 0);
  await clock.runTo(sentAt + timeoutMs - 1, { quiet });
  expect(d.sync.engine.status.getSnapshot().phase).toBe('syncing');
  expect(await d.sync.pendingCount()).toBe(1);
  expect([...net.forwarded.values()].reduce((sum, n) => sum + n, 0)).toBe(requests);
  await clock.until(synced(d), { quiet, maxAdvanceMs: 1 });
}

describe('backoff and sessions', () => {
  it('backs off on a failing server: edits made meanwhile do not cut the backoff short', async () => {
    const clock = testClock();
    const net = new FaultyNetwork({ clock });
    // Jitter near its top, so the delays are ~1, 2, 4, 8 s.
    const alice = await device('alice@example.com', {
      fetch: net.fetch,
      clock,
      random: () => 0.999,
    });
    await syncOn(alice, clock, net);
    net.chaos(1, () => 0, ['status-503'], PUSH);
    const task = SEED.task(15);
    let n = 0;
    // 10 s of typing: an edit every 100 ms, each one a new write to push.
    await clock.stepThrough(10_000, {
      stepMs: 100,
      quiet: net.idle,
      onStep: async () => {
        await alice.sync.repos.tasks.update(task, { title: `Edit ${++n}` });
      },
    });
    const attempts = net.fired.get('status-503') ?? 0;
    // ~0, 1, 3, 7 s: four tries in ten seconds, not one per edit (there were 100).
    expect(attempts).toBeGreaterThanOrEqual(3);
    expect(attempts).toBeLessThanOrEqual(5);
    expect(alice.sync.engine.status.getSnapshot()).toMatchObject({ phase: 'backing-off' });
    expect(alice.sync.engine.status.getSnapshot().lastError?.code).toBe('SERVER_ERROR');

    // The server recovers: the next retry (due within the current 8 s cap) sends everything.
    net.heal();
    await clock.until(synced(alice), { quiet: net.idle, maxAdvanceMs: 8_000 });
    expect(await serverTitle(task)).toBe(`Edit ${n}`);
    expect(await alice.sync.pendingCount()).toBe(0);
    expect(alice.sync.engine.status.getSnapshot().phase).toBe('synced');
  });

  it('a 401 a refresh does not cure ends in "signed out" with the edits kept, not in a loop', async () => {
    const clock = testClock();
    const net = new FaultyNetwork({ clock });
    const alice = await device('alice@example.com', { fetch: net.fetch, clock });
    await syncOn(alice, clock, net);
    net.chaos(1, () => 0, ['expire-token'], PUSH);
    const refreshesBefore = net.count(TOKEN_PATH);
    const task = SEED.task(16);
    let n = 0;
    await clock.stepThrough(10_000, {
      stepMs: 100,
      quiet: net.idle,
      onStep: async () => {
        await alice.sync.repos.tasks.update(task, { title: `Offline-ish ${++n}` });
      },
    });
    expect(alice.sync.engine.status.getSnapshot().phase).toBe('signed-out');
    expect(alice.sync.engine.status.getSnapshot().lastError?.code).toBe('AUTH_EXPIRED');
    // One refresh (it works, but the server still says 401), one retry, then quiet.
    expect(net.count(TOKEN_PATH) - refreshesBefore).toBe(1);
    expect(net.fired.get('expire-token')).toBe(2);
    expect(await alice.sync.pendingCount()).toBeGreaterThan(0);

    // Signing in again sends what waited (at once: no time passes).
    net.heal();
    await signIn(alice.supabase, 'alice@example.com');
    await clock.until(synced(alice), { quiet: net.idle, maxAdvanceMs: 0 });
    expect(await serverTitle(task)).toBe(`Offline-ish ${n}`);
    expect(await alice.sync.pendingCount()).toBe(0);
  });

  it('a refresh that fails on the network backs off and tries again, instead of signing out', async () => {
    const clock = testClock();
    const net = new FaultyNetwork({ clock });
    let refreshes = 0;
    const alice = await device('alice@example.com', {
      fetch: net.fetch,
      clock,
      // Backoff jitter halfway: the retry comes 500 ms after the failed refresh.
      random: () => 0.5,
      // supabase-js itself retries a failing token request for ~30 s before it gives up;
      // here it gives up at once, the way it reports that in the end.
      wrapRemote: (real) => ({
        ...real,
        async refresh() {
          refreshes += 1;
          if (refreshes === 1) throw new SyncError('OFFLINE', 'fetch failed');
          return real.refresh();
        },
      }),
    });
    await syncOn(alice, clock, net);
    net.script(PUSH, 'expire-token', 'expire-token');
    await alice.sync.repos.tasks.update(SEED.task(17), { title: 'After a flaky refresh' });
    const phase = () => alice.sync.engine.status.getSnapshot().phase;
    await clock.until(() => phase() !== 'synced', { quiet: net.idle, maxAdvanceMs: 100 });
    await clock.until(() => phase() !== 'syncing', { quiet: net.idle, maxAdvanceMs: 100 });
    expect(phase()).toBe('backing-off');
    expect(refreshes).toBe(1);

    await clock.until(synced(alice), { quiet: net.idle, maxAdvanceMs: 3_000 });
    expect(await serverTitle(SEED.task(17))).toBe('After a flaky refresh');
    expect(refreshes).toBe(2);
    expect(alice.sync.engine.status.getSnapshot().phase).toBe('synced');
  });

  it('abandons a hung request after its timeout and retries it', async () => {
    const { clock, net, alice } = await onClock({ requestTimeoutMs: 300 });
    net.script(PUSH, 'hang');
    await alice.sync.repos.tasks.update(SEED.task(18), { title: 'Sent after a hang' });
    // A push gets twice a request's time.
    await stillWaitingUntilTimeout(clock, net, alice, 'hang', 2 * 300);
    expect(net.fired.get('hang')).toBe(1);
    expect(await serverTitle(SEED.task(18))).toBe('Sent after a hang');
  });

  it('gives up on a request that ignores its abort, and retries it', async () => {
    const { clock, net, alice } = await onClock({ requestTimeoutMs: 300 });
    net.script(PUSH, 'stall');
    await alice.sync.repos.tasks.update(SEED.task(18), { title: 'Sent after a stall' });
    await stillWaitingUntilTimeout(clock, net, alice, 'stall', 2 * 300);
    expect(net.fired.get('stall')).toBe(1);
    expect(await serverTitle(SEED.task(18))).toBe('Sent after a stall');
  });

  it('gives up on an upload that stalls, and uploads the file again', async () => {
    const { clock, net, alice } = await onClock({ requestTimeoutMs: 300 });
    net.script(/\/storage\/v1\/object\//, 'stall');
    const png = new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 4, 5, 6])], {
      type: 'image/png',
    });
    const id = await alice.sync.repos.attachments.add(SEED.task(6), png, 'stalled.png');
    // A file transfer gets ten times a request's time.
    await stillWaitingUntilTimeout(clock, net, alice, 'stall', TRANSFER_TIMEOUT_FACTOR * 300);
    expect(net.fired.get('stall')).toBe(1);
    const { rows } = await stack.db.query('select 1 from public.attachments where id = $1', [id]);
    expect(rows).toHaveLength(1);
    expect((await deviceDb(alice.sync)._files.get(id))?.state).toBe('uploaded');
  });

  it('syncs again after a sign-out and a sign-in in the same tab (no reload)', async () => {
    const alice = await device('alice@example.com');
    await alice.sync.engine.syncNow();
    expect(await alice.sync.signOut({ force: true })).toMatchObject({ signedOut: true });
    expect(await deviceDb(alice.sync).rows('tasks').count()).toBe(0);

    await signIn(alice.supabase, 'bob@example.com');
    await waitFor(async () => (await liveRows(alice, 'lists')).some((l) => l.id === SEED.list));
    const id = await alice.sync.repos.tasks.create(SEED.list, { title: 'By bob after a switch' });
    await settled(alice);
    const { rows } = await stack.db.query<{ created_by: string }>(
      'select created_by from public.tasks where id = $1',
      [id],
    );
    expect(rows[0]?.created_by).toBe(SEED.bob);
  });
});

describe('pushing local writes', () => {
  it('pushes a lone write at once, and the writes made while it is on the wire together in one request', async () => {
    const held = firstPushHeld();
    const { clock, net, alice } = await onClock({ wrapRemote: held.wrapRemote });
    // Idle: what the start-up asked for has run.
    await clock.runTo(clock.now() + 1_000, { quiet: net.idle });
    await alice.sync.repos.tasks.update(SEED.task(2), { title: 'Alone' });
    // Its cycle is under way already, not waiting for a timer's turn: nothing is due now.
    expect(clock.nextDue()).toBeGreaterThan(clock.now());
    await clock.until(() => held.pushes === 1, { quiet: net.idle, maxAdvanceMs: 0 });
    // Three more while it is being sent (the engine is busy): one request for the three.
    for (const n of [3, 4, 5]) {
      await alice.sync.repos.tasks.update(SEED.task(n), { title: `Burst ${n}` });
    }
    held.release();
    await clock.until(synced(alice), { quiet: net.idle, maxAdvanceMs: PUSH_DEBOUNCE_MS });
    await clock.runTo(clock.now() + 1_000, { quiet: net.idle });
    expect(held.sizes).toEqual([1, 3]);
    expect(await alice.sync.pendingCount()).toBe(0);
    expect(await serverTitle(SEED.task(5))).toBe('Burst 5');
  });

  it('sends a burst that goes on past its first push once it pauses, not batch after batch behind it', async () => {
    const held = firstPushHeld();
    const { clock, net, alice } = await onClock({ wrapRemote: held.wrapRemote });
    await clock.runTo(clock.now() + 1_000, { quiet: net.idle });
    await alice.sync.repos.tasks.update(SEED.task(2), { title: 'First' });
    await clock.until(() => held.pushes === 1, { quiet: net.idle, maxAdvanceMs: 0 });
    await alice.sync.repos.tasks.update(SEED.task(3), { title: 'Burst 3' });
    held.release();
    // The first push is answered; the burst's write made meanwhile does not follow it at once.
    await clock.runTo(clock.now(), { quiet: net.idle });
    expect(held.pushes).toBe(1);
    // Two more, 10 ms apart: each puts the burst's push PUSH_DEBOUNCE_MS after it.
    for (const n of [4, 5]) {
      await clock.runTo(clock.now() + 10, { quiet: net.idle });
      await alice.sync.repos.tasks.update(SEED.task(n), { title: `Burst ${n}` });
    }
    await clock.runTo(clock.now() + PUSH_DEBOUNCE_MS - 1, { quiet: net.idle });
    expect(held.pushes).toBe(1);
    await clock.until(synced(alice), { quiet: net.idle, maxAdvanceMs: 1 });
    expect(held.sizes).toEqual([1, 3]);
    expect(await serverTitle(SEED.task(5))).toBe('Burst 5');
  });

  it('sends a write at once when the one before it is already sent: nothing is left to wait for', async () => {
    const { clock, net, alice } = await onClock();
    const pushes = net.count(PUSH_PATH);
    await alice.sync.repos.tasks.update(SEED.task(2), { title: 'First' });
    await clock.until(synced(alice), { quiet: net.idle, maxAdvanceMs: 0 });
    // No time has passed (well within 30 ms of the first), but the engine is idle.
    await alice.sync.repos.tasks.update(SEED.task(3), { title: 'Second' });
    await clock.until(synced(alice), { quiet: net.idle, maxAdvanceMs: 0 });
    expect(net.count(PUSH_PATH)).toBe(pushes + 2);
    expect(await serverTitle(SEED.task(3))).toBe('Second');
  });

  it('pushes a write without a pull while realtime is live, and pulls after it while a topic is lost', async () => {
    const { sockets, clock, net, client } = await cuttableClient('alice@example.com');
    const tap = new RealtimeTap();
    const alice = await device('alice@example.com', {
      supabase: client,
      clock,
      wrapRemote: () => tap.wrap(supabaseRemote(client, { clock })),
    });
    await syncOn(alice, clock, net);
    // user:<alice> and the seeded list's topic joined; the pulls their joins asked for run.
    await waitFor(() => tap.joined.size === 2);
    await clock.runTo(clock.now() + REALTIME_DEBOUNCE_MS, { quiet: net.idle });
    await syncOn(alice, clock, net);

    const pulls = net.count(PULL_PATH);
    await alice.sync.repos.tasks.update(SEED.task(6), { title: 'Heard by everyone' });
    await clock.until(synced(alice), { quiet: net.idle, maxAdvanceMs: 0 });
    expect(await serverTitle(SEED.task(6))).toBe('Heard by everyone');
    // The push's answer carried the row; what others change, realtime brings.
    expect(net.count(PULL_PATH)).toBe(pulls);

    // The socket goes: what others change now reaches no one, so a push is followed by a pull.
    expect(sockets.cutAndHold()).toBeGreaterThanOrEqual(1);
    await waitFor(() => tap.joined.size === 0);
    await alice.sync.repos.tasks.update(SEED.task(7), { title: 'Heard by no one' });
    await clock.until(synced(alice), { quiet: net.idle, maxAdvanceMs: 0 });
    expect(await serverTitle(SEED.task(7))).toBe('Heard by no one');
    expect(net.count(PULL_PATH)).toBe(pulls + 1);
    sockets.restore();
  });
});

describe('going offline mid-sync', () => {
  it('sends no more batches once the device says it is offline; writes made since stay queued', async () => {
    const held = firstPushHeld();
    const { clock, net, alice } = await onClock({ wrapRemote: held.wrapRemote });
    await alice.sync.repos.tasks.update(SEED.task(2), { title: 'Sent before' });
    await clock.until(() => held.pushes === 1, { quiet: net.idle, maxAdvanceMs: PUSH_DEBOUNCE_MS });

    alice.online.set(false);
    await alice.sync.repos.tasks.update(SEED.task(3), { title: 'Made offline' });
    held.release();
    await clock.settle(alice.sync.engine.syncNow(), { quiet: net.idle, maxAdvanceMs: 0 });

    expect(held.pushes).toBe(1);
    expect(alice.sync.engine.status.getSnapshot().phase).toBe('offline');
    const queued = await deviceDb(alice.sync)._outbox.toArray();
    expect(queued.map((entry) => [entry.rowId, entry.sent])).toEqual([[SEED.task(3), 0]]);
  });
});

describe('realtime wake-ups', () => {
  it('a steady stream of realtime wake-ups cannot postpone the pull', async () => {
    const clock = testClock();
    const net = new FaultyNetwork({ clock });
    const wakes: (() => void)[] = [];
    const alice = await device('alice@example.com', {
      fetch: net.fetch,
      clock,
      wrapRemote: (real) => ({
        ...real,
        subscribeTopic(topic, listener) {
          wakes.push(() => listener.onSubscribed());
          return real.subscribeTopic(topic, listener);
        },
      }),
    });
    await syncOn(alice, clock, net);
    expect(wakes.length).toBeGreaterThan(0);
    const before = net.count(PULL_PATH);
    // A (re)join every 50 ms for two seconds (a flapping socket): each asks for a pull.
    await clock.stepThrough(2_000, {
      stepMs: 50,
      quiet: net.idle,
      onStep: () => wakes[0]?.(),
    });
    expect(net.count(PULL_PATH) - before).toBeGreaterThanOrEqual(5);
  });

  it('pulls what changed while the realtime socket was down as soon as it is back', async () => {
    const { sockets, clock, net, client: bobClient } = await cuttableClient('bob@example.com');
    // Bob's realtime (re)joins, counted: his topics user:<bob> and list:<the seeded list>.
    let wakeUps = 0;
    const counted = (real: Remote): Remote => ({
      ...real,
      subscribeTopic: (topic, listener) =>
        real.subscribeTopic(topic, {
          ...listener,
          onSubscribed: () => {
            wakeUps += 1;
            listener.onSubscribed();
          },
        }),
    });
    const alice = await device('alice@example.com');
    const bob = await device('bob@example.com', {
      supabase: bobClient,
      clock,
      wrapRemote: () => counted(supabaseRemote(bobClient, { clock })),
    });
    await Promise.all([alice.sync.engine.syncNow(), syncOn(bob, clock, net)]);
    // Bob's channels join, and each SUBSCRIBED asks for a pull a realtime debounce later: let
    // that run, so that no wake-up is left waiting when the socket goes.
    await waitFor(() => wakeUps >= 2);
    await clock.runTo(clock.now() + REALTIME_DEBOUNCE_MS, { quiet: net.idle });
    await syncOn(bob, clock, net);

    expect(sockets.cutAndHold()).toBeGreaterThanOrEqual(1);
    // Changed while bob cannot hear about it: no event will ever say so.
    await alice.sync.repos.tasks.update(SEED.task(19), { title: 'Missed by the socket' });
    await settled(alice);
    const wakeUpsWhileDown = wakeUps;
    sockets.restore();
    // Well before the 60 s safety pull (time moves a second at most): the rejoin itself asks
    // for a pull, a realtime debounce after it.
    await clock.until(
      async () =>
        (await deviceDb(bob.sync).rows('tasks').get(SEED.task(19)))?.title ===
        'Missed by the socket',
      { quiet: net.idle, maxAdvanceMs: 1_000 },
    );
    expect(wakeUps).toBeGreaterThan(wakeUpsWhileDown);
  });
});

describe('pulls nobody asked for', () => {
  /** Realtime off: its (re)subscription asks for pulls of its own. */
  const noRealtime: DeviceOptions['wrapRemote'] = (real) => ({
    ...real,
    subscribe: () => () => undefined,
    subscribeTopic: () => () => undefined,
  });

  it('pulls every 60 s while online (not sooner), and not while offline', async () => {
    const clock = testClock();
    const net = new FaultyNetwork({ clock });
    const alice = await device('alice@example.com', {
      fetch: net.fetch,
      clock,
      wrapRemote: noRealtime,
    });
    await syncOn(alice, clock, net);
    const quiet = net.idle;
    const first = net.count(PULL_PATH);
    const syncedAt = Number(alice.sync.engine.status.getSnapshot().lastSyncedAt);
    await clock.runTo(syncedAt + PERIODIC_SYNC_MS - 1, { quiet });
    expect(net.count(PULL_PATH)).toBe(first);

    // Changed on the server, with no event to say so: the safety pull finds it.
    await stack.db.query(
      `update public.tasks set title = 'Found by the safety pull' where id = $1`,
      [SEED.task(21)],
    );
    await clock.runTo(syncedAt + PERIODIC_SYNC_MS, { quiet });
    await clock.until(() => net.count(PULL_PATH) === first + 1, { quiet, maxAdvanceMs: 0 });
    await clock.until(
      async () =>
        (await deviceDb(alice.sync).rows('tasks').get(SEED.task(21)))?.title ===
        'Found by the safety pull',
      { quiet, maxAdvanceMs: 0 },
    );
    // The next safety pull is set when the cycle ends, 60 s from then: let it end first.
    await clock.until(() => alice.sync.engine.status.getSnapshot().lastSyncedAt === clock.now(), {
      quiet,
      maxAdvanceMs: 0,
    });
    const pulledAt = clock.now();
    await clock.runTo(pulledAt + PERIODIC_SYNC_MS - 1, { quiet });
    expect(net.count(PULL_PATH)).toBe(first + 1);
    await clock.runTo(pulledAt + PERIODIC_SYNC_MS, { quiet });
    await clock.until(() => net.count(PULL_PATH) === first + 2, { quiet, maxAdvanceMs: 0 });
    await clock.until(() => alice.sync.engine.status.getSnapshot().phase === 'synced', {
      quiet,
      maxAdvanceMs: 0,
    });

    alice.online.set(false);
    await clock.runTo(clock.now() + 3 * PERIODIC_SYNC_MS, { quiet });
    expect(net.count(PULL_PATH)).toBe(first + 2);
  });

  it('pulls when the tab comes back into focus', async () => {
    const clock = testClock();
    const net = new FaultyNetwork({ clock });
    let focus: () => void = () => undefined;
    const alice = await device('alice@example.com', {
      fetch: net.fetch,
      clock,
      wrapRemote: noRealtime,
      focus: {
        subscribe(onFocus) {
          focus = onFocus;
          return () => (focus = () => undefined);
        },
      },
    });
    await syncOn(alice, clock, net);
    const before = net.count(PULL_PATH);
    await stack.db.query(`update public.tasks set title = 'Seen on focus' where id = $1`, [
      SEED.task(22),
    ]);
    // No time passes: only the focus can cause this pull (the safety pull is 60 s away).
    focus();
    const noTime = { quiet: net.idle, maxAdvanceMs: 0 };
    await clock.until(() => net.count(PULL_PATH) === before + 1, noTime);
    await clock.until(
      async () =>
        (await deviceDb(alice.sync).rows('tasks').get(SEED.task(22)))?.title === 'Seen on focus',
      noTime,
    );
  });
});

/** Two ends of an in-memory tab bus (a BroadcastChannel between two tabs). */
function tabPair(): [TabChannel, TabChannel] {
  const listeners: [Set<(m: TabMessage) => void>, Set<(m: TabMessage) => void>] = [
    new Set(),
    new Set(),
  ];
  const end = (mine: 0 | 1): TabChannel => ({
    post(message) {
      // Delivered later and as a copy, as BroadcastChannel does.
      const copy = structuredClone(message);
      setTimeout(() => {
        for (const listener of [...listeners[mine === 0 ? 1 : 0]]) listener(copy);
      }, 0);
    },
    subscribe(onMessage) {
      listeners[mine].add(onMessage);
      return () => listeners[mine].delete(onMessage);
    },
    close() {
      listeners[mine].clear();
    },
  });
  return [end(0), end(1)];
}

describe('tabs', () => {
  it("a follower tab shows the leader's status and passes its Sync now to the leader", async () => {
    const [leaderEnd, followerEnd] = tabPair();
    const net = new FaultyNetwork();
    const leader = await device('alice@example.com', { fetch: net.fetch, tabs: leaderEnd });
    await leader.sync.engine.syncNow();
    // A second tab over the same database that never gets the lock. Its clock never moves,
    // so it never stops waiting for the leader on its own (FOLLOWER_SYNC_WAIT_MS).
    const followerClock = testClock();
    const second = await device(null, {
      supabase: leader.supabase,
      indexedDb: leader.indexedDb,
      tabs: followerEnd,
      leadership: () => () => undefined,
      clock: followerClock,
    });

    await waitFor(() => second.sync.engine.status.getSnapshot().phase === 'synced');
    const leaderStatus = leader.sync.engine.status.getSnapshot();
    expect(second.sync.engine.status.getSnapshot().lastSyncedAt).toBe(leaderStatus.lastSyncedAt);

    // The follower writes; the leader sends it; the follower sees the count go back to 0.
    await second.sync.repos.tasks.update(SEED.task(20), { title: 'From the second tab' });
    await waitFor(async () => (await serverTitle(SEED.task(20))) === 'From the second tab');
    await waitFor(() => second.sync.engine.status.getSnapshot().pending === 0);

    // Its Sync now is the leader's sync: one pull more, by the leader, and an answer (the
    // follower's own wait of FOLLOWER_SYNC_WAIT_MS never ends: its time stands still).
    const pulls = net.count(PULL_PATH);
    const answer = track(second.sync.engine.syncNow());
    await waitFor(() => answer.state !== 'pending');
    expect(answer.state).toMatchObject({ value: { phase: 'synced' } });
    expect(net.count(PULL_PATH)).toBeGreaterThan(pulls);
  });
});
