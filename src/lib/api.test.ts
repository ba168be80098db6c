// The edge-function wrappers: error bodies of every shape read into codes (unit), and the
// three real functions on the test devstack (owner-only invites, single use, exports). The
// avatar upload wrapper against the devstack's avatars bucket: a picture lands in the
// user's own folder; the bucket's limits, another's folder and no connection come back as
// codes, never as thrown errors.
import { AuthRetryableFetchError, createClient, type SupabaseClient } from '@supabase/supabase-js';
import { beforeAll, describe, expect, inject, it } from 'vitest';

import { devstackClient, ownList, signInDemo } from '@/testing/app-harness';

import {
  acceptInvite,
  codeForStatus,
  createInvite,
  exportList,
  failureFromResponse,
  failureFromStorageError,
  fileNameFromDisposition,
  safeFileName,
  uploadAvatar,
} from './api';

const LIST = '11570000-0000-4000-8000-000000000001';

/** A devstack client with its own session (the app under test never sees it). */
function client() {
  return devstackClient({ side: true });
}

async function signedIn(who: 'alice' | 'bob'): Promise<SupabaseClient> {
  return signInDemo(client(), who);
}

async function newUser(): Promise<SupabaseClient> {
  const supabase = client();
  const { error } = await supabase.auth.signUp({
    email: `api-${crypto.randomUUID()}@example.com`,
    password: 'secret-123',
  });
  if (error) throw error;
  return supabase;
}

const jsonResponse = (body: unknown, status: number) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

describe('reading a function error', () => {
  it("reads our functions' { error: { code, message, list_id } }", async () => {
    const failure = await failureFromResponse(
      jsonResponse(
        { error: { code: 'ALREADY_MEMBER', message: 'You are already a member.', list_id: LIST } },
        409,
      ),
    );
    expect(failure).toEqual({
      ok: false,
      code: 'ALREADY_MEMBER',
      message: 'You are already a member.',
      listId: LIST,
    });
  });

  it("classifies the gateway's own codes and bodies that are not JSON by status", async () => {
    const gateway = await failureFromResponse(
      jsonResponse({ code: 'UNAUTHORIZED_INVALID_JWT', message: 'Invalid JWT' }, 401),
    );
    expect(gateway).toMatchObject({ code: 'AUTH_EXPIRED', message: 'Invalid JWT' });
    expect(gateway).not.toHaveProperty('listId');
    const html = await failureFromResponse(new Response('<h1>Bad gateway</h1>', { status: 502 }));
    expect(html).toMatchObject({ code: 'SERVER_ERROR', message: 'HTTP 502' });
    expect(codeForStatus(429)).toBe('RATE_LIMITED');
    expect(codeForStatus(504)).toBe('TIMEOUT');
    expect(codeForStatus(403)).toBe('PERMISSION_DENIED');
    expect(codeForStatus(405)).toBe('VALIDATION_FAILED');
  });

  it('reads only fields of the right type, and only codes it knows', async () => {
    const odd = await failureFromResponse(
      jsonResponse({ error: { code: 'constructor', message: 42, list_id: 7 } }, 409),
    );
    expect(odd).toEqual({ ok: false, code: 'VALIDATION_FAILED', message: 'HTTP 409' });
    // An `error` that is not an object: the body itself is the detail.
    const flat = await failureFromResponse(
      jsonResponse({ error: 'Conflict', code: 'ALREADY_MEMBER', message: 'Already in.' }, 409),
    );
    expect(flat).toEqual({ ok: false, code: 'ALREADY_MEMBER', message: 'Already in.' });
  });

  it('says SERVER_ERROR for answers of an unexpected shape, and exports JSON as it came', async () => {
    // One client whose functions answer `body` (one auth client: no second one on its key).
    let body: unknown;
    const api = createClient('http://api.test', 'anon', {
      global: { fetch: () => Promise.resolve(jsonResponse(body, 200)) },
      auth: { persistSession: false, autoRefreshToken: false },
    });
    const answering = (answer: unknown) => {
      body = answer;
      return api;
    };
    const malformed = { ok: false, code: 'SERVER_ERROR' };
    expect(await createInvite(answering({ url: 'u', token: 't' }), LIST, 'viewer')).toMatchObject(
      malformed,
    );
    expect(await acceptInvite(answering({ list_id: LIST, role: 'owner' }), 't')).toMatchObject(
      malformed,
    );
    expect(await exportList(answering('text'), LIST, 'json')).toMatchObject(malformed);

    const exported = { list: { id: LIST, name: 'Site', color: 'blue' }, tasks: [{ id: 't' }] };
    const json = await exportList(answering(exported), LIST, 'json');
    if (!json.ok) throw new Error(json.code);
    expect(JSON.parse(await json.blob.text())).toEqual(exported);
    expect(json.fileName).toBe('Site.json');
    const nameless = await exportList(answering({ list: { name: 7 } }), LIST, 'json');
    expect(nameless).toMatchObject({ ok: true, fileName: 'list.json' });
  });

  it('reads file names from Content-Disposition, else makes a safe one', () => {
    expect(fileNameFromDisposition('attachment; filename="Site-inspection.csv"')).toBe(
      'Site-inspection.csv',
    );
    expect(fileNameFromDisposition("attachment; filename*=UTF-8''Caf%C3%A9.json")).toBe(
      'Café.json',
    );
    expect(fileNameFromDisposition(null)).toBeUndefined();
    expect(safeFileName('Site inspection — Block C', 'csv')).toBe('Site-inspection-Block-C.csv');
    expect(safeFileName('///', 'json')).toBe('list.json');
  });

  it('answers OFFLINE when the server cannot be reached', async () => {
    const nowhere = createClient('http://127.0.0.1:9', 'anon', {
      auth: { persistSession: false, autoRefreshToken: false },
    });
    expect(await createInvite(nowhere, LIST, 'viewer')).toMatchObject({
      ok: false,
      code: 'OFFLINE',
    });
    expect(await acceptInvite(nowhere, 'x')).toMatchObject({ ok: false, code: 'OFFLINE' });
    expect(await exportList(nowhere, LIST, 'csv')).toMatchObject({ ok: false, code: 'OFFLINE' });
  });
});

