// The share target's inbox: what the worker keeps of a share sheet's form (the attachment
// types and sizes only, at most 20 files, the rest named with why), reading it back as files,
// one share at a time, and forgetting it.
import { describe, expect, it } from 'vitest';

import {
  ATTACHMENT_MAX_BYTES,
  ATTACHMENT_MIME_TYPES,
  ATTACHMENTS_PER_TASK_MAX,
} from '@/data/schema';

import { clearShares, SHARE_CACHE_NAME } from './share-cache';
import {
  keepShare,
  readShare,
  SHARE_BODY_LIMITS,
  SHARE_FIELD_MAX_BYTES,
  SHARE_FILES_MAX,
  SHARE_MAX_BYTES,
  SHARE_MIME_TYPES,
} from './share-inbox';
import {
  BOUNDARY,
  chunkedStream,
  multipartBody,
  refusalCode,
  type TestPart,
} from './share-test-bodies';

/** CacheStorage in memory (jsdom has none), keyed by absolute URL as a browser's Cache is. */
function memoryCaches() {
  const stores = new Map<string, Map<string, Response>>();
  const url = (key: string | Request) =>
    new URL(typeof key === 'string' ? key : key.url, 'http://localhost').href;
  return {
    stores,
    open: (name: string) => {
      const store = stores.get(name) ?? new Map<string, Response>();
      stores.set(name, store);
      return Promise.resolve({
        put: (key: string, response: Response) => {
          store.set(url(key), response);
          return Promise.resolve();
        },
        match: (key: string) => Promise.resolve(store.get(url(key))?.clone()),
        keys: () => Promise.resolve([...store.keys()].map((key) => new Request(key))),
        delete: (key: string | Request) => Promise.resolve(store.delete(url(key))),
      } as unknown as Cache);
    },
    delete: (name: string) => Promise.resolve(stores.delete(name)),
  };
}

/** A share sheet's POST: its body streamed in small chunks, as a browser hands it over. */
function post(parts: TestPart[], headers: Record<string, string> = {}) {
  const source = chunkedStream(multipartBody(parts), 1000);
  return {
    source,
    request: {
      body: source.stream,
      headers: new Headers({
        'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
        ...headers,
      }),
    },
  };
}

const file = (name: string, type: string, content: number | string = 'x'): TestPart => ({
  name: 'files',
  filename: name,
  type,
  content: typeof content === 'string' ? content : new Uint8Array(content),
});
const field = (name: string, content: string): TestPart => ({ name, content });

const refusal = (promise: Promise<unknown>) => refusalCode(promise, 'kept');

