// The attachment cache's rules shared by the worker and the page: which URLs it keeps, a key
// that survives re-signing, and clearing exactly that cache at sign-out.
import { describe, expect, it } from 'vitest';

import {
  ATTACHMENT_CACHE_NAME,
  attachmentCacheKey,
  clearAttachmentCache,
  isSignedAttachmentUrl,
} from './attachment-cache';

const SIGNED =
  'http://127.0.0.1:54321/storage/v1/object/sign/attachments/list-1/task-1/a.png?token=abc';

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
});
