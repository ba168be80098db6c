// For the sync library's unit tests: a device database on its own in-memory IndexedDB
// (fake-indexeddb) with its repositories, as one signed-in user, no engine and no server.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';

import { SyncDatabase } from './db';
import { OUTPOST_SCHEMA } from './outpost';
import { createRepositories } from './repositories';

/** A fresh device database and its repositories; `name` prefixes the database's name. */
export function memoryDevice(name: string, userId = 'user-1', now = () => Date.now()) {
  const db = new SyncDatabase(`${name}-${crypto.randomUUID()}`, OUTPOST_SCHEMA, {
    indexedDB: new IDBFactory(),
    IDBKeyRange,
  });
  const repos = createRepositories({
    db,
    now,
    userId: () => userId,
    newId: () => crypto.randomUUID(),
  });
  return { db, repos };
}