describe('share inbox', () => {
  it('accepts what an attachment may be (the sync library’s rules)', () => {
    expect([...SHARE_MIME_TYPES]).toEqual([...ATTACHMENT_MIME_TYPES]);
    expect(SHARE_MAX_BYTES).toBe(ATTACHMENT_MAX_BYTES);
    expect(SHARE_FILES_MAX).toBe(ATTACHMENTS_PER_TASK_MAX);
  });

  it('keeps photos and PDFs with the shared text, and reads them back as files', async () => {
    const caches = memoryCaches();
    const kept = await keepShare(
      post([
        field('title', ' Cracked render '),
        field('text', 'Block C, east side'),
        field('url', ''),
        file('crack.png', 'image/png', 'png-bytes'),
        file('report.pdf', 'application/pdf', '%PDF'),
      ]).request,
      'share-1',
      caches,
    );
    expect(kept).toEqual({
      id: 'share-1',
      title: 'Cracked render',
      text: 'Block C, east side',
      url: '',
      files: [
        { name: 'crack.png', type: 'image/png', size: 9 },
        { name: 'report.pdf', type: 'application/pdf', size: 4 },
      ],
      refused: [],
    });
    const read = await readShare('share-1', caches);
    expect(read?.share).toEqual(kept);
    expect(read?.files.map((f) => [f.name, f.type, f.size])).toEqual([
      ['crack.png', 'image/png', 9],
      ['report.pdf', 'application/pdf', 4],
    ]);
    expect(await readShare('another', caches)).toBeNull();
  });

  it('does not keep other types, empty or too large files, nor more than 20', async () => {
    const caches = memoryCaches();
    const many = Array.from({ length: SHARE_FILES_MAX + 1 }, (_, i) =>
      file(`p${i}.jpg`, 'image/jpeg'),
    );
    const kept = await keepShare(
      post([
        file('clip.mp4', 'video/mp4'),
        file('photo.heic', 'image/heic'),
        file('empty.png', 'image/png', 0),
        file('huge.pdf', 'application/pdf', SHARE_MAX_BYTES + 1),
        // A file input left empty: no name, no bytes, nothing shared.
        file('', 'application/octet-stream', 0),
        ...many,
      ]).request,
      'share-2',
      caches,
    );
    expect(kept.files).toHaveLength(SHARE_FILES_MAX);
    expect(kept.refused.map((f) => [f.name, f.reason])).toEqual([
      ['clip.mp4', 'FILE_TYPE'],
      ['photo.heic', 'FILE_TYPE'],
      ['empty.png', 'FILE_TOO_LARGE'],
      ['huge.pdf', 'FILE_TOO_LARGE'],
      [`p${SHARE_FILES_MAX}.jpg`, 'TOO_MANY'],
    ]);
    // Refused bytes are not stored: the share's record and the 20 files only.
    expect(caches.stores.get(SHARE_CACHE_NAME)?.size).toBe(SHARE_FILES_MAX + 1);
  });

  it('keeps one share at a time and forgets it when told', async () => {
    const caches = memoryCaches();
    await keepShare(post([file('a.png', 'image/png')]).request, 'first', caches);
    await keepShare(post([file('b.png', 'image/png')]).request, 'second', caches);
    expect(await readShare('first', caches)).toBeNull();
    expect((await readShare('second', caches))?.files.map((f) => f.name)).toEqual(['b.png']);
    await clearShares(caches);
    expect(await readShare('second', caches)).toBeNull();
  });

  it('keeps the first of each field, and at most SHARE_FIELD_MAX_BYTES of it', async () => {
    const kept = await keepShare(
      post([
        field('title', 'First'),
        field('title', 'Second'),
        field('text', 'é'.repeat(SHARE_FIELD_MAX_BYTES)),
        field('unknown', 'ignored'),
        { name: 'other', filename: 'x.png', type: 'image/png', content: 'x' },
        file('a.png', 'image/png'),
      ]).request,
      'fields',
      memoryCaches(),
    );
    expect(kept.title).toBe('First');
    expect(kept.text).toBe('é'.repeat(SHARE_FIELD_MAX_BYTES / 2));
    expect(kept.files.map((f) => f.name)).toEqual(['a.png']);
  });

  it('refuses a share as a whole, keeping nothing of it and the earlier one as it was', async () => {
    const caches = memoryCaches();
    await keepShare(post([file('a.png', 'image/png')]).request, 'earlier', caches);
    const small = { ...SHARE_BODY_LIMITS, bodyBytesMax: 5000 };
    const big = post([
      file('b.png', 'image/png', 'b'.repeat(100)),
      file('c.png', 'image/png', 9000),
    ]);
    expect(await refusal(keepShare(big.request, 'big', caches, small))).toBe('TOO_LARGE');
    expect(big.source.cancelled).toBe(true);
    expect(big.source.read).toBeLessThanOrEqual(6000);

    const declared = post([file('d.png', 'image/png')], {
      'Content-Length': String(SHARE_BODY_LIMITS.bodyBytesMax + 1),
    });
    expect(await refusal(keepShare(declared.request, 'declared', caches))).toBe('TOO_LARGE');
    expect(declared.source.read).toBe(0);

    const form = post([file('e.png', 'image/png')], {
      'Content-Type': 'application/x-www-form-urlencoded',
    });
    expect(await refusal(keepShare(form.request, 'form', caches))).toBe('NOT_MULTIPART');

    const cut = {
      body: chunkedStream(multipartBody([file('f.png', 'image/png')], { open: true }), 64).stream,
      headers: post([]).request.headers,
    };
    expect(await refusal(keepShare(cut, 'cut', caches))).toBe('MALFORMED');

    const parts = Array.from({ length: SHARE_BODY_LIMITS.partsMax + 1 }, () => field('x', ''));
    expect(await refusal(keepShare(post(parts).request, 'parts', caches))).toBe('TOO_MANY_PARTS');

    expect(await readShare('big', caches)).toBeNull();
    expect((await readShare('earlier', caches))?.files.map((f) => f.name)).toEqual(['a.png']);
    // The earlier share's record and file, nothing of the refused ones.
    expect(caches.stores.get(SHARE_CACHE_NAME)?.size).toBe(2);
  });

  it('finds nothing where there is no CacheStorage', async () => {
    expect(await readShare('any', undefined)).toBeNull();
  });
});
