// The attachment cache's rules shared by the worker and the page: which URLs it keeps (not
// the app's own downloads, whose bytes IndexedDB keeps), a key that survives re-signing, and
// clearing exactly that cache at sign-out.
import { afterEach, describe, expect, it, vi } from 'vitest';

import {
  ATTACHMENT_CACHE_NAME,
  attachmentCacheKey,
  clearAttachmentCache,
  fetchPastAttachmentCache,
  isSignedAttachmentUrl,
  keptByAttachmentCache,
} from './attachment-cache';

const SIGNED =
  'http://127.0.0.1:54321/storage/v1/object/sign/attachments/list-1/task-1/a.png?token=abc';

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('attachment cache', () => {
  it('keeps signed downloads of the attachments bucket only', () => {
    expect(isSignedAttachmentUrl(new URL(SIGNED))).toBe(true);
    expect(
      isSignedAttachmentUrl(
        new URL('http://127.0.0.1:54321/storage/v1/object/public/avatars/u/me.png'),
      ),
    ).toBe(false);
    expect(isSignedAttachmentUrl(new URL('http://127.0.0.1:54321/rest/v1/attachments'))).toBe(
      false,
    );
  });

  it('keys a file without its token, so a re-signed URL finds it', () => {
    const again = SIGNED.replace('token=abc', 'token=def');
    expect(attachmentCacheKey(SIGNED)).toBe(attachmentCacheKey(again));
    expect(attachmentCacheKey(SIGNED)).toBe(
      'http://127.0.0.1:54321/storage/v1/object/sign/attachments/list-1/task-1/a.png',
    );
  });

  it('clears only the attachment cache, and does nothing without CacheStorage', async () => {
    const deleted: string[] = [];
    await clearAttachmentCache({
      delete: (name) => {
        deleted.push(name);
        return Promise.resolve(true);
      },
    });
    expect(deleted).toEqual([ATTACHMENT_CACHE_NAME]);
    await expect(clearAttachmentCache(undefined)).resolves.toBeUndefined();
  });

  it("keeps a signed URL loaded directly, never the app's own no-store download", async () => {
    expect(keptByAttachmentCache(new Request(SIGNED))).toBe(true);
    expect(keptByAttachmentCache(new Request(SIGNED, { cache: 'no-store' }))).toBe(false);

    const seen: Request[] = [];
    vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => {
      seen.push(new Request(input, init));
      return Promise.resolve(new Response('bytes'));
    });
    await fetchPastAttachmentCache(SIGNED);
    await fetchPastAttachmentCache(SIGNED, { method: 'GET', cache: 'default' });
    expect(seen.map((request) => request.url)).toEqual([SIGNED, SIGNED]);
    // What the worker's route sees of the sync library's download: it passes by.
    expect(seen.map(keptByAttachmentCache)).toEqual([false, false]);
  });
});
