// Reads a multipart/form-data body as it streams in, part by part, so the service worker can
// refuse a share the moment it breaks a limit (its size, its number of parts, a header block
// that never ends) instead of reading all of it into memory first, as Request.formData() does.
// It knows nothing of shares: the caller's PartHandler decides what to keep of each part
// (share-inbox.ts). Written here rather than taken from a package: the worker needs some 150
// lines of it, and it must stay small.

/** Why a body was refused as a whole (nothing of it is kept). */
export type ShareBodyErrorCode = 'NOT_MULTIPART' | 'TOO_LARGE' | 'TOO_MANY_PARTS' | 'MALFORMED';

export class ShareBodyError extends Error {
  constructor(
    readonly code: ShareBodyErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ShareBodyError';
  }
}

export interface MultipartLimits {
  /** The whole body's bytes, delimiters and headers included. */
  bodyBytesMax: number;
  /** How many parts a body may have. */
  partsMax: number;
  /** One part's header block, in bytes. */
  headerBytesMax: number;
}

/** What a part's headers say about it. */
export interface PartHead {
  /** The form field's name (Content-Disposition's `name`). */
  name: string;
  /** The file's name, or null for a plain field (no `filename` parameter). */
  filename: string | null;
  /** The part's media type, lower case, without parameters ('' when not given). */
  type: string;
}

/** Told each part's head, then its bytes as they arrive, then its end (awaited). */
export interface PartHandler {
  start(head: PartHead): void;
  /** A piece of the part's content; the view is not reused, so it may be kept. */
  data(bytes: Uint8Array): void;
  end(): Promise<void> | void;
}

const CR = 0x0d;
const LF = 0x0a;
const DASH = 0x2d;
const encoder = new TextEncoder();

/** RFC 2046's boundary: 1 to 70 of these characters, not ending in a space. */
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;

/** The boundary of a multipart/form-data Content-Type; anything else is NOT_MULTIPART. */
export function multipartBoundary(contentType: string | null): string {
  const [type = '', ...params] = (contentType ?? '').split(';');
  if (type.trim().toLowerCase() !== 'multipart/form-data') {
    throw new ShareBodyError('NOT_MULTIPART', `not multipart/form-data: ${type.trim()}`);
  }
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'boundary') continue;
    let value = param.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
      value = value.slice(1, -1);
    }
    if (!BOUNDARY.test(value)) break;
    return value;
  }
  throw new ShareBodyError('NOT_MULTIPART', 'multipart/form-data without a valid boundary');
}

/** Where `needle` starts in `haystack` at or after `from`, or -1. */
function indexOfBytes(haystack: Uint8Array, needle: Uint8Array, from = 0): number {
  const first = needle[0];
  const last = haystack.length - needle.length;
  for (let i = haystack.indexOf(first ?? 0, from); i >= 0 && i <= last;) {
    let j = 1;
    while (j < needle.length && haystack[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
    i = haystack.indexOf(first ?? 0, i + 1);
  }
  return -1;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}

/** A header parameter's value: a token, or a quoted string (backslash escapes undone). */
function paramValue(raw: string): string {
  const value = raw.trim();
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    return value.slice(1, -1).replace(/\\(.)/g, '$1');
  }
  return value;
}

/** Reads a part's header block (the lines between its delimiter and the empty line). */
export function parsePartHead(block: string): PartHead {
  let disposition: string | undefined;
  let type = '';
  for (const line of block.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new ShareBodyError('MALFORMED', 'a part header without a name');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'content-disposition') disposition = value;
    else if (name === 'content-type') type = (value.split(';')[0] ?? '').trim().toLowerCase();
  }
  // form-data; name="files"; filename="a.png" (quoted values may hold ';').
  const match = /^form-data\s*((?:;\s*[^=;\s]+\s*=\s*(?:"(?:[^"\\]|\\.)*"|[^;"]*)\s*)*)$/i.exec(
    disposition ?? '',
  );
  if (!match) throw new ShareBodyError('MALFORMED', 'a part that is not form-data');
  const params = new Map<string, string>();
  const param = /;\s*([^=;\s]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;"]*)/g;
  for (let found = param.exec(match[1] ?? ''); found; found = param.exec(match[1] ?? '')) {
    const key = (found[1] ?? '').toLowerCase();
    if (!params.has(key)) params.set(key, paramValue(found[2] ?? ''));
  }
  const name = params.get('name');
  if (name === undefined) throw new ShareBodyError('MALFORMED', 'a form-data part without a name');
  return { name, filename: params.get('filename') ?? null, type };
}

