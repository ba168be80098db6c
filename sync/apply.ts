// Applying server rows to the device (from pull pages and push results): newer versions
// win, and fields the device still has queued are laid back on top (rebase), so a pending
// local edit is never hidden by an older or concurrent server state. Also the purges.
// Every function here runs inside a rw transaction over all tables (db.allTables()).
import type { SyncDatabase } from './db';
import { dequeueList, outboxCounts } from './outbox';
import type { LocalRow, OutboxEntry, Rejection, TableSpec } from './registry';

/** A row as the server sends it (pull pages, push results): its columns, id and version. */
export type ServerRow = Record<string, unknown> & { id: string; version: number };

/**
 * A server row that changed the device's copy, from a pull page or a realtime message: the
 * row as the server sent it, and the device's copy before (undefined: new to the device).
 * An app hears them (SyncOptions.onRemoteChanges) to tell its user what others did.
 */
export interface RemoteChange {
  table: string;
  row: ServerRow;
  before: LocalRow | undefined;
}

/** The rows of `rows` that replaced what the device had before (`before`, by index). */
export function changedRows(
  table: string,
  rows: readonly ServerRow[],
  before: readonly (LocalRow | undefined)[],
): RemoteChange[] {
  const changes: RemoteChange[] = [];
  rows.forEach((row, i) => {
    const mine = before[i];
    if (!mine || mine._v < row.version) changes.push({ table, row, before: mine });
  });
  return changes;
}

/** The row with the device's queued changes replayed over it, in seq order. */
function rebase(
  row: LocalRow,
  pending: readonly OutboxEntry[],
  deletedAt: string | null | undefined,
): LocalRow {
  let merged: LocalRow = row;
  for (const entry of pending) {
    if (entry.op === 'delete') {
      merged = { ...merged, deleted_at: deletedAt ?? new Date(entry.createdAt).toISOString() };
    } else merged = { ...merged, ...entry.data };
  }
  return merged;
}

/**
 * When a server row replaces the device's copy:
 * - `newer` (pull): only a higher version than the device's `_v`;
 * - `ack` (a push result): the same version too, because the device's copy of that version
 *   may still carry the fields of the entry just acknowledged (laid on top by an earlier
 *   rebase) and must now show the server's own values;
 * - `force` (a refused change): always, reverting the device's copy;
 * - `fresh` (a pull from scratch, nothing queued): always, without reading the device's
 *   copies first (see pull.ts, applyPage); the rows are written as they are, given their `_v`
 *   in place (the caller hands them over); returns no copies.
 */
export type ApplyMode = 'newer' | 'ack' | 'force' | 'fresh';

/**
 * Whether a server row at `version` leaves the device's copy (of version `local`) alone:
 * an older version never replaces it, nor the same one unless it acknowledges our push.
 */
function keepsLocal(local: LocalRow | undefined, version: number, mode: ApplyMode): boolean {
  if (!local || mode === 'force') return false;
  return mode === 'ack' ? local._v > version : local._v >= version;
}

/**
 * Writes server rows of one table locally per `mode` (a pull page in bulk: one bulkGet, one
 * outbox lookup, one bulkPut); fields still queued on the device stay on top. Each row is
 * kept as the device keeps it: its version in `_v`, and the resync mark of the copy it
 * replaces (a row a resync already delivered keeps `_r`, or the sweep at the resync's end
 * would take it for a row the server no longer has). An attachment's tombstone is final:
 * the bytes kept for it (uploaded from here, or fetched for offline viewing) go with it;
 * never at a local delete, which Undo can still take back. (Attachments: the schema's
 * `files` table.) Returns the device's copies as
 * they were before (undefined where it had none).
 */