describe('the edge functions on the devstack', () => {
  let alice: SupabaseClient;
  let list: string;
  beforeAll(async () => {
    alice = await signedIn('alice');
    list = await ownList(alice, 'API invites', 'blue');
  });

  it('lets an owner make a link that works once, and refuses an editor', async () => {
    const made = await createInvite(alice, list, 'viewer');
    if (!made.ok) throw new Error(`createInvite failed: ${made.code} ${made.message}`);
    expect(made.url).toMatch(new RegExp(`/invite/${made.token}$`));
    expect(made.token).toMatch(/^[0-9a-f]{64}$/);
    const days = (Date.parse(made.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThanOrEqual(7);

    const bob = await signedIn('bob');
    expect(await createInvite(bob, LIST, 'editor')).toMatchObject({
      ok: false,
      code: 'PERMISSION_DENIED',
    });

    const guest = await newUser();
    expect(await acceptInvite(guest, made.token)).toEqual({
      ok: true,
      listId: list,
      role: 'viewer',
    });
    expect(await acceptInvite(await newUser(), made.token)).toMatchObject({
      ok: false,
      code: 'INVITE_USED',
    });
    const again = await createInvite(alice, list, 'editor');
    if (!again.ok) throw new Error(again.code);
    expect(await acceptInvite(guest, again.token)).toMatchObject({
      ok: false,
      code: 'ALREADY_MEMBER',
      listId: list,
    });
    expect(await acceptInvite(guest, 'not-a-token')).toMatchObject({
      ok: false,
      code: 'INVITE_INVALID',
    });
  });

  it('says NOT_FOUND for a list that is not there and AUTH_EXPIRED without a session', async () => {
    expect(
      await createInvite(alice, '99999999-0000-4000-8000-000000000000', 'viewer'),
    ).toMatchObject({ ok: false, code: 'NOT_FOUND' });
    expect(await acceptInvite(client(), 'anything')).toMatchObject({
      ok: false,
      code: 'AUTH_EXPIRED',
    });
  });

  it('exports a list as CSV and as JSON files', async () => {
    const csv = await exportList(alice, LIST, 'csv');
    if (!csv.ok) throw new Error(csv.code);
    expect(csv.fileName).toMatch(/\.csv$/);
    expect(csv.blob.type).toContain('text/csv');
    const lines = (await csv.blob.text()).trim().split('\r\n');
    expect(lines[0]).toBe(
      'id,title,status,priority,due_on,repeat,checklist,assignee,notes,completed_at,created_at,updated_at',
    );
    expect(lines.length).toBeGreaterThanOrEqual(31);

    const json = await exportList(alice, LIST, 'json');
    if (!json.ok) throw new Error(json.code);
    expect(json.fileName).toMatch(/^Site-inspection.*\.json$/);
    const parsed = JSON.parse(await json.blob.text()) as {
      list: { id: string };
      tasks: unknown[];
      members: { display_name: string }[];
    };
    expect(parsed.list.id).toBe(LIST);
    expect(parsed.tasks.length).toBeGreaterThanOrEqual(30);
    expect(parsed.members.map((m) => m.display_name)).toEqual(
      expect.arrayContaining(['Alice', 'Bob']),
    );

    const stranger = await newUser();
    expect(await exportList(stranger, LIST, 'json')).toMatchObject({
      ok: false,
      code: 'NOT_FOUND',
    });
  });
});

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

describe('uploading a profile picture', () => {
  it("puts a picture in the owner's folder, and answers codes for what the bucket refuses", async () => {
    const me = await newUser();
    const myId = (await me.auth.getUser()).data.user?.id ?? '';
    const path = `${myId}/avatar-1.png`;
    expect(await uploadAvatar(me, path, new Blob([PNG], { type: 'image/png' }))).toEqual({
      ok: true,
      path,
    });
    const stored = await fetch(me.storage.from('avatars').getPublicUrl(path).data.publicUrl);
    expect(new Uint8Array(await stored.arrayBuffer())).toEqual(PNG);

    // The bucket's own limits (2 MiB, images only), checked by the server too.
    const big = new Blob([new Uint8Array(2 * 1024 * 1024 + 1)], { type: 'image/png' });
    expect(await uploadAvatar(me, `${myId}/avatar-2.png`, big)).toMatchObject({
      ok: false,
      code: 'FILE_TOO_LARGE',
    });
    expect(
      await uploadAvatar(me, `${myId}/avatar-3.txt`, new Blob(['hi'], { type: 'text/plain' })),
    ).toMatchObject({ ok: false, code: 'FILE_TYPE' });
    // Someone else's folder: refused by the bucket's policy.
    const someoneElse = '0000aaaa-0000-4000-8000-000000000009';
    expect(
      await uploadAvatar(me, `${someoneElse}/avatar-4.png`, new Blob([PNG], { type: 'image/png' })),
    ).toMatchObject({ ok: false, code: 'PERMISSION_DENIED' });

    const nowhere = createClient('http://127.0.0.1:9', 'anon', {
      auth: { persistSession: false, autoRefreshToken: false },
    });
    expect(
      await uploadAvatar(nowhere, `${myId}/avatar-5.png`, new Blob([PNG], { type: 'image/png' })),
    ).toMatchObject({ ok: false, code: 'OFFLINE' });
  });

  it('reads the body\'s statusCode before the HTTP status (hosted RLS refusals are 400 "403")', () => {
    const apiError = (status: number, statusCode: string, message: string, more = {}) =>
      Object.assign(new Error(message), { status, statusCode, ...more });
    const codeOf = (error: unknown) => failureFromStorageError(error).code;
    expect(codeOf(apiError(400, '403', 'new row violates row-level security'))).toBe(
      'PERMISSION_DENIED',
    );
    // Hosted storage's answer to an expired token is that same 403: the words decide nothing
    // (uploadAvatar asks again with a renewed token).
    expect(codeOf(apiError(400, '403', 'jwt expired'))).toBe('PERMISSION_DENIED');
    expect(codeOf(apiError(400, '400', 'jwt malformed'))).toBe('VALIDATION_FAILED');
    expect(codeOf(apiError(400, 'InvalidJWT', 'jwt expired'))).toBe('AUTH_EXPIRED');
    expect(codeOf(apiError(400, '400', 'x', { error: 'InvalidJWT' }))).toBe('AUTH_EXPIRED');
    expect(codeOf(apiError(401, '401', 'Unauthorized'))).toBe('AUTH_EXPIRED');
    expect(codeOf(apiError(413, '413', 'Payload too large'))).toBe('FILE_TOO_LARGE');
    expect(codeOf(apiError(400, 'EntityTooLarge', 'x'))).toBe('FILE_TOO_LARGE');
    expect(codeOf(apiError(400, '400', 'x', { code: 'InvalidMimeType' }))).toBe('FILE_TYPE');
    expect(codeOf(apiError(400, '400', 'Payload too large, mime type'))).toBe('VALIDATION_FAILED');
    expect(codeOf(apiError(503, '503', 'down'))).toBe('SERVER_ERROR');
    expect(codeOf(new Error('Failed to fetch'))).toBe('OFFLINE');
    expect(codeOf('jwt expired')).toBe('OFFLINE');
  });

  it("is OFFLINE when the renewal after storage's 403 could not reach the server", async () => {
    let uploads = 0;
    const standIn = {
      storage: {
        from: () => ({
          upload: () => {
            uploads += 1;
            const error = Object.assign(new Error('jwt expired'), {
              status: 400,
              statusCode: '403',
            });
            return Promise.resolve({ data: null, error });
          },
        }),
      },
      auth: {
        refreshSession: () =>
          Promise.resolve({
            data: { session: null, user: null },
            error: new AuthRetryableFetchError('Failed to fetch', 0),
          }),
      },
    } as unknown as SupabaseClient;
    expect(await uploadAvatar(standIn, 'me/a.png', new Blob([PNG]))).toMatchObject({
      ok: false,
      code: 'OFFLINE',
    });
    expect(uploads).toBe(1);
  });

  it("renews the session on storage's 403 and uploads again: an expired token is no refusal", async () => {
    // Hosted storage's own answer to an expired token, once, in front of the devstack.
    const expired = JSON.stringify({
      statusCode: '403',
      code: 'AccessDenied',
      error: 'Unauthorized',
      message: 'jwt expired',
    });
    const paths: string[] = [];
    let refuseUploads = 1;
    let refuseRefresh = false;
    const { url, publishableKey } = inject('devstack');
    const me = createClient(url, publishableKey, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      global: {
        fetch: (input, init) => {
          const request = new Request(input, init);
          const path = new URL(request.url).pathname;
          paths.push(path);
          if (path.startsWith('/storage/v1/object/avatars/') && refuseUploads > 0) {
            refuseUploads -= 1;
            return Promise.resolve(new Response(expired, { status: 400 }));
          }
          if (path === '/auth/v1/token' && refuseRefresh) {
            return Promise.resolve(
              jsonResponse(
                { code: 'refresh_token_not_found', message: 'Invalid Refresh Token' },
                400,
              ),
            );
          }
          return fetch(request);
        },
      },
    });
    const { data, error } = await me.auth.signUp({
      email: `api-${crypto.randomUUID()}@example.com`,
      password: 'secret-123',
    });
    if (error || !data.user) throw error ?? new Error('no user');
    const path = `${data.user.id}/avatar-renewed.png`;
    paths.length = 0;

    expect(await uploadAvatar(me, path, new Blob([PNG], { type: 'image/png' }))).toEqual({
      ok: true,
      path,
    });
    const upload = `/storage/v1/object/avatars/${path}`;
    expect(paths).toEqual([upload, '/auth/v1/token', upload]);

    // A session that cannot be renewed: sign in again, not "you can't change this picture".
    refuseUploads = 1;
    refuseRefresh = true;
    paths.length = 0;
    const again = `${data.user.id}/avatar-again.png`;
    expect(await uploadAvatar(me, again, new Blob([PNG], { type: 'image/png' }))).toMatchObject({
      ok: false,
      code: 'AUTH_EXPIRED',
    });
    expect(paths).toEqual([`/storage/v1/object/avatars/${again}`, '/auth/v1/token']);
  });
});
