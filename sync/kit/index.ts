/**
 * The sync kit: testing an app's sync in Node with fake IndexedDB, against an in-memory
 * Supabase-compatible backend built from the app's own migrations. Start a backend, open
 * devices (users) on it with the app's definition, inject faults, move a manual clock, settle,
 * and assert that every device holds what its user may see. See sync/kit/README.md.
 *
 * Node only (it starts a server, PGlite and fake-indexeddb): import it from tests, never from
 * an app. Importing it installs fake-indexeddb as the global IndexedDB (Dexie's liveQuery,
 * which the engine uses, needs one).
 *
 * @packageDocumentation
 */
export {
  startBackend,
  type Backend,
  type BackendOptions,
  type ClientOptions,
  type User,
} from './backend';
export {
  crashSync,
  openDevice,
  startSyncOnFake,
  switchableOnline,
  type Device,
  type DeviceOptions,
  type EngineOptions,
  type FakeIndexedDb,
  type SwitchableOnline,
  type SyncOnFake,
} from './device';
export {
  cuttableWebSocket,
  FAULTS,
  FaultyNetwork,
  seededRandom,
  type Fault,
  type FaultyNetworkOptions,
} from './faults';
export { ManualClock, TestClock, TimerQueue, type UntilOptions } from './clock';
export { settle, type SettleOptions } from './settle';
// The device store as tests look at it (sync/testing.ts): rows, queued changes, files, the
// rejection log, and the raw database for what those do not cover.
export {
  deviceDb,
  keptFiles,
  queuedChanges,
  rejectionsLogged,
  storedRow,
  storedRows,
} from '../testing';
export { assertConverged, deviceRows, diffRows, serverRows, type RowView } from './converge';
export {
  actAs,
  asCaller,
  pull,
  pullAll,
  pullOn,
  type Caller,
  type PullResponse,
  type ServerRow,
} from './sql';
export { memoryLock, type MemoryLock } from './locks';
