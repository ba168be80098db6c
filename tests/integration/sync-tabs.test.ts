// Tabs of one device share one database, and only the tab holding the lock runs the engine.
// These tests open two sync instances over one fake-indexeddb database, with a lock
// that behaves like Web Locks (one holder, waiters granted in request order) and an
// in-memory tab channel: a sign-out in a tab that does not lead, while the leader is in the
// middle of a pull or a push; a tab's writes after another tab signed out; a leader whose database is
// closed under it; and a new version of the app opening the database. The lock and the bus
// tell the tests who holds, who queues, who listens and what was said, so every wait is for
// one of those (or a status), never for a while.
// Before Dexie loads: it looks for a global IndexedDB once, and without one its liveQuery
// (the engine's watch on the outbox) stays silent.
import 'fake-indexeddb/auto';

import Dexie from 'dexie';
import { describe, expect, it } from 'vitest';

import { firstStores, laterStores } from '../../sync/db';
import { LOCAL_USER_ID } from '../../sync/account';
import { OUTPOST_SCHEMA } from '../../src/data/tables';
import type { TabChannel, TabMessage } from '../../sync/tabs';
import { deviceSuite } from '../support/device-suite';
import { SEED, type TestDevstack } from '../support/devstack';
import { FaultyNetwork } from '../../sync/kit/faults';
import { ManualClock } from '../support/manual-clock';
import { clientFor, liveRows, settled, signIn, waitFor } from '../support/sync-client';
import { deviceDb } from '../../sync/testing';

let stack: TestDevstack;
const { device } = deviceSuite((started) => (stack = started));
const PULL = /\/rpc\/sync_pull$/;
const PUSH = /\/rpc\/sync_push$/;

/**
 * A lock with the Web Locks contract: one holder, waiters granted in request order, later.
 * `seat(tab)` is the leadership a tab asks with; `holder()` and `queued()` say where the
 * tabs stand, and `requests()` how many times any asked.
 */
function memoryLock() {
  interface Request {
    onLeader: () => void;
    tab: string;
  }
  const queue: Request[] = [];
  let holder: Request | undefined;
  let requests = 0;
  const grantNext = () => {
    if (holder) return;
    const next = queue.shift();
    if (!next) return;
    holder = next;
    // Granted in a later task, as navigator.locks calls back; not at all if given up since.
    setTimeout(() => {
      if (holder === next) next.onLeader();
    }, 0);
  };
  const leadership = (onLeader: () => void, tab = 'another tab') => {
    const request: Request = { onLeader, tab };
    requests += 1;
    queue.push(request);
    grantNext();
    return () => {
      const waiting = queue.indexOf(request);
      if (waiting >= 0) queue.splice(waiting, 1);
      if (holder === request) {
        holder = undefined;
        grantNext();
      }
    };
  };
  return {
    leadership,
    seat: (tab: string) => (onLeader: () => void) => leadership(onLeader, tab),
    holder: () => holder?.tab,
    queued: () => queue.map((request) => request.tab),
    requests: () => requests,
  };
}

/**
 * `count` ends of an in-memory tab bus: each message reaches every other end, later, as a
 * copy. `listening(end)` counts an end's listeners; `posted` and `heard` log what each end
 * sent and what reached it.
 */
function tabBus(count: number) {
  const listeners = Array.from({ length: count }, () => new Set<(m: TabMessage) => void>());
  const posted = listeners.map((): TabMessage[] => []);
  const heard = listeners.map((): TabMessage[] => []);
  const ends = listeners.map((mine, from): TabChannel => ({
    post(message) {
      const copy = structuredClone(message);
      posted[from]?.push(copy);
      setTimeout(() => {
        listeners.forEach((others, to) => {
          if (others === mine) return;
          heard[to]?.push(copy);
          for (const listener of [...others]) listener(copy);
        });
      }, 0);
    },
    subscribe(onMessage) {
      mine.add(onMessage);
      return () => mine.delete(onMessage);
    },
    close() {
      mine.clear();
    },
  }));
  return {
    ends,
    listening: (end: number) => listeners[end]?.size ?? 0,
    posted: (end: number) => posted[end] ?? [],
    heard: (end: number) => heard[end] ?? [],
  };
}

