// Outpost on the sync library: its synced tables (tables.ts), its write API (repositories.ts:
// lists, tasks, comments, members, profile, attachments) and its read API (queries.ts), wired
// by `createOutpostSync`. Screens read through `sync.queries`, write through `sync.repos`, and
// show `sync.engine.status`.
import { createSync, type FileRecord, type Sync, type SyncOptions } from '@sync/index';

import { createQueries, type Queries } from './queries';
import { createRepositories, type Repositories } from './repositories';
import { OUTPOST_SCHEMA } from './tables';

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

/** Where an attachment's bytes are on this device. */
export type FileState = FileRecord['state'];
