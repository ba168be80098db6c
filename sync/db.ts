// The device's database (Dexie over IndexedDB): one table per synced entity, keyed by id,
// plus the outbox of queued changes, sync metadata, the log of rejected changes and
// attachment blobs. Schema versions are append-only; see db.test.ts for the upgrade tests.
import Dexie, { type Table } from 'dexie';

import type {
  LocalRow,
  OutboxEntry,
  Registry,
  Rejection,
  RowTypes,
  Stored,
  SyncSchema,
  TableName,
} from './registry';

/** One sync bookkeeping value in `_meta` (client id, cursor, owner, resync mark…). */
export interface MetaRecord {
  key: string;
  value: unknown;
}

/** An attachment's bytes on this device: pending upload, or cached for offline viewing. */
export interface FileRecord {
  /** The attachment row's id. */
  id: string;
  blob: Blob;
  objectPath: string;
  state: 'queued' | 'uploading' | 'uploaded' | 'failed' | 'cached';
  attempts: number;
  lastError?: string;
  listId: string;
}

/** Where IndexedDB comes from (tests pass fake-indexeddb's). */
export interface IndexedDbDeps {
  indexedDB: IDBFactory;
  IDBKeyRange: typeof IDBKeyRange;
}

/** The engine's own tables, beside one per synced entity. */
export const INTERNAL_TABLES = ['_outbox', '_meta', '_rejections', '_files'] as const;

/**
 * Dexie store definitions of schema version 1 for a registry; with `added`, a later version's
 * (the indexes it added, by table, after each table's own).
 */
export function storesV1(
  registry: Registry,
  added: ReadonlyMap<string, readonly string[]> = new Map(),
  later: ReadonlySet<string> = new Set(),
): Record<string, string> {
  const stores: Record<string, string> = {};
  for (const spec of registry) {
    if (later.has(spec.name)) continue;
    stores[spec.name] = ['id', ...spec.indexes, ...(added.get(spec.name) ?? [])].join(', ');
  }
  stores._outbox = '++seq, [table+rowId], listId, sent';
  stores._meta = 'key';
  stores._rejections = '++id, at, listId';
  stores._files = 'id, state, listId';
  return stores;
}

/** The tables a later device version brings (its `tables`), which version 1 leaves out. */
function laterTables(schema: SyncSchema): Set<string> {
  const later = new Set<string>();
  for (const { version, tables = [] } of schema.deviceVersions ?? []) {
    for (const table of tables) {
      if (!schema.tables.some((spec) => spec.name === table)) {
        throw new Error(`device version ${version} adds unknown table ${table}`);
      }
      later.add(table);
    }
  }
  return later;
}

/** Version 1's store definitions of a schema: without the tables later versions bring. */
export function firstStores(schema: SyncSchema): Record<string, string> {
  return storesV1(schema.tables, new Map(), laterTables(schema));
}

/**
 * The Dexie store definitions of each later schema version (the schema's `deviceVersions`):
 * version 1's with every index and table added up to that version.
 */
export function laterStores(schema: SyncSchema): [number, Record<string, string>][] {
  const added = new Map<string, string[]>();
  const missing = laterTables(schema);
  let last = 1;
  return (schema.deviceVersions ?? []).map(({ version, indexes, tables = [] }) => {
    if (!Number.isInteger(version) || version <= last) {
      throw new Error(`device version ${version} must be a whole number above ${last}`);
    }
    last = version;
    for (const table of tables) missing.delete(table);
    for (const [table, more] of Object.entries(indexes)) {
      if (!schema.tables.some((spec) => spec.name === table)) {
        throw new Error(`device version ${version} indexes unknown table ${table}`);
      }
      added.set(table, [...(added.get(table) ?? []), ...(more ?? [])]);
    }
    return [version, storesV1(schema.tables, added, missing)];
  });
}

/** The Dexie store definitions of the schema's newest device version (benchmarks' baselines). */
export function deviceStores(schema: SyncSchema): Record<string, string> {
  return laterStores(schema).at(-1)?.[1] ?? storesV1(schema.tables);
}

/**
 * Whether `error` is IndexedDB's (or Dexie's) error `name`: as thrown, or as the cause Dexie
 * wraps in its own (`inner`).
 */
export function isDexieError(error: unknown, name: string): boolean {
  const inner = (error as { inner?: { name?: unknown } } | null)?.inner;
  return (error instanceof Error && error.name === name) || inner?.name === name;
}

/**
 * Dexie's debug mode, which it turns on by itself on localhost and 127.0.0.1: every
 * transaction then records the stack that opened it (console.createTask), for DevTools. A
 * production build served from localhost (the demo, the end-to-end tests, the benches) should
 * run as it runs deployed, so the app turns it off there.
 */
export function setDeviceDatabaseDebug(on: boolean): void {
  Dexie.debug = on;
}

/**
 * The device's database for an app's schema: one Dexie table per synced entity plus the
 * internal ones. Screens read it through the app's queries (liveQuery); only the app's
 * write API and the engine write. The engine sees every row as a LocalRow; an app sees its
 * tables typed by its rows through `typedRows`.
 */
export class SyncDatabase extends Dexie {
  /** Queued changes, in seq order (the wire's order). */
  declare readonly _outbox: Table<OutboxEntry, number>;
  /** Sync bookkeeping: client id, pull cursor, owner, resync mark. */
  declare readonly _meta: Table<MetaRecord, string>;
  /** Changes the server refused, for the user to read. */
  declare readonly _rejections: Table<Rejection, number>;
  /** Attachment bytes: waiting to upload, or kept for offline viewing. */
  declare readonly _files: Table<FileRecord, string>;

  /** The synced tables this database holds (`schema.tables`). */
  readonly registry: Registry;

  constructor(
    name: string,
    /** The app's synced data: tables, access model, files, cascades. */
    readonly schema: SyncSchema,
    deps?: IndexedDbDeps,
  ) {
    super(name, deps);
    this.registry = schema.tables;
    this.version(1).stores(firstStores(schema));
    for (const [version, stores] of laterStores(schema)) this.version(version).stores(stores);
  }

  /** The local table of a synced entity. */
  rows(table: string): Table<LocalRow, string> {
    return this.table<LocalRow, string>(table);
  }

  /** Every synced table plus the internal ones, for transactions that touch them all. */
  allTables(): Table[] {
    return [
      ...this.registry.map((spec) => this.table(spec.name)),
      ...INTERNAL_TABLES.map((t) => this.table(t)),
    ];
  }

  /** A sync bookkeeping value (clientId, cursor, userId…), or undefined. */
  async getMeta<T>(key: string): Promise<T | undefined> {
    return (await this._meta.get(key))?.value as T | undefined;
  }

  /** Stores a sync bookkeeping value. */
  async setMeta(key: string, value: unknown): Promise<void> {
    await this._meta.put({ key, value });
  }
}

/** An app's synced tables, each typed by its row (in `Rows`) as the device keeps it. */
export type TypedRows<Rows extends RowTypes> = <T extends TableName<Rows>>(
  table: T,
) => Table<Stored<Rows[T]>, string>;

/**
 * `db`'s synced tables typed by the app's rows: what the app's schema promises of them
 * (createSync takes the schema and the rows together, SyncSchema<Rows>).
 */
export function typedRows<Rows extends RowTypes>(db: SyncDatabase): TypedRows<Rows> {
  return (table) => db.table(table);
}

/**
 * Where an OutpostSync keeps its database: a symbol only the library and its testing kit
 * (sync/testing.ts) can name, so the app reads through `queries` and never the tables.
 */
export const DEVICE_DB: unique symbol = Symbol('deviceDb');
