// Scheduling (sync-design.md "When sync runs"): the SyncEngine. It decides which tab syncs and
// what asks for a cycle: the outbox, the network, the session, tab focus, realtime and the
// other tabs. When a cycle runs is cycle-plan.ts's; what it does (the account adopts the
// session's user, push sends the outbox, pull brings the rest, realtime follows the user's
// topics), cycle.ts's. It holds no data of its own: everything it knows is in the Dexie
// database, so a reload, a crash or a new engine over the same database carries on where the
// last one stopped (I1). In a tab that is not the leader it only follows: it shows the
// leader's status and passes requests to it (tabs.ts).
import { liveQuery } from 'dexie';

import { createAccount, type Account } from './account';
import { createCycles } from './cycle';
import * as plan from './cycle-plan';
import type { SyncDatabase } from './db';
import type { Clock, OnlineSignal } from './platform';
import { outboxCounts } from './outbox';
import { createPull } from './pull';
import { createPush } from './push';
import { createRealtime, type Realtime } from './realtime';
import type { RemoteChange } from './apply';
import type { Remote } from './remote';
import { createStatusStore, type StatusStore, type SyncStatus } from './status';
import {
  readSharedStatus,
  sameSharedStatus,
  shareStatus,
  type SharedStatus,
  type TabChannel,
} from './tabs';

export { PERIODIC_SYNC_MS, PUSH_DEBOUNCE_MS } from './cycle-plan';

/** How long a follower tab's syncNow waits for the leader's answer (ms). */
export const FOLLOWER_SYNC_WAIT_MS = 30_000;

/** What a SyncEngine runs over; everything it touches is injected, so tests drive all of it. */
export interface EngineOptions {
  /** The device's database: the outbox it pushes, the tables it pulls into. */
  db: SyncDatabase;
  /** The server (supabaseRemote over the app's supabase-js client). */
  remote: Remote;
  /** Time and timers (realClock; a manual one in schedule tests). */
  clock: Clock;
  /** Whether there is a network, and when that changes. */
  online: OnlineSignal;
  /** Uniform in [0, 1): backoff jitter. */
  random: () => number;
  /** A new unique id (the device's client id, follower request ids). */
  newId: () => string;
  /** The sync contract version the app was built for (APP_OUTDATED above it). */
  schemaVersion: number;
  /** Tab focus, where there is one: a pull on focus. */
  focus?: { subscribe(onFocus: () => void): () => void } | undefined;
  /** How long a delete is held back so Undo can still cancel it (ms; default UNDO_WINDOW_MS). */
  undoWindowMs?: number | undefined;
  /** The other tabs of this device (status to followers, their requests to the leader). */
  tabs?: TabChannel | undefined;
  /**
   * The database was closed under the leading engine, which has stopped: whoever holds
   * leadership for it lets go, or no tab could lead again.
   */
  onDatabaseClosed?: () => void;
  /** Whose device this is (index.ts shares its own); by default one over `db` and `remote`. */
  account?: Account | undefined;
  /** Where the engine keeps its status (lazy-engine.ts made it first); by default its own. */
  status?: StatusStore | undefined;
  /**
   * Whether the engine follows realtime topics (default true). A run in the service worker
   * (background.ts) does not: it pushes, pulls everything and ends.
   */
  realtime?: boolean | undefined;
  /** Hears the server rows that changed the device's copies (pull and realtime). */
  onRemoteChanges?: ((changes: RemoteChange[]) => void) | undefined;
  /**
   * Changes are queued that this cycle could not send (offline, or the network failed):
   * the app registers a one-off Background Sync, so the service worker sends them when the
   * network is back, with the app closed or not.
   */
  requestBackgroundSync?: (() => void) | undefined;
}

/** What the engine follows when it follows no realtime topics: nothing, and never live. */
const NO_REALTIME: Realtime = {
  join: () => undefined,
  followLists: () => Promise.resolve(),
  live: () => false,
  settled: () => Promise.resolve(),
};

/**
 * Runs sync for one device database. `start()` makes it the leader (it pushes, pulls and
 * schedules); `follow()` makes it a follower that mirrors the leader's status over `tabs`.
 * It can be stopped and started again (sign-out, then sign-in in the same tab).
 */
