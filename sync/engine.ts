// The sync engine (SYNC.md "Push", "Pull", "When sync runs"): replays the outbox to
// sync_push in seq order, applies sync_pull pages, and decides when to do either. It holds
// no data of its own: everything it knows is in the Dexie database, so a reload, a crash or
// a new engine over the same database carries on where the last one stopped (I1).
// In a tab that is not the leader it only follows: it shows the leader's status and passes
// requests to it (tabs.ts).
import { liveQuery, type Subscription } from 'dexie';

import {
  applyServerRow,
  applyServerRows,
  dropUnsharedProfiles,
  listIdOf,
  markDelivered,
  purgeList,
  sweepUndelivered,
  unhideChildren,
  type ServerRow,
} from './apply';
import { backoffDelayMs } from './backoff';
import type { SyncDatabase } from './db';
import {
  BATCH_TOO_LARGE_SQLSTATE,
  codeForSqlState,
  isSyncError,
  SyncError,
  type SyncErrorCode,
} from './errors';
import type { OutboxEntry, Rejection } from './registry';
import type { PushResult, Remote, WireMutation } from './remote';
import { UNDO_WINDOW_MS } from './repositories';
import { StatusStore, type SyncStatus } from './status';
import {
  readSharedStatus,
  sameSharedStatus,
  shareStatus,
  type SharedStatus,
  type TabChannel,
} from './tabs';

/** Most mutations in one sync_push (SPEC §9). */
export const PUSH_BATCH_MAX = 500;
/** Largest sync_push batch (bytes as the server measures it, SPEC §9), a little under 1 MiB. */
export const PUSH_BATCH_MAX_BYTES = 1024 * 1024 - 4096;
/** Rows per sync_pull page (SPEC §9). */
export const PULL_PAGE_ROWS = 1000;
/** Realtime events are only a wake-up call; a burst of them causes one pull after this (ms). */
export const REALTIME_DEBOUNCE_MS = 100;
/** A local write is pushed this long after it lands (ms), so a burst goes in one request. */
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

/** True when the server applied a delete that took attachments, whose objects are now queued. */
function deletedFiles(sent: readonly OutboxEntry[], results: readonly PushResult[]): boolean {
  const bySeq = new Map(sent.map((entry) => [entry.seq, entry]));
  return results.some((result) => {
    const entry = bySeq.get(result.seq);
    return (
      result.status === 'applied' && entry?.op === 'delete' && FILE_DELETING_TABLES.has(entry.table)
    );
  });
}

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
  focus?: { subscribe(onFocus: () => void): () => void };
  /** How long a delete is held back so Undo can still cancel it (ms; default UNDO_WINDOW_MS). */
  undoWindowMs?: number;
  /** The other tabs of this device (status to followers, their requests to the leader). */
  tabs?: TabChannel;
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
 * Why the engine is asked to run. While it is parked (backing off after errors, or signed
 * out) only the forcing reasons wake it: a new write, a realtime event or tab focus must not
 * cut a backoff short, or a failing server gets a request for every keystroke.
 */
type Wake =
  | 'write'
  | 'realtime'
  | 'focus'
  | 'periodic'
  | 'undo-window'
  | 'retry'
  | 'user'
  | 'online'
  | 'auth';
const FORCING: ReadonlySet<Wake> = new Set<Wake>(['retry', 'user', 'online', 'auth']);

/**
 * Runs sync for one device database. `start()` makes it the leader (it pushes, pulls and
 * schedules); `follow()` makes it a follower that mirrors the leader's status over `tabs`.
 * It can be stopped and started again (sign-out, then sign-in in the same tab).
 */
