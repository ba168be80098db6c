// Forgetting workbox-expiration's rows of the attachment cache at sign-out (their URLs are
// the files' storage paths), without ever making workbox's database itself.
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';

import { ATTACHMENT_CACHE_NAME, attachmentCacheKey } from './attachment-cache';
import { forgetAttachmentExpiry } from './attachment-expiry';

const SIGNED =
  'http://127.0.0.1:54321/storage/v1/object/sign/attachments/list-1/task-1/a.png?token=abc';

describe('attachment expiry', () => {
  it("forgets the worker's ages of cached attachments, and makes no database of its own", async () => {
    const idb = new IDBFactory();
    await forgetAttachmentExpiry(idb);
    expect(await idb.databases()).toEqual([]);

    // As workbox-expiration makes it (CacheTimestampsModel): id = cacheName|url.
    const db = await request<IDBDatabase>(idb.open('workbox-expiration', 1), (open) => {
      const store = open.result.createObjectStore('cache-entries', { keyPath: 'id' });
      store.createIndex('cacheName', 'cacheName', { unique: false });
      store.createIndex('timestamp', 'timestamp', { unique: false });
    });
    const entry = (cacheName: string, url: string) => ({
      id: `${cacheName}|${url}`,
      url,
      cacheName,
      timestamp: 1,
    });
    const tx = db.transaction('cache-entries', 'readwrite');
    tx.objectStore('cache-entries').put(entry(ATTACHMENT_CACHE_NAME, attachmentCacheKey(SIGNED)));
    tx.objectStore('cache-entries').put(
      entry(ATTACHMENT_CACHE_NAME, 'http://x/sign/attachments/b'),
    );
    tx.objectStore('cache-entries').put(entry('another-cache', 'http://x/kept'));
    await new Promise((resolve) => (tx.oncomplete = resolve));

    await forgetAttachmentExpiry(idb);
    const left = await request<{ cacheName: string }[]>(
      db.transaction('cache-entries').objectStore('cache-entries').getAll(),
    );
    expect(left.map((row) => row.cacheName)).toEqual(['another-cache']);
    db.close();
  });
});

/** An IndexedDB request's result (with `upgrade` run on upgradeneeded). */
function request<T>(req: IDBRequest, upgrade?: (req: IDBOpenDBRequest) => void): Promise<T> {
  if (upgrade) (req as IDBOpenDBRequest).onupgradeneeded = () => upgrade(req as IDBOpenDBRequest);
  return new Promise<T>((resolve, reject) => {
    req.onsuccess = () => resolve(req.result as T);
    req.onerror = () => reject(req.error ?? new Error('request failed'));
  });
}
