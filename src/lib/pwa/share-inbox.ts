// Files shared to Outpost from another app (the manifest's share_target): the service worker
// takes the share sheet's POST to /share and keeps what it carries on the device, in
// CacheStorage (offline too; nothing is sent anywhere), then the share screen reads it, the
// person picks a task, and the files become attachments. Shared by src/sw.ts and the page,
// so it imports nothing heavy: the worker stays lean. (The cache's name and clearing it are
// in share-cache.ts, for the app shell.)
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

const metaKey = (id: string) => `${SHARE_PATH}/kept/${encodeURIComponent(id)}`;
const fileKey = (id: string, index: number) => `${metaKey(id)}/${index}`;

/** Why a file cannot be kept for attaching, or null when it can. */
export function shareRefusal(file: SharedFileInfo, keptSoFar: number): ShareRefusalCode | null {
  if (!(SHARE_MIME_TYPES as readonly string[]).includes(file.type)) return 'FILE_TYPE';
  if (file.size > SHARE_MAX_BYTES || file.size === 0) return 'FILE_TOO_LARGE';
  if (keptSoFar >= SHARE_FILES_MAX) return 'TOO_MANY';
  return null;
}

const field = (form: Pick<FormData, 'get'>, name: string): string => {
  const value = form.get(name);
  return typeof value === 'string' ? value.trim() : '';
};

/**
 * Keeps a share sheet's form (title, text, url, files) under `id`. A new share replaces any
 * earlier one left unfinished: one share is handled at a time, and abandoned ones would
 * otherwise fill the device.
 */
export async function keepShare(
  form: Pick<FormData, 'get' | 'getAll'>,
  id: string,
  storage: Caches,
): Promise<KeptShare> {
  await storage.delete(SHARE_CACHE_NAME);
  const cache = await storage.open(SHARE_CACHE_NAME);
  const share: KeptShare = {
    id,
    title: field(form, 'title'),
    text: field(form, 'text'),
    url: field(form, 'url'),
    files: [],
    refused: [],
  };
  for (const entry of form.getAll('files')) {
    if (typeof entry === 'string') continue;
    const info = { name: entry.name || 'file', type: entry.type, size: entry.size };
    const reason = shareRefusal(info, share.files.length);
    if (reason) {
      share.refused.push({ ...info, reason });
      continue;
    }
    await cache.put(
      fileKey(id, share.files.length),
      new Response(entry, { headers: { 'Content-Type': info.type } }),
    );
    share.files.push(info);
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