export async function applyServerRows(
  db: SyncDatabase,
  table: string,
  rows: readonly ServerRow[],
  mode: ApplyMode = 'newer',
): Promise<(LocalRow | undefined)[]> {
  if (rows.length === 0) return [];
  const local = db.rows(table);
  if (mode === 'fresh') {
    // A bulk write and nothing else: no read of the device's copies, no outbox lookup, and no
    // copy of the rows (a pull page's own, handed over).
    await Promise.all([
      local.bulkPut(rows.map((row) => Object.assign(row, { _v: row.version }))),
      table === db.schema.files?.table
        ? db._files.bulkDelete(rows.filter((row) => row.deleted_at).map((row) => row.id))
        : undefined,
    ]);
    return [];
  }
  // Requests issued together: one round trip to the store, not one after another.
  const [existing, queued] = await Promise.all([
    local.bulkGet(rows.map((row) => row.id)),
    outboxCounts(db),
    table === db.schema.files?.table
      ? db._files.bulkDelete(rows.filter((row) => row.deleted_at).map((row) => row.id))
      : undefined,
  ]);
  const pendingByRow = new Map<string, OutboxEntry[]>();
  if (queued.total > 0) {
    const keys = rows.map((row): [string, string] => [table, row.id]);
    const entries = await db._outbox.where('[table+rowId]').anyOf(keys).toArray();
    for (const entry of entries.sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0))) {
      pendingByRow.set(entry.rowId, [...(pendingByRow.get(entry.rowId) ?? []), entry]);
    }
  }
  const puts: LocalRow[] = [];
  rows.forEach((row, i) => {
    const mine = existing[i];
    if (keepsLocal(mine, row.version, mode)) return;
    const base: LocalRow = { ...row, _v: row.version };
    if (mine?._r !== undefined) base._r = mine._r;
    const pending = pendingByRow.get(row.id);
    puts.push(pending ? rebase(base, pending, mine?.deleted_at) : base);
  });
  await local.bulkPut(puts);
  return existing;
}

/** applyServerRows for one row (a push result, a revert, our own membership). */
export async function applyServerRow(
  db: SyncDatabase,
  table: string,
  row: ServerRow,
  mode: ApplyMode = 'newer',
): Promise<void> {
  await applyServerRows(db, table, [row], mode);
}

/** The log entry of a queued change the device reverts or drops (code: product.md §8). */
export function rejectionOf(
  entry: OutboxEntry,
  code: string,
  message: string,
  at: number,
): Rejection {
  const rejection: Rejection = {
    table: entry.table,
    rowId: entry.rowId,
    op: entry.op,
    data: entry.data,
    code,
    message,
    at,
  };
  if (entry.listId) rejection.listId = entry.listId;
  return rejection;
}

/** Why queued changes of a list the user lost were dropped (shown in Rejected changes). */
export const ACCESS_LOST_MESSAGE = 'You no longer have access to this list.';

/**
 * Removes a list and everything under it from the device (revocation, I5). Changes still
 * queued for it can never be applied now: they go to the rejection log, not silently away
 * (I1). (The engine pushes before it pulls, so none of them was sent without an answer.)
 */
export async function purgeList(db: SyncDatabase, listId: string, now: number): Promise<void> {
  const specs = [...db.registry].sort((a, b) => b.depth - a.depth);
  for (const spec of specs) {
    if (spec.scope.kind !== 'list') continue;
    await db.rows(spec.name).where(spec.scope.column).equals(listId).delete();
  }
  const dropped = await dequeueList(db, listId);
  await db._rejections.bulkAdd(
    dropped.map((entry) => rejectionOf(entry, 'PERMISSION_DENIED', ACCESS_LOST_MESSAGE, now)),
  );
  await db._files.where('listId').equals(listId).delete();
}

/**
 * Drops the profiles (the schema's `peers`) the user no longer sees: the server shows a
 * profile only while its owner shares a live list with the user, and sends no tombstone
 * when that ends (a member left, or the user lost the list). Kept: the user's own and every
 * member's of a list here.
 */
export async function dropUnsharedProfiles(db: SyncDatabase, userId: string): Promise<void> {
  const { members, memberUser, peers } = db.schema.access;
  if (!peers) return;
  const keep = new Set([userId]);
  await db
    .rows(members)
    .filter((row) => !row.deleted_at)
    .each((row) => {
      keep.add(String(row[memberUser]));
    });
  await db
    .rows(peers)
    .filter((row) => !keep.has(row.id))
    .delete();
}

