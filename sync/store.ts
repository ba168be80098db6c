// The write API over the device database (sync-design.md "Write path"): validate, write and
// queue in one transaction, so the screen sees a change at once (liveQuery) and it survives a
// reload before any network call (I4). Generic over the app's tables: it knows them only
// through `db.registry` (insert columns, scope) and `db.schema.cascades`; an app builds its
// own write API on top of it (Outpost's: repositories.ts).
import Dexie, { type Transaction } from 'dexie';
import type * as v from 'valibot';

import { cascadeTables, hideChildren, listIdOf, unhideChildren } from './apply';
import { isDexieError, typedRows, type SyncDatabase, type TypedRows } from './db';
import { SyncError } from './errors';
import { dequeue, enqueue, outboxTables } from './outbox';
import type { AnyRows, LocalRow, MutationOp, RowTypes, Stored, TableName } from './registry';
import { validate, type FieldErrors } from './validate';

/** A write refused before anything was queued, with messages per field. */
export class ValidationError extends SyncError {
  constructor(
    /** Field → the rule it broke, ready to show beside the field ('_' for the whole input). */
    readonly fields: FieldErrors,
    code:
      | 'VALIDATION_FAILED'
      | 'FILE_TOO_LARGE'
      | 'FILE_TYPE'
      | 'NOT_FOUND'
      | 'PERMISSION_DENIED' = 'VALIDATION_FAILED',
  ) {
    super(code, Object.values(fields)[0] ?? 'invalid input');
    this.name = 'ValidationError';
  }
}

/** How long after a delete "Undo" still works: the engine holds the delete back this long. */
export const UNDO_WINDOW_MS = 5_000;

/**
 * `input` validated by a valibot `schema`: its output, or a ValidationError (VALIDATION_FAILED)
 * with each field's first message. Call before writing, so a refused input writes nothing.
 */
export function parse<TSchema extends v.GenericSchema>(
  schema: TSchema,
  input: unknown,
): v.InferOutput<TSchema> {
  const result = validate(schema, input);
  if (!result.ok) throw new ValidationError(result.errors);
  return result.value;
}

/** What the store writes with: the device's database and the clock. */
export interface StoreContext<Rows extends RowTypes = AnyRows> {
  /** The device's database: rows and the outbox are written here, in one transaction. */
  readonly db: SyncDatabase;
  /** Its synced tables typed by the app's rows (typedRows; by default, `db`'s own). */
  readonly rows?: TypedRows<Rows>;
  /** Milliseconds since the epoch (injectable clock). */
  now(): number;
  /**
   * Settles once the signed-in user is known (read from the device at start-up): writes wait
   * for it, or a write in the first milliseconds would be stamped with the local-only
   * placeholder and never claimed.
   */
  ready?: Promise<unknown>;
  /**
   * Called once a write that queued changes has committed: the engine pushes at once instead
   * of waiting to see the outbox change (sync/schedule.ts).
   */
  onQueued?: () => void;
}

/** What the library hands an app's write API: the store's context, who writes, new ids. */
export interface WriteContext<Rows extends RowTypes = AnyRows> extends StoreContext<Rows> {
  /** The synced tables typed by the app's rows: the write API's reads. */
  readonly rows: TypedRows<Rows>;
  /** The device's user (the account's): rows are stamped with it, local-only before sign-in. */
  userId(): string;
  /** A new unique id (rows are keyed by ids made on the device, so writes work offline). */
  newId(): string;
}

/** The columns the store stamps on a new row (the server's own, until it has the row). */
type StampedColumn = 'created_at' | 'updated_at' | 'deleted_at' | 'version';

/** A new row of a table as the app writes it: its columns, the stamped ones optional. */
export type NewRow<Row> = Omit<Row, StampedColumn> & Partial<Pick<Row, StampedColumn & keyof Row>>;

/**
 * Changes to a row of a table: some of its columns. (Each may be typed undefined, as a
 * validated partial input types its absent fields; an absent field is no change.)
 */
export type RowChanges<Row> = { [K in keyof Row]?: Row[K] | undefined };

/**
 * The write API over the device database: validate, write and queue in one transaction.
 * `transaction` opens that transaction; the other writes run inside one (those that open
 * their own say so); `parse` validates input before it is written. Rows are written as the device keeps them (LocalRow), changes are queued
 * in the outbox for the engine to push, in the order they were made.
 * Typed by the app's `Rows`: a table must be one of them, and a row or a change must have
 * that table's columns only (a wrong column is a compile error).
 */