/** The two tabs' ends of the bus. */
const LEADER = 0;
const SECOND = 1;

/** fetch that, while held, keeps the server's answers to one path from the caller until released. */
class ResponseGate {
  /** Answers waiting at the gate. */
  waiting = 0;
  private gate: Promise<void> | undefined;
  private open: () => void = () => undefined;
  private path = /$^/;

  constructor(private readonly inner: typeof fetch) {}

  /** From now on, answers to `path` wait (the request has reached the server). */
  hold(path: RegExp): void {
    this.path = path;
    this.gate = new Promise((resolve) => (this.open = resolve));
  }

  release(): void {
    this.gate = undefined;
    this.open();
  }

  readonly fetch: typeof fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const response = await this.inner(input, init);
    const gate = this.gate;
    if (gate && this.path.test(new URL(url).pathname)) {
      this.waiting += 1;
      await gate;
    }
    return response;
  };
}

/** Where `work` is: still pending, or what it resolved to. */
function track<T>(work: Promise<T>): { state: 'pending' | { value: T } } {
  const tracked: { state: 'pending' | { value: T } } = { state: 'pending' };
  void work.then((value) => (tracked.state = { value }));
  return tracked;
}

/**
 * Signs the second tab out while the leader's request is held at the gate. The leader hears
 * the sign-out's call to step aside and stops its engine (it stops listening to the other
 * tabs), whose request in flight it waits for: meanwhile it keeps the lock, and the sign-out
 * is still waiting. Then the request goes through, and the sign-out's answer is returned.
 */
async function signOutOnceReleased(
  tabs: Awaited<ReturnType<typeof twoTabs>>,
): Promise<{ signedOut: boolean; pending: number }> {
  const { bus, lock, gate, second } = tabs;
  const signingOut = second.sync.signOut({ force: true });
  const tracked = track(signingOut);
  try {
    await waitFor(() => bus.listening(LEADER) === 1);
    expect(lock.holder()).toBe('leader');
    expect(tracked.state).toBe('pending');
  } finally {
    gate.release(); // else, failing, the leader's engine could never stop, nor its tab close
  }
  return signingOut;
}

/**
 * After the second tab signed out: it holds the lock and its engine has finished a run (it
 * is idle), and the old leader is queued for the lock again, following. No engine is busy
 * in either tab.
 */
async function settledAfterSignOut(tabs: Awaited<ReturnType<typeof twoTabs>>): Promise<void> {
  const { lock, second } = tabs;
  await waitFor(() => lock.holder() === 'second' && lock.queued().includes('leader'));
  await second.sync.engine.syncNow();
}

/**
 * Two tabs of one browser signed in as Alice (one supabase-js client: in a browser the tabs
 * share the session through localStorage): the first leads, the second waits for the lock.
 * With `hold`, the leader's first pull (everything Alice may see) is answered by the server
 * but kept from the engine until `gate.release()`. With `deafLeader`, the leader hears no
 * other tab (an older version of the app); `clock` is the second tab's.
 */
