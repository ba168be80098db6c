// The outbox: queued changes, in seq order, and their counts. Appending coalesces: an entry
// not yet sent absorbs later changes to the same row; one already sent is never touched
// again (the server may have applied it even if we never heard back, and a replay must
// carry exactly what was sent).
//
// Every write to `_outbox` goes through this module (ESLint holds the rest of sync/ to it),
// because each one also keeps the outbox's counts in `_meta` (OUTBOX_COUNTS), in the same
// transaction: the header's "3 changes waiting", the engine's "anything unsent?" and the
// lists' pending badges read one record instead of counting the queue, so a write costs
// the same with 1 or 10,000 changes queued. Writers run inside a rw transaction over
// `outboxTables(db)` (and whatever else they write).
import type { Table } from 'dexie';

import type { SyncDatabase } from './db';
import type { OutboxEntry } from './registry';

/** `_meta` key of the outbox's counts. */
export const OUTBOX_COUNTS = 'outboxCounts';

/** What the outbox holds, kept with every write to it. */
export interface OutboxCounts {
  /** Queued changes not yet acknowledged by the server. */
  total: number;
  /** Of those, the ones not yet sent (a push is due). */
  unsent: number;
  /** Queued changes by list (rows of list-scoped tables). */
  lists: Record<string, number>;
}

/** The tables every outbox write touches: the queue and the `_meta` record of its counts. */
export function outboxTables(db: SyncDatabase): Table[] {
  return [db._outbox, db._meta];
}

/** Counts the queue entry by entry: for a device whose counts are not kept yet (and tests). */
export async function countQueue(db: SyncDatabase): Promise<OutboxCounts> {
  const counts: OutboxCounts = { total: 0, unsent: 0, lists: {} };
  await db._outbox.each((entry) => add(counts, entry, 1));
  return counts;
}

function add(counts: OutboxCounts, entry: OutboxEntry, sign: 1 | -1): void {
  counts.total += sign;
  if (entry.sent === 0) counts.unsent += sign;
  if (entry.listId) {
    const n = (counts.lists[entry.listId] ?? 0) + sign;
    if (n > 0) counts.lists[entry.listId] = n;
    else delete counts.lists[entry.listId];
  }
}

/**
 * The outbox's counts: one `_meta` read. (A device upgraded from a version that did not keep
 * them, or a queue just wiped, counts its queue once, until its next outbox write.)
 */
export async function outboxCounts(db: SyncDatabase): Promise<OutboxCounts> {
  return (await db.getMeta<OutboxCounts>(OUTBOX_COUNTS)) ?? countQueue(db);
}

/** Stores the counts changed by a write (read before it, inside its transaction). */
async function keep(db: SyncDatabase, counts: OutboxCounts): Promise<void> {
  await db.setMeta(OUTBOX_COUNTS, counts);
}

/** Appends or coalesces a change. */
export async function enqueue(
  db: SyncDatabase,
  entry: Omit<OutboxEntry, 'seq' | 'sent' | 'attempts'>,
): Promise<void> {
  const last = await db._outbox.where('[table+rowId]').equals([entry.table, entry.rowId]).last();
  if (last?.seq !== undefined && last.sent === 0) {
    if (entry.op === 'patch' && (last.op === 'insert' || last.op === 'patch')) {
      await db._outbox.update(last.seq, { data: { ...last.data, ...entry.data } });
      return;
    }
    // A delete never absorbs the patch before it: Undo takes the delete out again, and the
    // edit must still be there to send (folded into the delete, it would be lost).
  }
  const queued: OutboxEntry = { ...entry, sent: 0, attempts: 0 };
  // The counts are read before the write: counted from the queue, they must not include it.
  const counts = await outboxCounts(db);
  await db._outbox.add(queued);
  add(counts, queued, 1);
  await keep(db, counts);
}

/**
 * Freezes entries taken for a push (sent = 1, one more attempt): from here on the server
 * may apply them even if we never hear back.
 */
export async function freeze(db: SyncDatabase, entries: readonly OutboxEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const counts = await outboxCounts(db);
  await db._outbox.bulkPut(
    entries.map((entry) => ({ ...entry, sent: 1 as const, attempts: entry.attempts + 1 })),
  );
  counts.unsent -= entries.filter((entry) => entry.sent === 0).length;
  await keep(db, counts);
}

/** Removes queued changes by seq (acknowledged, undone); returns those that were there. */
export async function dequeue(db: SyncDatabase, seqs: readonly number[]): Promise<OutboxEntry[]> {
  if (seqs.length === 0) return [];
  const counts = await outboxCounts(db);
  const stored = (await db._outbox.bulkGet([...seqs])).filter(
    (entry): entry is OutboxEntry => entry !== undefined,
  );
  if (stored.length === 0) return [];
  await db._outbox.bulkDelete(stored.map((entry) => entry.seq!));
  for (const entry of stored) add(counts, entry, -1);
  await keep(db, counts);
  return stored;
}

/** Removes every change queued for a row; returns them. */
export async function dequeueRow(
  db: SyncDatabase,
  table: string,
  rowId: string,
): Promise<OutboxEntry[]> {
  const entries = await db._outbox.where('[table+rowId]').equals([table, rowId]).toArray();
  return dequeue(
    db,
    entries.map((entry) => entry.seq!),
  );
}

/** Removes every change queued for a list (revocation); returns them, in seq order. */
export async function dequeueList(db: SyncDatabase, listId: string): Promise<OutboxEntry[]> {
  const entries = await db._outbox.where('listId').equals(listId).toArray();
  return dequeue(
    db,
    entries.map((entry) => entry.seq!),
  );
}

/** Rewrites the data of every queued change (a local user's rows claimed at sign-in). */
export async function rewriteQueued(
  db: SyncDatabase,
  change: (data: Record<string, unknown>) => void,
): Promise<void> {
  await db._outbox.toCollection().modify((entry) => change(entry.data));
}

/** Empties the queue. */
export async function clearOutbox(db: SyncDatabase): Promise<void> {
  await db._outbox.clear();
  await db.setMeta(OUTBOX_COUNTS, { total: 0, unsent: 0, lists: {} } satisfies OutboxCounts);
}

/** Queued changes not yet acknowledged by the server. */
export async function pendingCount(db: SyncDatabase): Promise<number> {
  return (await outboxCounts(db)).total;
}
