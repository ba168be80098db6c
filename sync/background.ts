// Sync with the app closed: one run of the engine in a service worker, for Background Sync's
// `sync` event (changes were queued offline: SyncOptions.requestBackgroundSync asked for it)
// and Periodic Background Sync's `periodicsync` (lists kept fresh). It takes the same Web
// Lock as a tab's engine (leadership.ts), so a tab and the worker never push at once: while a
// tab leads, the run asks it to sync and leaves it to it (or waits `leaderWaitMs`); a tab opened during
// the run follows it over the tab channel until the run ends, then leads. Under the lock it is
// the ordinary engine (push, then a full pull, with its own failure handling: a session
// refresh after a 401, a resync, APP_OUTDATED) with no realtime, ended as soon as it is idle.
// Its own public entry (not index.ts): it brings the engine's code, which an app's first
// screen must not load.
import { createAccount, OWNER_KEY } from './account';
import type { RemoteChange } from './apply';
import type { AppDefinition } from './core';
import { SyncDatabase, type IndexedDbDeps } from './db';
import type { SyncError } from './errors';
import { syncLockName } from './leadership';
import { pendingCount } from './outbox';
import { realClock, type Clock } from './platform';
import { deviceReader } from './reader';
import type { AnyRows, RowTypes } from './registry';
import { supabaseRemote, type Remote, type SupabaseSource } from './remote';
import { REQUEST_TIMEOUT_MS } from './requests';
import { createSyncEngine } from './schedule';
import { createStatusStore } from './status';
import { broadcastTabChannel, type TabChannel } from './tabs';

export type { RemoteChange } from './apply';

/**
 * How long a run waits by default for a leading tab to let go (ms) before leaving the sync to
 * it: not at all. The tab syncs itself (it is asked to at once); a run that waited would hold
 * up a new worker's activation (an update's reload waits for it) and take the lock in the
 * moment between a tab's reload and its next start.
 */
export const LEADER_WAIT_MS = 0;

/**
 * Runs `work` holding the engine's lock of the device database, waiting at most `waitMs`
 * for it; `onBusy` hears that a tab holds it, before the wait. Resolves to `busy` when the
 * lock did not come in time.
 */
export type BackgroundLock = <T>(
  work: () => Promise<T>,
  waitMs: number,
  onBusy: () => void,
) => Promise<{ ran: true; value: T } | { ran: false }>;

/** How a background run is wired; everything but `supabase` and `dbName` has a default. */
export interface BackgroundSyncOptions {
  /**
   * The worker's own supabase-js client, over the session storage the tabs share (IndexedDB:
   * a worker has no localStorage) and the same auth lock, so only one refreshes at a time.
   */
  supabase: SupabaseSource;
  /** The device database's name: the one the app's createSync opens. */
  dbName: string;
  /** fake-indexeddb in Node tests; the worker's own by default. */
  indexedDb?: IndexedDbDeps;
  clock?: Clock;
  random?: () => number;
  newId?: () => string;
  requestTimeoutMs?: number;
  /** The engine's lock (default: navigator.locks, under the name leadership.ts uses). */
  lock?: BackgroundLock;
  /** The app's tabs (default: the BroadcastChannel the tabs' engines share). */
  tabs?: TabChannel | undefined;
  /** How long to wait for a leading tab (default LEADER_WAIT_MS). */
  leaderWaitMs?: number;
  /** Replace the Supabase port (tests of the run alone). */
  remote?: Remote;
}

/**
 * What a run did: `synced` (sent and pulled); `tab-leads` (a tab was syncing and did not let
 * go in time: the sync is its job; `pending` says whether it still has work); `signed-out` (no session of the device's owner here:
 * nothing was sent); `outdated` (the server speaks a newer contract: nothing is sent until
 * the app updates); `failed` (the network or the server failed: the browser should retry).
 */
export type BackgroundOutcome = 'synced' | 'tab-leads' | 'signed-out' | 'outdated' | 'failed';

export interface BackgroundResult {
  outcome: BackgroundOutcome;
  /** Changes still queued on the device after the run. */
  pending: number;
  /** The server rows that changed the device's copies during the run (for notifications). */
  changes: RemoteChange[];
  /** Why it failed. */
  error?: SyncError | undefined;
}

/**
 * One background run of `app`'s sync over the device database. `afterSync` runs under the
 * lock with the app's queries over the device once the run has synced (or failed), before
 * the database closes: what the worker shows (a badge, notifications) is read there.
 */