async function twoTabs(
  options: { hold?: boolean; deafLeader?: boolean; clock?: ManualClock } = {},
) {
  const lock = memoryLock();
  const bus = tabBus(2);
  const [leaderEnd, secondEnd] = bus.ends as [TabChannel, TabChannel];
  const net = new FaultyNetwork();
  const gate = new ResponseGate(net.fetch);
  const supabase = clientFor(stack, gate.fetch);
  await signIn(supabase, 'alice@example.com');
  if (options.hold) gate.hold(PULL);
  const leader = await device(null, {
    supabase,
    dbName: 'tabs',
    ...(options.deafLeader ? {} : { tabs: leaderEnd }),
    leadership: lock.seat('leader'),
  });
  if (options.hold) await waitFor(() => gate.waiting > 0);
  else await waitFor(() => leader.sync.engine.status.getSnapshot().phase === 'synced');
  const second = await device(null, {
    supabase,
    dbName: 'tabs',
    indexedDb: leader.indexedDb,
    tabs: secondEnd,
    leadership: lock.seat('second'),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  return { lock, bus, net, gate, supabase, leader, second };
}

/** A list of Alice's that Bob is not a member of, made on another device of hers. */
async function alicesOwnList(): Promise<string> {
  const elsewhere = await device('alice@example.com');
  const id = await elsewhere.sync.repos.lists.create({ name: 'Alice only', color: 'red' });
  await settled(elsewhere);
  return id;
}

describe('sign-out in one tab', () => {
  it("stops the leader in another tab first: none of the old user's rows stay, for the next user either", async () => {
    const ownList = await alicesOwnList();
    const tabs = await twoTabs({ hold: true });
    const { supabase, leader, second } = tabs;

    // The second tab signs out while the leader's pull of Alice's data is on its way back.
    // It waits: the leader's pull is still to be applied, and the wipe must come after it.
    expect(await signOutOnceReleased(tabs)).toEqual({ signedOut: true, pending: 0 });
    // Both tabs show the signed-out engine, and neither engine is busy any more (the old
    // leader has had its say by then).
    for (const tab of [leader, second]) {
      await waitFor(() => tab.sync.engine.status.getSnapshot().phase === 'signed-out');
    }
    await settledAfterSignOut(tabs);

    const db = deviceDb(second.sync);
    expect(await db.rows('lists').get(ownList)).toBeUndefined();
    expect(await db.rows('tasks').count()).toBe(0);
    expect(await db.rows('lists').count()).toBe(0);
    // Nor where Alice's pull had got to: the next account pulls from the start.
    expect(await db.getMeta('cursor')).toBeUndefined();
    expect(await db.getMeta('userId')).toBeUndefined();

    // Bob signs in on this browser: he gets his lists, and never Alice's own.
    await signIn(supabase, 'bob@example.com');
    await waitFor(async () => (await db.rows('lists').get(SEED.list)) !== undefined);
    await waitFor(async () => (await db.rows('tasks').count()) >= 30);
    expect(await db.rows('lists').get(ownList)).toBeUndefined();
    expect((await liveRows(second, 'lists')).map((list) => list.id)).toEqual([SEED.list]);
  });

  it("waits for the leader's push in flight, and wipes what it acknowledged", async () => {
    const tabs = await twoTabs();
    const { gate, leader, second } = tabs;
    gate.hold(PUSH);
    await leader.sync.repos.tasks.update(SEED.task(21), { title: 'Sent just before sign-out' });
    await waitFor(() => gate.waiting > 0);

    expect(await signOutOnceReleased(tabs)).toEqual({ signedOut: true, pending: 1 });
    // The change reached the server; the device kept nothing of it, nor of anything else.
    await waitFor(() => leader.sync.engine.status.getSnapshot().phase === 'signed-out');
    await settledAfterSignOut(tabs);
    const { rows } = await stack.db.query<{ title: string }>(
      'select title from public.tasks where id = $1',
      [SEED.task(21)],
    );
    expect(rows[0]?.title).toBe('Sent just before sign-out');
    expect(await deviceDb(second.sync).rows('tasks').count()).toBe(0);
    expect(await deviceDb(second.sync).rows('lists').count()).toBe(0);
    expect(await deviceDb(second.sync).getMeta('cursor')).toBeUndefined();
  });

  it('gives up with TIMEOUT and wipes nothing when the leading tab never lets go', async () => {
    const clock = new ManualClock();
    const { bus, net, supabase, leader, second } = await twoTabs({ deafLeader: true, clock });
    const outcome = track(second.sync.signOut({ force: true }).catch((error: unknown) => error));
    // It has counted the outbox and asked for the lock (nobody hears its call to step aside).
    await waitFor(() => bus.posted(SECOND).some((message) => message.type === 'yield'));
    // The lock's wait (SIGN_OUT_LOCK_WAIT_MS, 90 s): still waiting just before it is up.
    const askedAt = clock.now();
    await clock.runTo(askedAt + 90_000 - 1, { quiet: net.idle });
    expect(outcome.state).toBe('pending');
    await clock.runTo(askedAt + 90_000, { quiet: net.idle });
    await waitFor(() => outcome.state !== 'pending');
    expect(outcome.state).toMatchObject({ value: { code: 'TIMEOUT' } });
    // Still Alice's device, still signed in: nothing happened.
    expect((await supabase.auth.getSession()).data.session?.user.id).toBe(SEED.alice);
    expect(await deviceDb(second.sync).rows('tasks').count()).toBeGreaterThanOrEqual(30);
    expect(await deviceDb(second.sync).getMeta('userId')).toBe(SEED.alice);
    // Once that tab closes, this one leads as usual (no time needs to pass).
    await leader.sync.stop();
    await clock.until(() => second.sync.engine.status.getSnapshot().phase === 'synced', {
      quiet: net.idle,
      maxAdvanceMs: 0,
    });
  });

  it("makes the other tabs' next writes local-only, claimed by whoever signs in next", async () => {
    const { bus, supabase, leader, second } = await twoTabs();
    expect(await second.sync.signOut({ force: true })).toMatchObject({ signedOut: true });
    await waitFor(() => leader.sync.engine.status.getSnapshot().phase === 'signed-out');
    // The tab has heard that the device belongs to nobody now.
    await waitFor(() => bus.heard(LEADER).some((message) => message.type === 'wiped'));

    // The tab that led until the sign-out writes: not as Alice any more.
    const listId = await leader.sync.repos.lists.create({ name: 'After sign-out', color: 'teal' });
    expect((await deviceDb(leader.sync).rows('lists').get(listId))?.created_by).toBe(LOCAL_USER_ID);

    await signIn(supabase, 'bob@example.com');
    await waitFor(async () => {
      const { rows } = await stack.db.query<{ created_by: string }>(
        'select created_by from public.lists where id = $1',
        [listId],
      );
      return rows[0]?.created_by === SEED.bob;
    });
  });
});

describe('leadership when the database goes away', () => {
  it('a leader whose database is closed under it lets another tab lead', async () => {
    const { gate, leader, second } = await twoTabs({ hold: true });
    // The leader tab's database closes while its pull is on the way (the tab is going away).
    deviceDb(leader.sync).close();
    gate.release();
    // The other tab gets the lock and syncs; the closed one shows that, not its own stopped sync.
    await waitFor(() => second.sync.engine.status.getSnapshot().phase === 'synced');
    await waitFor(async () => (await deviceDb(second.sync).rows('tasks').count()) >= 30);
    await waitFor(() => leader.sync.engine.status.getSnapshot().phase === 'synced');
  });

  it('a newer version of the app opening the database takes over: the old tabs say "Update available"', async () => {
    const { lock, leader, second } = await twoTabs();
    // A tab of the next deploy: its database schema is one version on, and it wants the lock.
    const newer = new Dexie('tabs', leader.indexedDb);
    const versions = [[1, firstStores(OUTPOST_SCHEMA)] as const, ...laterStores(OUTPOST_SCHEMA)];
    for (const [version, stores] of versions) newer.version(version).stores(stores);
    const current = versions.at(-1)?.[0] ?? 1;
    newer.version(current + 1).stores({ _rejections: '++id, at, listId, table' });
    await newer.open();
    let newerLeads = false;
    const resign = lock.leadership(() => (newerLeads = true), 'newer');
    try {
      await waitFor(() => newerLeads);
      for (const tab of [leader, second]) {
        await waitFor(
          () => tab.sync.engine.status.getSnapshot().lastError?.code === 'APP_OUTDATED',
        );
      }
      // The old tabs stay out of the way: they never take the lock back (neither queues for
      // it, so it is free once the new tab lets go).
      expect(lock.queued()).toEqual([]);
      const requests = lock.requests();
      resign();
      expect(lock.holder()).toBeUndefined();
      for (const tab of [leader, second]) {
        const { phase, lastError } = tab.sync.engine.status.getSnapshot();
        expect(lastError?.code).toBe('APP_OUTDATED');
        // Outdated is never "synced", as when the server speaks a newer contract.
        expect(phase).toBe('backing-off');
      }
      let again = false;
      const resignAgain = lock.leadership(() => (again = true));
      await waitFor(() => again);
      resignAgain();
      expect(lock.requests()).toBe(requests + 1);
    } finally {
      newer.close();
    }
  });
});
