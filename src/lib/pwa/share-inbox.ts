// Files shared to Outpost from another app (the manifest's share_target): the service worker
// takes the share sheet's POST to /share and keeps what it carries on the device, in
// CacheStorage (offline too; nothing is sent anywhere), then the share screen reads it, the
// person picks a task, and the files become attachments. Shared by src/sw.ts and the page,
// so it imports nothing heavy: the worker stays lean. (The cache's name and clearing it are
// in share-cache.ts, for the app shell.)
import {
  multipartBoundary,
  readMultipart,
  ShareBodyError,
  type MultipartLimits,
  type PartHandler,
} from './share-body';
import { SHARE_CACHE_NAME } from './share-cache';

/** Where the share sheet posts, and the app route that shows a kept share (`?id=`). */
export const SHARE_PATH = '/share';

/**
 * What the share target accepts: the attachment rules of SPEC §9 (sync's
 * ATTACHMENT_MIME_TYPES, ATTACHMENT_MAX_BYTES and ATTACHMENTS_PER_TASK_MAX; a test keeps them
 * equal), written out here so the worker does not load the sync library.
 */
export const SHARE_MIME_TYPES = [
  'image/jpeg',
  'image/png',
  'image/webp',
  'image/gif',
  'application/pdf',
] as const;
export const SHARE_MAX_BYTES = 10 * 1024 * 1024;
export const SHARE_FILES_MAX = 20;

/** Why the worker did not keep a shared file. */
export type ShareRefusalCode = 'FILE_TYPE' | 'FILE_TOO_LARGE' | 'TOO_MANY';

export interface SharedFileInfo {
  name: string;
  type: string;
  size: number;
}

export interface KeptShare {
  id: string;
  title: string;
  text: string;
  url: string;
  /** The files kept, in the order they were shared. */
  files: SharedFileInfo[];
  /** The files not kept, and why. */
  refused: (SharedFileInfo & { reason: ShareRefusalCode })[];
}

type Caches = Pick<CacheStorage, 'open' | 'delete'>;

/**
 * What one share's body may be, beyond each file's limits: every file at its largest plus
 * room for the text fields and the headers; the fields and files of the manifest with as
 * many refused files again; header blocks far over any browser's.
 */
export const SHARE_BODY_LIMITS: MultipartLimits = {
  bodyBytesMax: SHARE_FILES_MAX * SHARE_MAX_BYTES + 1024 * 1024,
  partsMax: 2 * SHARE_FILES_MAX + 8,
  headerBytesMax: 16 * 1024,
};
/** What is kept of a text field (title, text, url); the rest is read past, not kept. */
export const SHARE_FIELD_MAX_BYTES = 16 * 1024;

const metaKey = (id: string) => `${SHARE_PATH}/kept/${encodeURIComponent(id)}`;
const fileKey = (id: string, index: number) => `${metaKey(id)}/${index}`;

/** Why a file cannot be kept for attaching, or null when it can. */
export function shareRefusal(file: SharedFileInfo, keptSoFar: number): ShareRefusalCode | null {
  if (!(SHARE_MIME_TYPES as readonly string[]).includes(file.type)) return 'FILE_TYPE';
  if (file.size > SHARE_MAX_BYTES || file.size === 0) return 'FILE_TOO_LARGE';
  if (keptSoFar >= SHARE_FILES_MAX) return 'TOO_MANY';
  return null;
}

const FIELDS = ['title', 'text', 'url'] as const;
type FieldName = (typeof FIELDS)[number];
const isField = (name: string): name is FieldName => (FIELDS as readonly string[]).includes(name);

/** Chunks as one array (a Blob would do in the worker; tests run where Response reads none). */
function joined(chunks: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return bytes;
}

/** A file's name without control characters (a line break would garble its listing). */
const printable = (name: string): string =>
  [...name].filter((c) => c.charCodeAt(0) > 0x1f && c.charCodeAt(0) !== 0x7f).join('');

/** The part being read: a text field, a file (its bytes while it may still be kept), or neither. */
type Current =
  | { kind: 'field'; name: FieldName; chunks: Uint8Array[]; size: number }
  | { kind: 'file'; info: SharedFileInfo; chunks: Uint8Array[] | null }
  | { kind: 'skip' };

/**
 * Keeps a share sheet's POST (title, text, url, files) under `id`, reading its body as it
 * streams (share-body.ts): a file is held in memory only while it may still be kept (at most
 * SHARE_MAX_BYTES) and is written to the cache when it ends, so a share never sits whole in
 * memory. Files of other types, too large, empty or past SHARE_FILES_MAX are read past and
 * named with why. A body over SHARE_BODY_LIMITS, not multipart/form-data or malformed throws
 * ShareBodyError and leaves nothing of itself, and any earlier share as it was; a kept one
 * replaces any earlier one left unfinished (one share is handled at a time, and abandoned ones
 * would otherwise fill the device).
 */
