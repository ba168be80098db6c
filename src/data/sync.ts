// Outpost on the sync library: its synced tables (tables.ts), its write API (repositories.ts:
// lists, tasks, comments, members, profile, attachments) and its read API (queries.ts), wired
// by `createOutpostSync`. Screens read through `sync.queries`, write through `sync.repos`, and
// show `sync.engine.status`.
import {
  createSync,
  type AppDefinition,
  type FileRecord,
  type Sync,
  type SyncOptions,
} from '@sync/index';

import { createQueries, type Queries } from './queries';
import { createRepositories, type Repositories } from './repositories';
import type { OutpostDeviceRows } from './rows';
import { OUTPOST_SCHEMA } from './tables';

/** How Outpost's sync is wired: the library's options, the database named `outpost` by default. */
export type OutpostSyncOptions = Omit<SyncOptions, 'dbName'> & { dbName?: string };

/** Outpost's sync for one device database. */
export type OutpostSync = Sync<Queries, Repositories>;

/** Outpost as the sync library (and its test kit) takes it: its schema, reads and writes. */
export const OUTPOST_APP: AppDefinition<Queries, Repositories, OutpostDeviceRows> = {
  schema: OUTPOST_SCHEMA,
  queries: createQueries,
  writes: createRepositories,
};

/** The device database's name in the app (tests name their own); the service worker opens it too. */
export const OUTPOST_DB_NAME = 'outpost';

/** Opens Outpost's device database and wires it; call `start()` to begin syncing. */
export function createOutpostSync(options: OutpostSyncOptions): OutpostSync {
  return createSync({ ...options, dbName: options.dbName ?? OUTPOST_DB_NAME }, OUTPOST_APP);
}

/** Where an attachment's bytes are on this device. */
export type FileState = FileRecord['state'];
