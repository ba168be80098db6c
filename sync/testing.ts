// The sync library's testing entry: what a developer's own tests (and Outpost's) need beside
// the public API, never shipped in an app bundle. See sync/README.md, "Testing your sync".
import { DEVICE_DB, type SyncDatabase } from './db';
import type { OutpostSync } from './index';

export { switchableOnline, type SwitchableOnline } from './switchable-online';

/**
 * The device database behind `sync`, for a test to seed rows fast or look at what the
 * engine keeps (its outbox, metadata, rejections, files). Apps read through `sync.queries`.
 */
export function deviceDb(sync: OutpostSync): SyncDatabase {
  return sync[DEVICE_DB];
}
