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
      const reader = body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > limitBytes) {
          await drain(reader);
          throw entityTooLarge();
        }
        hash.update(value);
        await file.write(value);
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
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > capBytes) {
      await drain(reader);
      throw entityTooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
