// The sync library's public entry: every name an app adopting it needs, and nothing else.
// sync/README.md lists each with a line; everything not exported here is internal. Tests
// also have sync/testing.ts, sync/kit/ and sync/sql/generate.ts.

// Wiring an app: its schema, its read and write APIs, the engine over its supabase-js client.
export { browserOnline, createSync, type AppDefinition, type Sync, type SyncOptions } from './core';
export type { IndexedDbDeps, FileRecord } from './db';
// What an app's queries read the device through: its tables typed by row, the engine's bookkeeping.
export type { DeviceReader, LoggedRejection } from './reader';
// An app's synced tables typed by its rows (the reader's `table`, the write context's `rows`).
export type { TypedRows } from './db';
export { setDeviceDatabaseDebug } from './db';
export type { SupabaseSource } from './remote';
export { realClock, type Clock, type OnlineSignal } from './platform';
export type { TabChannel, TabMessage } from './tabs';
export type { SyncEngine } from './schedule';

// Declaring the synced data.
export type {
  AccessModel,
  // The rows of an app that declares none (any columns), and a row's device fields.
  AnyRows,
  DeviceFields,
  FileTable,
  LocalRow,
  Registry,
  Rejection,
  // An app's rows by table name, which types its schema, store and reader.
  RowTypes,
  // A row of an app's table as the device keeps it (its columns plus DeviceFields).
  Stored,
  SyncSchema,
  // The names of an app's synced tables (the keys of its RowTypes).
  TableName,
  TableSpec,
} from './registry';

// Writing: validate, write and queue in one transaction.
export {
  createStore,
  parse,
  UNDO_WINDOW_MS,
  ValidationError,
  // A new row as an app writes it: its table's columns, the server-stamped ones optional.
  type NewRow,
  type Store,
  type StoreContext,
  type WriteContext,
} from './store';
export { validate, type FieldErrors, type Validated } from './validate';
export { LOCAL_USER_ID } from './account';

// Reading: a query that follows the device.
export { liveRead, type LiveRead } from './live';

// What the engine says: its status and its errors.
export type { Download, SyncPhase, SyncStatus } from './status';
export {
  classifyStorageError,
  isSyncError,
  SyncError,
  SYNC_ERROR_CODES,
  type SyncErrorCode,
} from './errors';

// For the app's own Supabase calls beside the engine's, so they time out and retry alike.
export { REQUEST_TIMEOUT_MS, storageRequest, withTimeout } from './remote';
export { backoffDelayMs } from './backoff';
