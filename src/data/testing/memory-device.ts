// For the data layer's unit tests: Outpost's device database on its own in-memory IndexedDB
// with its repositories, as one signed-in user, no engine and no server.
import { memoryDatabase } from '@sync/testing';

import { createRepositories } from '../repositories';
import { OUTPOST_SCHEMA } from '../tables';

/** A fresh device database and its repositories; `name` prefixes the database's name. */
export function memoryDevice(name: string, userId = 'user-1', now = () => Date.now()) {
  const db = memoryDatabase(name, OUTPOST_SCHEMA);
  const repos = createRepositories({
    db,
    now,
    userId: () => userId,
    newId: () => crypto.randomUUID(),
  });
  return { db, repos };
}
