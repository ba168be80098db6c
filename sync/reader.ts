// What an app's read API (its named queries) reads the device through: each synced table
// typed by its row, and named reads of the library's own bookkeeping (pull cursor, outbox,
// kept files, rejections), so an app never reaches the Dexie database or the engine's tables.
import Dexie from 'dexie';

import { typedRows, type FileRecord, type SyncDatabase, type TypedRows } from './db';
import { outboxCounts, pendingCount } from './outbox';
import type { Rejection, RowTypes, TableName } from './registry';

/** A rejection as the log keeps it, with its id. */
export type LoggedRejection = Rejection & { id: number };

/** The device as an app's queries read it (AppDefinition's `queries` takes one). */
export interface DeviceReader<Rows extends RowTypes> {
  /** A synced table, typed by its row: query it by its indexes (Dexie's Table). */
  readonly table: TypedRows<Rows>;
  /** Whether `name` is one of the app's synced tables (a logged change may name an old one). */
  readonly synced: (name: string) => name is TableName<Rows>;
  /** Runs `read` in one read transaction over every synced table (a consistent snapshot). */
  readonly readAll: <T>(read: () => Promise<T>) => Promise<T>;
  /** The lowest and highest keys of an index, for a range over a compound index's rest. */
  readonly minKey: unknown;
  readonly maxKey: unknown;
  /** Whether the device has finished its first pull (a missing row then really is missing). */
  readonly pulled: () => Promise<boolean>;
  /** The bytes kept for a file row (waiting to upload, or cached); undefined when none are. */
  readonly file: (id: string) => Promise<FileRecord | undefined>;
  /** Calls `visit` with each file kept on this device. */
  readonly eachFile: (visit: (file: FileRecord) => void) => Promise<void>;
  /** Changes queued on this device and not yet on the server. */
  readonly pendingCount: () => Promise<number>;
  /** Queued changes not yet on the server, by the list they belong to. */
  readonly pendingByList: () => Promise<Record<string, number>>;
  /** Ids of the rows of a list (any table) with changes queued on this device. */
  readonly pendingRows: (listId: string) => Promise<Set<string>>;
  /** The id of the newest logged rejection; 0 when the log is empty. */
  readonly newestRejection: () => Promise<number>;
  /** Logged rejections after `afterId` up to `upTo` (inclusive), newest first. */
  readonly rejections: (afterId: number, upTo: number) => Promise<LoggedRejection[]>;
}

/** The reader of `db` for an app whose rows are `Rows` (createSync makes it). */
export function deviceReader<Rows extends RowTypes>(db: SyncDatabase): DeviceReader<Rows> {
  return {
    table: typedRows<Rows>(db),
    synced: (name): name is TableName<Rows> => db.registry.some((spec) => spec.name === name),
    readAll: (read) =>
      db.transaction(
        'r',
        db.registry.map((spec) => spec.name),
        read,
      ),
    minKey: Dexie.minKey,
    maxKey: Dexie.maxKey,
    pulled: async () => (await db.getMeta('cursor')) != null,
    file: (id) => db._files.get(id),
    eachFile: async (visit) => {
      await db._files.each(visit);
    },
    pendingCount: () => pendingCount(db),
    pendingByList: async () => (await outboxCounts(db)).lists,
    pendingRows: async (listId) =>
      new Set(
        (await db._outbox.where('listId').equals(listId).toArray()).map((entry) => entry.rowId),
      ),
    newestRejection: async () => (await db._rejections.orderBy('id').last())?.id ?? 0,
    rejections: async (afterId, upTo) =>
      (
        await db._rejections.where('id').between(afterId, upTo, false, true).reverse().toArray()
      ).map((rejection) => ({ ...rejection, id: rejection.id ?? 0 })),
  };
}
