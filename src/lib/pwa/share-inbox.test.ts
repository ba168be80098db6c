// The share target's inbox: what the worker keeps of a share sheet's form (the attachment
// types and sizes only, at most 20 files, the rest named with why), reading it back as files,
// one share at a time, and forgetting it.
import { File as NodeFile } from 'node:buffer';

import { describe, expect, it } from 'vitest';

import { ATTACHMENT_MAX_BYTES, ATTACHMENT_MIME_TYPES, ATTACHMENTS_PER_TASK_MAX } from '@sync/index';

import { clearShares, SHARE_CACHE_NAME } from './share-cache';
import {
  keepShare,
  readShare,
  SHARE_FILES_MAX,
  SHARE_MAX_BYTES,
  SHARE_MIME_TYPES,
} from './share-inbox';

/** CacheStorage in memory (jsdom has none): Node's Response holds the bytes, as a browser's. */
function memoryCaches() {
  const stores = new Map<string, Map<string, Response>>();
  return {
    stores,
    open: (name: string) => {
      const store = stores.get(name) ?? new Map<string, Response>();
      stores.set(name, store);
      return Promise.resolve({
        put: (key: string, response: Response) => {
          store.set(key, response);
          return Promise.resolve();
        },
        match: (key: string) => Promise.resolve(store.get(key)?.clone()),
      } as unknown as Cache);
    },
    delete: (name: string) => Promise.resolve(stores.delete(name)),
  };
}

/** A share sheet's form: fields and files (Node's File, whose bytes Node's Response reads). */
function form(fields: Record<string, string>, files: NodeFile[]) {
  return {
    get: (name: string) => fields[name] ?? null,
    getAll: (name: string) => (name === 'files' ? files : []),
  } as unknown as Pick<FormData, 'get' | 'getAll'>;
}

const file = (name: string, type: string, bytes: number | string = 'x') =>
  new NodeFile([typeof bytes === 'string' ? bytes : new Uint8Array(bytes)], name, { type });

describe('share inbox', () => {
  it('accepts what an attachment may be (the sync library’s rules)', () => {
    expect([...SHARE_MIME_TYPES]).toEqual([...ATTACHMENT_MIME_TYPES]);
    expect(SHARE_MAX_BYTES).toBe(ATTACHMENT_MAX_BYTES);
    expect(SHARE_FILES_MAX).toBe(ATTACHMENTS_PER_TASK_MAX);
  });

  it('keeps photos and PDFs with the shared text, and reads them back as files', async () => {
    const caches = memoryCaches();
    const kept = await keepShare(
      form({ title: ' Cracked render ', text: 'Block C, east side', url: '' }, [
        file('crack.png', 'image/png', 'png-bytes'),
        file('report.pdf', 'application/pdf', '%PDF'),
      ]),
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
      form({}, [
        file('clip.mp4', 'video/mp4'),
        file('photo.heic', 'image/heic'),
        file('empty.png', 'image/png', 0),
        file('huge.pdf', 'application/pdf', SHARE_MAX_BYTES + 1),
        ...many,
      ]),
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
    await keepShare(form({}, [file('a.png', 'image/png')]), 'first', caches);
    await keepShare(form({}, [file('b.png', 'image/png')]), 'second', caches);
    expect(await readShare('first', caches)).toBeNull();
    expect((await readShare('second', caches))?.files.map((f) => f.name)).toEqual(['b.png']);
    await clearShares(caches);
    expect(await readShare('second', caches)).toBeNull();
  });

  it('finds nothing where there is no CacheStorage', async () => {
    expect(await readShare('any', undefined)).toBeNull();
  });
});
