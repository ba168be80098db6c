// Scheduling (sync-design.md "When sync runs"): the SyncEngine. It decides when to sync and
// runs each cycle through the other rooms: the account adopts the session's user, push
// sends the outbox, pull brings the rest, realtime follows the user's topics. It holds no
// data of its own: everything it knows is in the Dexie database, so a reload, a crash or a
// new engine over the same database carries on where the last one stopped (I1).
// In a tab that is not the leader it only follows: it shows the leader's status and passes
// requests to it (tabs.ts).
import { liveQuery } from 'dexie';

import { createAccount, OWNER_KEY, type Account } from './account';
import { backoffDelayMs } from './backoff';
import { isDexieError, type SyncDatabase } from './db';
import type { Clock, OnlineSignal } from './platform';
import { isSyncError, SyncError } from './errors';
import { outboxCounts, pendingCount } from './outbox';
import { createPull, SERVER_SCHEMA_VERSION } from './pull';
import { createPush } from './push';
import { createRealtime } from './realtime';
import type { Remote } from './remote';
import { createStatusStore, type StatusStore, type SyncStatus } from './status';
import {
  readSharedStatus,
  sameSharedStatus,
  shareStatus,
  type SharedStatus,
  type TabChannel,
} from './tabs';

/**
 * A local write is pushed at once, unless another landed less than this long before it (ms):
 * then it waits this long, so the rest of a burst goes in one request.
 */
export const PUSH_DEBOUNCE_MS = 30;
/** Safety pull while online (ms). */
export const PERIODIC_SYNC_MS = 60_000;
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
}

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
  const status = options.status ?? createStatusStore();
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
  /** What leave() undoes: the outbox watch and the subscriptions. */
  const unsubscribers: (() => void)[] = [];
  /**
   * A pull was asked for (start, a sign-in, the network back, focus, realtime news, the
   * safety schedule, a retry, the user) and has not started since. A cycle woken only by
   * local writes pushes without pulling while every topic is live: the push's answer carries
   * the rows it changed, and realtime the rest (a topic lost and joined again asks for a pull).
   */
  let pullDue = true;
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
  const account = options.account ?? createAccount(db, remote);
  const pushAll = createPush(options, wake, () => {
    // From here on, what this tab's writes committed is read (see batchDue).
    batchDue = false;
  });
  const pullAll = createPull({ ...options, onDownload: (download) => status.set({ download }) });
  const realtime = createRealtime(
    db,
    remote,
    wake,
    () => mode === 'leader',
    () => outdated !== null,
  );

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
        realtime.join(userId);
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
    await realtime.settled();
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
    lastWriteAt = now;
    // Idle: the cycle starts now, not a timer's turn later. Its first store reads are then
    // asked for before the screens' live queries re-read what the write changed, instead of
    // queueing behind them.
    if (!busy && parked === null && mode === 'leader') kick();
    else schedule(burst ? PUSH_DEBOUNCE_MS : 0, false, false);
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
      // APP_OUTDATED), a resync under way, the store's owner and this device's
      // client id. The engine is their only writer while it leads. The session is read
      // meanwhile.
      const [metas, userId] = await Promise.all([
        db._meta.bulkGet([SERVER_SCHEMA_VERSION, 'resync', OWNER_KEY, 'clientId']),
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
      realtime.join(userId);
      const resyncing = resync !== undefined;
      status.set({
        phase: 'syncing',
        ...(resyncing ? { lastError: new SyncError('CURSOR_EXPIRED', 'Refreshing all data') } : {}),
      });
      await account.adopt(userId, owner);
      // Push first, so the pull that follows already includes our own changes.
      await pushAll(client);
      if (pullDue || resyncing || !realtime.live()) {
        pullDue = false;
        try {
          await pullAll(userId);
        } catch (error) {
          pullDue = true;
          throw error;
        }
        await realtime.followLists(userId);
      }
      attempt = 0;
      refreshedSinceSuccess = false;
      const pending = await pendingCount(db);
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
