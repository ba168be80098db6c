// Push (sync-design.md "Push"): replays the outbox to sync_push in seq order, in batches the
// server takes, and applies what it answers. Everything it knows is in the database, so a
// reload or a crash mid-push carries on where it stopped (I1).
import { applyServerRow, rejectionOf, unhideChildren } from './apply';
import type { SyncDatabase } from './db';
import type { Clock, OnlineSignal } from './platform';
import {
  BATCH_TOO_LARGE_SQLSTATE,
  codeForSqlState,
  isSyncError,
  SyncError,
  type SyncErrorCode,
} from './errors';
import { uploadFiles } from './files';
import { dequeue, dequeueRow, freeze, outboxTables } from './outbox';
import type { OutboxEntry } from './registry';
import type { PushResult, Remote, WireMutation } from './remote';
import { UNDO_WINDOW_MS } from './store';

/** Most mutations in one sync_push (product.md §9). */
export const PUSH_BATCH_MAX = 500;
/** Largest sync_push batch (bytes as the server measures it, product.md §9), a little under 1 MiB. */
export const PUSH_BATCH_MAX_BYTES = 1024 * 1024 - 4096;

/** What push runs over (the engine's options). */
export interface PushContext {
  db: SyncDatabase;
  remote: Remote;
  clock: Clock;
  online: OnlineSignal;
  /** A new unique id (the device's client id). */
  newId: () => string;
  /** How long a delete is held back so Undo can still cancel it (ms; default UNDO_WINDOW_MS). */
  undoWindowMs?: number | undefined;
}

/**
 * Push over `ctx`: a function that sends the outbox until it is drained, as device `client`
 * (the stored client id; made and kept on the first push). `syncSoon(delayMs)` asks for a
 * later cycle (a delete still in its undo window); `taking()` is called in the transaction
 * that reads each batch, which holds every change committed before it.
 */
export function createPush(
  { db, remote, clock, online, newId, undoWindowMs = UNDO_WINDOW_MS }: PushContext,
  syncSoon: (delayMs: number) => void,
  taking: () => void,
): (client: unknown) => Promise<void> {
  /**
   * Batch size to send; halved after the server refuses a batch as too large, and kept so
   * for the engine's life: growing back would only find the same limit again, one refused
   * batch and one backoff at a time.
   */
  let batchMax = PUSH_BATCH_MAX;
  /** The table of rows with files, and the tables whose delete reaches it (cascades). */
  const fileTable = db.schema.files?.table;
  const fileDeleting = new Set(
    Object.keys(db.schema.cascades).filter((parent) =>
      db.schema.cascades[parent]?.some(([child]) => child === fileTable),
    ),
  );
  if (fileTable) fileDeleting.add(fileTable);

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
  async function nextBatch(): Promise<{ entries: OutboxEntry[]; resumeAt: number | undefined }> {
    return db.transaction('rw', outboxTables(db), async () => {
      taking();
      const batch = await readBatch();
      // Once taken, an entry is frozen: the server may apply it even if we never hear back.
      // Written back in one bulk request (as the batch was read in one): each round trip to
      // IndexedDB waits for the page's main thread, busy drawing the write just made.
      await freeze(db, batch.entries);
      return batch;
    });
  }

  /** The next batch: ≤ batchMax mutations, ≤ 1 MiB, in seq order, stopping at a delete still in its undo window. */
  async function readBatch(): Promise<{ entries: OutboxEntry[]; resumeAt: number | undefined }> {
    const max = batchMax;
    const entries: OutboxEntry[] = [];
    let bytes = 2; // "[]"
    let resumeAt: number | undefined;
    // The first `max` entries in one request (getAll), not a cursor step per entry.
    for (const entry of await db._outbox.orderBy('seq').limit(max).toArray()) {
      if (
        entry.op === 'delete' &&
        entry.sent === 0 &&
        clock.now() - entry.createdAt < undoWindowMs
      ) {
        resumeAt = entry.createdAt + undoWindowMs;
        break;
      }
      // A file's upload is allowed once the rows it belongs to are on the server (the bucket's
      // policies check the list): a file row made in the same batch as new rows goes in the
      // next one, after them.
      if (
        entry.op === 'insert' &&
        entry.table === db.schema.files?.table &&
        entries.some((before) => before.op === 'insert' && before.table !== entry.table)
      ) {
        resumeAt = clock.now();
        break;
      }
      const size = jsonbTextBytes(wireMutation(entry)) + 2; // + ", "
      if (entries.length > 0 && bytes + size > PUSH_BATCH_MAX_BYTES) {
        resumeAt = clock.now();
        break;
      }
      bytes += size;
      entries.push(entry);
    }
    return { entries, resumeAt };
  }

  async function pushAll(stored: unknown): Promise<void> {
    const client = typeof stored === 'string' ? stored : await newClientId();
    for (;;) {
      // Gone offline mid-cycle: no more batches (writes made since stay queued, unfrozen).
      if (!online.isOnline()) throw new SyncError('OFFLINE', 'Offline');
      const { entries, resumeAt } = await nextBatch();
      if (entries.length === 0) {
        if (resumeAt !== undefined) syncSoon(Math.max(0, resumeAt - clock.now()));
        return;
      }
      const refused = await uploadFiles(db, remote, entries);
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
      // A short batch took everything queued when it was read: the writes made since asked the
      // schedule for their own push (cycle-plan.ts pushSoon), which a burst's writes wait for
      // together instead of following this batch one round trip at a time. (Short of the size
      // asked for: after a smaller batch size, entries frozen by a refused batch are still
      // there although none is unsent.)
      if (entries.length < batchMax && resumeAt === undefined) return;
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
        await dequeueRow(db, entry.table, rowId);
        await reject(entry, failure.code, failure.message);
        await db._files.delete(rowId);
      }
      for (const result of results) {
        const entry = bySeq.get(result.seq);
        if (!entry || entry.seq === undefined) continue;
        // Answered, so no longer queued: out of the outbox before its row is applied (or the
        // row would be rebased on the very change it acknowledges), one at a time: the later
        // entries of the batch are still queued while this one is applied or reverted (a
        // refused delete after it must still find its row stamped, to bring its children back).
        await dequeue(db, [entry.seq]);
        const code = codeForSqlState(result.code, {
          op: entry.op,
          table: entry.table,
          constraint: result.constraint,
        });
        if (result.status === 'applied' || code === 'DUPLICATE') {
          if (result.row) await applyServerRow(db, entry.table, result.row, 'ack');
          else await db.rows(entry.table).update(entry.rowId, { _v: 1 });
          if (entry.op === 'delete' && fileDeleting.has(entry.table)) {
            deletedFiles ||= result.status === 'applied';
            // The server has the attachment's tombstone now (final): its bytes go. Not at
            // the local delete, which Undo can still take back.
            if (entry.table === fileTable) await db._files.delete(entry.rowId);
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

  return pushAll;
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
