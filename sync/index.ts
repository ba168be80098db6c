// The sync library's public entry: every name an app adopting it needs, and nothing else.
// sync/README.md lists each with a line; everything not exported here is internal. Tests
// also have sync/testing.ts, sync/kit/ and sync/sql/generate.ts.

// Wiring an app: its schema, its read and write APIs, the engine over its supabase-js client.
export { browserOnline, createSync, type AppDefinition, type Sync, type SyncOptions } from './core';
export { setDeviceDatabaseDebug, type FileRecord, type IndexedDbDeps } from './db';
export type { SupabaseSource } from './remote';
export { realClock, type Clock, type OnlineSignal } from './platform';
export type { TabChannel, TabMessage } from './tabs';
export type { SyncEngine } from './schedule';

// Declaring the synced data, and the row types it gives every read and write.
export type {
  AccessModel,
  AnyRows,
  DeviceFields,
  FileTable,
  LocalRow,
  Registry,
  Rejection,
  RowTypes,
  Stored,
  SyncSchema,
  TableName,
  TableSpec,
} from './registry';

// Writing: validate, write and queue in one transaction.
export {
  createStore,
  parse,
  UNDO_WINDOW_MS,
  ValidationError,
  type NewRow,
  type Store,
  type StoreContext,
  type WriteContext,
} from './store';
export { validate, type FieldErrors, type Validated } from './validate';
export { LOCAL_USER_ID } from './account';

// Reading: the device as an app's queries see it, and a read that follows it.
export type { DeviceReader, LoggedRejection } from './reader';
export type { TypedRows } from './db';
export { liveRead, type LiveRead } from './live';

// What the engine says: its status and its errors.
export type { Download, SyncPhase, SyncStatus } from './status';
export type { RemoteChange } from './apply';
export {
  classifyStorageError,
  isSyncError,
  SyncError,
  SYNC_ERROR_CODES,
  type SyncErrorCode,
} from './errors';

// For the app's own Supabase calls beside the engine's, so they time out and retry alike.
export { REQUEST_TIMEOUT_MS, storageRequest, withTimeout } from './requests';
export { backoffDelayMs } from './backoff';
