// Storage conformance: what hosted storage-api answers (status, the headers that matter, the
// body) for each class of request the official clients send, on both engines, over our own
// fixture (fixtures/storage.sql). Signed uploads, list-v2, bucket fields and sizes, the
// errors' codes, and image transformation answered as a project without it.
import { beforeAll, describe, expect, it } from 'vitest';

import { ENGINE_KINDS } from '../support/database';
import { SEED, TestClock } from '../support/devstack';
import { devstackPerEngine, fixture } from './support';

const TWO_HOURS_MS = 2 * 60 * 60 * 1000;

interface Answer {
  status: number;
  body: unknown;
  headers: Headers;
}

// Asymmetric matchers typed as what they stand for, so object literals holding them stay typed.
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown as string;
const UUID = expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown as string;
const containing = (fields: Record<string, unknown>) =>
  expect.objectContaining(fields) as unknown as Record<string, unknown>;

describe.each(ENGINE_KINDS)('storage conformance on %s', (kind) => {
  const clock = new TestClock();
  const stack = devstackPerEngine(kind, { clock }, fixture('storage.sql'));
  let aliceJwt: string;
  let bobJwt: string;

  beforeAll(async () => {
    const sign = (sub: string) =>
      stack.keys.sign({ sub, role: 'authenticated', aud: 'authenticated' }, 24 * 3600);
    aliceJwt = await sign(SEED.alice);
    bobJwt = await sign(SEED.bob);
  });

  /** One request to /storage/v1; `as` picks the bearer (none: no Authorization at all). */
  async function call(
    method: string,
    path: string,
    options: {
      as?: 'alice' | 'bob' | 'service';
      json?: unknown;
      body?: string;
      headers?: Record<string, string>;
    } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.as) {
      const token =
        options.as === 'service' ? stack.secretKey : options.as === 'alice' ? aliceJwt : bobJwt;
      headers.apikey = stack.publishableKey;
      headers.authorization = `Bearer ${token}`;
      if (options.as === 'service') headers.apikey = stack.secretKey;
    }
    let body: string | null = options.body ?? null;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    }
    const res = await fetch(`${stack.url}/storage/v1${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // bytes, kept as text
    }
    return { status: res.status, body: parsed, headers: res.headers };
  }

  const upload = (as: 'alice' | 'bob' | 'service', bucket: string, name: string, text = 'x') =>
    call('POST', `/object/${bucket}/${name}`, {
      as,
      body: text,
      headers: { 'content-type': 'text/plain' },
    });

  it('signs an upload URL ({url, token}) that takes one upload with no Authorization header', async () => {
    const name = `${SEED.alice}/signed/one.txt`;
    const signed = await call('POST', `/object/upload/sign/shelf/${name}`, { as: 'alice' });
    expect(signed.status).toBe(200);
    const { url, token } = signed.body as { url: string; token: string };
    expect(url).toBe(`/object/upload/sign/shelf/${name}?token=${token}`);

    const put = () =>
      call('PUT', url, { body: 'signed bytes', headers: { 'content-type': 'text/plain' } });
    const first = await put();
    expect(first).toMatchObject({ status: 200, body: { Key: `shelf/${name}` } });
    const { rows } = await stack.db.query<{ owner_id: string }>(
      `select owner_id from storage.objects where bucket_id = 'shelf' and name = $1`,
      [name],
    );
    expect(rows).toEqual([{ owner_id: SEED.alice }]);
    const read = await call('GET', `/object/authenticated/shelf/${name}`, { as: 'alice' });
    expect(read.body).toBe('signed bytes');

    // The token does not allow a second upload: the object exists (storage-api's createObject).
    expect(await put()).toMatchObject({
      status: 400,
      body: {
        statusCode: '409',
        code: 'KeyAlreadyExists',
        error: 'Duplicate',
        message: 'The resource already exists',
      },
    });
  });

  it('checks RLS and duplicates when signing; x-upsert: true signs a replacement', async () => {
    const name = `${SEED.alice}/signed/upsert.txt`;
    expect(await call('POST', `/object/upload/sign/shelf/${name}`, { as: 'bob' })).toMatchObject({
      status: 400,
      body: {
        statusCode: '403',
        code: 'AccessDenied',
        error: 'Unauthorized',
        message: 'new row violates row-level security policy',
      },
    });
    expect((await upload('alice', 'shelf', name, 'old')).status).toBe(200);
    const again = await call('POST', `/object/upload/sign/shelf/${name}`, { as: 'alice' });
    expect(again.body).toMatchObject({ statusCode: '409', code: 'KeyAlreadyExists' });
    const upsert = await call('POST', `/object/upload/sign/shelf/${name}`, {
      as: 'alice',
      headers: { 'x-upsert': 'true' },
    });
    expect(upsert.status).toBe(200);
    const { url } = upsert.body as { url: string };
    const put = await call('PUT', url, { body: 'new', headers: { 'content-type': 'text/plain' } });
    expect(put.status).toBe(200);
    expect((await call('GET', `/object/authenticated/shelf/${name}`, { as: 'alice' })).body).toBe(
      'new',
    );
    expect(
      await call('POST', `/object/upload/sign/missing-bucket/${name}`, { as: 'alice' }),
    ).toMatchObject({
      status: 400,
      body: { statusCode: '404', code: 'NoSuchBucket', message: 'Bucket not found' },
    });
  });

  it('scopes tokens: an upload token opens only its object, only for upload, for two hours', async () => {
    const name = `${SEED.alice}/signed/scoped.txt`;
    const signed = await call('POST', `/object/upload/sign/shelf/${name}`, { as: 'alice' });
    const { token } = signed.body as { token: string };
    const elsewhere = await call(
      'PUT',
      `/object/upload/sign/shelf/${SEED.alice}/other.txt?token=${token}`,
      {
        body: 'x',
        headers: { 'content-type': 'text/plain' },
      },
    );
    expect(elsewhere).toMatchObject({
      status: 400,
      body: { statusCode: '400', code: 'InvalidSignature' },
    });
    const asDownload = await call('GET', `/object/sign/shelf/${name}?token=${token}`);
    expect(asDownload).toMatchObject({
      status: 400,
      body: {
        statusCode: '400',
        code: 'InvalidSignature',
        message: 'Token is not scoped for download',
      },
    });
    expect((await upload('alice', 'shelf', `${SEED.alice}/signed/dl.txt`)).status).toBe(200);
    const dl = await call('POST', `/object/sign/shelf/${SEED.alice}/signed/dl.txt`, {
      as: 'alice',
      json: { expiresIn: 60 },
    });
    const dlToken = new URL(
      (dl.body as { signedURL: string }).signedURL,
      'http://x',
    ).searchParams.get('token');
    const dlAsUpload = await call(
      'PUT',
      `/object/upload/sign/shelf/${SEED.alice}/signed/dl.txt?token=${dlToken}`,
      {
        body: 'x',
        headers: { 'content-type': 'text/plain' },
      },
    );
    expect(dlAsUpload.body).toMatchObject({
      statusCode: '400',
      code: 'InvalidSignature',
      message: 'Token is not scoped for upload',
    });
    clock.advance(TWO_HOURS_MS + 1000);
    const late = await call('PUT', `/object/upload/sign/shelf/${name}?token=${token}`, {
      body: 'x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(late).toMatchObject({
      status: 400,
      body: { statusCode: '400', code: 'InvalidJWT', message: 'jwt expired' },
    });
  });

  it('list-v2 without a delimiter: every object under the prefix by full name', async () => {
    const base = `${SEED.alice}/v2flat`;
    for (const n of ['b.txt', 'a.txt', 'deep/c.txt']) {
      expect((await upload('alice', 'shelf', `${base}/${n}`)).status).toBe(200);
    }
    const res = await call('POST', '/object/list-v2/shelf', {
      as: 'alice',
      json: { prefix: base },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      hasNext: false,
      folders: [],
      objects: ['a.txt', 'b.txt', 'deep/c.txt'].map((n) => ({
        id: UUID,
        name: `${base}/${n}`,
        metadata: containing({ size: 1, mimetype: 'text/plain' }),
        created_at: ISO,
        updated_at: ISO,
        last_accessed_at: ISO,
      })),
    });
    // RLS: another user lists nothing of Alice's.
    const bob = await call('POST', '/object/list-v2/shelf', { as: 'bob', json: { prefix: base } });
    expect(bob.body).toEqual({ hasNext: false, folders: [], objects: [] });
  });

  it('list-v2 with_delimiter: folders (key, name with a slash) apart from objects', async () => {
    const base = `${SEED.alice}/v2tree/`;
    for (const n of ['top.txt', 'sub/one.txt', 'sub/two.txt']) {
      expect((await upload('alice', 'shelf', `${base}${n}`)).status).toBe(200);
    }
    const res = await call('POST', '/object/list-v2/shelf', {
      as: 'alice',
      json: { prefix: base, with_delimiter: true },
    });
    expect(res.body).toEqual({
      hasNext: false,
      folders: [
        {
          key: 'sub',
          name: `${base}sub/`,
          id: null,
          metadata: null,
          created_at: ISO,
          updated_at: ISO,
          last_accessed_at: null,
        },
      ],
      objects: [containing({ key: 'top.txt', name: `${base}top.txt`, id: UUID })],
    });
  });

  it('list-v2 pages by cursor in the order asked (name asc/desc)', async () => {
    const base = `${SEED.alice}/v2page/`;
    const names = ['d', 'b', 'e', 'a', 'c'];
    for (const n of names) expect((await upload('alice', 'shelf', `${base}${n}`)).status).toBe(200);
    for (const order of ['asc', 'desc'] as const) {
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      for (;;) {
        const res = await call('POST', '/object/list-v2/shelf', {
          as: 'alice',
          json: {
            prefix: base,
            with_delimiter: true,
            limit: 2,
            sortBy: { column: 'name', order },
            ...(cursor ? { cursor } : {}),
          },
        });
        const page = res.body as {
          hasNext: boolean;
          nextCursor?: string;
          objects: { name: string }[];
        };
        seen.push(...page.objects.map((o) => o.name.slice(base.length)));
        pages += 1;
        if (!page.hasNext) break;
        expect(typeof page.nextCursor).toBe('string');
        cursor = page.nextCursor;
      }
      expect(pages).toBe(3);
      const sorted = [...names].sort();
      expect(seen).toEqual(order === 'asc' ? sorted : sorted.reverse());
    }
    const bad = await call('POST', '/object/list-v2/shelf', {
      as: 'alice',
      json: { cursor: Buffer.from('zz').toString('base64') },
    });
    expect(bad.body).toMatchObject({ statusCode: '400', code: 'InvalidParameter' });
  });

  it('stores bucket size limits in decimal bytes from "1kb"-style strings; refuses bad ones', async () => {
    const create = (name: string, limit: unknown) =>
      call('POST', '/bucket', { as: 'service', json: { name, file_size_limit: limit } });
    expect(await create('sized-kb', '1kb')).toMatchObject({
      status: 200,
      body: { name: 'sized-kb' },
    });
    expect((await create('sized-mb', '1.5MB')).status).toBe(200);
    const got = await call('GET', '/bucket/sized-kb', { as: 'service' });
    expect(got.body).toEqual({
      id: 'sized-kb',
      name: 'sized-kb',
      owner: null,
      public: false,
      file_size_limit: 1000,
      allowed_mime_types: null,
      created_at: ISO,
      updated_at: ISO,
    });
    expect((await call('GET', '/bucket/sized-mb', { as: 'service' })).body).toMatchObject({
      file_size_limit: 1500000,
    });
    expect(await create('sized-bad', 'ten')).toMatchObject({
      status: 400,
      body: {
        statusCode: '400',
        code: 'InvalidRequest',
        message: 'Invalid file size format, hint: use 20GB / 20MB / 30KB / 3B',
      },
    });
    expect(await create('sized-huge', '1gb')).toMatchObject({
      status: 400,
      body: {
        statusCode: '413',
        code: 'EntityTooLarge',
        message: 'The object exceeded the maximum allowed size',
      },
    });
    // The limit holds at upload: 1001 bytes into a 1 kb bucket.
    const big = await call('POST', '/object/sized-kb/big.txt', {
      as: 'service',
      body: 'y'.repeat(1001),
      headers: { 'content-type': 'text/plain' },
    });
    expect(big.body).toMatchObject({ statusCode: '413', code: 'EntityTooLarge' });
    expect(await create('sized-kb', null)).toMatchObject({
      status: 400,
      body: {
        statusCode: '409',
        code: 'BucketAlreadyExists',
        error: 'Duplicate',
        message: 'The resource already exists',
      },
    });
    expect(
      await call('POST', '/bucket', { as: 'service', json: { name: 'bad/name' } }),
    ).toMatchObject({
      status: 400,
      body: {
        statusCode: '400',
        code: 'InvalidBucketName',
        error: 'Invalid Input',
        message: 'Bucket name invalid',
      },
    });
  });

  it('refuses analytics buckets as a project without them', async () => {
    const lake = await call('POST', '/bucket', {
      as: 'service',
      json: { name: 'lake', type: 'ANALYTICS' },
    });
    expect(lake).toMatchObject({
      status: 400,
      body: { statusCode: '409', code: 'FeatureNotEnabled', error: 'FeatureNotEnabled' },
    });
    expect((await call('GET', '/bucket/lake', { as: 'service' })).body).toMatchObject({
      statusCode: '404',
      code: 'NoSuchBucket',
    });
  });

  it('lists buckets with type, honouring search, sortColumn/sortOrder, limit and offset', async () => {
    for (const name of ['list-b', 'list-a', 'list-c']) {
      expect((await call('POST', '/bucket', { as: 'service', json: { name } })).status).toBe(200);
    }
    const page = await call(
      'GET',
      '/bucket?search=list-&sortColumn=name&sortOrder=desc&limit=2&offset=1',
      {
        as: 'service',
      },
    );
    expect(page.status).toBe(200);
    expect(page.body).toEqual(
      ['list-b', 'list-a'].map((name) => ({
        id: name,
        name,
        owner: null,
        public: false,
        file_size_limit: null,
        allowed_mime_types: null,
        type: 'STANDARD',
        created_at: ISO,
        updated_at: ISO,
      })),
    );
    // Emptying and deleting, in storage-api's words.
    expect((await upload('service', 'list-a', 'one.txt')).status).toBe(200);
    expect(await call('DELETE', '/bucket/list-a', { as: 'service', json: {} })).toMatchObject({
      status: 400,
      body: {
        statusCode: '409',
        code: 'ResourceNotEmpty',
        message: 'The bucket you tried to delete is not empty',
      },
    });
    expect(await call('POST', '/bucket/list-a/empty', { as: 'service', json: {} })).toMatchObject({
      status: 200,
      body: { message: 'Empty bucket has been queued. Completion may take up to an hour.' },
    });
    expect(await call('DELETE', '/bucket/list-a', { as: 'service', json: {} })).toMatchObject({
      status: 200,
      body: { message: 'Successfully deleted' },
    });
    expect(await call('GET', '/object/info/list-a/one.txt', { as: 'service' })).toMatchObject({
      status: 400,
      body: { statusCode: '404', code: 'NoSuchBucket', message: 'Bucket not found' },
    });
  });

  it('answers image transformation as a project without it: 404 from the router, plain signed URLs', async () => {
    const render = await call('GET', '/render/image/public/gallery/x.png?width=10');
    expect(render.status).toBe(404);
    expect(render.body).toEqual({
      statusCode: '404',
      error: 'Not Found',
      message: 'Route GET:/render/image/public/gallery/x.png?width=10 not found',
      code: 'InvalidRequest',
    });
    const name = `${SEED.alice}/render/pic.txt`;
    expect((await upload('alice', 'shelf', name, 'pixels')).status).toBe(200);
    const signed = await call('POST', `/object/sign/shelf/${name}`, {
      as: 'alice',
      json: { expiresIn: 60, transform: { width: 20, height: 20 } },
    });
    const url = (signed.body as { signedURL: string }).signedURL;
    expect(url.startsWith(`/object/sign/shelf/${name}?token=`)).toBe(true);
    const served = await call('GET', `${url}&download=pic.txt`);
    expect(served.status).toBe(200);
    expect(served.body).toBe('pixels');
    expect(served.headers.get('content-disposition')).toBe('attachment; filename="pic.txt"');
  });
});
