// The sync engine (sync-design.md "Push", "Pull", "When sync runs"): replays the outbox to
// sync_push in seq order, applies sync_pull pages, and decides when to do either. It holds
// no data of its own: everything it knows is in the Dexie database, so a reload, a crash or
// a new engine over the same database carries on where the last one stopped (I1).
// In a tab that is not the leader it only follows: it shows the leader's status and passes
// requests to it (tabs.ts).
import { liveQuery } from 'dexie';

import {
  applyServerRow,
  applyServerRows,
  dropUnsharedProfiles,
  listIdOf,
  markDelivered,
  purgeList,
  rejectionOf,
  sweepUndelivered,
  unhideChildren,
  type ServerRow,
} from './apply';
import { backoffDelayMs } from './backoff';
import { isDexieError, type SyncDatabase } from './db';
import {
  BATCH_TOO_LARGE_SQLSTATE,
  codeForSqlState,
  isSyncError,
  SyncError,
  type SyncErrorCode,
} from './errors';
import type { OutboxEntry } from './registry';
import type { PushResult, Remote, RowMessage, WireMutation } from './remote';
import { UNDO_WINDOW_MS } from './repositories';
import { createStatusStore, type StatusStore, type SyncStatus } from './status';
import {
  readSharedStatus,
  sameSharedStatus,
  shareStatus,
  type SharedStatus,
  type TabChannel,
} from './tabs';

/** Most mutations in one sync_push (product.md §9). */
export const PUSH_BATCH_MAX = 500;
/** Largest sync_push batch (bytes as the server measures it, product.md §9), a little under 1 MiB. */
export const PUSH_BATCH_MAX_BYTES = 1024 * 1024 - 4096;
/** Rows per sync_pull page (product.md §9). */
export const PULL_PAGE_ROWS = 1000;
/** Realtime channels (re)joining in a burst cause one pull after this (ms). */
export const REALTIME_DEBOUNCE_MS = 100;
/**
 * A local write is pushed at once, unless another landed less than this long before it (ms):
 * then it waits this long, so the rest of a burst goes in one request.
 */
export const PUSH_DEBOUNCE_MS = 30;
/** Safety pull while online (ms). */
export const PERIODIC_SYNC_MS = 60_000;
/** How long a follower tab's syncNow waits for the leader's answer (ms). */
export const FOLLOWER_SYNC_WAIT_MS = 30_000;
/** `_meta` key: a pull changed memberships, so profiles are checked when it completes. */
const PROFILES_TO_CHECK = 'profilesToCheck';
/**
 * `_meta` key: the server's schema_version, kept once it is newer than the app's, so no
 * engine of this app version (after a reload, or in another tab) pushes again.
 */
const SERVER_SCHEMA_VERSION = 'serverSchemaVersion';
/** Bucket of attachment objects. */
export const ATTACHMENTS_BUCKET = 'attachments';
/** Tables whose delete deletes attachments on the server (their own, or a cascade's). */
const FILE_DELETING_TABLES: ReadonlySet<string> = new Set(['attachments', 'tasks', 'lists']);

/** The user id local-only rows carry until their owner signs in and claims them. */
export const LOCAL_USER_ID = '00000000-0000-0000-0000-000000000000';

/** Time and timers, injectable so tests can run the schedule without waiting. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `fn` after `ms`; returns a handle for clearTimeout. */
  setTimeout(fn: () => void, ms: number): unknown;
  /** Cancels a timer set by setTimeout (a spent or unknown handle is ignored). */
  clearTimeout(handle: unknown): void;
}

/** Whether the device has a network, and when that changes (injectable for tests). */
export interface OnlineSignal {
  /** The current state. */
  isOnline(): boolean;
  /** Calls back on every change; returns unsubscribe. */
  subscribe(onChange: (online: boolean) => void): () => void;
}

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
}