export class SyncEngine {
  /** The status for the UI: phase, queued changes, last sync, last error. */
  readonly status = new StatusStore();
  #mode: 'idle' | 'leader' | 'follower' = 'idle';
  #running: Promise<void> | undefined;
  #again = false;
  #againForced = false;
  /** Set while backing off or signed out: only a forcing wake runs the engine. */
  #parked: 'backoff' | 'signed-out' | null = null;
  #attempt = 0;
  #retryTimer: unknown;
  #wakeTimer: unknown;
  /** When the pending wakeTimer fires: a later wake never postpones an earlier one. */
  #wakeDueAt: number | null = null;
  #periodicTimer: unknown;
  #refreshedSinceSuccess = false;
  /** Set once the server is known to speak a newer sync contract (APP_OUTDATED): for good. */
  #outdated: SyncError | null = null;
  /**
   * Batch size to send; halved after the server refuses a batch as too large, and kept so
   * for the engine's life: growing back would only find the same limit again, one refused
   * batch and one backoff at a time.
   */
  #batchMax = PUSH_BATCH_MAX;
  readonly #unsubscribers: (() => void)[] = [];
  #outboxWatch: Subscription | undefined;
  #realtimeOff: (() => void) | undefined;
  #userId: string | null = null;
  readonly #idleWaiters: (() => void)[] = [];
  /** Follower syncNow calls waiting for the leader's answer, by request id. */
  readonly #followerWaiters = new Map<string, () => void>();

  readonly #options: EngineOptions;

  constructor(options: EngineOptions) {
    this.#options = options;
  }