export async function syncInBackground<Q, W, Rows extends RowTypes = AnyRows>(
  options: BackgroundSyncOptions,
  app: AppDefinition<Q, W, Rows>,
  afterSync?: (queries: Q, result: BackgroundResult) => Promise<void>,
): Promise<BackgroundResult> {
  const tabs = options.tabs ?? broadcastTabChannel(syncLockName(options.dbName));
  const lock = options.lock ?? webLocksBackground(syncLockName(options.dbName));
  try {
    const held = await lock(
      () => runLocked(options, app, tabs, afterSync),
      options.leaderWaitMs ?? LEADER_WAIT_MS,
      // The leading tab sends what is queued itself, at once.
      () => tabs?.post({ type: 'sync' }),
    );
    if (held.ran) return held.value;
    // Read without the lock: a count, for the worker to ask the browser to try again later
    // while the tab has not sent them (it may be closing).
    return { outcome: 'tab-leads', pending: await queuedOnDevice(options, app), changes: [] };
  } finally {
    if (!options.tabs) tabs?.close();
  }
}

async function runLocked<Q, W, Rows extends RowTypes>(
  options: BackgroundSyncOptions,
  app: AppDefinition<Q, W, Rows>,
  tabs: TabChannel | undefined,
  afterSync: ((queries: Q, result: BackgroundResult) => Promise<void>) | undefined,
): Promise<BackgroundResult> {
  const clock = options.clock ?? realClock;
  const db = new SyncDatabase(options.dbName, app.schema, options.indexedDb);
  const remote =
    options.remote ??
    supabaseRemote(options.supabase, {
      requestTimeoutMs: options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
      clock,
    });
  const account = createAccount(db, remote);
  const changes: RemoteChange[] = [];
  try {
    // Only for the session of the store's owner: a sign-in of someone else, or none, is a
    // tab's to handle (its sign-in screen asks before another account's data replaces this).
    const [userId, owner] = await Promise.all([remote.userId(), db.getMeta<string>(OWNER_KEY)]);
    if (!userId || owner !== userId) {
      return { outcome: 'signed-out', pending: await pendingCount(db), changes };
    }
    const status = createStatusStore();
    const engine = createSyncEngine({
      db,
      remote,
      clock,
      online: { isOnline: workerOnline, subscribe: () => () => undefined },
      random: options.random ?? Math.random,
      newId: options.newId ?? (() => crypto.randomUUID()),
      schemaVersion: app.schema.version,
      // No one is there to undo a delete: what is queued goes now.
      undoWindowMs: 0,
      tabs,
      account,
      status,
      realtime: false,
      onRemoteChanges: (applied) => changes.push(...applied),
    });
    engine.start();
    // Asked before start's own cycle has begun, so both are that one cycle.
    const final = await engine.syncNow();
    await engine.stop();
    const result: BackgroundResult = {
      outcome:
        final.phase === 'synced'
          ? 'synced'
          : final.phase === 'signed-out'
            ? 'signed-out'
            : final.lastError?.code === 'APP_OUTDATED'
              ? 'outdated'
              : 'failed',
      pending: await pendingCount(db),
      changes,
      error: final.phase === 'synced' ? undefined : (final.lastError ?? undefined),
    };
    await afterSync?.(app.queries(deviceReader<Rows>(db), account.owner), result);
    return result;
  } finally {
    account.close();
    db.close();
  }
}

/** The changes queued on the device database, read without the engine's lock. */
async function queuedOnDevice<Q, W, Rows extends RowTypes>(
  options: BackgroundSyncOptions,
  app: AppDefinition<Q, W, Rows>,
): Promise<number> {
  const db = new SyncDatabase(options.dbName, app.schema, options.indexedDb);
  try {
    return await pendingCount(db);
  } finally {
    db.close();
  }
}

/** A worker's navigator.onLine (true where there is none: Node tests inject their network). */
function workerOnline(): boolean {
  return typeof navigator === 'undefined' || navigator.onLine !== false;
}

/** The engine's lock over navigator.locks: at once if free, else after `waitMs` at most. */
function webLocksBackground(name: string): BackgroundLock {
  return async (work, waitMs, onBusy) => {
    const locks = navigator.locks;
    const now = await locks.request(name, { ifAvailable: true }, async (held) =>
      held ? { ran: true as const, value: await work() } : { ran: false as const },
    );
    if (now.ran) return now;
    onBusy();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), waitMs);
    try {
      return await locks.request(name, { signal: controller.signal }, async () => {
        clearTimeout(timer);
        return { ran: true as const, value: await work() };
      });
    } catch (error) {
      if (controller.signal.aborted) return { ran: false };
      throw error;
    } finally {
      clearTimeout(timer);
    }
  };
}