export interface SyncEngine {
  /** The status for the UI: phase, queued changes, last sync, last error. */
  readonly status: StatusStore;
  /**
   * Runs the engine in this tab (the leader): watches the outbox, the network, the session,
   * tab focus and realtime, and syncs at once. A follower becomes the leader.
   */
  start(): void;
  /**
   * Follows the leader tab: shows its status (and this device's queued changes) and sends
   * it sync requests. Does nothing without a tab channel but count the queued changes.
   */
  follow(): void;
  /** Stops every timer and subscription; an in-flight push finishes (and is persisted) first. */
  stop(): Promise<void>;
  /** Asks for a sync as soon as possible: also cuts a backoff short (the user asked). */
  requestSync(): void;
  /**
   * A write in this tab has committed outbox entries (the repositories' onQueued): the
   * leader pushes at once, without waiting to see the outbox change. Writes of other tabs
   * are seen in the outbox.
   */
  queued(): void;
  /**
   * Runs sync now and resolves once push and pull have nothing left (or cannot go on). In a
   * follower tab: once the leader says it is done, or after FOLLOWER_SYNC_WAIT_MS.
   */
  syncNow(): Promise<SyncStatus>;
  /**
   * This app version is outdated for good (a newer one opened the database, or the server
   * speaks a newer contract): the status says APP_OUTDATED (never "synced") and the engine
   * syncs no more.
   */
  retire(): void;
}