  /**
   * Runs the engine in this tab (the leader): watches the outbox, the network, the session,
   * tab focus and realtime, and syncs at once. A follower becomes the leader.
   */
  start(): void {
    if (this.#mode === 'leader') return;
    this.#leave();
    this.#mode = 'leader';
    const { online, remote, focus, tabs } = this.#options;
    this.#watchOutbox((unsent) => {
      if (unsent > 0) this.#wake('write', PUSH_DEBOUNCE_MS);
    });
    this.#unsubscribers.push(
      online.subscribe((isOnline) => {
        if (isOnline) {
          this.#attempt = 0;
          this.#wake('online');
        } else this.status.set({ phase: 'offline' });
      }),
      remote.onAuthChange((userId, change) => {
        if (userId !== this.#userId) this.#resubscribe(userId);
        // A new sign-in is a new session, worth a refresh of its own after a 401; a token
        // refresh (our own among them) is not, or a refresh that keeps failing would loop.
        if (change === 'signed-in') this.#refreshedSinceSuccess = false;
        this.#wake('auth');
      }),
    );
    if (focus) this.#unsubscribers.push(focus.subscribe(() => this.#wake('focus')));
    if (tabs) {
      let told: SharedStatus | undefined;
      const tell = (answers?: string) => {
        const status = shareStatus(this.status.getSnapshot());
        // Queued-change counts are each tab's own: only the rest is news to the others.
        if (answers === undefined && told && sameSharedStatus(told, status)) return;
        told = status;
        tabs.post({ type: 'status', status, ...(answers === undefined ? {} : { answers }) });
      };
      this.#unsubscribers.push(
        this.status.subscribe(() => tell()),
        tabs.subscribe((message) => {
          if (message.type === 'hello') tell('');
          // Answered once the requested sync is done, so the asking tab can stop waiting.
          if (message.type === 'sync') void this.syncNow().then(() => tell(message.id ?? ''));
        }),
      );
      tell();
    }
    this.#wake('user');
  }

  /**
   * Follows the leader tab: shows its status (and this device's queued changes) and sends
   * it sync requests. Does nothing without a tab channel but count the queued changes.
   */
  follow(): void {
    if (this.#mode !== 'idle') return;
    this.#mode = 'follower';
    const { tabs, online } = this.#options;
    this.#watchOutbox(() => undefined);
    if (!online.isOnline()) this.status.set({ phase: 'offline' });
    if (!tabs) return;
    this.#unsubscribers.push(
      tabs.subscribe((message) => {
        if (message.type !== 'status') return;
        this.status.set(readSharedStatus(message.status));
        if (message.answers) this.#followerWaiters.get(message.answers)?.();
      }),
    );
    tabs.post({ type: 'hello' });
  }

  /** Stops every timer and subscription; an in-flight push finishes (and is persisted) first. */
  async stop(): Promise<void> {
    this.#leave();
    await this.#running?.catch(() => undefined);
    for (const resolve of this.#idleWaiters.splice(0)) resolve();
    for (const done of [...this.#followerWaiters.values()]) done();
  }

  /** Asks for a sync as soon as possible: also cuts a backoff short (the user asked). */
  requestSync(): void {
    if (this.#mode === 'follower') this.#options.tabs?.post({ type: 'sync' });
    else this.#wake('user');
  }

  /**
   * Runs sync now and resolves once push and pull have nothing left (or cannot go on). In a
   * follower tab: once the leader says it is done, or after FOLLOWER_SYNC_WAIT_MS.
   */
  async syncNow(): Promise<SyncStatus> {
    if (this.#mode === 'follower') {
      const { tabs, clock } = this.#options;
      if (tabs) {
        const id = this.#options.newId();
        await new Promise<void>((resolve) => {
          const done = () => {
            clock.clearTimeout(timer);
            this.#followerWaiters.delete(id);
            resolve();
          };
          const timer = clock.setTimeout(done, FOLLOWER_SYNC_WAIT_MS);
          this.#followerWaiters.set(id, done);
          tabs.post({ type: 'sync', id });
        });
      }
      return this.status.getSnapshot();
    }
    if (this.#mode !== 'leader') return this.status.getSnapshot();
    const idle = new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
    this.#wake('user');
    await idle;
    return this.status.getSnapshot();
  }

  /** Back to idle: every timer and subscription of either mode goes. */
  #leave(): void {
    const { clock } = this.#options;
    this.#mode = 'idle';
    clock.clearTimeout(this.#retryTimer);
    clock.clearTimeout(this.#wakeTimer);
    clock.clearTimeout(this.#periodicTimer);
    this.#wakeDueAt = null;
    this.#parked = null;
    this.#again = false;
    this.#againForced = false;
    this.#outboxWatch?.unsubscribe();
    this.#outboxWatch = undefined;
    this.#realtimeOff?.();
    this.#realtimeOff = undefined;
    this.#userId = null;
    for (const off of this.#unsubscribers.splice(0)) off();
  }

  /** Keeps `pending` current (every tab counts the shared outbox) and reports unsent changes. */
  #watchOutbox(onUnsent: (unsent: number) => void): void {
    const { db } = this.#options;
    this.#outboxWatch = liveQuery(() =>
      Promise.all([db._outbox.count(), db._outbox.where('sent').equals(0).count()]),
    ).subscribe({
      next: ([pending, unsent]) => {
        this.status.set({ pending });
        onUnsent(unsent);
      },
      error: (error: unknown) => console.error('[sync] outbox watch failed', error),
    });
  }

  /** Runs the engine after `delayMs`, unless parked and `reason` may not wake it. */
  #wake(reason: Wake, delayMs = 0): void {
    if (this.#mode !== 'leader') return;
    const forcing = FORCING.has(reason);
    if (this.#parked && !forcing) return;
    const { clock } = this.#options;
    if (forcing) {
      this.#parked = null;
      clock.clearTimeout(this.#retryTimer);
    }
    if (this.#running && delayMs === 0) {
      // Once the running cycle ends, another one (see kick).
      this.#again = true;
      if (forcing) this.#againForced = true;
      return;
    }
    const dueAt = clock.now() + delayMs;
    if (this.#wakeDueAt !== null && this.#wakeDueAt <= dueAt) return;
    clock.clearTimeout(this.#wakeTimer);
    this.#wakeDueAt = dueAt;
    this.#wakeTimer = clock.setTimeout(() => {
      this.#wakeDueAt = null;
      this.#kick();
    }, delayMs);
  }

  #kick(): void {
    if (this.#mode !== 'leader') return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#cycleSafely().finally(() => {
      this.#running = undefined;
      const forced = this.#againForced;
      const again = this.#again && (forced || this.#parked === null);
      this.#again = false;
      this.#againForced = false;
      if (again && this.#mode === 'leader') {
        if (forced) this.#parked = null;
        this.#kick();
      } else {
        for (const resolve of this.#idleWaiters.splice(0)) resolve();
      }
    });
  }

  /**
   * #cycle handles its own failures; anything still thrown (a status listener failing) is
   * logged here, never left to reject #running with no one to hear it.
   */
  async #cycleSafely(): Promise<void> {
    try {
      await this.#cycle();
    } catch (error) {
      console.error('[sync] cycle failed', error);
    }
  }

  #resubscribe(userId: string | null): void {
    this.#userId = userId;
    this.#realtimeOff?.();
    this.#realtimeOff = undefined;
    if (!userId) return;
    const tables = this.#options.db.registry.map((spec) => spec.name);
    this.#realtimeOff = this.#options.remote.subscribe(tables, () =>
      this.#wake('realtime', REALTIME_DEBOUNCE_MS),
    );
  }

  async #cycle(): Promise<void> {
    const { online, remote, clock, db } = this.#options;
    if (this.#outdated) {
      this.#showOutdated();
      return;
    }
    if (!online.isOnline()) {
      this.status.set({ phase: 'offline' });
      return;
    }
    try {
      if (await this.#serverIsNewer()) {
        this.#outdated = new SyncError('APP_OUTDATED', 'Update available');
        this.#showOutdated();
        return;
      }
      const userId = await remote.userId();
      if (!userId) {
        // Queued work stays; a sign-in (an auth change) wakes the engine again.
        this.#park('signed-out');
        this.status.set({ phase: 'signed-out' });
        return;
      }
      if (userId !== this.#userId) this.#resubscribe(userId);
      const resyncing = (await db.getMeta<number>('resync')) !== undefined;
      this.status.set({
        phase: 'syncing',
        ...(resyncing ? { lastError: new SyncError('CURSOR_EXPIRED', 'Refreshing all data') } : {}),
      });
      await this.#adopt(userId);
      // Push first, so the pull that follows already includes our own changes.
      await this.#pushAll();
      await this.#pullAll(userId);
      this.#attempt = 0;
      this.#refreshedSinceSuccess = false;
      const pending = await db._outbox.count();
      this.status.set({ phase: 'synced', lastSyncedAt: clock.now(), lastError: null, pending });
      clock.clearTimeout(this.#periodicTimer);
      this.#periodicTimer = clock.setTimeout(() => this.#wake('periodic'), PERIODIC_SYNC_MS);
    } catch (error) {
      try {
        await this.#onCycleError(error);
      } catch (handlingError) {
        // Handling the failure failed too (its own write hit a closed database): nothing
        // may escape the cycle, or #running rejects with no one to hear it.
        if (isDatabaseClosed(handlingError)) {
          this.#leave();
          return;
        }
        console.error('[sync] handling a failure failed', handlingError);
        this.#backOff(
          new SyncError(
            'SERVER_ERROR',
            handlingError instanceof Error ? handlingError.message : String(handlingError),
          ),
        );
      }
    }
  }

  /**
   * Whether an earlier pull (in this tab or another, before a reload) found the server on a
   * newer sync contract: then this app version must not push (APP_OUTDATED).
   */
  async #serverIsNewer(): Promise<boolean> {
    const { db, schemaVersion } = this.#options;
    return ((await db.getMeta<number>(SERVER_SCHEMA_VERSION)) ?? 0) > schemaVersion;
  }

  /**
   * The server speaks a newer sync contract: nothing is sent or pulled until the app is
   * updated, and queued edits wait in the outbox for the new version. Not "synced": the
   * error stays, and the UI offers the update.
   */
  #showOutdated(): void {
    const { online } = this.#options;
    this.status.set({
      phase: online.isOnline() ? 'backing-off' : 'offline',
      lastError: this.#outdated,
    });
  }

  async #onCycleError(error: unknown): Promise<void> {
    const { online, db, clock } = this.#options;
    if (isDatabaseClosed(error)) {
      // The database went away under us (the tab is closing, or another tab opened a newer
      // schema): this engine is done. Nothing is lost: what it had sent is frozen and replays.
      const leading = this.#mode === 'leader';
      this.#leave();
      if (leading) this.#options.onDatabaseClosed?.();
      return;
    }
    const failure = isSyncError(error)
      ? error
      : new SyncError('SERVER_ERROR', error instanceof Error ? error.message : String(error));
    if (!isSyncError(error)) console.error('[sync] unexpected error', error);

    if (failure.code === 'AUTH_EXPIRED') {
      // One refresh per failure streak: a refresh that "works" but still gets 401s must not
      // loop (its own TOKEN_REFRESHED event would otherwise ask for the next round).
      if (!this.#refreshedSinceSuccess) {
        this.#refreshedSinceSuccess = true;
        let refreshed: boolean;
        try {
          refreshed = await this.#options.remote.refresh();
        } catch (refreshError) {
          // The network failed, not the session: try again later, refresh included.
          this.#refreshedSinceSuccess = false;
          this.#backOff(isSyncError(refreshError) ? refreshError : failure);
          return;
        }
        if (refreshed) {
          this.#again = true;
          this.#againForced = true;
          return;
        }
      }
      // Keep queueing; a sign-in (auth change) wakes the engine again.
      this.#park('signed-out');
      this.status.set({ phase: 'signed-out', lastError: failure });
      return;
    }
    if (failure.code === 'CURSOR_EXPIRED') {
      // Offline past the tombstone retention: pull everything again. The rows stay on
      // screen meanwhile; the ones not delivered again are swept at the end (apply.ts).
      await db.transaction('rw', db._meta, async () => {
        await db.setMeta('resync', clock.now());
        await db._meta.delete('cursor');
      });
      this.#again = true;
      this.#againForced = true;
      return;
    }
    if (failure.code === 'APP_OUTDATED') {
      this.#outdated = failure;
      this.#showOutdated();
      return;
    }
    if (!online.isOnline()) {
      this.status.set({ phase: 'offline' });
      return;
    }
    this.#backOff(failure);
  }

  /** Stops running until a forcing wake: wake-ups already scheduled (a write's) are void. */
  #park(kind: 'backoff' | 'signed-out'): void {
    this.#parked = kind;
    this.#options.clock.clearTimeout(this.#wakeTimer);
    this.#wakeDueAt = null;
  }

  /** Retries later: 1 s doubling to 60 s, with full jitter (SPEC §8, §9). */
  #backOff(failure: SyncError): void {
    const { clock, random } = this.#options;
    const delay = backoffDelayMs(this.#attempt, random);
    this.#attempt += 1;
    this.#park('backoff');
    this.status.set({ phase: 'backing-off', lastError: failure });
    clock.clearTimeout(this.#retryTimer);
    this.#retryTimer = clock.setTimeout(() => this.#wake('retry'), delay);
  }

  /**
   * Makes the store belong to `userId`: local-only rows are claimed (their owner columns set
   * to the real user, SPEC "claim-on-sign-in"); a store of another user is wiped first, queued
   * changes included. The app asks before that: its sign-in and sign-up screens count the
   * changes a different account's sign-in would drop (use-unsynced-guard.ts) and go on only
   * once the person agrees; sign-out wipes only when the outbox is empty or the person agreed.
   */
  async #adopt(userId: string): Promise<void> {
    const { db } = this.#options;
    const owner = await db.getMeta<string>('userId');
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

  async #clientId(): Promise<string> {
    const { db, newId } = this.#options;
    let id = await db.getMeta<string>('clientId');
    if (!id) {
      id = newId();
      await db.setMeta('clientId', id);
    }
    return id;
  }

  /**
   * Takes the next batch and freezes it (sent = 1) in ONE transaction: a write that lands in
   * between could otherwise coalesce into an entry after we read it, and what it added would
   * be acknowledged without ever being sent (a lost write).
   */
  async #nextBatch(): Promise<{ entries: OutboxEntry[]; wakeAt: number | undefined }> {
    const { db } = this.#options;
    return db.transaction('rw', db._outbox, async () => {
      const batch = await this.#readBatch();
      const seqs = batch.entries.map((e) => e.seq).filter((s): s is number => s !== undefined);
      // Once taken, an entry is frozen: the server may apply it even if we never hear back.
      await db._outbox
        .where('seq')
        .anyOf(seqs)
        .modify((entry) => {
          entry.sent = 1;
          entry.attempts += 1;
        });
      return batch;
    });
  }

  /** The next batch: ≤ batchMax mutations, ≤ 1 MiB, in seq order, stopping at a delete still in its undo window. */
  async #readBatch(): Promise<{ entries: OutboxEntry[]; wakeAt: number | undefined }> {
    const { db, clock } = this.#options;
    const undoWindowMs = this.#options.undoWindowMs ?? UNDO_WINDOW_MS;
    const max = this.#batchMax;
    const entries: OutboxEntry[] = [];
    let bytes = 2; // "[]"
    let wakeAt: number | undefined;
    await db._outbox
      .orderBy('seq')
      .until(() => entries.length >= max || wakeAt !== undefined)
      .each((entry) => {
        if (entries.length >= max || wakeAt !== undefined) return;
        if (
          entry.op === 'delete' &&
          entry.sent === 0 &&
          clock.now() - entry.createdAt < undoWindowMs
        ) {
          wakeAt = entry.createdAt + undoWindowMs;
          return;
        }
        const size = jsonbTextBytes(wireMutation(entry)) + 2; // + ", "
        if (entries.length > 0 && bytes + size > PUSH_BATCH_MAX_BYTES) {
          wakeAt = clock.now();
          return;
        }
        bytes += size;
        entries.push(entry);
      });
    return { entries, wakeAt };
  }

  async #pushAll(): Promise<void> {
    const { db, remote, clock } = this.#options;
    const clientId = await this.#clientId();
    for (;;) {
      const { entries, wakeAt } = await this.#nextBatch();
      if (entries.length === 0) {
        if (wakeAt !== undefined) this.#wake('undo-window', Math.max(0, wakeAt - clock.now()));
        return;
      }
      const refused = await this.#uploadFiles(entries);
      const sending = entries.filter((entry) => !refused.has(entry.rowId));
      let results: PushResult[] = [];
      if (sending.length > 0) {
        try {
          results = (await remote.push(clientId, sending.map(wireMutation))).results;
        } catch (error) {
          if (isSyncError(error) && error.serverCode === BATCH_TOO_LARGE_SQLSTATE) {
            // Over the server's limits after all (it measures differently): send less, from
            // now on (see #batchMax).
            this.#batchMax = Math.max(1, Math.min(this.#batchMax, Math.floor(sending.length / 2)));
          }
          throw error;
        }
      }
      await this.#applyPushResults(entries, results, refused);
      if (deletedFiles(sending, results)) {
        // Only a nudge, never awaited: the server queued the objects with the delete, and
        // what this call misses the next one (or the daily run) removes.
        void remote.cleanupDeletedFiles().catch(() => undefined);
      }
      if (entries.length < this.#batchMax && wakeAt === undefined) {
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
   * whose file the server would not take: they were not sent, and are refused here.
   */
  async #applyPushResults(
    entries: OutboxEntry[],
    results: PushResult[],
    refused: ReadonlyMap<string, SyncError>,
  ): Promise<void> {
    const { db } = this.#options;
    const bySeq = new Map(entries.map((e) => [e.seq, e]));
    await db.transaction('rw', db.allTables(), async () => {
      for (const [rowId, failure] of refused) {
        const entry = entries.find((e) => e.rowId === rowId && e.op === 'insert');
        if (!entry) continue;
        // Everything queued for that row goes with its insert (it never reached the server).
        await db._outbox.where('[table+rowId]').equals([entry.table, rowId]).delete();
        await this.#reject(entry, failure.code, failure.message);
        await db._files.delete(rowId);
      }
      for (const result of results) {
        const entry = bySeq.get(result.seq);
        if (!entry || entry.seq === undefined) continue;
        await db._outbox.delete(entry.seq);
        const code = codeForSqlState(result.code, {
          op: entry.op,
          ...(result.message === undefined ? {} : { message: result.message }),
        });
        if (result.status === 'applied' || code === 'DUPLICATE') {
          if (result.row) await applyServerRow(db, entry.table, result.row, 'ack');
          else await db.rows(entry.table).update(entry.rowId, { _v: 1 });
          // The server has the attachment's tombstone now (final): its bytes go. Not at the
          // local delete, which Undo can still take back.
          if (entry.table === 'attachments' && entry.op === 'delete') {
            await db._files.delete(entry.rowId);
          }
          continue;
        }
        await this.#reject(entry, code, result.message ?? code, result);
      }
    });
  }

  /** Reverts a refused change on the device and logs why (inside applyPushResults' transaction). */
  async #reject(
    entry: OutboxEntry,
    code: SyncErrorCode,
    message: string,
    server: Pick<PushResult, 'code' | 'column' | 'row'> = {},
  ): Promise<void> {
    const { db, clock } = this.#options;
    const serverRow = server.row;
    const rejection: Rejection = {
      table: entry.table,
      rowId: entry.rowId,
      op: entry.op,
      data: entry.data,
      code,
      message,
      at: clock.now(),
      ...(server.code ? { sqlState: server.code } : {}),
      ...(server.column ? { column: server.column } : {}),
      ...(entry.listId ? { listId: entry.listId } : {}),
    };
    await db._rejections.add(rejection);
    if (entry.op === 'delete') {
      // The children hidden with the refused delete come back with their parent.
      const deletedAt = (await db.rows(entry.table).get(entry.rowId))?.deleted_at;
      await unhideChildren(db, entry.table, entry.rowId, deletedAt);
    }
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
  async #uploadFiles(entries: OutboxEntry[]): Promise<Map<string, SyncError>> {
    const { db, remote } = this.#options;
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

  async #pullAll(userId: string): Promise<void> {
    const { db, remote, schemaVersion } = this.#options;
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
          await this.#applyPage(page.rows, userId);
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
  async #applyPage(rows: { table: string; row: ServerRow }[], userId: string) {
    const { db } = this.#options;
    let run: ServerRow[] = [];
    let runTable = '';
    const flush = async () => {
      await applyServerRows(db, runTable, run);
      run = [];
    };
    for (const { table, row } of rows) {
      if (!db.registry.some((spec) => spec.name === table)) continue;
      if (table === 'memberships' && row.user_id === userId) {
        await flush();
        await this.#applyOwnMembership(row, userId);
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

  async #applyOwnMembership(row: ServerRow, userId: string): Promise<void> {
    const { db, clock } = this.#options;
    const spec = db.registry.find((s) => s.name === 'memberships');
    if (!spec) return;
    const listId = listIdOf(spec, row);
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
}

/** Dexie's error for a database closed under a running operation. */
function isDatabaseClosed(error: unknown): boolean {
  const inner = (error as { inner?: { name?: unknown } } | null)?.inner;
  return (
    error instanceof Error &&
    (error.name === 'DatabaseClosedError' || inner?.name === 'DatabaseClosedError')
  );
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
  if (Array.isArray(value)) {
    const items = value as unknown[];
    let total = 2 + Math.max(0, items.length - 1) * 2;
    for (const item of items) total += jsonbTextBytes(item ?? null);
    return total;
  }
  const fields = Object.entries(value).filter(([, field]) => field !== undefined);
  let total = 2 + Math.max(0, fields.length - 1) * 2;
  for (const [key, field] of fields) total += jsonbTextBytes(key) + 2 + jsonbTextBytes(field);
  return total;
}

/** Owner columns of local-only rows, set to the real user on first sign-in. */
const OWNER_COLUMNS = ['created_by', 'author_id', 'user_id'] as const;

async function claimLocalRows(db: SyncDatabase, userId: string): Promise<void> {
  for (const spec of db.registry) {
    await db
      .rows(spec.name)
      .toCollection()
      .modify((row) => {
        for (const column of OWNER_COLUMNS) if (row[column] === LOCAL_USER_ID) row[column] = userId;
      });
  }
  await db._outbox.toCollection().modify((entry) => {
    for (const column of OWNER_COLUMNS)
      if (entry.data[column] === LOCAL_USER_ID) entry.data[column] = userId;
  });
}
