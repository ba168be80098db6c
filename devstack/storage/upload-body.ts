// Reading upload bodies without trusting their size: raw bodies stream to a temp file and
// multipart bodies are buffered only up to the bucket limit (plus room for the form fields).
// Once a body is over the limit we stop keeping bytes and answer 413.
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, rm } from 'node:fs/promises';
import { join } from 'node:path';

import { entityTooLarge } from './errors';

/** Bytes we still read (and discard) past a limit so the client sees the 413, not a reset. */
const DRAIN_AFTER_LIMIT_BYTES = 64 * 1024 * 1024;

export interface ReceivedFile {
  path: string;
  size: number;
  md5: string;
}

export async function tempFilePath(storageDir: string): Promise<string> {
  const dir = join(storageDir, '.tmp');
  await mkdir(dir, { recursive: true });
  return join(dir, randomUUID());
}

async function drain(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  let discarded = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      discarded += value.byteLength;
      if (discarded > DRAIN_AFTER_LIMIT_BYTES) {
        await reader.cancel();
        return;
      }
    }
  } catch {
    // The client went away; nothing left to drain.
  }
}

/** `body`'s chunks as they arrive; past `limitBytes` it drains the rest and throws 413. */
async function* boundedChunks(
  body: ReadableStream<Uint8Array>,
  limitBytes: number,
): AsyncGenerator<Uint8Array> {
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    size += value.byteLength;
    if (size > limitBytes) {
      await drain(reader);
      throw entityTooLarge();
    }
    yield value;
  }
}

/** Streams `body` into a new file at `path`; throws 413 (and removes the file) past `limitBytes`. */
export async function receiveToFile(
  body: ReadableStream<Uint8Array> | null,
  path: string,
  limitBytes: number,
): Promise<ReceivedFile> {
  const hash = createHash('md5');
  const file = await open(path, 'w');
  let size = 0;
  try {
    if (body) {
      for await (const chunk of boundedChunks(body, limitBytes)) {
        size += chunk.byteLength;
        hash.update(chunk);
        await file.write(chunk);
      }
    }
  } catch (error) {
    await file.close();
    await rm(path, { force: true });
    throw error;
  }
  await file.close();
  return { path, size, md5: hash.digest('hex') };
}

/** Reads the whole body into memory, refusing with 413 once it passes `capBytes`. */
export async function readBounded(
  body: ReadableStream<Uint8Array> | null,
  capBytes: number,
): Promise<Uint8Array<ArrayBuffer>> {
  if (!body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  for await (const chunk of boundedChunks(body, capBytes)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/**
 * The Content-Type each file part of a multipart body declares, exactly as sent (undefined
 * for a part that declares none). Needed because FormData hands back a File whose type the
 * parser has already lower-cased and trimmed: storage must judge what the client sent.
 */
export function multipartFileTypes(body: Uint8Array, contentType: string): (string | undefined)[] {
  const boundary = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const marker = boundary?.[1] ?? boundary?.[2];
  if (!marker) return [];
  const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('latin1');
  const types: (string | undefined)[] = [];
  for (const part of text.split(`--${marker}`).slice(1)) {
    const end = part.indexOf('\r\n\r\n');
    if (end === -1) continue;
    const lines = part.slice(0, end).split('\r\n');
    const disposition = lines.find((line) => /^content-disposition:/i.test(line));
    if (!disposition || !/;\s*filename\*?=/i.test(disposition)) continue;
    const type = lines.find((line) => /^content-type:/i.test(line));
    types.push(type?.replace(/^content-type:[ \t]*/i, '').replace(/[ \t]+$/, ''));
  }
  return types;
}