export interface Store<Rows extends RowTypes = AnyRows> {
  /**
   * Runs `fn` in one read-write transaction over `tables` (synced ones, and `_files` for a
   * write that keeps file bytes) and the outbox, after `ready`.
   * Once it has committed, `onQueued` is called if `fn` queued a change. Everything `fn`
   * writes is kept or nothing is: a write that throws queues nothing. Inside another write's
   * transaction (an app's bulk write calling `remove`), it is a part of that one.
   */
  readonly transaction: <T>(
    tables: readonly (TableName<Rows> | '_files')[],
    fn: () => Promise<T>,
  ) => Promise<T>;
  /**
   * `transaction` for writes that store file bytes: a full device (IndexedDB's
   * QuotaExceededError) fails with a SyncError QUOTA_EXCEEDED, for the screen to say so.
   */
  readonly blobTransaction: <T>(
    tables: readonly (TableName<Rows> | '_files')[],
    fn: () => Promise<T>,
  ) => Promise<T>;
  /**
   * Queues a change of a row: the columns inserted or changed, nothing for a delete; `listId`
   * is the list the row belongs to, if any. An unsent change of the row absorbs a patch.
   */
  readonly queue: (
    table: TableName<Rows>,
    rowId: string,
    op: MutationOp,
    data: Record<string, unknown>,
    listId: string | undefined,
  ) => Promise<void>;
  /**
   * Now as an ISO timestamp, strictly increasing on this device: two rows made in one
   * millisecond keep the order they were made in wherever rows sort by time.
   */
  readonly timestamp: () => string;
  /** A new row of `table` as the device keeps it until the server has it: stamped now, `_v` 0. */
  readonly newRow: <T extends TableName<Rows>>(table: T, row: NewRow<Rows[T]>) => Stored<Rows[T]>;
  /**
   * Writes a new row (stamped as by `newRow`) and queues its insert with the table's
   * `insertColumns` only: the other columns are the device's or the server's own.
   */
  readonly insert: <T extends TableName<Rows>>(table: T, row: NewRow<Rows[T]>) => Promise<void>;
  /**
   * Changes a row and queues `changes` (for the row's `listId`); `local` columns are written
   * but not sent (the server derives them). Stamps `updated_at`.
   */
  readonly patch: <T extends TableName<Rows>>(
    table: T,
    id: string,
    changes: RowChanges<Rows[T]>,
    listId: string | undefined,
    local?: Partial<Stored<Rows[T]>>,
  ) => Promise<void>;
  /** Changes fields of a live row in a transaction of its own (NOT_FOUND when it is gone). */
  readonly edit: <T extends TableName<Rows>>(
    table: T,
    id: string,
    changes: RowChanges<Rows[T]>,
  ) => Promise<void>;
  /** A row on the device, or a ValidationError NOT_FOUND when it is missing or deleted. */
  readonly live: <T extends TableName<Rows>>(table: T, id: string) => Promise<Stored<Rows[T]>>;
  /**
   * Soft-deletes a live row (NOT_FOUND when it is gone) once `check` allows it, in a
   * transaction of its own, and hides its children (the schema's cascades) with the same
   * stamp, as the server will cascade; `undoDelete` within UNDO_WINDOW_MS.
   */
  readonly remove: <T extends TableName<Rows>>(
    table: T,
    id: string,
    check?: (row: Stored<Rows[T]>) => Promise<void>,
  ) => Promise<void>;
  /**
   * Takes back a delete not sent yet (within UNDO_WINDOW_MS), showing its children again.
   * False when it is too late: the server already has the tombstone, which is final.
   */
  readonly undoDelete: (table: TableName<Rows>, id: string) => Promise<boolean>;
  /** `delete` (remove) and `undoDelete` of one table's rows, for an entity's write API. */
  readonly deletable: (table: TableName<Rows>) => {
    /** Deletes a row with what it holds (cascades); undoDelete() within UNDO_WINDOW_MS. */
    delete: (id: string) => Promise<void>;
    /** Takes back a delete not sent yet; false when it is too late. */
    undoDelete: (id: string) => Promise<boolean>;
  };
}

