// The edge-function wrappers: error bodies of every shape read into codes (unit), and the
// three real functions on the test devstack (owner-only invites, single use, exports). The
// avatar upload wrapper against the devstack's avatars bucket: a picture lands in the
// user's own folder; the bucket's limits, another's folder and no connection come back as
// codes, never as thrown errors.
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import WebSocket from 'ws';

import { createTestServices } from '@/testing/app-harness';

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

/**
 * A devstack client with its own session. Realtime goes over `ws`: the WebSocket jsdom's
 * environment exposes is undici's, which throws on jsdom's Event when a socket opens.
 */
function client() {
  const { url, anonKey } = inject('devstack');
  return createClient(url, anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: WebSocket as unknown as typeof globalThis.WebSocket },
  });
}

async function signedIn(who: 'alice' | 'bob'): Promise<SupabaseClient> {
  const supabase = client();
  const { error } = await supabase.auth.signInWithPassword({
    email: `${who}@example.com`,
    password: 'outpost-demo',
  });
  if (error) throw error;
  return supabase;
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

/**
 * A new list owned by `supabase`'s user, made through the real sync library, so invite tests
 * add members to it and never to the seeded list other suites count.
 */
async function ownList(supabase: SupabaseClient, name: string): Promise<string> {
  const services = createTestServices({ supabase, online: true, startEngine: true });
  try {
    await services.sync.engine.syncNow();
    const id = await services.sync.repos.lists.create({ name, color: 'blue' });
    const status = await services.sync.engine.syncNow();
    if (status.phase !== 'synced' || (await services.sync.pendingCount()) > 0) {
      throw new Error(`the list did not reach the server (${status.phase})`);
    }
    return id;
  } finally {
    await services.close();
  }
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
    list = await ownList(alice, 'API invites');
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
      'id,title,status,priority,due_on,assignee,notes,completed_at,created_at,updated_at',
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
    const apiError = (status: number, statusCode: string, message: string) =>
      Object.assign(new Error(message), { status, statusCode });
    expect(
      failureFromStorageError(apiError(400, '403', 'new row violates row-level security')),
    ).toMatchObject({
      code: 'PERMISSION_DENIED',
    });
    expect(failureFromStorageError(apiError(400, 'InvalidJWT', 'jwt expired'))).toMatchObject({
      code: 'AUTH_EXPIRED',
    });
    expect(failureFromStorageError(apiError(413, '413', 'Payload too large'))).toMatchObject({
      code: 'FILE_TOO_LARGE',
    });
    expect(failureFromStorageError(apiError(503, '503', 'down'))).toMatchObject({
      code: 'SERVER_ERROR',
    });
    expect(failureFromStorageError(new Error('Failed to fetch'))).toMatchObject({
      code: 'OFFLINE',
    });
  });
});