/** A SyncEngine over `options`, idle until started or following. */
export function createSyncEngine(options: EngineOptions): SyncEngine {
  const { db, remote, clock, online, random, newId, focus, tabs } = options;
  const status = options.status ?? createStatusStore();
  /** What leave() undoes: the outbox watch and the subscriptions. */
  const unsubscribers: (() => void)[] = [];
  /**
   * Set by queued() until the next batch is read: that read includes every change committed
   * before it, so unsent changes seen in the outbox meanwhile ask for nothing more (one write,
   * one cycle, whichever of the two signals comes first).
   */
  let batchDue = false;
  /** Follower syncNow calls waiting for the leader's answer, by request id. */
  const followerWaiters = new Map<string, () => void>();
  const account = options.account ?? createAccount(db, remote);
  const schedule = plan.newScheduleState(clock, random, () => cycles.run());
  const syncSoon = (delayMs?: number) => plan.syncSoon(schedule, delayMs);
  const realtime =
    options.realtime === false
      ? NO_REALTIME
      : createRealtime(
          db,
          remote,
          syncSoon,
          () => schedule.role.kind === 'leader',
          () => cycles.outdated(),
          options.onRemoteChanges,
        );
  const cycles = createCycles({
    ...options,
    status,
    account,
    pushAll: createPush(options, syncSoon, () => {
      // From here on, what this tab's writes committed is read (see batchDue).
      batchDue = false;
    }),
    pullAll: createPull({ ...options, onDownload: (download) => status.set({ download }) }),
    realtime,
    schedule,
    leave,
  });

  /**
   * Runs the engine in this tab (the leader): watches the outbox, the network, the session,
   * tab focus and realtime, and syncs at once. A follower becomes the leader.
   */
  function start(): void {
    if (schedule.role.kind === 'leader') return;
    leave();
    plan.lead(schedule);
    batchDue = false;
    watchOutbox((unsent) => {
      if (unsent > 0 && !batchDue) plan.pushSoon(schedule);
    });
    unsubscribers.push(
      online.subscribe((isOnline) => {
        if (isOnline) {
          plan.forgetFailures(schedule);
          plan.syncNowEvenIfHeld(schedule);
        } else status.set({ phase: 'offline' });
      }),
      remote.onAuthChange((userId, change) => {
        realtime.join(userId);
        // A new sign-in is a new session, worth a refresh of its own after a 401; a token
        // refresh (our own among them) is not, or a refresh that keeps failing would loop.
        if (change === 'signed-in') cycles.newSession();
        plan.syncNowEvenIfHeld(schedule);
      }),
    );
    if (focus) unsubscribers.push(focus.subscribe(() => plan.syncSoon(schedule)));
    if (tabs) {
      let told: SharedStatus | undefined;
      const tell = (answers?: string) => {
        const shared = shareStatus(status.getSnapshot());
        // Queued-change counts are each tab's own: only the rest is news to the others.
        if (answers === undefined && told && sameSharedStatus(told, shared)) return;
        told = shared;
        tabs.post({ type: 'status', status: shared, answers });
      };
      unsubscribers.push(
        status.subscribe(() => tell()),
        tabs.subscribe((message) => {
          if (message.type === 'hello') tell('');
          // Answered once the requested sync is done, so the asking tab can stop waiting.
          if (message.type === 'sync') void syncNow().then(() => tell(message.id ?? ''));
        }),
      );
      tell();
    }
    plan.syncNowEvenIfHeld(schedule);
  }

  /**
   * Follows the leader tab: shows its status (and this device's queued changes) and sends
   * it sync requests. Does nothing without a tab channel but count the queued changes.
   */
  function follow(): void {
    if (schedule.role.kind !== 'idle') return;
    plan.follow(schedule);
    watchOutbox(() => undefined);
    if (!online.isOnline()) status.set({ phase: 'offline' });
    if (!tabs) return;
    unsubscribers.push(
      tabs.subscribe((message) => {
        if (message.type !== 'status') return;
        status.set(readSharedStatus(message.status));
        if (message.answers) followerWaiters.get(message.answers)?.();
      }),
    );
    tabs.post({ type: 'hello' });
  }

  /** Stops every timer and subscription; an in-flight push finishes (and is persisted) first. */
  async function stop(): Promise<void> {
    leave();
    await schedule.cycle?.done.catch(() => undefined);
    await realtime.settled();
    plan.releaseWaiters(schedule);
    for (const done of [...followerWaiters.values()]) done();
  }

  function queued(): void {
    if (schedule.role.kind !== 'leader') return;
    batchDue = true;
    plan.pushSoon(schedule);
  }

  /** Asks for a sync as soon as possible: also cuts a backoff short (the user asked). */
  function requestSync(): void {
    if (schedule.role.kind === 'follower') tabs?.post({ type: 'sync' });
    else plan.syncNowEvenIfHeld(schedule);
  }

  /**
   * Runs sync now and resolves once push and pull have nothing left (or cannot go on). In a
   * follower tab: once the leader says it is done, or after FOLLOWER_SYNC_WAIT_MS.
   */
  async function syncNow(): Promise<SyncStatus> {
    if (schedule.role.kind === 'follower') {
      if (tabs) {
        const id = newId();
        await new Promise<void>((resolve) => {
          const done = () => {
            clock.clearTimeout(timer);
            followerWaiters.delete(id);
            resolve();
          };
          const timer = clock.setTimeout(done, FOLLOWER_SYNC_WAIT_MS);
          followerWaiters.set(id, done);
          tabs.post({ type: 'sync', id });
        });
      }
      return status.getSnapshot();
    }
    if (schedule.role.kind !== 'leader') return status.getSnapshot();
    const idle = plan.untilIdle(schedule);
    plan.syncNowEvenIfHeld(schedule);
    await idle;
    return status.getSnapshot();
  }

  /** Back to idle: every timer and subscription of either mode goes. */
  function leave(): void {
    plan.leave(schedule);
    realtime.join(null);
    for (const off of unsubscribers.splice(0)) off();
  }

  /**
   * Keeps `pending` current (every tab reads the shared outbox's kept counts) and reports
   * unsent changes.
   */
  function watchOutbox(onUnsent: (unsent: number) => void): void {
    // The counts the outbox keeps (one record): a write costs the same however much is queued.
    const watch = liveQuery(() => outboxCounts(db)).subscribe({
      next: ({ total, unsent }) => {
        status.set({ pending: total });
        onUnsent(unsent);
      },
      error: (error: unknown) => console.error('[sync] outbox watch failed', error),
    });
    unsubscribers.push(() => watch.unsubscribe());
  }

  return {
    status,
    start,
    follow,
    stop,
    requestSync,
    queued,
    syncNow,
    retire: () => cycles.retire(),
  };
}
