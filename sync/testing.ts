// The sync library's testing entry: what a developer's own tests (and Outpost's) need beside
// the public API, never shipped in an app bundle. See sync/README.md and sync/kit/README.md.
// App tests use the functions below (rows as the device keeps them, the outbox, the files and
// rejections the engine keeps); only the library's own suites take the database itself.
import { OWNER_KEY } from './account';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';

import { DEVICE_DB, SyncDatabase, type FileRecord } from './db';
import type { Sync } from './core';
import {
  clearOutbox,
  countQueue,
  freeze,
  OUTBOX_COUNTS,
  outboxTables,
  type OutboxCounts,
} from './outbox';
import type {
  LocalRow,
  OutboxEntry,
  Rejection,
  RowTypes,
  Stored,
  SyncSchema,
  TableName,
} from './registry';
import type { NewRow } from './store';

export { switchableOnline, type SwitchableOnline } from './switchable-online';
// What createSync hands an app's read and write APIs, for their unit tests over memoryDatabase.
export { deviceReader } from './reader';
export { typedRows, type SyncDatabase } from './db';

/** Any app's sync (createSync's answer; Outpost's OutpostSync is one). */
type AnySync = Sync<unknown, unknown>;

/**
 * The device database behind `sync`, for the library's own suites (tests/). App tests use the
 * functions below, which never hand out a Dexie table.
 */
export function deviceDb(sync: AnySync): SyncDatabase {
  return sync[DEVICE_DB];
}

/**
 * A row of `table` as a pull stores it, for fixtures: `fields` (that table's columns, typed
 * by the app's schema: a wrong column is a compile error) with the server's columns of a
 * first version (created and updated now, live, `version` 1 unless given) and `_v` its
 * version (synced). The one place tests stamp a row as synced.
 */
export function syncedRow<Rows extends RowTypes, T extends TableName<Rows>>(
  schema: SyncSchema<Rows>,
  table: T,
  fields: NewRow<Rows[T]>,
): Stored<Rows[T]>;
export function syncedRow(
  _schema: unknown,
  _table: string,
  fields: Record<string, unknown>,
): Record<string, unknown> {
  const at = new Date().toISOString();
  const row = { created_at: at, updated_at: at, deleted_at: null, version: 1, ...fields };
  return { ...row, _v: row.version };
}

/**
 * Writes rows into a synced table as the device keeps them (`_v` and all), in one bulk put:
 * rows a pull would have delivered (stamp them synced) or a fast seed of many. Nothing is
 * queued; the rows replace any copies with the same ids.
 */
export async function putStoredRows(
  sync: AnySync,
  table: string,
  rows: readonly LocalRow[],
): Promise<void> {
  await deviceDb(sync).rows(table).bulkPut(rows);
}

/**
 * Changes fields of a stored row in place, as a change arriving from elsewhere would (nothing
 * is queued). Returns whether the row was there.
 */
export async function patchStoredRow(
  sync: AnySync,
  table: string,
  id: string,
  changes: Record<string, unknown>,
): Promise<boolean> {
  return (await deviceDb(sync).rows(table).update(id, changes)) > 0;
}

/** Every row of a synced table as the device keeps it, tombstones included. */
export function storedRows(sync: AnySync, table: string): Promise<LocalRow[]> {
  return deviceDb(sync).rows(table).toArray();
}

/** One row as the device keeps it (a tombstone too); undefined when it is not here. */
export function storedRow(sync: AnySync, table: string, id: string): Promise<LocalRow | undefined> {
  return deviceDb(sync).rows(table).get(id);
}

/** The changes queued on the device (its outbox), in seq order: the wire's order. */
export async function queuedChanges(sync: AnySync): Promise<OutboxEntry[]> {
  return (await deviceDb(sync)._outbox.toArray()).sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
}

/**
 * Where the outbox's kept counts (sync/outbox.ts) differ from its queue, counted entry by
 * entry: a description, or null when they agree (or are not kept yet).
 */
export async function outboxCountsDrift(sync: AnySync): Promise<string | null> {
  const db = deviceDb(sync);
  return db.transaction('r', outboxTables(db), async () => {
    const kept = await db.getMeta<OutboxCounts>(OUTBOX_COUNTS);
    if (kept === undefined) return null;
    const counted = await countQueue(db);
    const text = ({ total, unsent, lists }: OutboxCounts) =>
      JSON.stringify([total, unsent, Object.entries(lists).sort(([a], [b]) => a.localeCompare(b))]);
    return text(kept) === text(counted)
      ? null
      : `kept ${text(kept)}, the queue holds ${text(counted)} ([total, unsent, by list])`;
  });
}

/** markQueuedSent on a device database: every entry frozen, as a push takes them. */
export function freezeQueueOf(db: SyncDatabase): Promise<void> {
  return db.transaction(
    'rw',
    outboxTables(db),
    async () => await freeze(db, await db._outbox.toArray()),
  );
}

/** clearQueue on a device database. */
export function clearQueueOf(db: SyncDatabase): Promise<void> {
  return db.transaction('rw', outboxTables(db), async () => await clearOutbox(db));
}

/** Marks every queued change as sent (a push is on the wire): Undo can no longer take it back. */
export async function markQueuedSent(sync: AnySync): Promise<void> {
  await freezeQueueOf(deviceDb(sync));
}

/** Empties the outbox, as after a successful push. */
export async function clearQueue(sync: AnySync): Promise<void> {
  await clearQueueOf(deviceDb(sync));
}

/** The attachment bytes the device keeps (waiting to upload, or cached), by attachment id. */
export function keptFiles(sync: AnySync): Promise<FileRecord[]> {
  return deviceDb(sync)._files.toArray();
}

/** The bytes kept for one attachment; undefined when none are. */
export function keptFile(sync: AnySync, id: string): Promise<FileRecord | undefined> {
  return deviceDb(sync)._files.get(id);
}

/** Keeps (or replaces) attachment bytes, as an upload or a fetch for offline viewing would. */
export async function keepFiles(sync: AnySync, files: readonly FileRecord[]): Promise<void> {
  await deviceDb(sync)._files.bulkPut(files);
}

/** Sets the upload state of kept bytes, as the upload loop would. */
export async function setFileState(
  sync: AnySync,
  id: string,
  state: FileRecord['state'],
): Promise<void> {
  await deviceDb(sync)._files.update(id, { state });
}

/** Logs changes the server refused, as the engine would (newest last). */
export async function logRejections(
  sync: AnySync,
  rejections: readonly Rejection[],
): Promise<void> {
  await deviceDb(sync)._rejections.bulkAdd(rejections);
}

/** The refused changes logged on the device, oldest first, dismissed ones gone. */
export function rejectionsLogged(sync: AnySync): Promise<Rejection[]> {
  return deviceDb(sync)._rejections.toArray();
}

/**
 * Makes `userId` the device's stored owner, as a sign-in on this device earlier would have
 * (read it back with `sync.queries.deviceOwner()`).
 */
export async function setDeviceOwner(sync: AnySync, userId: string): Promise<void> {
  await deviceDb(sync).setMeta(OWNER_KEY, userId);
}

/**
 * A device database for `schema` on its own in-memory IndexedDB (fake-indexeddb), with no
 * engine and no server: for unit tests of an app's read and write APIs over the library.
 * `name` prefixes the database's name, which is made unique.
 */
export function memoryDatabase(name: string, schema: SyncSchema): SyncDatabase {
  return new SyncDatabase(`${name}-${crypto.randomUUID()}`, schema, {
    indexedDB: new IDBFactory(),
    IDBKeyRange,
  });
}