/** The browser's own clock and timers. */
export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
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
  const { db, remote, clock, online, random, newId, schemaVersion, focus, tabs } = options;
  const undoWindowMs = options.undoWindowMs ?? UNDO_WINDOW_MS;
  const status = createStatusStore();
  let mode: 'idle' | 'leader' | 'follower' = 'idle';
  let running: Promise<void> | undefined;
  /** Another cycle is due once the running one ends (forced: even while parked). */
  let again = false;
  let againForced = false;
  /** Set while backing off or signed out: only a forcing wake runs the engine. */
  let parked: 'backoff' | 'signed-out' | null = null;
  let attempt = 0;
  let retryTimer: unknown;
  let wakeTimer: unknown;
  /** When the pending wakeTimer fires: a later wake never postpones an earlier one. */
  let wakeDueAt: number | null = null;
  let periodicTimer: unknown;
  let refreshedSinceSuccess = false;
  /** Set once the server is known to speak a newer sync contract (APP_OUTDATED): for good. */
  let outdated: SyncError | null = null;
  /**
   * Batch size to send; halved after the server refuses a batch as too large, and kept so
   * for the engine's life: growing back would only find the same limit again, one refused
   * batch and one backoff at a time.
   */
  let batchMax = PUSH_BATCH_MAX;
  /** What leave() undoes: the outbox watch and the subscriptions. */
  const unsubscribers: (() => void)[] = [];
  let realtimeOff: (() => void) | undefined;
  /** The realtime topics joined, each with its leave. */
  const topics = new Map<string, () => void>();
  /** Topics subscribed and not lost since: while all are, realtime brings others' changes. */
  const liveTopics = new Set<string>();
  /**
   * A pull was asked for (start, a sign-in, the network back, focus, realtime news, the
   * safety schedule, a retry, the user) and has not started since. A cycle woken only by
   * local writes pushes without pulling while every topic is live: the push's answer carries
   * the rows it changed, and realtime the rest (a topic lost and joined again asks for a pull).
   */
  let pullDue = true;
  /** Realtime row messages are applied one at a time, in the order they came. */
  let applying: Promise<void> = Promise.resolve();
  /** The user whose realtime topics are joined. */
  let realtimeUserId: string | null = null;
  const idleWaiters: (() => void)[] = [];
  /**
   * Set by queued() until the next batch is read: that read includes every change committed
   * before it, so unsent changes seen in the outbox meanwhile wake nothing more (one write,
   * one cycle, whichever of the two signals comes first).
   */
  let batchDue = false;
  let lastWriteAt = -Infinity;
  /** Follower syncNow calls waiting for the leader's answer, by request id. */
  const followerWaiters = new Map<string, () => void>();

  /**
   * Runs the engine in this tab (the leader): watches the outbox, the network, the session,
   * tab focus and realtime, and syncs at once. A follower becomes the leader.
   */
  function start(): void {
    if (mode === 'leader') return;
    leave();
    mode = 'leader';
    batchDue = false;
    watchOutbox((unsent) => {
      if (unsent > 0 && !batchDue) written();
    });
    unsubscribers.push(
      online.subscribe((isOnline) => {
        if (isOnline) {
          attempt = 0;
          force();
        } else status.set({ phase: 'offline' });
      }),
      remote.onAuthChange((userId, change) => {
        if (userId !== realtimeUserId) resubscribe(userId);
        // A new sign-in is a new session, worth a refresh of its own after a 401; a token
        // refresh (our own among them) is not, or a refresh that keeps failing would loop.
        if (change === 'signed-in') refreshedSinceSuccess = false;
        force();
      }),
    );
    if (focus) unsubscribers.push(focus.subscribe(() => wake()));
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
    force();
  }

  /**
   * Follows the leader tab: shows its status (and this device's queued changes) and sends
   * it sync requests. Does nothing without a tab channel but count the queued changes.
   */
  function follow(): void {
    if (mode !== 'idle') return;
    mode = 'follower';
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
    await running?.catch(() => undefined);
    await applying;
    for (const resolve of idleWaiters.splice(0)) resolve();
    for (const done of [...followerWaiters.values()]) done();
  }

  function queued(): void {
    if (mode !== 'leader') return;
    batchDue = true;
    written();
  }

  /**
   * New changes to push: at once for a lone write, PUSH_DEBOUNCE_MS later within a burst
   * (typing), so a burst goes in few requests. A burst is writes less than PUSH_DEBOUNCE_MS
   * apart while the engine is still busy or about to run: once everything before is sent and
   * the engine is idle, there is nothing for a write to wait for.
   */
  function written(): void {
    const now = clock.now();
    const busy = running !== undefined || wakeDueAt !== null;
    const burst = busy && now - lastWriteAt < PUSH_DEBOUNCE_MS;
    schedule(burst ? PUSH_DEBOUNCE_MS : 0, false, false);
    lastWriteAt = now;
  }

  /** Asks for a sync as soon as possible: also cuts a backoff short (the user asked). */
  function requestSync(): void {
    if (mode === 'follower') tabs?.post({ type: 'sync' });
    else force();
  }

  /**
   * Runs sync now and resolves once push and pull have nothing left (or cannot go on). In a
   * follower tab: once the leader says it is done, or after FOLLOWER_SYNC_WAIT_MS.
   */
  async function syncNow(): Promise<SyncStatus> {
    if (mode === 'follower') {
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
    if (mode !== 'leader') return status.getSnapshot();
    const idle = new Promise<void>((resolve) => idleWaiters.push(resolve));
    force();
    await idle;
    return status.getSnapshot();
  }

  /** Back to idle: every timer and subscription of either mode goes. */
  function leave(): void {
    mode = 'idle';
    clock.clearTimeout(retryTimer);
    clock.clearTimeout(wakeTimer);
    clock.clearTimeout(periodicTimer);
    wakeDueAt = null;
    parked = null;
    again = false;
    againForced = false;
    realtimeOff?.();
    realtimeOff = undefined;
    realtimeUserId = null;
    for (const off of unsubscribers.splice(0)) off();
  }

  /** Keeps `pending` current (every tab counts the shared outbox) and reports unsent changes. */
  function watchOutbox(onUnsent: (unsent: number) => void): void {
    // Both counts in one transaction: every read here queues ahead of the next push's.
    const watch = liveQuery(() =>
      db.transaction('r', db._outbox, () =>
        Promise.all([db._outbox.count(), db._outbox.where('sent').equals(0).count()]),
      ),
    ).subscribe({
      next: ([pending, unsent]) => {
        status.set({ pending });
        onUnsent(unsent);
      },
      error: (error: unknown) => console.error('[sync] outbox watch failed', error),
    });
    unsubscribers.push(() => watch.unsubscribe());
  }

  /**
   * Runs the engine after `delayMs`, unless it is parked (backing off after errors, or signed
   * out): a new write, a realtime event, tab focus or the periodic pull must not cut a backoff
   * short, or a failing server gets a request for every keystroke.
   */
  function wake(delayMs = 0): void {
    schedule(delayMs, false);
  }

  /**
   * Runs the engine now, parked or not: the user asked, the network or a session came back,
   * or a retry is due.
   */
  function force(): void {
    schedule(0, true);
  }

  function schedule(delayMs: number, forcing: boolean, pulling = true): void {
    if (mode !== 'leader') return;
    if (pulling) pullDue = true;
    if (parked && !forcing) return;
    if (forcing) {
      parked = null;
      clock.clearTimeout(retryTimer);
    }
    if (running && delayMs === 0) {
      // Once the running cycle ends, another one (see kick).
      again = true;
      if (forcing) againForced = true;
      return;
    }
    const dueAt = clock.now() + delayMs;
    if (wakeDueAt !== null && wakeDueAt <= dueAt) return;
    clock.clearTimeout(wakeTimer);
    wakeDueAt = dueAt;
    wakeTimer = clock.setTimeout(() => {
      wakeDueAt = null;
      kick();
    }, delayMs);
  }

  function kick(): void {
    if (mode !== 'leader') return;
    if (running) {
      again = true;
      return;
    }
    running = cycleSafely().finally(() => {
      running = undefined;
      const forced = againForced;
      const next = again && (forced || parked === null);
      again = false;
      againForced = false;
      if (next && mode === 'leader') {
        if (forced) parked = null;
        kick();
      } else {
        for (const resolve of idleWaiters.splice(0)) resolve();
      }
    });
  }

  /**
   * cycle handles its own failures; anything still thrown (a status listener failing) is
   * logged here, never left to reject `running` with no one to hear it.
   */
  async function cycleSafely(): Promise<void> {
    try {
      await cycle();
    } catch (error) {
      console.error('[sync] cycle failed', error);
    }
  }

  /** Every topic followed is subscribed and has not been lost since. */
  function realtimeLive(): boolean {
    return topics.size > 0 && [...topics.keys()].every((topic) => liveTopics.has(topic));
  }

  function resubscribe(userId: string | null): void {
    realtimeUserId = userId;
    realtimeOff?.();
    realtimeOff = undefined;
    if (!userId) return;
    realtimeOff = () => joinTopics(new Set());
    joinTopics(new Set([`user:${userId}`]));
    followLists(userId).catch(() => undefined);
  }

  /**
   * Joins the topics of `wanted` not joined yet and leaves the others. Each
   * (re)join wakes a pull: what was broadcast while the channel was down is lost to it.
   */
  function joinTopics(wanted: ReadonlySet<string>): void {
    for (const [topic, leaveTopic] of topics) {
      if (wanted.has(topic)) continue;
      leaveTopic();
      topics.delete(topic);
      liveTopics.delete(topic);
    }
    for (const topic of wanted) {
      if (topics.has(topic)) continue;
      topics.set(
        topic,
        remote.subscribeTopic(topic, {
          onSubscribed: () => {
            liveTopics.add(topic);
            wake(REALTIME_DEBOUNCE_MS);
          },
          onLost: () => liveTopics.delete(topic),
          onRow: (message) => {
            const userId = realtimeUserId;
            applying = applying.then(() => applyRealtimeRow(message, topic, userId));
          },
        }),
      );
    }
  }

  /**
   * Listens to `user:<me>` and to `list:<id>:<epoch>` of every list the device holds a live
   * membership of for `userId` (one the server has: not a stand-in of a list made offline,
   * which no one may join yet), at the epoch of the list's row here (the server moves a list
   * to the next epoch when a member leaves or is removed, and tells those who stay on their
   * own topic). Runs at sign-in, after every sync and after a list's row arrives by realtime,
   * so lists gained are joined, lists lost (revoked, deleted, purged) left, and a new epoch
   * replaces the old.
   */
  async function followLists(userId: string): Promise<void> {
    const wanted = new Set([`user:${userId}`]);
    const live: string[] = [];
    await db
      .rows('memberships')
      .where('user_id')
      .equals(userId)
      .each((m) => {
        if (!m.deleted_at && m._v > 0) live.push(String(m.list_id));
      });
    for (const list of await db.rows('lists').bulkGet(live)) {
      if (list) wanted.add(`list:${list.id}:${Number(list.realtime_epoch) || 0}`);
    }
    if (realtimeUserId === userId && mode === 'leader') joinTopics(wanted);
  }

  /**
   * One realtime row message of `topic`, in one transaction. Applied only when newer than
   * the device's copy, with the fields still queued here laid back on top, exactly as a pull
   * applies it (applyServerRows); the cursor never moves, so the next pull still delivers
   * everything from where the last one stopped. A membership changes what the device may see
   * (a list to backfill or to purge): that is left to a pull, at once. A list's row (on its
   * topic, or on `user:<me>` when the list moved to a new epoch) is followed by a look at the
   * topics. A version more than one above the device's copy means an update was missed:
   * applied, and a pull fetches the rest. Ignored: tables not in the registry, rows of
   * another list than the topic's, rows of a list the device holds no live membership of (a
   * message queued behind the purge must not bring the list back), and messages for a store
   * that is no longer this user's.
   */
  async function applyRealtimeRow(
    { table, row }: RowMessage,
    topic: string,
    userId: string | null,
  ): Promise<void> {
    const spec = db.registry.find((s) => s.name === table);
    if (!spec || !userId || outdated) return;
    if (table === 'memberships') return wake();
    const listId = listIdOf(spec, row);
    const epochMove = table === 'lists' && topic === `user:${userId}`;
    if (listId && !topic.startsWith(`list:${listId}:`) && !epochMove) return;
    try {
      const gap = await db.transaction(
        'rw',
        [db.rows(table), db.rows('memberships'), db._outbox, db._files, db._meta],
        async () => {
          if (realtimeUserId !== userId) return false;
          // Read together (one round trip to the store, not three): the store's owner, a
          // resync under way, the membership.
          const [[owner, resync], member] = await Promise.all([
            db._meta.bulkGet(['userId', 'resync']).then((metas) => metas.map((m) => m?.value)),
            listId
              ? db
                  .rows('memberships')
                  .where('[list_id+user_id]')
                  .equals([listId, userId])
                  .filter((m) => !m.deleted_at)
                  .first()
              : true,
          ]);
          if (owner !== userId || !member) return false;
          const [local] = await applyServerRows(db, table, [row]);
          // A resync running: the row is on the server, so its sweep must keep it.
          if (typeof resync === 'number') await markDelivered(db, [{ table, row }], resync);
          return row.version > (local?._v ?? 0) + 1;
        },
      );
      if (gap) wake();
      if (table === 'lists') await followLists(userId);
    } catch (error) {
      console.error('[sync] realtime row not applied', error);
      wake();
    }
  }

  async function cycle(): Promise<void> {
    if (outdated) {
      showOutdated();
      return;
    }
    if (!online.isOnline()) {
      status.set({ phase: 'offline' });
      return;
    }
    try {
      // The bookkeeping a cycle needs, read at once (one transaction, not four in a row): an
      // earlier pull's news of a newer server contract (then this app version must not push:
      // APP_OUTDATED), a resync under way, the store's owner and this device's client id. The
      // engine is their only writer while it leads. The session is read meanwhile.
      const [metas, userId] = await Promise.all([
        db._meta.bulkGet([SERVER_SCHEMA_VERSION, 'resync', 'userId', 'clientId']),
        remote.userId(),
      ]);
      const [serverVersion, resync, owner, client] = metas.map((meta) => meta?.value);
      if (Number(serverVersion ?? 0) > schemaVersion) {
        retire();
        return;
      }
      if (!userId) {
        // Queued work stays; a sign-in (an auth change) wakes the engine again.
        park('signed-out');
        status.set({ phase: 'signed-out' });
        return;
      }
      if (userId !== realtimeUserId) resubscribe(userId);
      const resyncing = resync !== undefined;
      status.set({
        phase: 'syncing',
        ...(resyncing ? { lastError: new SyncError('CURSOR_EXPIRED', 'Refreshing all data') } : {}),
      });
      await adopt(userId, owner);
      // Push first, so the pull that follows already includes our own changes.
      await pushAll(typeof client === 'string' ? client : await newClientId());
      if (pullDue || resyncing || !realtimeLive()) {
        pullDue = false;
        try {
          await pullAll(userId);
        } catch (error) {
          pullDue = true;
          throw error;
        }
        await followLists(userId);
      }
      attempt = 0;
      refreshedSinceSuccess = false;
      const pending = await db._outbox.count();
      status.set({ phase: 'synced', lastSyncedAt: clock.now(), lastError: null, pending });
      clock.clearTimeout(periodicTimer);
      periodicTimer = clock.setTimeout(() => wake(), PERIODIC_SYNC_MS);
    } catch (error) {
      try {
        await onCycleError(error);
      } catch (handlingError) {
        // Handling the failure failed too (its own write hit a closed database): nothing
        // may escape the cycle, or `running` rejects with no one to hear it.
        if (isDatabaseClosed(handlingError)) {
          leave();
          return;
        }
        console.error('[sync] handling a failure failed', handlingError);
        backOff(unexpected(handlingError));
      }
    }
  }

  /**
   * The server speaks a newer sync contract: nothing is sent or pulled until the app is
   * updated, and queued edits wait in the outbox for the new version. Not "synced": the
   * error stays, and the UI offers the update.
   */
  function showOutdated(): void {
    status.set({
      phase: online.isOnline() ? 'backing-off' : 'offline',
      lastError: outdated,
    });
  }

  async function onCycleError(error: unknown): Promise<void> {
    if (isDatabaseClosed(error)) {
      // The database went away under us (the tab is closing, or another tab opened a newer
      // schema): this engine is done. Nothing is lost: what it had sent is frozen and replays.
      const leading = mode === 'leader';
      leave();
      if (leading) options.onDatabaseClosed?.();
      return;
    }
    const failure = isSyncError(error) ? error : unexpected(error);
    if (!isSyncError(error)) console.error('[sync] unexpected error', error);

    if (failure.code === 'AUTH_EXPIRED') {
      // One refresh per failure streak: a refresh that "works" but still gets 401s must not
      // loop (its own TOKEN_REFRESHED event would otherwise ask for the next round).
      if (!refreshedSinceSuccess) {
        refreshedSinceSuccess = true;
        let refreshed: boolean;
        try {
          refreshed = await remote.refresh();
        } catch (refreshError) {
          // The network failed, not the session: try again later, refresh included.
          refreshedSinceSuccess = false;
          backOff(isSyncError(refreshError) ? refreshError : failure);
          return;
        }
        if (refreshed) {
          again = true;
          againForced = true;
          return;
        }
      }
      // Keep queueing; a sign-in (auth change) wakes the engine again.
      park('signed-out');
      status.set({ phase: 'signed-out', lastError: failure });
      return;
    }
    if (failure.code === 'CURSOR_EXPIRED') {
      // Offline past the tombstone retention: pull everything again. The rows stay on
      // screen meanwhile; the ones not delivered again are swept at the end (apply.ts).
      await db.transaction('rw', db._meta, async () => {
        await db.setMeta('resync', clock.now());
        await db._meta.delete('cursor');
      });
      again = true;
      againForced = true;
      return;
    }
    if (failure.code === 'APP_OUTDATED') {
      retire();
      return;
    }
    if (!online.isOnline()) {
      status.set({ phase: 'offline' });
      return;
    }
    backOff(failure);
  }

  /** Stops running until a forcing wake: wake-ups already scheduled (a write's) are void. */
  function park(kind: 'backoff' | 'signed-out'): void {
    parked = kind;
    clock.clearTimeout(wakeTimer);
    wakeDueAt = null;
  }

  /** Retries later: 1 s doubling to 60 s, with full jitter (product.md §8, §9). */
  function backOff(failure: SyncError): void {
    const delay = backoffDelayMs(attempt, random);
    attempt += 1;
    park('backoff');
    status.set({ phase: 'backing-off', lastError: failure });
    clock.clearTimeout(retryTimer);
    retryTimer = clock.setTimeout(() => force(), delay);
  }

  /**
   * Makes the store belong to `userId`: local-only rows are claimed (their owner columns set
   * to the real user, product.md §4 "Account"); a store of another user is wiped first, queued
   * changes included. The app asks before that: its sign-in and sign-up screens count the
   * changes a different account's sign-in would drop (use-unsynced-guard.ts) and go on only
   * once the person agrees; sign-out wipes only when the outbox is empty or the person agreed.
   */
  async function adopt(userId: string, owner: unknown): Promise<void> {
    if (owner === userId) return;
    await db.transaction('rw', db.allTables(), async () => {
      if (owner && owner !== LOCAL_USER_ID) {
        for (const table of db.allTables()) await table.clear();
      } else {
        await claimLocalRows(db, userId);
      }
      await db.setMeta('userId', userId);
    });
  }

  /** This device's id for sync_push, made on its first push and kept in `_meta`. */
  async function newClientId(): Promise<string> {
    const id = newId();
    await db.setMeta('clientId', id);
    return id;
  }

  /**
   * Takes the next batch and freezes it (sent = 1) in ONE transaction: a write that lands in
   * between could otherwise coalesce into an entry after we read it, and what it added would
   * be acknowledged without ever being sent (a lost write).
   */
  async function nextBatch(): Promise<{ entries: OutboxEntry[]; wakeAt: number | undefined }> {
    return db.transaction('rw', db._outbox, async () => {
      // From here on, what this tab's writes committed is read (see batchDue).
      batchDue = false;
      const batch = await readBatch();
      // Once taken, an entry is frozen: the server may apply it even if we never hear back.
      // Written back in one bulk request (as the batch was read in one): each round trip to
      // IndexedDB waits for the page's main thread, busy drawing the write just made.
      await db._outbox.bulkPut(
        batch.entries.map((entry) => ({ ...entry, sent: 1, attempts: entry.attempts + 1 })),
      );
      return batch;
    });
  }

  /** The next batch: ≤ batchMax mutations, ≤ 1 MiB, in seq order, stopping at a delete still in its undo window. */
  async function readBatch(): Promise<{ entries: OutboxEntry[]; wakeAt: number | undefined }> {
    const max = batchMax;
    const entries: OutboxEntry[] = [];
    let bytes = 2; // "[]"
    let wakeAt: number | undefined;
    // The first `max` entries in one request (getAll), not a cursor step per entry.
    for (const entry of await db._outbox.orderBy('seq').limit(max).toArray()) {
      if (
        entry.op === 'delete' &&
        entry.sent === 0 &&
        clock.now() - entry.createdAt < undoWindowMs
      ) {
        wakeAt = entry.createdAt + undoWindowMs;
        break;
      }
      const size = jsonbTextBytes(wireMutation(entry)) + 2; // + ", "
      if (entries.length > 0 && bytes + size > PUSH_BATCH_MAX_BYTES) {
        wakeAt = clock.now();
        break;
      }
      bytes += size;
      entries.push(entry);
    }
    return { entries, wakeAt };
  }

  async function pushAll(client: string): Promise<void> {
    for (;;) {
      // Gone offline mid-cycle: no more batches (writes made since stay queued, unfrozen).
      if (!online.isOnline()) throw new SyncError('OFFLINE', 'Offline');
      const { entries, wakeAt } = await nextBatch();
      if (entries.length === 0) {
        if (wakeAt !== undefined) wake(Math.max(0, wakeAt - clock.now()));
        return;
      }
      const refused = await uploadFiles(entries);
      const sending = entries.filter((entry) => !refused.has(entry.rowId));
      let results: PushResult[] = [];
      if (sending.length > 0) {
        try {
          results = (await remote.push(client, sending.map(wireMutation))).results;
        } catch (error) {
          if (isSyncError(error) && error.serverCode === BATCH_TOO_LARGE_SQLSTATE) {
            // Over the server's limits after all (it measures differently): send less, from
            // now on (see batchMax).
            batchMax = Math.max(1, Math.min(batchMax, Math.floor(sending.length / 2)));
          }
          throw error;
        }
      }
      if (await applyPushResults(entries, results, refused)) {
        // Only a nudge, never awaited: the server queued the objects with the delete, and
        // what this call misses the next one (or the daily run) removes.
        void remote.cleanupDeletedFiles().catch(() => undefined);
      }
      if (entries.length < batchMax && wakeAt === undefined) {
        // A short batch means the outbox is drained, unless writes arrived meanwhile. (Short
        // of the size asked for: after a smaller batch size, entries frozen by a refused
        // batch are still there although none is unsent.)
        const more = await db._outbox.where('sent').equals(0).count();
        if (more === 0) return;
      }
    }
  }

  /**
   * Applies what the server said of a batch: applied (or a replayed insert) → the server's
   * row; refused → the change is reverted and logged. `refused` holds the attachment inserts
   * whose file the server would not take: they were not sent, and are refused here. True
   * when the server applied a delete that took attachments, whose objects are now queued.
   */
  async function applyPushResults(
    entries: OutboxEntry[],
    results: PushResult[],
    refused: ReadonlyMap<string, SyncError>,
  ): Promise<boolean> {
    const bySeq = new Map(entries.map((e) => [e.seq, e]));
    let deletedFiles = false;
    await db.transaction('rw', db.allTables(), async () => {
      for (const [rowId, failure] of refused) {
        const entry = entries.find((e) => e.rowId === rowId && e.op === 'insert');
        if (!entry) continue;
        // Everything queued for that row goes with its insert (it never reached the server).
        await db._outbox.where('[table+rowId]').equals([entry.table, rowId]).delete();
        await reject(entry, failure.code, failure.message);
        await db._files.delete(rowId);
      }
      for (const result of results) {
        const entry = bySeq.get(result.seq);
        if (!entry || entry.seq === undefined) continue;
        await db._outbox.delete(entry.seq);
        const code = codeForSqlState(result.code, {
          op: entry.op,
          table: entry.table,
          constraint: result.constraint,
        });
        if (result.status === 'applied' || code === 'DUPLICATE') {
          if (result.row) await applyServerRow(db, entry.table, result.row, 'ack');
          else await db.rows(entry.table).update(entry.rowId, { _v: 1 });
          if (entry.op === 'delete' && FILE_DELETING_TABLES.has(entry.table)) {
            deletedFiles ||= result.status === 'applied';
            // The server has the attachment's tombstone now (final): its bytes go. Not at
            // the local delete, which Undo can still take back.
            if (entry.table === 'attachments') await db._files.delete(entry.rowId);
          }
          continue;
        }
        await reject(entry, code, result.message ?? code, result);
      }
    });
    return deletedFiles;
  }

  /** Reverts a refused change on the device and logs why (inside applyPushResults' transaction). */
  async function reject(
    entry: OutboxEntry,
    code: SyncErrorCode,
    message: string,
    server: Pick<PushResult, 'code' | 'column' | 'hint' | 'constraint' | 'row'> = {},
  ): Promise<void> {
    const serverRow = server.row;
    const rejection = rejectionOf(entry, code, message, clock.now());
    if (server.code) rejection.sqlState = server.code;
    if (server.column) rejection.column = server.column;
    if (server.hint) rejection.rule = server.hint;
    if (server.constraint) rejection.constraint = server.constraint;
    await db._rejections.add(rejection);
    // The children hidden with a refused delete come back with their parent.
    if (entry.op === 'delete') await unhideChildren(db, entry.table, entry.rowId);
    if (serverRow) {
      await applyServerRow(db, entry.table, serverRow, 'force');
    } else {
      // Gone or never allowed: nothing of it stays on the device.
      await db.rows(entry.table).delete(entry.rowId);
    }
  }

  /**
   * Uploads the files of attachment inserts in this batch before the rows go (I6). A
   * transient failure stops the push (retried with backoff); a file the server refuses for
   * good (too large, wrong type, not allowed) is returned, so its row is refused here
   * rather than sent without its file.
   */
  async function uploadFiles(entries: OutboxEntry[]): Promise<Map<string, SyncError>> {
    const refused = new Map<string, SyncError>();
    for (const entry of entries) {
      if (entry.table !== 'attachments' || entry.op !== 'insert') continue;
      const file = await db._files.get(entry.rowId);
      if (!file || file.state === 'uploaded' || file.state === 'cached') continue;
      await db._files.update(file.id, { state: 'uploading', attempts: file.attempts + 1 });
      try {
        // Deterministic path + upsert: a retry after a lost response rewrites the same object.
        await remote.upload(ATTACHMENTS_BUCKET, file.objectPath, file.blob);
        await db._files.update(file.id, { state: 'uploaded' });
      } catch (error) {
        const failure = isSyncError(error) ? error : new SyncError('SERVER_ERROR', String(error));
        await db._files.update(file.id, { state: 'failed', lastError: failure.message });
        if (failure.transient || failure.code === 'AUTH_EXPIRED') throw failure;
        refused.set(entry.rowId, failure);
      }
    }
    return refused;
  }

  async function pullAll(userId: string): Promise<void> {
    let cursor = (await db.getMeta<string>('cursor')) ?? null;
    const resync = await db.getMeta<number>('resync');
    for (;;) {
      const page = await remote.pull(cursor, PULL_PAGE_ROWS);
      if (page.schema_version > schemaVersion) {
        await db.setMeta(SERVER_SCHEMA_VERSION, page.schema_version);
        throw new SyncError('APP_OUTDATED', 'Update available');
      }
      if (page.rows.length === 0) {
        // Nothing new (most pulls: start-up, wake-ups, the periodic check): only the cursor
        // moves, without a transaction over every table that would hold up the screens' reads.
        await db.setMeta('cursor', page.cursor);
      } else {
        await db.transaction('rw', db.allTables(), async () => {
          await applyPage(page.rows, userId);
          if (resync !== undefined) await markDelivered(db, page.rows, resync);
          // Who shares a list changed: profiles are checked once the pull is complete. Kept
          // with the page, so a pull cut short after it still checks (the cursor is past it).
          if (page.rows.some(({ table }) => table === 'memberships')) {
            await db.setMeta(PROFILES_TO_CHECK, true);
          }
          await db.setMeta('cursor', page.cursor);
        });
      }
      cursor = page.cursor;
      if (!page.has_more) break;
    }
    if (resync === undefined && !(await db.getMeta<boolean>(PROFILES_TO_CHECK))) return;
    await db.transaction('rw', db.allTables(), async () => {
      if (resync !== undefined) {
        await sweepUndelivered(db, resync);
        await db._meta.delete('resync');
      }
      await dropUnsharedProfiles(db, userId);
      await db._meta.delete(PROFILES_TO_CHECK);
    });
  }

  /**
   * Applies one pull page (inside its transaction): in page order, a run of one table's rows
   * at a time (in bulk); the caller's own memberships one by one, as they may purge or replace.
   */
  async function applyPage(rows: { table: string; row: ServerRow }[], userId: string) {
    let run: ServerRow[] = [];
    let runTable = '';
    const flush = async () => {
      await applyServerRows(db, runTable, run);
      run = [];
    };
    for (const { table, row } of rows) {
      const spec = db.registry.find((s) => s.name === table);
      if (!spec) continue;
      if (table === 'memberships' && row.user_id === userId) {
        await flush();
        await applyOwnMembership(listIdOf(spec, row), row, userId);
        continue;
      }
      if (table !== runTable) {
        await flush();
        runTable = table;
      }
      run.push(row);
    }
    await flush();
  }

  /** The caller's own membership `row` of list `listId`. */
  async function applyOwnMembership(
    listId: string | undefined,
    row: ServerRow,
    userId: string,
  ): Promise<void> {
    if (listId && row.deleted_at) {
      // Our own membership tombstone: the list is no longer ours to keep (I5).
      await purgeList(db, listId, clock.now());
      return;
    }
    if (listId) {
      // The real owner membership replaces the stand-in made when the list was created here.
      const mine = await db
        .rows('memberships')
        .where('[list_id+user_id]')
        .equals([listId, userId])
        .toArray();
      await db
        .rows('memberships')
        .bulkDelete(mine.filter((m) => m.id !== row.id && m._standIn).map((m) => m.id));
    }
    await applyServerRow(db, 'memberships', row);
  }

  function retire(): void {
    outdated = new SyncError('APP_OUTDATED', 'Update available');
    showOutdated();
  }

  return {
    status,
    start,
    follow,
    stop,
    requestSync,
    queued,
    syncNow,
    retire,
  };
}

