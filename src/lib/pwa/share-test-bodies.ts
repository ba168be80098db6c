// Test helpers for the share target's body: multipart/form-data bodies written the way
// Chromium writes a share sheet's or a form's, and a stream that hands them out in chunks of
// a chosen size and records how far it was read and whether it was cancelled.

import { ShareBodyError } from './share-body';

export interface TestPart {
  name: string;
  /** Present for a file part. */
  filename?: string;
  type?: string;
  content: string | Uint8Array;
}

export const BOUNDARY = '----WebKitFormBoundaryq9U5D39aWuuGBk2I';

const encoder = new TextEncoder();

export function joinBytes(pieces: (string | Uint8Array)[]): Uint8Array {
  const bytes = pieces.map((piece) => (typeof piece === 'string' ? encoder.encode(piece) : piece));
  const joined = new Uint8Array(bytes.reduce((sum, piece) => sum + piece.length, 0));
  let at = 0;
  for (const piece of bytes) {
    joined.set(piece, at);
    at += piece.length;
  }
  return joined;
}

/** A multipart/form-data body of these parts, closed (unless `open`), then `epilogue`. */
export function multipartBody(
  parts: TestPart[],
  { boundary = BOUNDARY, open = false, epilogue = '\r\n' } = {},
): Uint8Array {
  const pieces: (string | Uint8Array)[] = [];
  for (const part of parts) {
    const filename = part.filename === undefined ? '' : `; filename="${part.filename}"`;
    const type = part.type === undefined ? '' : `\r\nContent-Type: ${part.type}`;
    pieces.push(
      `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${filename}${type}\r\n\r\n`,
      part.content,
      '\r\n',
    );
  }
  if (!open) pieces.push(`--${boundary}--${epilogue}`);
  return joinBytes(pieces);
}

export interface ChunkedStream {
  stream: ReadableStream<Uint8Array>;
  /** Bytes handed to the reader so far. */
  readonly read: number;
  readonly cancelled: boolean;
}

/** `bytes` as a stream of `chunkSize`-byte chunks, handed out only when asked for. */
export function chunkedStream(bytes: Uint8Array, chunkSize: number): ChunkedStream {
  let at = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (at >= bytes.length) {
          controller.close();
          return;
        }
        controller.enqueue(bytes.slice(at, at + chunkSize));
        at += chunkSize;
      },
      cancel() {
        cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return {
    stream,
    get read() {
      return Math.min(at, bytes.length);
    },
    get cancelled() {
      return cancelled;
    },
  };
}

/** The code a body was refused with (a ShareBodyError), or `otherwise` if it was not refused. */
export async function refusalCode(promise: Promise<unknown>, otherwise: string): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ShareBodyError) return error.code;
    throw error;
  }
  return otherwise;
}
