// Appending to the outbox, with coalescing: an entry not yet sent absorbs later changes to
// the same row; one already sent is never touched again (the server may have applied it
// even if we never heard back, and a replay must carry exactly what was sent).
import type { SyncDatabase } from './db';
import type { OutboxEntry } from './registry';

/** Appends or coalesces a change. Call inside a rw transaction that includes `_outbox`. */
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
  await db._outbox.add({ ...entry, sent: 0, attempts: 0 });
}

/** Queued changes not yet acknowledged by the server. */
export function pendingCount(db: SyncDatabase): Promise<number> {
  return db._outbox.count();
}
