// /functions/v1 through unmodified supabase-js: the three edge functions of SPEC §7 running in
// real Deno workers (create-invite, accept-invite, export-list) with every error code, the
// gateway's JWT check, unknown functions, and no Deno process left after stop(). Both engines.
import { execFileSync } from 'node:child_process';

import { FunctionsHttpError, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ENGINE_KINDS } from '../support/database';
import {
  SEED,
  signedInDemoClient,
  startTestDevstack,
  type TestDevstack,
} from '../support/devstack';

/** The body and status of a function call, error or not. */
/** expect.stringContaining, typed (vitest declares it as returning any). */
const stringContaining = (text: string): unknown => expect.stringContaining(text) as unknown;

async function call(
  client: SupabaseClient,
  name: string,
  body: unknown,
): Promise<{ status: number; body: unknown; text?: string; headers: Headers | undefined }> {
  const result = await client.functions.invoke<unknown>(name, {
    body: body as Record<string, unknown>,
  });
  const { data, response } = result;
  const error: unknown = result.error; // typed any by functions-js
  if (error) {
    if (!(error instanceof FunctionsHttpError)) {
      throw error instanceof Error ? error : new Error(JSON.stringify(error));
    }
    const res = error.context as Response;
    return { status: res.status, body: (await res.json()) as unknown, headers: res.headers };
  }
  const status = response?.status ?? 0;
  if (typeof data === 'string')
    return { status, body: undefined, text: data, headers: response?.headers };
  return { status, body: data, headers: response?.headers };
}

/** Deno worker processes of the devstack that are alive now. */
function denoWorkers(): number {
  try {
    return execFileSync('pgrep', ['-f', 'deno-bootstrap.js'], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean).length;
  } catch {
    return 0; // pgrep exits 1 when nothing matches
  }
}

let counter = 0;
async function newUser(stack: TestDevstack): Promise<{ client: SupabaseClient; id: string }> {
  counter += 1;
  const client = stack.client();
  const { data, error } = await client.auth.signUp({
    email: `fn-${Date.now().toString(36)}-${counter}@example.com`,
    password: 'secret-123',
  });
  if (error || !data.user) throw error ?? new Error('sign-up returned no user');
  return { client, id: data.user.id };
}

