// The share target's streaming multipart reader: the same parts whatever the chunking (a
// boundary split across chunks), delimiter look-alikes kept as content, and every limit or
// malformed byte refusing the body as soon as it is read, with the stream cancelled there.
import { describe, expect, it } from 'vitest';

import {
  multipartBoundary,
  parsePartHead,
  readMultipart,
  type MultipartLimits,
  type PartHandler,
  type PartHead,
} from './share-body';
import {
  BOUNDARY,
  chunkedStream,
  joinBytes,
  multipartBody,
  refusalCode,
} from './share-test-bodies';

const LIMITS: MultipartLimits = { bodyBytesMax: 1 << 20, partsMax: 10, headerBytesMax: 1024 };

/** Records each part's head and content, and the order of the calls. */
function recorder() {
  const parts: { head: PartHead; content: string; ended: boolean }[] = [];
  const decoder = new TextDecoder();
  const handler: PartHandler = {
    start: (head) => {
      parts.push({ head, content: '', ended: false });
    },
    data: (bytes) => {
      const part = parts.at(-1);
      if (!part || part.ended) throw new Error('data outside a part');
      part.content += decoder.decode(bytes, { stream: true });
    },
    end: () => {
      const part = parts.at(-1);
      if (!part || part.ended) throw new Error('end outside a part');
      part.ended = true;
    },
  };
  return { parts, handler };
}

const refusal = (promise: Promise<unknown>) => refusalCode(promise, 'accepted');

const SHARE = multipartBody([
  { name: 'title', content: 'Cracked render' },
  { name: 'text', content: 'Block C\r\n--not a delimiter\r\n--' + BOUNDARY.slice(0, -1) },
  { name: 'files', filename: 'crack.png', type: 'image/png', content: 'png\r\n\r\n--bytes' },
  { name: 'files', filename: 'report.pdf', type: 'Application/PDF; x=1', content: '' },
]);

describe('multipartBoundary', () => {
  it('takes the boundary of multipart/form-data, quoted or not', () => {
    expect(multipartBoundary(`multipart/form-data; boundary=${BOUNDARY}`)).toBe(BOUNDARY);
    expect(multipartBoundary('Multipart/Form-Data;charset=utf-8; BOUNDARY="a b:c"')).toBe('a b:c');
  });

  it('refuses other types and missing or invalid boundaries', () => {
    for (const type of [
      null,
      '',
      'application/x-www-form-urlencoded',
      'text/plain; boundary=abc',
      'multipart/mixed; boundary=abc',
      'multipart/form-data',
      'multipart/form-data; boundary=',
      'multipart/form-data; boundary="ends in space "',
      `multipart/form-data; boundary=${'x'.repeat(71)}`,
      'multipart/form-data; boundary=has"quote',
      'multipart/form-data; boundary=new\nline',
    ]) {
      expect(() => multipartBoundary(type), String(type)).toThrow(
        expect.objectContaining({ code: 'NOT_MULTIPART' }),
      );
    }
    expect(multipartBoundary(`multipart/form-data; boundary=${'x'.repeat(70)}`)).toHaveLength(70);
  });
});

describe('parsePartHead', () => {
  it('reads the name, the file name (with ; in quotes) and the bare media type', () => {
    expect(
      parsePartHead(
        'Content-Disposition: form-data; name="files"; filename="a;b \\"c\\".png"\r\n' +
          'Content-Type: IMAGE/PNG; q=1',
      ),
    ).toEqual({ name: 'files', filename: 'a;b "c".png', type: 'image/png' });
    expect(parsePartHead('content-disposition: form-data; name=title')).toEqual({
      name: 'title',
      filename: null,
      type: '',
    });
  });

  it('refuses parts that are not named form-data', () => {
    for (const block of [
      '',
      'Content-Type: image/png',
      'Content-Disposition: attachment; name="files"',
      'Content-Disposition: form-data; filename="a.png"',
      'Content-Disposition: form-data; name="a"; filename="unclosed',
      'no colon here',
    ]) {
      expect(() => parsePartHead(block), block).toThrow(
        expect.objectContaining({ code: 'MALFORMED' }),
      );
    }
  });
});

