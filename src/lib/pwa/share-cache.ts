// The CacheStorage that holds files shared to Outpost until they are attached (filled by the
// worker, share-inbox.ts), apart from the inbox so the app shell, which only clears it at
// sign-out, does not carry the inbox's code (the share screen loads that on first use).

/** CacheStorage name of kept shares. Renaming it strands the old cache on devices. */
export const SHARE_CACHE_NAME = 'outpost-shares';

/** Forgets every kept share (after its files were attached, or at sign-out). */
export async function clearShares(
  storage: Pick<CacheStorage, 'delete'> | undefined = globalThis.caches,
): Promise<void> {
  // No CacheStorage (an insecure origin, jsdom): the worker never kept anything.
  if (!storage) return;
  await storage.delete(SHARE_CACHE_NAME);
}
