// The service worker's runtime cache of attachment files fetched through signed URLs: its
// name and key rules (shared with src/sw.ts, so the page clears exactly what the worker
// fills) and clearing it when this device's data is wiped at sign-out, so the previous
// account's private files do not stay in CacheStorage. The app's own downloads stay out of
// it: the sync library keeps those bytes in IndexedDB (`_files`: shown offline, purged with
// the list, counted in Settings › Storage), and a second copy here would be none of that.

/** CacheStorage name of fetched attachments. Renaming it strands the old cache on devices. */
export const ATTACHMENT_CACHE_NAME = 'outpost-attachments';

/** Storage path prefix of signed downloads from the private attachments bucket. */
const SIGNED_ATTACHMENT_PATH = '/storage/v1/object/sign/attachments/';

/** Whether `url` downloads an attachment through a signed URL. */
export function isSignedAttachmentUrl(url: URL): boolean {
  return url.pathname.includes(SIGNED_ATTACHMENT_PATH);
}

/**
 * Whether the worker keeps this download of a signed URL: not when the page asked for it
 * past every cache (`cache: 'no-store'`, as fetchPastAttachmentCache does), only when a
 * signed URL is loaded directly.
 */
export function keptByAttachmentCache(request: { url: string; cache: RequestCache }): boolean {
  return isSignedAttachmentUrl(new URL(request.url)) && request.cache !== 'no-store';
}

/**
 * The fetch the sync library downloads attachments with: `cache: 'no-store'`, which the
 * worker's attachment route skips (keptByAttachmentCache), so the file is stored once, in
 * IndexedDB. A request mode, not a header: a custom header would make the cross-origin
 * storage request need a CORS preflight.
 */
export const fetchPastAttachmentCache: typeof fetch = (input, init) =>
  fetch(input, { ...init, cache: 'no-store' });

/**
 * The cache key of a signed URL: without its query, whose short-lived token changes each
 * time the URL is signed again, so the same object is found after re-signing.
 */
export function attachmentCacheKey(url: string): string {
  const key = new URL(url);
  key.search = '';
  key.hash = '';
  return key.href;
}

/** Deletes every cached attachment file (after sign-out has wiped the device's database). */
export async function clearAttachmentCache(
  storage: Pick<CacheStorage, 'delete'> | undefined = globalThis.caches,
): Promise<void> {
  // No CacheStorage (an insecure origin, jsdom): the worker never cached anything.
  if (!storage) return;
  await storage.delete(ATTACHMENT_CACHE_NAME);
}