type State = 'first' | 'after-delimiter' | 'head' | 'content' | 'epilogue';

/**
 * Reads `body` (multipart/form-data with this boundary) to its end, telling `handler` each
 * part as it goes and holding no more than a header block or a delimiter's length of it
 * itself. Throws ShareBodyError at the first broken limit or malformed byte, after cancelling
 * the stream (the rest is never read); the handler's own errors cancel it too.
 */
export async function readMultipart(
  body: ReadableStream<Uint8Array> | null,
  boundary: string,
  limits: MultipartLimits,
  handler: PartHandler,
): Promise<void> {
  if (!body) throw new ShareBodyError('MALFORMED', 'no body');
  const opening = encoder.encode(`--${boundary}`);
  // Between parts the delimiter follows the content's CRLF.
  const delimiter = encoder.encode(`\r\n--${boundary}`);
  const headEnd = encoder.encode('\r\n\r\n');
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let state: State = 'first';
  let pending: Uint8Array = new Uint8Array(0);
  let received = 0;
  let parts = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received += value.length;
      if (received > limits.bodyBytesMax) {
        throw new ShareBodyError('TOO_LARGE', `body over ${limits.bodyBytesMax} bytes`);
      }
      pending = concat(pending, value);
      // Consume what can be decided with the bytes at hand; leave the rest for the next chunk.
      for (let progressed = true; progressed;) {
        progressed = false;
        if (state === 'first') {
          if (pending.length < opening.length) break;
          if (indexOfBytes(pending.subarray(0, opening.length), opening) !== 0) {
            throw new ShareBodyError('MALFORMED', 'the body does not open with its boundary');
          }
          pending = pending.subarray(opening.length);
          state = 'after-delimiter';
          progressed = true;
        } else if (state === 'after-delimiter') {
          if (pending.length < 2) break;
          if (pending[0] === CR && pending[1] === LF) state = 'head';
          else if (pending[0] === DASH && pending[1] === DASH) state = 'epilogue';
          else throw new ShareBodyError('MALFORMED', 'a delimiter followed by neither CRLF nor --');
          pending = pending.subarray(2);
          progressed = true;
        } else if (state === 'head') {
          const end = indexOfBytes(pending, headEnd);
          if (end < 0) {
            if (pending.length > limits.headerBytesMax) {
              throw new ShareBodyError('MALFORMED', 'a part header block over the limit');
            }
            break;
          }
          if (end > limits.headerBytesMax) {
            throw new ShareBodyError('MALFORMED', 'a part header block over the limit');
          }
          parts += 1;
          if (parts > limits.partsMax) {
            throw new ShareBodyError('TOO_MANY_PARTS', `more than ${limits.partsMax} parts`);
          }
          handler.start(parsePartHead(decoder.decode(pending.subarray(0, end))));
          pending = pending.subarray(end + headEnd.length);
          state = 'content';
          progressed = true;
        } else if (state === 'content') {
          const end = indexOfBytes(pending, delimiter);
          if (end < 0) {
            // Hand on all but what could be the start of a delimiter split across chunks.
            const safe = pending.length - (delimiter.length - 1);
            if (safe > 0) {
              handler.data(pending.slice(0, safe));
              pending = pending.slice(safe);
            }
            break;
          }
          if (end > 0) handler.data(pending.slice(0, end));
          pending = pending.slice(end + delimiter.length);
          await handler.end();
          state = 'after-delimiter';
          progressed = true;
        } else {
          // The epilogue after the closing delimiter: read (it counts) but not kept.
          pending = new Uint8Array(0);
        }
      }
    }
    if (state !== 'epilogue') {
      throw new ShareBodyError('MALFORMED', 'the body ends before its closing delimiter');
    }
  } catch (error) {
    // Stop the browser sending the rest; the stream may already be closed or errored.
    await reader.cancel().catch(() => undefined);
    throw error;
  } finally {
    reader.releaseLock();
  }
}