describe('readMultipart', () => {
  it('reads the same parts whatever the chunks (every split of every delimiter)', async () => {
    const expected = [
      { head: { name: 'title', filename: null, type: '' }, content: 'Cracked render', ended: true },
      {
        head: { name: 'text', filename: null, type: '' },
        content: 'Block C\r\n--not a delimiter\r\n--' + BOUNDARY.slice(0, -1),
        ended: true,
      },
      {
        head: { name: 'files', filename: 'crack.png', type: 'image/png' },
        content: 'png\r\n\r\n--bytes',
        ended: true,
      },
      {
        head: { name: 'files', filename: 'report.pdf', type: 'application/pdf' },
        content: '',
        ended: true,
      },
    ];
    for (const chunkSize of [1, 2, 3, 5, 7, 13, 41, 42, 43, 64, 1000, SHARE.length]) {
      const { parts, handler } = recorder();
      const source = chunkedStream(SHARE, chunkSize);
      await readMultipart(source.stream, BOUNDARY, LIMITS, handler);
      expect(parts, `chunks of ${chunkSize}`).toEqual(expected);
      expect(source.read).toBe(SHARE.length);
    }
  });

  it('reads a body with no parts, and passes over an epilogue', async () => {
    const { parts, handler } = recorder();
    const body = multipartBody([{ name: 'a', content: 'x' }], { epilogue: '\r\nignored text' });
    await readMultipart(chunkedStream(body, 4).stream, BOUNDARY, LIMITS, handler);
    expect(parts.map((part) => part.content)).toEqual(['x']);
    const empty = recorder();
    await readMultipart(
      chunkedStream(multipartBody([]), 3).stream,
      BOUNDARY,
      LIMITS,
      empty.handler,
    );
    expect(empty.parts).toEqual([]);
  });

  it('stops reading at the byte that breaks the body limit, and cancels the rest', async () => {
    const body = multipartBody([
      { name: 'files', filename: 'big.png', type: 'image/png', content: new Uint8Array(5000) },
    ]);
    const source = chunkedStream(body, 100);
    const { handler } = recorder();
    expect(
      await refusal(
        readMultipart(source.stream, BOUNDARY, { ...LIMITS, bodyBytesMax: 1000 }, handler),
      ),
    ).toBe('TOO_LARGE');
    expect(source.read).toBe(1100);
    expect(source.cancelled).toBe(true);
  });

  it('refuses one part too many before reading its content', async () => {
    const five = Array.from({ length: 5 }, (_, i) => ({ name: `f${i}`, content: 'x'.repeat(50) }));
    const body = multipartBody(five);
    const source = chunkedStream(body, 10);
    const { parts, handler } = recorder();
    expect(
      await refusal(readMultipart(source.stream, BOUNDARY, { ...LIMITS, partsMax: 3 }, handler)),
    ).toBe('TOO_MANY_PARTS');
    expect(parts).toHaveLength(3);
    expect(source.read).toBeLessThan(body.length - 100);
    expect(source.cancelled).toBe(true);
  });

  it('refuses a header block that does not end, having read little past the limit', async () => {
    const body = joinBytes([
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\nX-Pad: `,
      'y'.repeat(100_000),
    ]);
    const source = chunkedStream(body, 256);
    const { handler } = recorder();
    expect(await refusal(readMultipart(source.stream, BOUNDARY, LIMITS, handler))).toBe(
      'MALFORMED',
    );
    expect(source.read).toBeLessThanOrEqual(LIMITS.headerBytesMax + 2 * 256);
    expect(source.cancelled).toBe(true);
  });

  it('refuses malformed bodies', async () => {
    const part = `Content-Disposition: form-data; name="a"\r\n\r\nx\r\n`;
    const cases: Record<string, string | Uint8Array> = {
      empty: '',
      'a preamble': `preamble\r\n--${BOUNDARY}\r\n${part}--${BOUNDARY}--`,
      'another boundary': `--other\r\n${part}--other--`,
      'no closing delimiter': multipartBody([{ name: 'a', content: 'x' }], { open: true }),
      'cut in a part': `--${BOUNDARY}\r\n${part.slice(0, -4)}`,
      'a delimiter followed by junk': `--${BOUNDARY}xx\r\n${part}--${BOUNDARY}--`,
      'a part with no headers': `--${BOUNDARY}\r\n\r\nx\r\n--${BOUNDARY}--`,
      'a part without form-data': `--${BOUNDARY}\r\nContent-Type: text/plain\r\n\r\nx\r\n--${BOUNDARY}--`,
    };
    for (const [name, body] of Object.entries(cases)) {
      const bytes = typeof body === 'string' ? joinBytes([body]) : body;
      const { handler } = recorder();
      expect(
        await refusal(readMultipart(chunkedStream(bytes, 7).stream, BOUNDARY, LIMITS, handler)),
        name,
      ).toBe('MALFORMED');
    }
    expect(await refusal(readMultipart(null, BOUNDARY, LIMITS, recorder().handler))).toBe(
      'MALFORMED',
    );
  });

  it('cancels the stream when the handler fails', async () => {
    const source = chunkedStream(SHARE, 8);
    const failing: PartHandler = {
      start: () => undefined,
      data: () => undefined,
      end: () => Promise.reject(new Error('disk full')),
    };
    await expect(readMultipart(source.stream, BOUNDARY, LIMITS, failing)).rejects.toThrow(
      'disk full',
    );
    expect(source.cancelled).toBe(true);
    expect(source.read).toBeLessThan(SHARE.length);
  });
});
