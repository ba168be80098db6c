// Storage through unmodified supabase-js against the devstack, on both engines: uploads (raw
// and multipart), upsert, downloads, signed URLs, list/remove, and the refusals hosted storage
// gives (RLS, size, MIME type, bad keys, bad bodies), in storage's error shape.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';

import { ENGINE_KINDS } from '../support/database';
import { SEED, startTestDevstack, TestClock, type TestDevstack } from '../support/devstack';

const STRANGER = 'c0ffee00-0000-4000-8000-00000000000c';
const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4, 5]);

function attachmentPath(ext = 'png'): string {
  return `${SEED.list}/${SEED.task(1)}/${randomUUID()}.${ext}`;
}

async function bytesOf(blob: Blob | null): Promise<Uint8Array> {
  expect(blob).not.toBeNull();
  return new Uint8Array(await (blob as Blob).arrayBuffer());
}

/** The storage error a supabase-js call surfaced: its statusCode from the body. */
function statusCodeOf(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'statusCode' in error) {
    return String(error.statusCode);
  }
  return undefined;
}

/** A raw HTTP request, for paths fetch() would normalise (`..`) before sending. */
function rawRequest(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: Buffer,
): Promise<{ status: number; json: unknown }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = text;
        }
        resolve({ status: res.statusCode ?? 0, json });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe.each(ENGINE_KINDS)('devstack storage on %s', (kind) => {
  /** The devstack's clock: signed URLs expire when a test moves it past their exp. */
  const clock = new TestClock();
  let stack: TestDevstack;
  let storageDir: string;
  let alice: SupabaseClient;
  let bob: SupabaseClient;
  let stranger: SupabaseClient;
  let service: SupabaseClient;
  let aliceJwt: string;

  async function userClient(sub: string): Promise<{ client: SupabaseClient; jwt: string }> {
    const keys = stack.keys;
    const jwt = await keys.sign({ sub, role: 'authenticated', aud: 'authenticated' }, 3600);
    const client = createClient(stack.url, stack.publishableKey, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      global: { headers: { Authorization: `Bearer ${jwt}` } },
      // Node 20 has no WebSocket; supabase-js refuses to start its realtime client without one.
      realtime: { transport: WebSocket as unknown as typeof globalThis.WebSocket },
    });
    return { client, jwt };
  }

  beforeAll(async () => {
    storageDir = mkdtempSync(join(tmpdir(), 'outpost-storage-test-'));
    stack = await startTestDevstack(kind, { storageDir, clock });
    await stack.db.query(
      `insert into auth.users (id, aud, role, email, created_at, updated_at)
       values ($1, 'authenticated', 'authenticated', 'stranger@example.com', now(), now())`,
      [STRANGER],
    );
    const a = await userClient(SEED.alice);
    alice = a.client;
    aliceJwt = a.jwt;
    bob = (await userClient(SEED.bob)).client;
    stranger = (await userClient(STRANGER)).client;
    service = stack.client({ key: stack.secretKey });
  });

  afterAll(async () => {
    await stack.stop();
    rmSync(storageDir, { recursive: true, force: true });
  });

  it('uploads raw bytes (Buffer and Uint8Array) and downloads the same bytes', async () => {
    const path = attachmentPath();
    const up = await alice.storage
      .from('attachments')
      .upload(path, Buffer.from(PNG), { contentType: 'image/png' });
    expect(up.error).toBeNull();
    expect(up.data).toMatchObject({ path, fullPath: `attachments/${path}` });
    expect(existsSync(join(storageDir, 'attachments', ...path.split('/')))).toBe(true);

    const down = await bob.storage.from('attachments').download(path);
    expect(down.error).toBeNull();
    expect(await bytesOf(down.data)).toEqual(PNG);
    expect(down.data?.type).toBe('image/png');

    const path2 = attachmentPath('webp');
    const up2 = await bob.storage
      .from('attachments')
      .upload(path2, new Uint8Array([9, 8, 7]), { contentType: 'image/webp' });
    expect(up2.error).toBeNull();
    const info = await alice.storage.from('attachments').info(path2);
    expect(info.error).toBeNull();
    expect(info.data).toMatchObject({ size: 3, contentType: 'image/webp' });
    expect((await alice.storage.from('attachments').exists(path2)).data).toBe(true);
    expect((await alice.storage.from('attachments').exists(attachmentPath())).data).toBe(false);
  });

  it('uploads a Blob as multipart/form-data', async () => {
    const path = attachmentPath('gif');
    const up = await alice.storage
      .from('attachments')
      .upload(path, new Blob([PNG], { type: 'image/gif' }));
    expect(up.error).toBeNull();
    const down = await alice.storage.from('attachments').download(path);
    expect(await bytesOf(down.data)).toEqual(PNG);
    expect(down.data?.type).toBe('image/gif');
  });

  it('refuses an existing object without upsert (409) and replaces it with upsert', async () => {
    const path = attachmentPath();
    await alice.storage.from('attachments').upload(path, PNG, { contentType: 'image/png' });
    const again = await alice.storage
      .from('attachments')
      .upload(path, PNG, { contentType: 'image/png' });
    expect(statusCodeOf(again.error)).toBe('409');
    expect(again.error?.message).toBe('The resource already exists');

    const replacement = new Uint8Array([1, 1, 2, 3, 5, 8]);
    const upsert = await bob.storage
      .from('attachments')
      .upload(path, replacement, { contentType: 'image/png', upsert: true });
    expect(upsert.error).toBeNull();
    const down = await alice.storage.from('attachments').download(path);
    expect(await bytesOf(down.data)).toEqual(replacement);

    const update = await alice.storage
      .from('attachments')
      .update(path, new Blob([PNG], { type: 'image/png' }));
    expect(update.error).toBeNull();
    expect(await bytesOf((await alice.storage.from('attachments').download(path)).data)).toEqual(
      PNG,
    );
  });

  it('serves signed URLs to plain fetch until they expire', async () => {
    const path = attachmentPath();
    await alice.storage.from('attachments').upload(path, PNG, { contentType: 'image/png' });
    const signed = await bob.storage.from('attachments').createSignedUrl(path, 60);
    expect(signed.error).toBeNull();
    const res = await fetch(signed.data?.signedUrl ?? '');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(PNG);

    const many = await alice.storage
      .from('attachments')
      .createSignedUrls([path, attachmentPath()], 60);
    expect(many.error).toBeNull();
    expect(many.data?.[0]?.signedUrl).toContain('token=');
    expect(many.data?.[1]?.signedUrl).toBeNull();

    // A token for one object does not open another.
    const other = attachmentPath();
    await alice.storage.from('attachments').upload(other, PNG, { contentType: 'image/png' });
    const token = new URL(signed.data?.signedUrl ?? '').searchParams.get('token') ?? '';
    const wrong = await fetch(
      `${stack.url}/storage/v1/object/sign/attachments/${other}?token=${token}`,
    );
    expect(wrong.status).toBe(400);

    // Good until its exp on the devstack's clock, refused from then on.
    const short = await alice.storage.from('attachments').createSignedUrl(path, 10);
    clock.advance(9_000);
    expect((await fetch(short.data?.signedUrl ?? '')).status).toBe(200);
    clock.advance(1_000);
    const expired = await fetch(short.data?.signedUrl ?? '');
    expect(expired.status).toBe(400);
    expect(await expired.json()).toMatchObject({ statusCode: '400', code: 'InvalidJWT' });
  });

  it('lists a folder (sub-folders with id null) and removes objects', async () => {
    const folder = `${SEED.list}/${SEED.task(2)}`;
    const names = ['b.png', 'a.png', 'c.png'];
    for (const name of names) {
      const up = await alice.storage
        .from('attachments')
        .upload(`${folder}/${name}`, PNG, { contentType: 'image/png' });
      expect(up.error).toBeNull();
    }
    const listed = await bob.storage.from('attachments').list(folder);
    expect(listed.error).toBeNull();
    expect(listed.data?.map((entry) => entry.name)).toEqual(['a.png', 'b.png', 'c.png']);
    expect(listed.data?.[0]?.metadata).toMatchObject({ size: PNG.length, mimetype: 'image/png' });

    const root = await alice.storage.from('attachments').list(SEED.list);
    const taskFolder = root.data?.find((entry) => entry.name === SEED.task(2));
    expect(taskFolder).toMatchObject({ id: null });

    const limited = await alice.storage
      .from('attachments')
      .list(folder, { limit: 1, offset: 1, sortBy: { column: 'name', order: 'desc' } });
    expect(limited.data?.map((entry) => entry.name)).toEqual(['b.png']);

    const removed = await bob.storage.from('attachments').remove([`${folder}/a.png`]);
    expect(removed.error).toBeNull();
    expect(removed.data?.map((row) => row.name)).toEqual([`${folder}/a.png`]);
    expect(existsSync(join(storageDir, 'attachments', folder, 'a.png'))).toBe(false);
    const gone = await alice.storage.from('attachments').download(`${folder}/a.png`);
    expect(statusCodeOf(gone.error)).toBe('404');
  });

  it('refuses a non-member: 403 on upload, nothing to read, list or remove', async () => {
    const path = attachmentPath();
    const up = await stranger.storage
      .from('attachments')
      .upload(path, PNG, { contentType: 'image/png' });
    expect(statusCodeOf(up.error)).toBe('403');
    expect(up.error?.message).toBe('new row violates row-level security policy');

    await alice.storage.from('attachments').upload(path, PNG, { contentType: 'image/png' });
    const down = await stranger.storage.from('attachments').download(path);
    expect(statusCodeOf(down.error)).toBe('404');
    const listed = await stranger.storage.from('attachments').list(`${SEED.list}/${SEED.task(1)}`);
    expect(listed.data).toEqual([]);
    const removed = await stranger.storage.from('attachments').remove([path]);
    expect(removed.data).toEqual([]);
    const signed = await stranger.storage.from('attachments').createSignedUrl(path, 60);
    expect(statusCodeOf(signed.error)).toBe('404');
    expect((await alice.storage.from('attachments').exists(path)).data).toBe(true);

    // Anonymous callers and private buckets' public URLs are refused too.
    const anon = await stack.client().storage.from('attachments').download(path);
    expect(anon.error).not.toBeNull();
    const publicUrl = stack.client().storage.from('attachments').getPublicUrl(path);
    expect((await fetch(publicUrl.data.publicUrl)).status).toBe(400);
  });

  it('refuses 11 MiB (413) and a MIME type the bucket does not allow (415)', async () => {
    const big = Buffer.alloc(11 * 1024 * 1024, 1);
    const raw = await alice.storage
      .from('attachments')
      .upload(attachmentPath(), big, { contentType: 'image/png' });
    expect(statusCodeOf(raw.error)).toBe('413');
    expect(raw.error?.message).toBe('The object exceeded the maximum allowed size');
    const blob = await alice.storage
      .from('attachments')
      .upload(attachmentPath(), new Blob([big], { type: 'image/png' }));
    expect(statusCodeOf(blob.error)).toBe('413');

    const text = await alice.storage
      .from('attachments')
      .upload(attachmentPath('txt'), 'hello', { contentType: 'text/plain' });
    expect(statusCodeOf(text.error)).toBe('415');
    expect(text.error?.message).toBe('mime type text/plain is not supported');
    const textBlob = await alice.storage
      .from('attachments')
      .upload(attachmentPath('txt'), new Blob(['hello'], { type: 'text/html' }));
    expect(statusCodeOf(textBlob.error)).toBe('415');
  });

  // Issue 14 item 1: Chromium renders `image/png;,text/html` as HTML, so a type is accepted
  // only bare and from the bucket's list, raw or multipart, and never cut at its `;`.
  it.each([
    'application/pdf ; x=1, text/html',
    'image/png;,text/html',
    'image/png, text/html',
    'image/png; charset=utf-8',
    'image/png;',
    'IMAGE/PNG',
    'image/png/html',
    'text/html',
    'image/svg+xml',
  ])('refuses the Content-Type %j raw and multipart (415), storing nothing', async (type) => {
    const path = attachmentPath();
    const raw = await alice.storage
      .from('attachments')
      .upload(path, Buffer.from('<script>alert(1)</script>'), { contentType: type });
    expect(statusCodeOf(raw.error)).toBe('415');
    const put = await fetch(`${stack.url}/storage/v1/object/attachments/${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${aliceJwt}`, 'content-type': type },
      body: '<script>alert(1)</script>',
    });
    expect(await put.json()).toMatchObject({ statusCode: '415', code: 'InvalidMimeType' });
    // storage-js sends a Blob as multipart/form-data with the type on the file's part.
    const form = new FormData();
    form.append('', new Blob(['<script>alert(1)</script>']), 'x.png');
    const multipart = await new Response(form).text();
    const boundary = /^--([^\r\n]+)/.exec(multipart)?.[1] ?? '';
    const hostile = multipart.replace(/Content-Type: [^\r\n]*/i, `Content-Type: ${type}`);
    const asForm = await fetch(`${stack.url}/storage/v1/object/attachments/${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${aliceJwt}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
      },
      body: hostile,
    });
    expect(await asForm.json()).toMatchObject({ statusCode: '415' });
    const { rows } = await stack.db.query<{ mimetype: string }>(
      `select metadata->>'mimetype' as mimetype from storage.objects
       where bucket_id = 'attachments' and name = $1`,
      [path],
    );
    expect(rows.filter((row) => row.mimetype !== 'image/png')).toEqual([]);
  });

  it('serves every object with nosniff, and anything but a plain image as a download', async () => {
    const pdf = attachmentPath('pdf');
    const png = attachmentPath('png');
    await alice.storage
      .from('attachments')
      .upload(pdf, Buffer.from('%PDF-1.4 <script>alert(1)</script>'), {
        contentType: 'application/pdf',
      });
    await alice.storage.from('attachments').upload(png, PNG, { contentType: 'image/png' });
    const auth = { authorization: `Bearer ${aliceJwt}` };
    const pdfSigned = (await bob.storage.from('attachments').createSignedUrl(pdf, 60)).data;
    const pngSigned = (await bob.storage.from('attachments').createSignedUrl(png, 60)).data;
    const answers = {
      pdf: await fetch(`${stack.url}/storage/v1/object/authenticated/attachments/${pdf}`, {
        headers: auth,
      }),
      pdfHead: await fetch(`${stack.url}/storage/v1/object/attachments/${pdf}`, {
        method: 'HEAD',
        headers: auth,
      }),
      pdfSigned: await fetch(pdfSigned?.signedUrl ?? ''),
      png: await fetch(`${stack.url}/storage/v1/object/attachments/${png}`, { headers: auth }),
      pngSigned: await fetch(pngSigned?.signedUrl ?? ''),
      missing: await fetch(`${stack.url}/storage/v1/object/attachments/${attachmentPath()}`, {
        headers: auth,
      }),
      list: await fetch(`${stack.url}/storage/v1/object/list/attachments`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ prefix: SEED.list }),
      }),
    };
    for (const [what, res] of Object.entries(answers)) {
      await res.arrayBuffer();
      expect([what, res.headers.get('x-content-type-options')]).toEqual([what, 'nosniff']);
    }
    for (const res of [answers.pdf, answers.pdfHead, answers.pdfSigned]) {
      expect(res.headers.get('content-type')).toBe('application/pdf');
      expect(res.headers.get('content-disposition')).toMatch(/^attachment;/);
    }
    for (const res of [answers.png, answers.pngSigned]) {
      expect(res.headers.get('content-type')).toBe('image/png');
      expect(res.headers.get('content-disposition')).toBeNull();
    }
  });

  it('serves an object stored with a hostile type as opaque bytes, to download', async () => {
    // As if written before these rules (or straight into the table): storage vouches only for
    // a bare type its bucket still allows.
    const path = attachmentPath('pdf');
    await alice.storage.from('attachments').upload(path, PNG, { contentType: 'application/pdf' });
    await stack.db.query(
      `update storage.objects set metadata = jsonb_set(metadata, '{mimetype}', $2)
       where bucket_id = 'attachments' and name = $1`,
      [path, JSON.stringify('image/png;,text/html')],
    );
    const signed = (await bob.storage.from('attachments').createSignedUrl(path, 60)).data;
    const res = await fetch(signed?.signedUrl ?? '');
    await res.arrayBuffer();
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment;/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  // Issue 14 item 7: a copy or move lands in the target bucket, so that bucket's limits hold.
  it('refuses to copy or move an object into a bucket whose size or type limits it breaks', async () => {
    const created = await service.storage.createBucket('strict-target', {
      public: false,
      fileSizeLimit: 8,
      allowedMimeTypes: ['image/png'],
    });
    expect(created.error).toBeNull();
    const pdf = `loose/${randomUUID()}.pdf`;
    const bigPng = `loose/${randomUUID()}.png`;
    const smallPng = `loose/${randomUUID()}.png`;
    await service.storage.createBucket('loose-source', { public: false });
    const source = service.storage.from('loose-source');
    expect((await source.upload(pdf, 'x', { contentType: 'application/pdf' })).error).toBeNull();
    expect((await source.upload(bigPng, PNG, { contentType: 'image/png' })).error).toBeNull();
    expect(
      (await source.upload(smallPng, PNG.slice(0, 8), { contentType: 'image/png' })).error,
    ).toBeNull();
    const to = { destinationBucket: 'strict-target' };
    for (const kind of ['copy', 'move'] as const) {
      const wrongType = await source[kind](pdf, `${kind}/a.pdf`, to);
      expect(statusCodeOf(wrongType.error)).toBe('415');
      const tooBig = await source[kind](bigPng, `${kind}/a.png`, to);
      expect(statusCodeOf(tooBig.error)).toBe('413');
    }
    // Nothing arrived, and the sources are all still there.
    const listed = await service.storage.from('strict-target').list('copy');
    expect(listed.data).toEqual([]);
    expect((await source.exists(pdf)).data).toBe(true);
    expect((await source.exists(bigPng)).data).toBe(true);
    // What fits goes through.
    expect((await source.copy(smallPng, 'copy/ok.png', to)).error).toBeNull();
    expect((await source.move(smallPng, 'move/ok.png', to)).error).toBeNull();
    // The attachments bucket's own limits hold for copies within it too.
    const member = attachmentPath('pdf');
    await alice.storage.from('attachments').upload(member, PNG, { contentType: 'application/pdf' });
    const intoAvatars = await alice.storage
      .from('attachments')
      .copy(member, `${SEED.alice}/x.pdf`, { destinationBucket: 'avatars' });
    expect(statusCodeOf(intoAvatars.error)).toBe('415');
  });

  it('refuses a bucket whose allowed types carry parameters or a second type', async () => {
    for (const entry of ['image/png;,text/html', 'image/png, text/html', 'Image/PNG']) {
      const bad = await service.storage.createBucket(`bad-${randomUUID().slice(0, 8)}`, {
        public: true,
        allowedMimeTypes: [entry],
      });
      expect(statusCodeOf(bad.error)).toBe('415');
      const update = await service.storage.updateBucket('attachments', {
        public: false,
        allowedMimeTypes: [entry],
      });
      expect(statusCodeOf(update.error)).toBe('415');
    }
  });

  it('refuses names with .. segments or control characters', async () => {
    const encoded = await alice.storage
      .from('attachments')
      .upload(`${SEED.list}%2F..%2F..%2Fescape.png`, PNG, { contentType: 'image/png' });
    expect(statusCodeOf(encoded.error)).toBe('400');
    expect(encoded.error?.message).toContain('Invalid key');
    const nul = await alice.storage
      .from('attachments')
      .upload(`${SEED.list}/x%00.png`, PNG, { contentType: 'image/png' });
    expect(statusCodeOf(nul.error)).toBe('400');
    // A NUL in a bucket id is bad input too (Postgres text cannot hold it), not a 500.
    const nulBucket = await fetch(`${stack.url}/storage/v1/object/list/attachments%00`, {
      method: 'POST',
      headers: { authorization: `Bearer ${aliceJwt}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(nulBucket.status).toBe(400);
    expect(await nulBucket.json()).toMatchObject({ statusCode: '400', code: 'InvalidRequest' });

    // fetch() resolves `..` before sending; a raw client does not. Literal dot segments are
    // resolved by the server's URL parsing (no storage route matches); encoded ones are refused.
    const headers = { authorization: `Bearer ${aliceJwt}`, 'content-type': 'image/png' };
    const literal = await rawRequest(
      stack.url,
      'POST',
      `/storage/v1/object/attachments/../../../escape.png`,
      headers,
      Buffer.from(PNG),
    );
    expect(literal.status).toBe(404);
    const encodedRaw = await rawRequest(
      stack.url,
      'POST',
      `/storage/v1/object/attachments/${SEED.list}/..%2F..%2F..%2Fescape.png`,
      headers,
      Buffer.from(PNG),
    );
    expect(encodedRaw.status).toBe(400);
    expect(encodedRaw.json).toMatchObject({ statusCode: '400', code: 'InvalidKey' });
    expect(existsSync(join(storageDir, '..', 'escape.png'))).toBe(false);
    expect(existsSync(join(storageDir, 'escape.png'))).toBe(false);
  });

  it('answers malformed bodies and missing keys with storage errors', async () => {
    const base = `${stack.url}/storage/v1`;
    const multipart = await fetch(`${base}/object/attachments/${attachmentPath()}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${aliceJwt}`,
        'content-type': 'multipart/form-data; boundary=XYZ',
      },
      body: '--XYZ\r\nContent-Disposition: form-data; name=""; filename="a.png"\r\nContent-Type: image/png\r\n\r\nabc',
    });
    expect(multipart.status).toBe(400);
    expect(await multipart.json()).toMatchObject({ statusCode: '400' });

    const badJson = await fetch(`${base}/object/list/attachments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${aliceJwt}`, 'content-type': 'application/json' },
      body: '{"prefix":',
    });
    expect(badJson.status).toBe(400);

    // Neither a key nor a token: storage-api's answer to the empty JWT it then verifies.
    const noKey = await fetch(`${base}/object/attachments/${attachmentPath()}`);
    expect(noKey.status).toBe(400);
    expect(await noKey.json()).toEqual({
      statusCode: '403',
      code: 'AccessDenied',
      error: 'Unauthorized',
      message: 'Invalid Compact JWS',
    });

    const keys = stack.keys;
    const expiredJwt = await keys.sign({ sub: SEED.alice, role: 'authenticated' }, -10);
    const expiredRes = await fetch(`${base}/object/attachments/${attachmentPath()}`, {
      headers: { authorization: `Bearer ${expiredJwt}` },
    });
    expect(expiredRes.status).toBe(400);
    expect(await expiredRes.json()).toEqual({
      statusCode: '403',
      code: 'AccessDenied',
      error: 'Unauthorized',
      message: 'jwt expired',
    });

    const auth = { authorization: `Bearer ${aliceJwt}`, 'content-type': 'image/png' };
    const badEncoding = await fetch(`${base}/object/attachments/${SEED.list}/%E0%A4%A.png`, {
      method: 'POST',
      headers: auth,
      body: PNG,
    });
    expect(badEncoding.status).toBe(400);
    const longName = await fetch(`${base}/object/attachments/${SEED.list}/${'x'.repeat(1100)}`, {
      method: 'POST',
      headers: auth,
      body: PNG,
    });
    expect(await longName.json()).toMatchObject({ statusCode: '400', code: 'InvalidKey' });
    const updateMissing = await alice.storage
      .from('attachments')
      .update(attachmentPath(), PNG, { contentType: 'image/png' });
    expect(statusCodeOf(updateMissing.error)).toBe('404');
    const noBucket = await alice.storage
      .from('nope')
      .upload('a.png', PNG, { contentType: 'image/png' });
    expect(statusCodeOf(noBucket.error)).toBe('404');
    expect(noBucket.error?.message).toBe('Bucket not found');

    const badPrefixes = await fetch(`${base}/object/attachments`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${aliceJwt}`, 'content-type': 'application/json' },
      body: '{"prefixes":"nope"}',
    });
    expect(badPrefixes.status).toBe(400);
  });

  it('manages buckets as service_role and serves public buckets without auth', async () => {
    const created = await service.storage.createBucket('public-demo', { public: true });
    expect(created.error).toBeNull();
    const buckets = await service.storage.listBuckets();
    expect(buckets.data?.map((bucket) => bucket.id)).toEqual(
      expect.arrayContaining(['attachments', 'public-demo']),
    );
    const denied = await alice.storage.createBucket('alice-bucket');
    expect(statusCodeOf(denied.error)).toBe('403');

    const up = await service.storage
      .from('public-demo')
      .upload('docs/readme.txt', 'hello world', { contentType: 'text/plain' });
    expect(up.error).toBeNull();
    const url = stack.client().storage.from('public-demo').getPublicUrl('docs/readme.txt');
    const res = await fetch(url.data.publicUrl);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('hello world');

    const notEmpty = await service.storage.deleteBucket('public-demo');
    expect(statusCodeOf(notEmpty.error)).toBe('409');
    expect((await service.storage.emptyBucket('public-demo')).error).toBeNull();
    expect((await service.storage.deleteBucket('public-demo')).error).toBeNull();
    const missing = await service.storage.getBucket('public-demo');
    expect(statusCodeOf(missing.error)).toBe('404');

    const limited = await service.storage.createBucket('limited', {
      public: false,
      fileSizeLimit: 5,
      allowedMimeTypes: ['text/*'],
    });
    expect(limited.error).toBeNull();
    const bucket = await service.storage.getBucket('limited');
    expect(bucket.data).toMatchObject({ file_size_limit: 5, allowed_mime_types: ['text/*'] });
    const tooBig = await service.storage
      .from('limited')
      .upload('a.txt', 'abcdef', { contentType: 'text/plain' });
    expect(statusCodeOf(tooBig.error)).toBe('413');
    const image = await service.storage
      .from('limited')
      .upload('a.png', PNG, { contentType: 'image/png' });
    expect(statusCodeOf(image.error)).toBe('415');
    const updated = await service.storage.updateBucket('limited', {
      public: false,
      fileSizeLimit: 100,
      allowedMimeTypes: ['text/plain'],
    });
    expect(updated.error).toBeNull();
    const fits = await service.storage
      .from('limited')
      .upload('a.txt', 'abcdef', { contentType: 'text/plain' });
    expect(fits.error).toBeNull();
    const moved = await service.storage.from('limited').move('a.txt', 'b/c.txt');
    expect(moved.error).toBeNull();
    const copied = await service.storage.from('limited').copy('b/c.txt', 'd.txt');
    expect(copied.error).toBeNull();
    const copy = await service.storage.from('limited').download('d.txt');
    expect(await copy.data?.text()).toBe('abcdef');
    expect(statusCodeOf((await service.storage.from('limited').download('a.txt')).error)).toBe(
      '404',
    );
  });
});
