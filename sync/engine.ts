// The sync engine (SYNC.md "Push", "Pull", "When sync runs"): replays the outbox to
// sync_push in seq order, applies sync_pull pages, and decides when to do either. It holds
// no data of its own: everything it knows is in the Dexie database, so a reload, a crash or
// a new engine over the same database carries on where the last one stopped (I1).
import { liveQuery, type Subscription } from 'dexie';

import {
  applyServerRow,
  applyServerRows,
  dropSyncedRows,
  listIdOf,
  purgeList,
  unhideChildren,
  type ServerRow,
} from './apply';
import { backoffDelayMs } from './backoff';
import type { SyncDatabase } from './db';
import { codeForSqlState, isSyncError, SyncError } from './errors';
import type { OutboxEntry, Rejection } from './registry';
import type { PushResult, Remote, WireMutation } from './remote';
import { UNDO_WINDOW_MS } from './repositories';
import { StatusStore, type SyncStatus } from './status';

/** Most mutations in one sync_push (SPEC §9). */
export const PUSH_BATCH_MAX = 500;
/** Largest sync_push body (bytes, SPEC §9); a little under, for the envelope. */
export const PUSH_BATCH_MAX_BYTES = 1024 * 1024 - 4096;
/** Rows per sync_pull page (SPEC §9). */
export const PULL_PAGE_ROWS = 1000;
/** Realtime events are only a wake-up call; a burst of them causes one pull after this (ms). */
export const REALTIME_DEBOUNCE_MS = 100;
/** A local write is pushed this long after it settles (ms), so a burst goes in one request. */
export const PUSH_DEBOUNCE_MS = 30;
/** Safety pull while online (ms). */
export const PERIODIC_SYNC_MS = 60_000;
/** Bucket of attachment objects. */
export const ATTACHMENTS_BUCKET = 'attachments';

/** The user id local-only rows carry until their owner signs in and claims them. */
export const LOCAL_USER_ID = '00000000-0000-0000-0000-000000000000';

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface OnlineSignal {
  isOnline(): boolean;
  /** Calls back on every change; returns unsubscribe. */
  subscribe(onChange: (online: boolean) => void): () => void;
}

export interface EngineOptions {
  db: SyncDatabase;
  remote: Remote;
  clock: Clock;
  online: OnlineSignal;
  /** Uniform in [0, 1): backoff jitter. */
  random: () => number;
  newId: () => string;
  /** The sync contract version the app was built for (APP_OUTDATED above it). */
  schemaVersion: number;
  /** Tab focus, where there is one: a pull on focus. */
  focus?: { subscribe(onFocus: () => void): () => void };
  /** How long a delete is held back so Undo can still cancel it (ms; default UNDO_WINDOW_MS). */
  undoWindowMs?: number;
}