/** Anything thrown that is not a SyncError: a bug or a platform failure, retried as SERVER_ERROR. */
function unexpected(error: unknown): SyncError {
  return new SyncError('SERVER_ERROR', error instanceof Error ? error.message : String(error));
}

/** Dexie's error for a database closed under a running operation. */
function isDatabaseClosed(error: unknown): boolean {
  return isDexieError(error, 'DatabaseClosedError');
}

/** An outbox entry as sync_push receives it. */
function wireMutation(entry: OutboxEntry): WireMutation {
  return {
    seq: entry.seq ?? 0,
    table: entry.table,
    op: entry.op,
    id: entry.rowId,
    data: entry.data,
  };
}

const utf8 = new TextEncoder();

/**
 * Bytes of `value` as Postgres prints jsonb, which is what sync_push holds to 1 MiB: UTF-8
 * (a "€" is 3 bytes, not the 1 of a JS string's length), with ", " and ": " separators.
 */
export function jsonbTextBytes(value: unknown): number {
  if (value === undefined) return 0;
  if (value === null || typeof value !== 'object') {
    return utf8.encode(JSON.stringify(value) ?? 'null').length;
  }
  const items = Array.isArray(value)
    ? value.map((item: unknown) => jsonbTextBytes(item ?? null))
    : Object.entries(value)
        .filter(([, field]) => field !== undefined)
        .map(([key, field]) => jsonbTextBytes(key) + 2 + jsonbTextBytes(field));
  // The brackets, or the braces; ", " between items.
  return items.reduce((total, bytes) => total + bytes, 2 * Math.max(1, items.length));
}

/** Owner columns of local-only rows, set to the real user on first sign-in. */
const OWNER_COLUMNS = ['created_by', 'author_id', 'user_id'] as const;

async function claimLocalRows(db: SyncDatabase, userId: string): Promise<void> {
  const claim = (record: Record<string, unknown>) => {
    for (const column of OWNER_COLUMNS)
      if (record[column] === LOCAL_USER_ID) record[column] = userId;
  };
  for (const spec of db.registry) await db.rows(spec.name).toCollection().modify(claim);
  // Queued inserts carry the same columns.
  await db._outbox.toCollection().modify((entry) => claim(entry.data));
}
