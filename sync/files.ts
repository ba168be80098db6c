// Files: attachment bytes in the attachments bucket. Uploaded before their rows are pushed
// (I6), and fetched once through a signed URL to be kept for offline viewing.
import { listIdOf } from './apply';
import type { SyncDatabase } from './db';
import type { Clock } from './platform';
import { isSyncError, SyncError } from './errors';
import type { OutboxEntry } from './registry';
import type { Remote } from './remote';
import { TRANSFER_TIMEOUT_FACTOR, withTimeout } from './requests';

/** Lifetime of the signed URL used to fetch an attachment once (s). */
const SIGNED_URL_TTL_SEC = 60;

/**
 * Uploads the files of attachment inserts in this batch before the rows go (I6). A
 * transient failure stops the push (retried with backoff); a file the server refuses for
 * good (too large, wrong type, not allowed) is returned, so its row is refused here
 * rather than sent without its file.
 */
export async function uploadFiles(
  db: SyncDatabase,
  remote: Remote,
  entries: OutboxEntry[],
): Promise<Map<string, SyncError>> {
  const refused = new Map<string, SyncError>();
  const files = db.schema.files;
  for (const entry of entries) {
    if (entry.table !== files?.table || entry.op !== 'insert') continue;
    const file = await db._files.get(entry.rowId);
    if (!file || file.state === 'uploaded' || file.state === 'cached') continue;
    await db._files.update(file.id, { state: 'uploading', attempts: file.attempts + 1 });
    try {
      // Deterministic path + upsert: a retry after a lost response rewrites the same object.
      await remote.upload(files.bucket, file.objectPath, file.blob);
      await db._files.update(file.id, { state: 'uploaded' });
    } catch (error) {
      const failure = isSyncError(error) ? error : new SyncError('SERVER_ERROR', String(error));
      await db._files.update(file.id, { state: 'failed', lastError: failure.message });
      if (failure.transient || failure.code === 'AUTH_EXPIRED') throw failure;
      refused.set(entry.rowId, failure);
    }
  }
  return refused;
}

/**
 * OutpostSync.attachmentBlob: an attachment's bytes, from this device when it has them
 * (captured here, or fetched before), else downloaded once through a signed URL and kept for
 * offline viewing; undefined when it is neither here nor reachable. The download has
 * `requestTimeoutMs` to answer and TRANSFER_TIMEOUT_FACTOR times that for its bytes;
 * `fetchImpl` defaults to the global fetch, looked up at each call.
 */
export function createAttachmentBlob(
  db: SyncDatabase,
  remote: Remote,
  clock: Clock,
  requestTimeoutMs: number,
  fetchImpl: typeof fetch = (input, init) => fetch(input, init),
): (attachmentId: string) => Promise<Blob | undefined> {
  return async (attachmentId) => {
    const kept = await db._files.get(attachmentId);
    const files = db.schema.files;
    const spec = db.registry.find((s) => s.name === files?.table);
    if (kept || !files || !spec) return kept?.blob;
    const row = await db.rows(files.table).get(attachmentId);
    const objectPath = row?.[files.path];
    const listId = row && listIdOf(spec, row);
    if (typeof objectPath !== 'string' || !listId) return undefined;
    try {
      const url = await remote.signedUrl(files.bucket, objectPath, SIGNED_URL_TTL_SEC);
      // A download that never answers would leave the screen waiting for good: the answer
      // gets a request's time, its bytes as long as an upload's (a 10 MiB photo on a slow
      // link). Either timer aborts the whole download (one controller for both).
      const download = new AbortController();
      const response = await withTimeout(
        requestTimeoutMs,
        (signal) => fetchImpl(url, { signal }),
        download,
        clock,
      );
      if (!response.ok) return undefined;
      const blob = await withTimeout(
        requestTimeoutMs * TRANSFER_TIMEOUT_FACTOR,
        () => response.blob(),
        download,
        clock,
      );
      // Kept only while its row is still here: the list may have been purged (or the
      // attachment deleted) during the download, and nothing would ever remove it then.
      await db.transaction('rw', [db.rows(files.table), db._files], async () => {
        const current = await db.rows(files.table).get(attachmentId);
        if (!current || current.deleted_at || (await db._files.get(attachmentId))) return;
        await db._files.put({
          id: attachmentId,
          blob,
          objectPath,
          state: 'cached',
          attempts: 0,
          listId,
        });
      });
      return blob;
    } catch {
      return undefined; // offline or gone: the screen shows a placeholder
    }
  };
}
