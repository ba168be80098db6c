// When the engine runs, and when it must not: backoff that writes cannot cut short, a 401
// that ends in "signed out" instead of a loop, a hung request that times out, realtime
// storms that cannot postpone a pull, the 60 s safety pull and the pull on tab focus, a
// restart after sign-out in the same tab, and tabs that follow the leader. Devices run against the devstack; where a schedule spans seconds
// or minutes, the engine's clock is a ManualClock and time moves only when a test says.
import { describe, expect, it } from 'vitest';

import { SyncError } from '../../sync/errors';
import type { TabChannel, TabMessage } from '../../sync/tabs';
import { deviceSuite } from '../support/device-suite';
import { SEED, type TestDevstack } from '../support/devstack';
import { cuttableWebSocket, FaultyNetwork } from '../support/faults';
import { ManualClock } from '../support/manual-clock';
import {
  clientFor,
  liveRows,
  settled,
  signIn,
  waitFor,
  type Device,
  type DeviceOptions,
} from '../support/sync-client';

let stack: TestDevstack;
const { device } = deviceSuite((started) => (stack = started));
const PUSH = /\/rpc\/sync_push$/;
const PULL_PATH = '/rest/v1/rpc/sync_pull';
const TOKEN_PATH = '/auth/v1/token';

/** syncNow on a device whose engine runs on `clock`: its timers only fire as time moves. */
async function syncOn(d: Device, clock: ManualClock) {
  const done = d.sync.engine.syncNow();
  await clock.fireDue();
  return done;
}

async function serverTitle(id: string): Promise<string | undefined> {
  const { rows } = await stack.db.query<{ title: string }>(
    'select title from public.tasks where id = $1',
    [id],
  );
  return rows[0]?.title;
}