export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export class SyncEngine {
  readonly status = new StatusStore();
  private running: Promise<void> | undefined;
  private again = false;
  private started = false;
  private stopped = false;
  private attempt = 0;
  private retryTimer: unknown;
  private debounceTimer: unknown;
  private periodicTimer: unknown;
  private refreshedSinceSuccess = false;
  private outdated = false;
  private readonly unsubscribers: (() => void)[] = [];
  private outboxWatch: Subscription | undefined;
  private realtimeOff: (() => void) | undefined;
  private userId: string | null = null;
  private readonly idleWaiters: (() => void)[] = [];

  constructor(private readonly options: EngineOptions) {}

  /** Starts watching the outbox, the network, the session and realtime; syncs at once. */
  start(): void {
    if (this.started) return;
    this.started = true;
    const { db, online, remote, focus } = this.options;
    this.outboxWatch = liveQuery(() => db._outbox.count()).subscribe({
      next: (pending) => {
        this.status.set({ pending });
        if (pending > 0) this.schedule(PUSH_DEBOUNCE_MS);
      },
      error: (error: unknown) => console.error('[sync] outbox watch failed', error),
    });
    this.unsubscribers.push(
      online.subscribe((isOnline) => {
        if (isOnline) {
          this.attempt = 0;
          this.requestSync();
        } else this.status.set({ phase: 'offline' });
      }),
      remote.onAuthChange((userId) => {
        if (userId !== this.userId) this.resubscribe(userId);
        this.refreshedSinceSuccess = false;
        this.requestSync();
      }),
    );
    if (focus) this.unsubscribers.push(focus.subscribe(() => this.requestSync()));
    this.requestSync();
  }

  /** Stops every timer and subscription; an in-flight push finishes (and is persisted) first. */
  async stop(): Promise<void> {
    this.stopped = true;
    const { clock } = this.options;
    clock.clearTimeout(this.retryTimer);
    clock.clearTimeout(this.debounceTimer);
    clock.clearTimeout(this.periodicTimer);
    this.outboxWatch?.unsubscribe();
    this.realtimeOff?.();
    for (const off of this.unsubscribers.splice(0)) off();
    await this.running?.catch(() => undefined);
  }

  /** Asks for a sync as soon as possible (coalesced with one already running). */
  requestSync(): void {
    this.schedule(0);
  }

  /** Runs sync now and resolves once push and pull have nothing left (or cannot go on). */
  async syncNow(): Promise<SyncStatus> {
    this.requestSync();
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    return this.status.getSnapshot();
  }

  /** Settles when the engine is idle (nothing running or scheduled to run at once). */
  flush(): Promise<SyncStatus> {
    return this.syncNow();
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    const { clock } = this.options;
    clock.clearTimeout(this.debounceTimer);
    this.debounceTimer = clock.setTimeout(() => this.kick(), delayMs);
  }

  private kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.options.clock.clearTimeout(this.retryTimer);
    this.running = this.cycle().finally(() => {
      this.running = undefined;
      if (this.again && !this.stopped) {
        this.again = false;
        this.kick();
      } else {
        for (const resolve of this.idleWaiters.splice(0)) resolve();
      }
    });
  }

  private resubscribe(userId: string | null): void {
    this.userId = userId;
    this.realtimeOff?.();
    this.realtimeOff = undefined;
    if (!userId) return;
    const tables = this.options.db.registry.map((spec) => spec.name);
    this.realtimeOff = this.options.remote.subscribe(tables, () =>
      this.schedule(REALTIME_DEBOUNCE_MS),
    );
  }

  private async cycle(): Promise<void> {
    const { online, remote, clock } = this.options;
    if (this.outdated) return;
    if (!online.isOnline()) {
      this.status.set({ phase: 'offline' });
      return;
    }
    const userId = await remote.userId();
    if (!userId) {
      this.status.set({ phase: 'signed-out' });
      return;
    }
    if (userId !== this.userId) this.resubscribe(userId);
    this.status.set({ phase: 'syncing' });
    try {
      await this.adopt(userId);
      // Push first, so the pull that follows already includes our own changes.
      await this.pushAll();
      await this.pullAll(userId);
      this.attempt = 0;
      this.refreshedSinceSuccess = false;
      const pending = await this.options.db._outbox.count();
      this.status.set({ phase: 'synced', lastSyncedAt: clock.now(), lastError: null, pending });
      clock.clearTimeout(this.periodicTimer);
      this.periodicTimer = clock.setTimeout(() => this.requestSync(), PERIODIC_SYNC_MS);
    } catch (error) {
      await this.onCycleError(error);
    }
  }

  private async onCycleError(error: unknown): Promise<void> {
    const { clock, random, online } = this.options;
    const failure = isSyncError(error)
      ? error
      : new SyncError('SERVER_ERROR', error instanceof Error ? error.message : String(error));
    if (!isSyncError(error)) console.error('[sync] unexpected error', error);

    if (failure.code === 'AUTH_EXPIRED') {
      if (!this.refreshedSinceSuccess) {
        this.refreshedSinceSuccess = true;
        if (await this.options.remote.refresh().catch(() => false)) {
          this.again = true;
          return;
        }
      }
      // Keep queueing; a sign-in (auth change) wakes the engine again.
      this.status.set({ phase: 'signed-out', lastError: failure });
      return;
    }
    if (failure.code === 'CURSOR_EXPIRED') {
      await this.resetForResync();
      this.again = true;
      return;
    }
    if (failure.code === 'APP_OUTDATED') {
      this.outdated = true;
      this.status.set({ phase: 'synced', lastError: failure });
      return;
    }
    if (!online.isOnline()) {
      this.status.set({ phase: 'offline' });
      return;
    }
    const delay = backoffDelayMs(this.attempt, random);
    this.attempt += 1;
    this.status.set({ phase: 'backing-off', lastError: failure });
    clock.clearTimeout(this.retryTimer);
    this.retryTimer = clock.setTimeout(() => this.requestSync(), delay);
  }

  /** CURSOR_EXPIRED: forget everything synced and pull from scratch; queued edits stay. */
  private async resetForResync(): Promise<void> {
    const { db } = this.options;
    await db.transaction('rw', db.allTables(), async () => {
      await dropSyncedRows(db);
      await db._meta.delete('cursor');
    });
  }

  /**
   * Makes the store belong to `userId`: local-only rows are claimed (their owner columns set
   * to the real user, SPEC "claim-on-sign-in"); a store of another user is wiped first.
   */
  private async adopt(userId: string): Promise<void> {
    const { db } = this.options;
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

  private async clientId(): Promise<string> {
    const { db, newId } = this.options;
    let id = await db.getMeta<string>('clientId');
    if (!id) {
      id = newId();
      await db.setMeta('clientId', id);
    }
    return id;
  }

  /** The next batch: ≤ 500 mutations, ≤ 1 MiB, in seq order, stopping at a delete still in its undo window. */
  /**
   * Takes the next batch and freezes it (sent = 1) in ONE transaction: a write that lands in
   * between could otherwise coalesce into an entry after we read it, and what it added would
   * be acknowledged without ever being sent (a lost write).
   */
  private async nextBatch(): Promise<{ entries: OutboxEntry[]; wakeAt: number | undefined }> {
    const { db } = this.options;
    return db.transaction('rw', db._outbox, async () => {
      const batch = await this.readBatch();
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

  private async readBatch(): Promise<{ entries: OutboxEntry[]; wakeAt: number | undefined }> {
    const { db, clock } = this.options;
    const undoWindowMs = this.options.undoWindowMs ?? UNDO_WINDOW_MS;
    const entries: OutboxEntry[] = [];
    let bytes = 2;
    let wakeAt: number | undefined;
    await db._outbox
      .orderBy('seq')
      .until(() => entries.length >= PUSH_BATCH_MAX || wakeAt !== undefined)
      .each((entry) => {
        if (entries.length >= PUSH_BATCH_MAX || wakeAt !== undefined) return;
        if (
          entry.op === 'delete' &&
          entry.sent === 0 &&
          clock.now() - entry.createdAt < undoWindowMs
        ) {
          wakeAt = entry.createdAt + undoWindowMs;
          return;
        }
        const size = JSON.stringify(entry.data).length + 160;
        if (entries.length > 0 && bytes + size > PUSH_BATCH_MAX_BYTES) {
          wakeAt = clock.now();
          return;
        }
        bytes += size;
        entries.push(entry);
      });
    return { entries, wakeAt };
  }

  private async pushAll(): Promise<void> {
    const { db, remote, clock } = this.options;
    const clientId = await this.clientId();
    for (;;) {
      const { entries, wakeAt } = await this.nextBatch();
      if (entries.length === 0) {
        if (wakeAt !== undefined) this.schedule(Math.max(0, wakeAt - clock.now()));
        return;
      }
      await this.uploadFiles(entries);
      const mutations: WireMutation[] = entries.map((e) => ({
        seq: e.seq ?? 0,
        table: e.table,
        op: e.op,
        id: e.rowId,
        data: e.data,
      }));
      const response = await remote.push(clientId, mutations);
      await this.applyPushResults(entries, response.results);
      if (entries.length < PUSH_BATCH_MAX && wakeAt === undefined) {
        // A short batch means the outbox is drained, unless writes arrived meanwhile.
        const more = await db._outbox.where('sent').equals(0).count();
        if (more === 0) return;
      }
    }
  }

  private async applyPushResults(entries: OutboxEntry[], results: PushResult[]): Promise<void> {
    const { db, clock } = this.options;
    const bySeq = new Map(entries.map((e) => [e.seq, e]));
    await db.transaction('rw', db.allTables(), async () => {
      for (const result of results) {
        const entry = bySeq.get(result.seq);
        if (!entry || entry.seq === undefined) continue;
        await db._outbox.delete(entry.seq);
        const code = codeForSqlState(result.code);
        if (result.status === 'applied' || code === 'DUPLICATE') {
          if (result.row) await applyServerRow(db, entry.table, result.row, 'ack');
          else await db.rows(entry.table).update(entry.rowId, { _v: 1 });
          continue;
        }
        const rejection: Rejection = {
          table: entry.table,
          rowId: entry.rowId,
          op: entry.op,
          data: entry.data,
          code,
          message: result.message ?? code,
          at: clock.now(),
          ...(result.code ? { sqlState: result.code } : {}),
          ...(entry.listId ? { listId: entry.listId } : {}),
        };
        await db._rejections.add(rejection);
        if (entry.op === 'delete') {
          // The children hidden with the refused delete come back with their parent.
          const deletedAt = (await db.rows(entry.table).get(entry.rowId))?.deleted_at;
          await unhideChildren(db, entry.table, entry.rowId, deletedAt);
        }
        if (result.row) {
          await applyServerRow(db, entry.table, result.row, 'force');
        } else {
          // Gone or never allowed: nothing of it stays on the device.
          await db.rows(entry.table).delete(entry.rowId);
        }
      }
    });
  }

  /** Uploads the files of attachment inserts in this batch before the rows go (I6). */
  private async uploadFiles(entries: OutboxEntry[]): Promise<void> {
    const { db, remote } = this.options;
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
        // Transient: retry the whole push later. Otherwise the row goes and the server decides.
        if (failure.transient || failure.code === 'AUTH_EXPIRED') throw failure;
      }
    }
  }

  private async pullAll(userId: string): Promise<void> {
    const { db, remote, schemaVersion } = this.options;
    let cursor = (await db.getMeta<string>('cursor')) ?? null;
    for (;;) {
      const page = await remote.pull(cursor, PULL_PAGE_ROWS);
      if (page.schema_version > schemaVersion) {
        throw new SyncError('APP_OUTDATED', 'Update available');
      }
      if (page.rows.length === 0) {
        // Nothing new (most pulls: start-up, wake-ups, the periodic check): only the cursor
        // moves, without a transaction over every table that would hold up the screens' reads.
        await db.setMeta('cursor', page.cursor);
        cursor = page.cursor;
        if (!page.has_more) return;
        continue;
      }
      await db.transaction('rw', db.allTables(), async () => {
        // Rows are applied in page order, a run of one table's rows at a time (in bulk);
        // the caller's own memberships go one by one, as they may purge or replace.
        let run: ServerRow[] = [];
        let runTable = '';
        const flush = async () => {
          await applyServerRows(db, runTable, run);
          run = [];
        };
        for (const { table, row } of page.rows) {
          if (!db.registry.some((spec) => spec.name === table)) continue;
          if (table === 'memberships' && row.user_id === userId) {
            await flush();
            await this.applyPulledRow(table, row, userId);
            continue;
          }
          if (table !== runTable) {
            await flush();
            runTable = table;
          }
          run.push(row);
        }
        await flush();
        await db.setMeta('cursor', page.cursor);
      });
      cursor = page.cursor;
      if (!page.has_more) return;
    }
  }

  private async applyPulledRow(table: string, row: ServerRow, userId: string): Promise<void> {
    const { db } = this.options;
    const spec = db.registry.find((s) => s.name === table);
    if (!spec) return;
    if (table === 'memberships' && row.user_id === userId) {
      const listId = listIdOf(spec, row);
      if (listId && row.deleted_at) {
        // Our own membership tombstone: the list is no longer ours to keep (I5).
        await purgeList(db, listId);
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
    }
    await applyServerRow(db, table, row);
  }
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
