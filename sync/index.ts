// Outpost on the sync library (core.ts): its synced data (outpost.ts, schema.ts), its write
// API (repositories.ts: lists, tasks, comments, members, profile, attachments) and its read
// API (queries.ts), wired by `createOutpostSync`. The app imports this entry only (a lint
// rule holds src/ to it); it reads through `queries`, writes through `repos`, and shows
// `engine.status`.
import { createSync, type FileRecord, type Sync, type SyncOptions } from './core';
import { OUTPOST_SCHEMA } from './outpost';
import { createQueries, type Queries } from './queries';
import { createRepositories, type Repositories } from './repositories';

/** How Outpost's sync is wired: the library's options, the database named `outpost` by default. */
export type OutpostSyncOptions = Omit<SyncOptions, 'dbName'> & { dbName?: string };

/** Outpost's sync for one device database. */
export type OutpostSync = Sync<Queries, Repositories>;

/** Opens Outpost's device database and wires it; call `start()` to begin syncing. */
export function createOutpostSync(options: OutpostSyncOptions): OutpostSync {
  return createSync(
    { ...options, dbName: options.dbName ?? 'outpost' },
    { schema: OUTPOST_SCHEMA, queries: createQueries, writes: createRepositories },
  );
}

export * from './core';
export * from './schema';
export type { Repositories } from './repositories';
export type {
  DeviceRows,
  FoundRows,
  ListSummary,
  TaskCounts,
  MemberRow,
  Queries,
  RejectionRow,
  TaskLookup,
} from './queries';
export type { Attachment, Comment, List, Membership, Profile, Task } from './rows';
export { OUTPOST_SCHEMA_VERSION } from './outpost';
export { liveQuery } from 'dexie';
export { setDeviceDatabaseDebug } from './db';
/** Where an attachment's bytes are on this device. */
export type FileState = FileRecord['state'];