export async function keepShare(
  request: { body: ReadableStream<Uint8Array> | null; headers: Pick<Headers, 'get'> },
  id: string,
  storage: Caches,
  limits: MultipartLimits = SHARE_BODY_LIMITS,
): Promise<KeptShare> {
  const boundary = multipartBoundary(request.headers.get('content-type'));
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > limits.bodyBytesMax) {
    await request.body?.cancel().catch(() => undefined);
    throw new ShareBodyError('TOO_LARGE', `a declared body of ${declared} bytes`);
  }
  const cache = await storage.open(SHARE_CACHE_NAME);
  const share: KeptShare = { id, title: '', text: '', url: '', files: [], refused: [] };
  const seen = new Set<FieldName>();
  const decoder = new TextDecoder();
  let current: Current = { kind: 'skip' };

  const handler: PartHandler = {
    start({ name, filename, type }) {
      if (filename === null) {
        // The first of each field counts, as FormData.get() would have it.
        current =
          isField(name) && !seen.has(name)
            ? { kind: 'field', name, chunks: [], size: 0 }
            : { kind: 'skip' };
        if (current.kind === 'field') seen.add(current.name);
        return;
      }
      if (name !== 'files') {
        current = { kind: 'skip' };
        return;
      }
      const info = { name: printable(filename), type, size: 0 };
      // Bytes are held only for a file that may be kept: the right type, room for it.
      const mayKeep = shareRefusal({ ...info, size: 1 }, share.files.length) === null;
      current = { kind: 'file', info, chunks: mayKeep ? [] : null };
    },
    data(bytes) {
      if (current.kind === 'field') {
        const room = SHARE_FIELD_MAX_BYTES - current.size;
        if (room > 0) current.chunks.push(bytes.subarray(0, room));
        current.size += Math.min(room, bytes.length);
      } else if (current.kind === 'file') {
        current.info.size += bytes.length;
        if (current.chunks && current.info.size <= SHARE_MAX_BYTES) current.chunks.push(bytes);
        else current.chunks = null;
      }
    },
    async end() {
      const part = current;
      current = { kind: 'skip' };
      if (part.kind === 'field') {
        share[part.name] = decoder.decode(joined(part.chunks)).trim();
        return;
      }
      if (part.kind !== 'file') return;
      const { info } = part;
      // A file input left empty posts a nameless, empty part: nothing was shared there.
      if (info.name === '' && info.size === 0) return;
      const named = { ...info, name: info.name || 'file' };
      const reason = shareRefusal(named, share.files.length);
      if (reason || !part.chunks) {
        share.refused.push({ ...named, reason: reason ?? 'FILE_TOO_LARGE' });
        return;
      }
      await cache.put(
        fileKey(id, share.files.length),
        new Response(joined(part.chunks), { headers: { 'Content-Type': info.type } }),
      );
      share.files.push(named);
    },
  };

  try {
    await readMultipart(request.body, boundary, limits, handler);
  } catch (error) {
    // Nothing of a refused share stays; an earlier one is left as it was.
    await Promise.all(share.files.map((_, index) => cache.delete(fileKey(id, index))));
    throw error;
  }
  const own = new Set([metaKey(id), ...share.files.map((_, index) => fileKey(id, index))]);
  for (const key of await cache.keys()) {
    if (!own.has(new URL(key.url).pathname)) await cache.delete(key);
  }
  await cache.put(metaKey(id), Response.json(share));
  return share;
}

/** A kept share with its files, or null when it is not (or no longer) on this device. */
export async function readShare(
  id: string,
  storage: Caches | undefined = globalThis.caches,
): Promise<{ share: KeptShare; files: File[] } | null> {
  if (!storage) return null;
  const cache = await storage.open(SHARE_CACHE_NAME);
  const meta = await cache.match(metaKey(id));
  if (!meta) return null;
  const share = (await meta.json()) as KeptShare;
  const files: File[] = [];
  for (const [index, info] of share.files.entries()) {
    const response = await cache.match(fileKey(id, index));
    if (!response) return null; // partly evicted: better nothing than a share missing a file
    // From the bytes, not the Blob: a File of another realm's Blob is not portable everywhere.
    files.push(new File([await response.arrayBuffer()], info.name, { type: info.type }));
  }
  return { share, files };
}
