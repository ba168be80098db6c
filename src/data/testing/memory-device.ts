// For the data layer's unit tests: Outpost's device database on its own in-memory IndexedDB
// with its repositories, as one signed-in user, no engine and no server.
import { deviceReader, memoryDatabase, typedRows } from '@sync/testing';

import type { OutpostDeviceRows } from '../rows';

import { createRepositories } from '../repositories';
import { OUTPOST_SCHEMA } from '../tables';

/**
 * A fresh device database, its repositories and the reader its queries take (createSync's
 * own); `name` prefixes the database's name.
 */
export function memoryDevice(name: string, userId = 'user-1', now = () => Date.now()) {
  const db = memoryDatabase(name, OUTPOST_SCHEMA);
  const repos = createRepositories({
    db,
    rows: typedRows<OutpostDeviceRows>(db),
    now,
    userId: () => userId,
    newId: () => crypto.randomUUID(),
  });
  return { db, repos, reader: deviceReader<OutpostDeviceRows>(db) };
}