/** The list a row belongs to, per its table's scope. */
export function listIdOf(spec: TableSpec, row: Record<string, unknown>): string | undefined {
  if (spec.scope.kind !== 'list') return undefined;
  const value = row[spec.scope.column];
  return typeof value === 'string' ? value : undefined;
}

/**
 * A resync from scratch (CURSOR_EXPIRED) keeps the device's rows on screen while it runs:
 * every row a resync page delivers is stamped `_r` with the resync's mark, and once the
 * last page is in, the synced rows that were not delivered (deleted on the server, or no
 * longer visible) are swept. The mark is kept in `_meta`, so an interrupted resync goes on
 * where it stopped and sweeps correctly at its end.
 */
export async function markDelivered(
  db: SyncDatabase,
  rows: readonly { table: string; row: { id: string } }[],
  mark: number,
): Promise<void> {
  const byTable = new Map<string, string[]>();
  for (const { table, row } of rows) byTable.set(table, [...(byTable.get(table) ?? []), row.id]);
  for (const [table, ids] of byTable) {
    if (!db.registry.some((spec) => spec.name === table)) continue;
    await db
      .rows(table)
      .where(':id')
      .anyOf(ids)
      .modify((row) => {
        row._r = mark;
      });
  }
}

/**
 * The end of a resync: drops synced rows it did not deliver. Rows that never reached the
 * server (`_v` 0: made here, or the stand-in owner membership of a list made here) and rows
 * with changes still queued stay.
 */
export async function sweepUndelivered(db: SyncDatabase, mark: number): Promise<void> {
  const pendingKeys = new Set(
    (await db._outbox.toArray()).map((entry) => `${entry.table}/${entry.rowId}`),
  );
  for (const spec of db.registry) {
    await db
      .rows(spec.name)
      .filter((row) => row._v > 0 && row._r !== mark && !pendingKeys.has(`${spec.name}/${row.id}`))
      .delete();
  }
  // Blobs of attachments that are gone, unless still waiting to be uploaded.
  const files = db.schema.files;
  if (!files) return;
  const attachmentIds = new Set(await db.rows(files.table).toCollection().primaryKeys());
  await db._files.filter((file) => !attachmentIds.has(file.id) && file.state === 'cached').delete();
}

/**
 * A table and the tables its deletes reach (the schema's `cascades`, mirroring the server's
 * ON DELETE CASCADE): the device hides the children at once, and shows them again if the
 * delete is cancelled or refused.
 */
export function cascadeTables(db: SyncDatabase, table: string): string[] {
  return [table, ...(db.schema.cascades[table] ?? []).map(([child]) => child)];
}

/** Marks the children of a deleted row deleted on the device, stamped `at` like the parent. */
export function hideChildren(db: SyncDatabase, table: string, id: string, at: string) {
  return modifyChildren(db, table, id, (row) => {
    row.deleted_at ??= at;
  });
}

/**
 * Shows again the children that hideChildren hid with the row's delete (undo, or a refused
 * delete): those stamped like the row. Call while the row still carries its stamp.
 */
export async function unhideChildren(db: SyncDatabase, table: string, id: string): Promise<void> {
  const at = (await db.rows(table).get(id))?.deleted_at;
  if (typeof at !== 'string') return;
  await modifyChildren(db, table, id, (row) => {
    if (row.deleted_at === at) row.deleted_at = null;
  });
}

/** Changes each child row of `table`'s row `id` on the device (the schema's cascades). */
async function modifyChildren(
  db: SyncDatabase,
  table: string,
  id: string,
  change: (row: LocalRow) => void,
): Promise<void> {
  for (const [child, column] of db.schema.cascades[table] ?? []) {
    await db.rows(child).where(column).equals(id).modify(change);
  }
}