/** The write API over `ctx.db` (see Store). */
export function createStore<Rows extends RowTypes = AnyRows>(ctx: StoreContext<Rows>): Store<Rows> {
  // The store writes every table alike, as the device keeps rows (LocalRow); what it hands
  // back is read through the typed tables, so each table gives its own row type.
  const { db } = ctx;
  const rows = ctx.rows ?? typedRows<Rows>(db);
  let lastStamp = 0;
  const iso = () => new Date((lastStamp = Math.max(ctx.now(), lastStamp + 1))).toISOString();

  async function live<T extends TableName<Rows>>(table: T, id: string): Promise<Stored<Rows[T]>> {
    const row = await rows(table).get(id);
    if (!row || row.deleted_at)
      throw new ValidationError({ _: `This ${table.replace(/s$/, '')} was deleted.` }, 'NOT_FOUND');
    return row;
  }

  /** The list a row belongs to, per its table's scope (peer tables belong to none). */
  function listOf(table: string, row: LocalRow): string | undefined {
    const spec = db.registry.find((s) => s.name === table);
    return spec && listIdOf(spec, row);
  }

  async function rwQuota<T>(tables: readonly string[], fn: () => Promise<T>): Promise<T> {
    try {
      return await rw(tables, fn);
    } catch (error) {
      if (isDexieError(error, 'QuotaExceededError')) {
        throw new SyncError('QUOTA_EXCEEDED', 'This device is out of space');
      }
      throw error;
    }
  }

  /** The open write transactions that queued a change (see queue). */
  const queuedIn = new WeakSet<Transaction>();

  async function rw<T>(tables: readonly string[], fn: () => Promise<T>): Promise<T> {
    const scope = [...tables.map((t) => db.table(t)), ...outboxTables(db)];
    // Inside another write (an app's bulk write deleting rows with `remove`): a part of that
    // transaction, which awaited `ready` and wakes the engine once it has committed. Anything
    // else awaited or started here would run in the transaction's zone: the engine's reads
    // would join it, see what is not committed, and fail once it has.
    if (Dexie.currentTransaction?.active) return db.transaction('rw', scope, fn);
    await ctx.ready;
    let tx: Transaction | undefined;
    const result = await db.transaction(
      'rw',
      scope,
      // An async function: Dexie keeps the transaction open across native awaits only then.
      async (current) => {
        tx = current;
        return await fn();
      },
    );
    // Committed: only now may the engine read what it queued.
    if (tx && queuedIn.has(tx)) ctx.onQueued?.();
    return result;
  }

  async function queue(
    table: string,
    rowId: string,
    op: MutationOp,
    data: Record<string, unknown>,
    listId: string | undefined,
  ): Promise<void> {
    await enqueue(db, {
      table,
      rowId,
      op,
      data,
      createdAt: ctx.now(),
      ...(listId ? { listId } : {}),
    });
    // The outermost transaction: the one whose commit wakes the engine.
    let tx = Dexie.currentTransaction;
    while (tx.parent) tx = tx.parent;
    queuedIn.add(tx);
  }

  // The stamped columns and `_v` complete the row the app gave (NewRow: all but those).
  function newRow<T extends TableName<Rows>>(table: T, row: NewRow<Rows[T]>): Stored<Rows[T]>;
  function newRow(_table: string, row: Record<string, unknown> & { id: string }): LocalRow {
    const now = iso();
    return { created_at: now, updated_at: now, deleted_at: null, version: 0, ...row, _v: 0 };
  }

  async function insert<T extends TableName<Rows>>(table: T, row: NewRow<Rows[T]>) {
    const full: LocalRow = newRow(table, row);
    await db.rows(table).put(full);
    const spec = db.registry.find((s) => s.name === table);
    const data: Record<string, unknown> = { id: full.id };
    for (const column of spec?.insertColumns ?? []) if (column in full) data[column] = full[column];
    await queue(table, full.id, 'insert', data, spec && listIdOf(spec, full));
  }

  async function patch<T extends TableName<Rows>>(
    table: T,
    id: string,
    changes: RowChanges<Rows[T]>,
    listId: string | undefined,
    local: Partial<Stored<Rows[T]>> = {},
  ) {
    await db.rows(table).update(id, { ...changes, ...local, updated_at: iso() });
    await queue(table, id, 'patch', changes, listId);
  }

  function edit<T extends TableName<Rows>>(
    table: T,
    id: string,
    changes: RowChanges<Rows[T]>,
  ): Promise<void> {
    return rw([table], async () => {
      const row = await live(table, id);
      await patch(table, id, changes, listOf(table, row));
    });
  }

  function remove<T extends TableName<Rows>>(
    table: T,
    id: string,
    check?: (row: Stored<Rows[T]>) => Promise<void>,
  ) {
    return rw(cascadeTables(db, table), async () => {
      const row = await live(table, id);
      if (check) await check(row);
      const at = iso();
      await db.rows(table).update(id, { deleted_at: at });
      await hideChildren(db, table, id, at);
      await queue(table, id, 'delete', {}, listOf(table, row));
    });
  }

  async function undoDelete(table: string, id: string): Promise<boolean> {
    return rw(cascadeTables(db, table), async () => {
      const entry = await db._outbox.where('[table+rowId]').equals([table, id]).last();
      if (entry?.seq === undefined || entry.op !== 'delete' || entry.sent === 1) return false;
      await dequeue(db, [entry.seq]);
      await unhideChildren(db, table, id);
      await db.rows(table).update(id, { deleted_at: null });
      return true;
    });
  }

  return {
    transaction: rw,
    blobTransaction: rwQuota,
    queue,
    timestamp: iso,
    newRow,
    insert,
    patch,
    edit,
    live,
    remove,
    undoDelete,
    deletable: (table) => ({
      delete: (id) => remove(table, id),
      undoDelete: (id) => undoDelete(table, id),
    }),
  };
}
