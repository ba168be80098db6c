// Forgetting the worker's record of cached attachments (workbox-expiration's rows), apart
// from attachment-cache.ts, which the app shell and the worker load: only sign-out's chunk
// (forget-account.ts) needs this.
import { ATTACHMENT_CACHE_NAME } from './attachment-cache';

/** Workbox's database of cache entries' ages (workbox-expiration), and its one store. */
const EXPIRATION_DB = 'workbox-expiration';
const EXPIRATION_STORE = 'cache-entries';

/**
 * Deletes the worker's record of when each attachment was cached (workbox-expiration keeps
 * one row per URL, the files' storage paths, in IndexedDB). Never creates that database: a
 * database made here, empty, would stop workbox from making its store (it upgrades only
 * from nothing), so an open that would create it is aborted.
 */
export async function forgetAttachmentExpiry(
  idb: IDBFactory | undefined = globalThis.indexedDB,
): Promise<void> {
  if (!idb) return;
  const db = await new Promise<IDBDatabase | undefined>((resolve) => {
    const open = idb.open(EXPIRATION_DB);
    open.onupgradeneeded = () => open.transaction?.abort();
    open.onsuccess = () => resolve(open.result);
    // Aborted above (no such database) or refused: nothing of ours is in it.
    open.onerror = (event) => {
      event.preventDefault();
      resolve(undefined);
    };
  });
  if (!db) return;
  try {
    if (!db.objectStoreNames.contains(EXPIRATION_STORE)) return;
    const tx = db.transaction(EXPIRATION_STORE, 'readwrite');
    const index = tx.objectStore(EXPIRATION_STORE).index('cacheName');
    const cursor = index.openKeyCursor(ATTACHMENT_CACHE_NAME);
    cursor.onsuccess = () => {
      const at = cursor.result;
      if (!at) return;
      tx.objectStore(EXPIRATION_STORE).delete(at.primaryKey);
      at.continue();
    };
    await new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error ?? new Error('could not clear workbox-expiration'));
      tx.onabort = () => reject(tx.error ?? new Error('could not clear workbox-expiration'));
    });
  } finally {
    db.close();
  }
}