describe('backoff and sessions', () => {
  it('backs off on a failing server: edits made meanwhile do not cut the backoff short', async () => {
    const clock = new ManualClock();
    const net = new FaultyNetwork();
    // Jitter near its top, so the delays are ~1, 2, 4, 8 s.
    const alice = await device('alice@example.com', {
      fetch: net.fetch,
      clock,
      random: () => 0.999,
    });
    await syncOn(alice, clock);
    net.chaos(1, () => 0, ['status-503'], PUSH);
    const task = SEED.task(15);
    let n = 0;
    // 10 s of typing: an edit every 100 ms, each one a new write to push.
    await clock.advance(10_000, 100, async () => {
      await alice.sync.repos.tasks.update(task, { title: `Edit ${++n}` });
    });
    const attempts = net.fired.get('status-503') ?? 0;
    // ~0, 1, 3, 7 s: four tries in ten seconds, not one per edit (there were 100).
    expect(attempts).toBeGreaterThanOrEqual(3);
    expect(attempts).toBeLessThanOrEqual(5);
    expect(alice.sync.engine.status.getSnapshot()).toMatchObject({ phase: 'backing-off' });
    expect(alice.sync.engine.status.getSnapshot().lastError?.code).toBe('SERVER_ERROR');

    // The server recovers: the next retry (due within the current 8 s cap) sends everything.
    net.heal();
    await clock.advance(10_000, 250);
    await waitFor(async () => (await serverTitle(task)) === `Edit ${n}`);
    expect(await alice.sync.pendingCount()).toBe(0);
    expect(alice.sync.engine.status.getSnapshot().phase).toBe('synced');
  });

  it('a 401 a refresh does not cure ends in "signed out" with the edits kept, not in a loop', async () => {
    const clock = new ManualClock();
    const net = new FaultyNetwork();
    const alice = await device('alice@example.com', { fetch: net.fetch, clock });
    await syncOn(alice, clock);
    net.chaos(1, () => 0, ['expire-token'], PUSH);
    const refreshesBefore = net.count(TOKEN_PATH);
    const task = SEED.task(16);
    let n = 0;
    await clock.advance(10_000, 100, async () => {
      await alice.sync.repos.tasks.update(task, { title: `Offline-ish ${++n}` });
    });
    expect(alice.sync.engine.status.getSnapshot().phase).toBe('signed-out');
    expect(alice.sync.engine.status.getSnapshot().lastError?.code).toBe('AUTH_EXPIRED');
    // One refresh (it works, but the server still says 401), one retry, then quiet.
    expect(net.count(TOKEN_PATH) - refreshesBefore).toBe(1);
    expect(net.fired.get('expire-token')).toBe(2);
    expect(await alice.sync.pendingCount()).toBeGreaterThan(0);

    // Signing in again sends what waited.
    net.heal();
    await signIn(alice.supabase, 'alice@example.com');
    await clock.advance(1_000, 100);
    await waitFor(async () => (await serverTitle(task)) === `Offline-ish ${n}`);
    expect(await alice.sync.pendingCount()).toBe(0);
  });

  it('a refresh that fails on the network backs off and tries again, instead of signing out', async () => {
    const clock = new ManualClock();
    const net = new FaultyNetwork();
    let refreshes = 0;
    const alice = await device('alice@example.com', {
      fetch: net.fetch,
      clock,
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
    await syncOn(alice, clock);
    net.script(PUSH, 'expire-token', 'expire-token');
    await alice.sync.repos.tasks.update(SEED.task(17), { title: 'After a flaky refresh' });
    await clock.advance(100, 50);
    expect(alice.sync.engine.status.getSnapshot().phase).toBe('backing-off');
    expect(refreshes).toBe(1);

    await clock.advance(3_000, 100);
    await waitFor(async () => (await serverTitle(SEED.task(17))) === 'After a flaky refresh');
    expect(refreshes).toBe(2);
    expect(alice.sync.engine.status.getSnapshot().phase).toBe('synced');
  });

  it('abandons a hung request after its timeout and retries it', async () => {
    const net = new FaultyNetwork();
    const alice = await device('alice@example.com', { fetch: net.fetch, requestTimeoutMs: 300 });
    await alice.sync.engine.syncNow();
    net.script(PUSH, 'hang');
    await alice.sync.repos.tasks.update(SEED.task(18), { title: 'Sent after a hang' });
    await settled(alice, 10_000);
    expect(net.fired.get('hang')).toBe(1);
    expect(await serverTitle(SEED.task(18))).toBe('Sent after a hang');
  });

  it('gives up on a request that ignores its abort, and retries it', async () => {
    const net = new FaultyNetwork();
    const alice = await device('alice@example.com', { fetch: net.fetch, requestTimeoutMs: 300 });
    await alice.sync.engine.syncNow();
    net.script(PUSH, 'stall');
    await alice.sync.repos.tasks.update(SEED.task(18), { title: 'Sent after a stall' });
    await settled(alice, 10_000);
    expect(net.fired.get('stall')).toBe(1);
    expect(await serverTitle(SEED.task(18))).toBe('Sent after a stall');
  });

  it('gives up on an upload that stalls, and uploads the file again', async () => {
    const net = new FaultyNetwork();
    const alice = await device('alice@example.com', { fetch: net.fetch, requestTimeoutMs: 300 });
    await alice.sync.engine.syncNow();
    net.script(/\/storage\/v1\/object\//, 'stall');
    const png = new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 4, 5, 6])], {
      type: 'image/png',
    });
    const id = await alice.sync.repos.attachments.add(SEED.task(6), png, 'stalled.png');
    await settled(alice, 15_000);
    expect(net.fired.get('stall')).toBe(1);
    const { rows } = await stack.db.query('select 1 from public.attachments where id = $1', [id]);
    expect(rows).toHaveLength(1);
    expect((await alice.sync.db._files.get(id))?.state).toBe('uploaded');
  });

  it('syncs again after a sign-out and a sign-in in the same tab (no reload)', async () => {
    const alice = await device('alice@example.com');
    await alice.sync.engine.syncNow();
    expect(await alice.sync.signOut({ force: true })).toMatchObject({ signedOut: true });
    expect(await alice.sync.db.rows('tasks').count()).toBe(0);

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

describe('realtime wake-ups', () => {
  it('a steady stream of realtime events cannot postpone the pull', async () => {
    const clock = new ManualClock();
    const net = new FaultyNetwork();
    let poke: () => void = () => undefined;
    const alice = await device('alice@example.com', {
      fetch: net.fetch,
      clock,
      wrapRemote: (real) => ({
        ...real,
        subscribe(tables, onChange) {
          poke = onChange;
          return real.subscribe(tables, () => undefined);
        },
      }),
    });
    await syncOn(alice, clock);
    const before = net.count(PULL_PATH);
    // An event every 50 ms for two seconds (a busy list).
    await clock.advance(2_000, 50, () => poke());
    expect(net.count(PULL_PATH) - before).toBeGreaterThanOrEqual(5);
  });

  it('pulls what changed while the realtime socket was down as soon as it is back', async () => {
    const sockets = cuttableWebSocket();
    const bobClient = clientFor(stack, undefined, sockets.transport);
    await signIn(bobClient, 'bob@example.com');
    const alice = await device('alice@example.com');
    const bob = await device('bob@example.com', { supabase: bobClient });
    await Promise.all([alice.sync.engine.syncNow(), bob.sync.engine.syncNow()]);
    await new Promise((resolve) => setTimeout(resolve, 300)); // bob's channel joins

    expect(sockets.cut()).toBeGreaterThanOrEqual(1);
    // Changed while bob cannot hear about it: no event will ever say so.
    await alice.sync.repos.tasks.update(SEED.task(19), { title: 'Missed by the socket' });
    await settled(alice);
    // Well before the 60 s safety pull: the rejoin itself asks for a pull.
    await waitFor(
      async () =>
        (await bob.sync.db.rows('tasks').get(SEED.task(19)))?.title === 'Missed by the socket',
      8_000,
    );
  });
});

describe('pulls nobody asked for', () => {
  /** Realtime off: its (re)subscription asks for pulls of its own. */
  const noRealtime: DeviceOptions['wrapRemote'] = (real) => ({
    ...real,
    subscribe: () => () => undefined,
  });

  it('pulls every 60 s while online (not sooner), and not while offline', async () => {
    const clock = new ManualClock();
    const net = new FaultyNetwork();
    const alice = await device('alice@example.com', {
      fetch: net.fetch,
      clock,
      wrapRemote: noRealtime,
    });
    await syncOn(alice, clock);
    const first = net.count(PULL_PATH);
    await clock.advance(59_000, 1_000);
    expect(net.count(PULL_PATH)).toBe(first);

    // Changed on the server, with no event to say so: the safety pull finds it.
    await stack.db.query(
      `update public.tasks set title = 'Found by the safety pull' where id = $1`,
      [SEED.task(21)],
    );
    await clock.advance(1_000, 1_000);
    await waitFor(() => net.count(PULL_PATH) === first + 1);
    await waitFor(
      async () =>
        (await alice.sync.db.rows('tasks').get(SEED.task(21)))?.title ===
        'Found by the safety pull',
    );
    // The next safety pull is set when the cycle ends, 60 s from then: let it end first.
    await waitFor(() => alice.sync.engine.status.getSnapshot().lastSyncedAt === clock.now());
    await clock.advance(60_000, 1_000);
    await waitFor(() => net.count(PULL_PATH) === first + 2);

    alice.online.set(false);
    await clock.advance(180_000, 5_000);
    expect(net.count(PULL_PATH)).toBe(first + 2);
  });

  it('pulls when the tab comes back into focus', async () => {
    const clock = new ManualClock();
    const net = new FaultyNetwork();
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
    await syncOn(alice, clock);
    const before = net.count(PULL_PATH);
    await stack.db.query(`update public.tasks set title = 'Seen on focus' where id = $1`, [
      SEED.task(22),
    ]);
    // No time passes: only the focus can cause this pull (the safety pull is 60 s away).
    focus();
    await clock.fireDue();
    await waitFor(() => net.count(PULL_PATH) === before + 1);
    await waitFor(
      async () => (await alice.sync.db.rows('tasks').get(SEED.task(22)))?.title === 'Seen on focus',
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
    // A second tab over the same database that never gets the lock.
    const second = await device(null, {
      supabase: leader.supabase,
      indexedDb: leader.indexedDb,
      tabs: followerEnd,
      leadership: () => () => undefined,
    });

    await waitFor(() => second.sync.engine.status.getSnapshot().phase === 'synced');
    const leaderStatus = leader.sync.engine.status.getSnapshot();
    expect(second.sync.engine.status.getSnapshot().lastSyncedAt).toBe(leaderStatus.lastSyncedAt);

    // The follower writes; the leader sends it; the follower sees the count go back to 0.
    await second.sync.repos.tasks.update(SEED.task(20), { title: 'From the second tab' });
    await waitFor(async () => (await serverTitle(SEED.task(20))) === 'From the second tab');
    await waitFor(() => second.sync.engine.status.getSnapshot().pending === 0);

    // Its Sync now is the leader's sync: one pull more, by the leader, and an answer.
    const pulls = net.count(PULL_PATH);
    const status = await second.sync.engine.syncNow();
    expect(status.phase).toBe('synced');
    expect(net.count(PULL_PATH)).toBeGreaterThan(pulls);
  });
});