describe.each(ENGINE_KINDS)('edge functions (%s)', (kind) => {
  let stack: TestDevstack;
  let alice: SupabaseClient;
  let bob: SupabaseClient;

  beforeAll(async () => {
    stack = await startTestDevstack(kind);
    [alice, bob] = await Promise.all([
      signedInDemoClient(stack, 'alice'),
      signedInDemoClient(stack, 'bob'),
    ]);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('creates an invite for an owner: a link with a single-use token, 7 days', async () => {
    const started = performance.now();
    const res = await call(alice, 'create-invite', { list_id: SEED.list, role: 'viewer' });
    const coldMs = performance.now() - started;
    expect(res.status).toBe(200);
    const invite = res.body as { url: string; token: string; expires_at: string; role: string };
    expect(invite.role).toBe('viewer');
    expect(invite.token).toMatch(/^[0-9a-f]{64}$/);
    expect(invite.url).toBe(`http://localhost:4173/invite/${invite.token}`);
    const days = (Date.parse(invite.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThan(7.01);

    const warmStarted = performance.now();
    expect(
      (await call(alice, 'create-invite', { list_id: SEED.list, role: 'editor' })).status,
    ).toBe(200);
    const warmMs = performance.now() - warmStarted;
    console.log(
      `create-invite on ${kind}: first call ${coldMs.toFixed(0)} ms, warm ${warmMs.toFixed(0)} ms`,
    );
  });

  it('refuses invites from non-owners and bad input', async () => {
    expect(await call(bob, 'create-invite', { list_id: SEED.list, role: 'viewer' })).toMatchObject({
      status: 403,
      body: { error: { code: 'PERMISSION_DENIED' } },
    });
    expect(await call(alice, 'create-invite', { list_id: SEED.list, role: 'owner' })).toMatchObject(
      {
        status: 400,
        body: { error: { code: 'VALIDATION_FAILED' } },
      },
    );
    expect(
      await call(alice, 'create-invite', { list_id: 'not-a-uuid', role: 'viewer' }),
    ).toMatchObject({
      status: 400,
      body: { error: { code: 'VALIDATION_FAILED', message: stringContaining('list_id') } },
    });
    const missing = await call(alice, 'create-invite', {
      list_id: '00000000-0000-4000-8000-00000000dead',
      role: 'viewer',
    });
    expect(missing).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
  });

  it('accepts an invite once; then INVITE_USED, ALREADY_MEMBER, INVITE_INVALID, INVITE_EXPIRED', async () => {
    const invite = (await call(alice, 'create-invite', { list_id: SEED.list, role: 'viewer' }))
      .body as { token: string; invite_id: string };
    const carol = await newUser(stack);
    const before = await carol.client.from('lists').select('id').eq('id', SEED.list);
    expect(before.data).toEqual([]);

    expect(await call(carol.client, 'accept-invite', { token: invite.token })).toMatchObject({
      status: 200,
      body: { list_id: SEED.list, role: 'viewer' },
    });
    const after = await carol.client.from('lists').select('id').eq('id', SEED.list);
    expect(after.data).toEqual([{ id: SEED.list }]);

    const dave = await newUser(stack);
    expect(await call(dave.client, 'accept-invite', { token: invite.token })).toMatchObject({
      status: 409,
      body: { error: { code: 'INVITE_USED' } },
    });

    const second = (await call(alice, 'create-invite', { list_id: SEED.list, role: 'editor' }))
      .body as { token: string; invite_id: string };
    expect(await call(bob, 'accept-invite', { token: second.token })).toMatchObject({
      status: 409,
      body: { error: { code: 'ALREADY_MEMBER', list_id: SEED.list } },
    });

    expect(await call(dave.client, 'accept-invite', { token: 'f'.repeat(64) })).toMatchObject({
      status: 404,
      body: { error: { code: 'INVITE_INVALID' } },
    });
    expect(await call(dave.client, 'accept-invite', { token: 42 })).toMatchObject({
      status: 400,
      body: { error: { code: 'VALIDATION_FAILED' } },
    });

    await stack.db.query(
      `update public.invites
          set created_at = now() - interval '8 days', expires_at = now() - interval '1 day'
        where id = $1`,
      [second.invite_id],
    );
    expect(await call(dave.client, 'accept-invite', { token: second.token })).toMatchObject({
      status: 410,
      body: { error: { code: 'INVITE_EXPIRED' } },
    });
    // Nothing changed for dave.
    expect((await dave.client.from('lists').select('id')).data).toEqual([]);
  });

  it('exports a list as JSON for a member, with tasks and their comments', async () => {
    const res = await call(bob, 'export-list', { list_id: SEED.list, format: 'json' });
    expect(res.status).toBe(200);
    const exported = res.body as {
      list: { id: string; name: string };
      members: { user_id: string; role: string }[];
      tasks: { id: string; list_id: string; comments: unknown[] }[];
    };
    expect(exported.list).toMatchObject({ id: SEED.list, name: 'Site inspection — Block C' });
    const { count } = await bob
      .from('tasks')
      .select('id', { count: 'exact', head: true })
      .eq('list_id', SEED.list)
      .is('deleted_at', null);
    expect(exported.tasks).toHaveLength(count ?? -1);
    expect(exported.tasks.every((t) => t.list_id === SEED.list && Array.isArray(t.comments))).toBe(
      true,
    );
    expect(exported.members.map((m) => m.role).sort()).toEqual(
      expect.arrayContaining(['editor', 'owner']),
    );
  });

  it('exports CSV with RFC 4180 quoting and formula cells defused', async () => {
    const tricky = 'He said "hi", then\nleft';
    const formula = '=HYPERLINK("http://evil")';
    const { error } = await alice.from('tasks').insert([
      { id: crypto.randomUUID(), list_id: SEED.list, title: tricky, position: 'zz0' },
      { id: crypto.randomUUID(), list_id: SEED.list, title: formula, position: 'zz1' },
    ]);
    expect(error).toBeNull();

    const res = await call(alice, 'export-list', { list_id: SEED.list, format: 'csv' });
    expect(res.status).toBe(200);
    expect(res.headers?.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers?.get('content-disposition')).toBe(
      'attachment; filename="Site-inspection-Block-C.csv"',
    );
    const csv = res.text ?? '';
    expect(csv.split('\r\n')[0]).toBe(
      'id,title,status,priority,due_on,assignee,notes,completed_at,created_at,updated_at',
    );
    expect(csv).toContain('"He said ""hi"", then\nleft"');
    expect(csv).toContain(`"'=HYPERLINK(""http://evil"")"`);
    expect(csv).toContain(',Bob,'); // assignees by display name
  });

  it('refuses an export to a non-member as if the list did not exist', async () => {
    const outsider = await newUser(stack);
    expect(await call(outsider.client, 'export-list', { list_id: SEED.list })).toMatchObject({
      status: 404,
      body: { error: { code: 'NOT_FOUND' } },
    });
    expect(
      await call(outsider.client, 'export-list', { list_id: SEED.list, format: 'xml' }),
    ).toMatchObject({
      status: 400,
      body: { error: { code: 'VALIDATION_FAILED' } },
    });
  });

  it('refuses calls without a valid JWT at the gateway, before the function runs', async () => {
    const url = `${stack.url}/functions/v1/export-list`;
    const none = await fetch(url, { method: 'POST', headers: { apikey: stack.anonKey } });
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({
      code: 'UNAUTHORIZED_NO_AUTH_HEADER',
      message: 'Missing authorization header',
    });
    const garbage = await fetch(url, {
      method: 'POST',
      headers: { apikey: stack.anonKey, Authorization: 'Bearer not.a.jwt' },
    });
    expect(garbage.status).toBe(401);
    expect(await garbage.json()).toMatchObject({ code: 'UNAUTHORIZED_INVALID_JWT' });

    // The anon key is a valid JWT: the gateway lets it through and the function says who is
    // missing (no user), as on hosted.
    const anon = stack.client();
    expect(await call(anon, 'export-list', { list_id: SEED.list })).toMatchObject({
      status: 401,
      body: { error: { code: 'AUTH_EXPIRED' } },
    });
  });

  it('answers unknown functions and shared folders with 404', async () => {
    for (const name of ['nope', '_shared', '..%2f..', 'create-invite%zz']) {
      const res = await fetch(`${stack.url}/functions/v1/${name}`, {
        method: 'POST',
        headers: { apikey: stack.anonKey, Authorization: `Bearer ${stack.anonKey}` },
      });
      expect(res.status, name).toBe(404);
      expect(await res.json()).toEqual({
        code: 'NOT_FOUND',
        message: 'Requested function was not found',
      });
    }
  });
});

describe('edge function workers', () => {
  it('leaves no Deno process behind after stop()', async () => {
    const before = denoWorkers();
    const stack = await startTestDevstack('pglite');
    const alice = await signedInDemoClient(stack, 'alice');
    await call(alice, 'create-invite', { list_id: SEED.list, role: 'viewer' });
    await call(alice, 'export-list', { list_id: SEED.list });
    expect(denoWorkers()).toBe(before + 2);
    await stack.stop();
    expect(denoWorkers()).toBe(before);
  });
});
