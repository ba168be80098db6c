// The REST service through unmodified supabase-js (and raw fetch for what the client cannot
// send), on both engines: rpc, table reads with filters/order/range/count/single, writes with
// representation, RLS and constraint errors in PostgREST's shape, and JWT failures.
import { randomUUID } from 'node:crypto';

import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';

import type { Keys } from '../../devstack/keys';
import { ENGINE_KINDS } from '../support/database';
import { forgedKeys, SEED, startTestDevstack, type TestDevstack } from '../support/devstack';

const STRANGER = 'c0ffee00-0000-4000-8000-00000000000c';

describe.each(ENGINE_KINDS)('devstack rest on %s', (kind) => {
  let stack: TestDevstack;
  let keys: Keys;
  let alice: ReturnType<typeof userClient>;
  let bob: ReturnType<typeof userClient>;
  let stranger: ReturnType<typeof userClient>;
  let service: SupabaseClient;

  async function userJwt(sub: string, email: string, expiresInSec = 3600): Promise<string> {
    return keys.sign({ sub, role: 'authenticated', aud: 'authenticated', email }, expiresInSec);
  }

  function userClient(jwt: string) {
    const client = createClient(stack.url, stack.publishableKey, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      global: { headers: { Authorization: `Bearer ${jwt}` } },
      realtime: { transport: WebSocket as unknown as typeof globalThis.WebSocket },
    });
    return client;
  }

  async function raw(
    path: string,
    init: { method?: string; body?: string; headers?: Record<string, string> } = {},
  ): Promise<{ status: number; json: unknown; headers: Headers }> {
    const res = await fetch(`${stack.url}/rest/v1/${path}`, {
      method: init.method ?? 'GET',
      headers: {
        apikey: stack.publishableKey,
        'Content-Type': 'application/json',
        ...init.headers,
      },
      ...(init.body === undefined ? {} : { body: init.body }),
    });
    const text = await res.text();
    return {
      status: res.status,
      json: text === '' ? null : (JSON.parse(text) as unknown),
      headers: res.headers,
    };
  }

  beforeAll(async () => {
    stack = await startTestDevstack(kind);
    keys = stack.keys;
    alice = userClient(await userJwt(SEED.alice, 'alice@example.com'));
    bob = userClient(await userJwt(SEED.bob, 'bob@example.com'));
    stranger = userClient(await userJwt(STRANGER, 'stranger@example.com'));
    service = stack.client({ key: stack.secretKey });
    await stack.db.exec(
      `create function public.test_void() returns void language sql as 'select';
       create function public.test_add(a integer, b integer default 1) returns integer
         language sql immutable as 'select a + b';
       create function public.test_series(n integer) returns setof integer
         language sql stable as 'select generate_series(1, n)';
       create function public.test_echo(j jsonb) returns jsonb language sql immutable as 'select j';
       create table public.test_big (id bigint primary key, note text);
       grant all on public.test_big to service_role;`,
    );
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('calls rpc by POST: sync_push then sync_pull round trip', async () => {
    const id = randomUUID();
    const push = await alice.rpc('sync_push', {
      client_id: randomUUID(),
      mutations: [
        {
          seq: 1,
          table: 'tasks',
          op: 'insert',
          id,
          data: { list_id: SEED.list, title: 'Pushed over rest', position: 'zz' },
        },
      ],
    });
    expect(push.error).toBeNull();
    const pushed = push.data as { last_seq: number; results: { status: string }[] };
    expect(pushed.last_seq).toBe(1);
    expect(pushed.results[0]?.status).toBe('applied');

    const pull = await bob.rpc('sync_pull', { cursor: null, max_rows: 1000 });
    expect(pull.error).toBeNull();
    const pulled = pull.data as {
      rows: { table: string; row: { id: string } }[];
      has_more: boolean;
    };
    expect(pulled.rows.some((r) => r.table === 'tasks' && r.row.id === id)).toBe(true);
  });

  it('calls rpc by GET, scalar, setof and void functions', async () => {
    const version = await alice.rpc('sync_schema_version', {}, { get: true });
    expect(version.error).toBeNull();
    expect(typeof version.data).toBe('number');

    const sum = await alice.rpc('test_add', { a: 2 }, { get: true });
    expect(sum).toMatchObject({ data: 3, status: 200 });
    const sum2 = await alice.rpc('test_add', { a: 2, b: 40 });
    expect(sum2.data).toBe(42);

    const series = await alice.rpc('test_series', { n: 3 });
    expect(series.data).toEqual([1, 2, 3]);

    const echoed = await alice.rpc('test_echo', { j: 'a "quoted" string' });
    expect(echoed.data).toBe('a "quoted" string');
    const echoedObject = await alice.rpc('test_echo', { j: { nested: [1, null, true] } });
    expect(echoedObject.data).toEqual({ nested: [1, null, true] });

    const nothing = await alice.rpc('test_void');
    expect(nothing).toMatchObject({ data: null, error: null, status: 204 });
  });

  it('answers an unknown function with 404 PGRST202', async () => {
    const res = await alice.rpc('no_such_fn', { x: 1 });
    expect(res.status).toBe(404);
    expect(res.error).toMatchObject({
      code: 'PGRST202',
      message: 'Could not find the function public.no_such_fn(x) in the schema cache',
    });
  });

  it('selects with filters, order, range, count, single and maybeSingle', async () => {
    const page = await alice
      .from('tasks')
      .select('id,title,priority', { count: 'exact' })
      .eq('list_id', SEED.list)
      .in('priority', [1, 2])
      .order('priority', { ascending: false })
      .order('id')
      .range(2, 5);
    expect(page.error).toBeNull();
    expect(page.count).toBe(15);
    expect(page.data).toHaveLength(4);
    expect(Object.keys(page.data?.[0] ?? {}).sort()).toEqual(['id', 'priority', 'title']);
    expect(page.data?.map((t: { priority: number }) => t.priority)).toEqual([2, 2, 2, 2]);

    const ored = await alice
      .from('tasks')
      .select('id')
      .or(`id.eq.${SEED.task(1)},and(priority.eq.3,status.neq.todo)`)
      .not('title', 'ilike', '*zzz*')
      .is('deleted_at', null);
    expect(ored.error).toBeNull();
    expect(ored.data?.map((t: { id: string }) => t.id)).toContain(SEED.task(1));
    expect(ored.data?.length).toBe(8);

    const matched = await alice.from('tasks').select('id').filter('title', 'match', '^Check fire');
    expect(matched.data).toHaveLength(3);

    const one = await alice.from('tasks').select('title').eq('id', SEED.task(2)).single();
    expect(one.error).toBeNull();
    expect(one.data).toEqual({ title: 'Test emergency lighting' });

    const none = await alice.from('tasks').select('*').eq('id', randomUUID()).single();
    expect(none.status).toBe(406);
    expect(none.error?.code).toBe('PGRST116');

    const maybe = await alice.from('tasks').select('id').eq('id', randomUUID()).maybeSingle();
    expect(maybe).toMatchObject({ data: null, error: null });

    const head = await alice
      .from('tasks')
      .select('*', { count: 'exact', head: true })
      .gte('priority', 3);
    expect(head).toMatchObject({ count: 7, data: null, error: null });

    const empty = await stranger.from('tasks').select('*', { count: 'exact' });
    expect(empty).toMatchObject({ data: [], count: 0 });
  });

  it('inserts, upserts, updates and deletes with representation', async () => {
    const id = randomUUID();
    const inserted = await alice
      .from('tasks')
      .insert({ id, list_id: SEED.list, title: 'Rest insert', position: 'zy' })
      .select()
      .single();
    expect(inserted.status).toBe(201);
    expect(inserted.data).toMatchObject({
      id,
      title: 'Rest insert',
      status: 'todo',
      created_by: SEED.alice,
    });

    const upserted = await alice
      .from('tasks')
      .upsert({ id, list_id: SEED.list, title: 'Rest upsert', position: 'zy' })
      .select('id,title');
    expect(upserted.error).toBeNull();
    expect(upserted.data).toEqual([{ id, title: 'Rest upsert' }]);

    const updated = await bob
      .from('tasks')
      .update({ status: 'done' })
      .eq('id', id)
      .select('status,completed_at');
    expect(updated.status).toBe(200);
    expect(updated.data?.[0]?.status).toBe('done');
    expect(updated.data?.[0]?.completed_at).not.toBeNull();

    const comments = await bob
      .from('comments')
      .insert([
        { task_id: id, list_id: SEED.list, body: 'first' },
        { task_id: id, list_id: SEED.list, body: 'second' },
      ])
      .select('body,author_id');
    expect(comments.status).toBe(201);
    expect(comments.data).toEqual([
      { body: 'first', author_id: SEED.bob },
      { body: 'second', author_id: SEED.bob },
    ]);

    const minimal = await bob
      .from('comments')
      .insert({ task_id: id, list_id: SEED.list, body: 'third' });
    expect(minimal).toMatchObject({ status: 201, data: null, error: null });

    const deleted = await service
      .from('comments')
      .delete()
      .eq('task_id', id)
      .select('body')
      .order('body');
    expect(deleted.error).toBeNull();
    expect(deleted.data?.map((c: { body: string }) => c.body).sort()).toEqual([
      'first',
      'second',
      'third',
    ]);
    const gone = await service.from('tasks').delete().eq('id', id);
    expect(gone.status).toBe(204);
    const check = await service.from('tasks').select('id').eq('id', id);
    expect(check.data).toEqual([]);
  });

  it('fills absent columns with defaults under missing=default', async () => {
    const res = await bob
      .from('comments')
      .insert(
        [
          { task_id: SEED.task(4), list_id: SEED.list, body: 'defaulted author' },
          { task_id: SEED.task(4), list_id: SEED.list, body: 'named author', author_id: SEED.bob },
        ],
        { defaultToNull: false },
      )
      .select('body,author_id');
    expect(res.error).toBeNull();
    expect(res.data).toEqual([
      { body: 'defaulted author', author_id: SEED.bob },
      { body: 'named author', author_id: SEED.bob },
    ]);
    const nulls = await bob.from('comments').insert([
      { task_id: SEED.task(4), list_id: SEED.list, body: 'x' },
      { task_id: SEED.task(4), list_id: SEED.list, body: 'y', author_id: SEED.bob },
    ]);
    // Without missing=default the absent author is null, which the insert policy refuses.
    expect(nulls.status).toBe(403);
    expect(nulls.error?.code).toBe('42501');
  });

  it('keeps every digit of big integers and upserts on a named conflict column', async () => {
    const auth = { apikey: stack.secretKey, Authorization: `Bearer ${stack.secretKey}` };
    const inserted = await raw('test_big?select=id', {
      method: 'POST',
      body: '{"id": 9007199254740993, "note": "a"}',
      headers: { ...auth, Prefer: 'return=representation' },
    });
    expect(inserted.status).toBe(201);
    const res = await fetch(`${stack.url}/rest/v1/test_big?id=eq.9007199254740993`, {
      headers: auth,
    });
    expect(await res.text()).toBe('[{"id":9007199254740993,"note":"a"}]');

    const ignored = await raw('test_big?on_conflict=id', {
      method: 'POST',
      body: '[{"id": 9007199254740993, "note": "b"}, {"id": 1, "note": "c"}]',
      headers: {
        ...auth,
        Prefer: 'resolution=ignore-duplicates,return=representation,count=exact',
      },
    });
    expect(ignored.status).toBe(201);
    expect(ignored.json).toEqual([{ id: 1, note: 'c' }]);
    expect(ignored.headers.get('content-range')).toBe('*/1');
  });

  it('refuses an RLS violation with 403 and PostgREST JSON', async () => {
    const res = await stranger
      .from('tasks')
      .insert({ list_id: SEED.list, title: 'Not mine', position: 'zx' })
      .select();
    expect(res.status).toBe(403);
    expect(res.error).toMatchObject({
      code: '42501',
      message: 'new row violates row-level security policy for table "tasks"',
    });
  });

  it('answers a unique violation with 409', async () => {
    // Memberships arrive only through invites now, so the violation is a list's own id again.
    const res = await alice.from('lists').insert({ id: SEED.list, name: 'Again', color: 'blue' });
    expect(res.status).toBe(409);
    expect(res.error?.code).toBe('23505');
    // With RLS on the table Postgres withholds the key values from `details`, as on hosted.
    expect(res.error?.message).toBe('duplicate key value violates unique constraint "lists_pkey"');
  });

  it('maps check violations and bad input to 400', async () => {
    const check = await alice
      .from('tasks')
      .insert({ list_id: SEED.list, title: ' ', position: 'zw' });
    expect(check.status).toBe(400);
    expect(check.error?.code).toBe('23514');
    const badUuid = await alice.from('tasks').select('id').eq('id', 'not-a-uuid');
    expect(badUuid.status).toBe(400);
    expect(badUuid.error?.code).toBe('22P02');
    const badColumn = await alice.from('tasks').select('nope');
    expect(badColumn.status).toBe(400);
    expect(badColumn.error?.code).toBe('42703');
  });

  it('answers an unknown table with 404 PGRST205', async () => {
    const res = await alice.from('no_such_table').select('*');
    expect(res.status).toBe(404);
    expect(res.error).toMatchObject({
      code: 'PGRST205',
      message: "Could not find the table 'public.no_such_table' in the schema cache",
    });
  });

  it('sees a function or table created, changed or dropped since its schema cache was filled', async () => {
    // Each step is answered right after the DDL commits: no reload to wait for.
    const call = (args: Record<string, number>) => alice.rpc('test_cached', args);
    expect((await call({ a: 1 })).status).toBe(404);
    await stack.db.exec(
      `create function public.test_cached(a integer) returns integer language sql as 'select a'`,
    );
    expect((await call({ a: 1 })).data).toBe(1);
    expect((await call({ a: 1 })).data).toBe(1);
    await stack.db.exec(
      `drop function public.test_cached(integer);
       create function public.test_cached(b integer) returns integer language sql as 'select b * 10'`,
    );
    expect((await call({ a: 1 })).status).toBe(404);
    expect((await call({ b: 2 })).data).toBe(20);
    await stack.db.exec(`drop function public.test_cached(integer)`);
    expect((await call({ b: 2 })).status).toBe(404);

    const read = (select: string) => service.from('test_cached_t').select(select);
    expect((await read('*')).status).toBe(404);
    await stack.db.exec(
      `create table public.test_cached_t (id integer primary key);
       insert into public.test_cached_t values (1);
       grant all on public.test_cached_t to service_role;`,
    );
    expect((await read('*')).data).toEqual([{ id: 1 }]);
    await stack.db.exec(`alter table public.test_cached_t add column note text default 'n'`);
    expect((await read('id, note')).data).toEqual([{ id: 1, note: 'n' }]);
    await stack.db.exec(`drop table public.test_cached_t`);
    expect((await read('*')).status).toBe(404);
  });

  it('answers malformed bodies, operators and logic with 400', async () => {
    const jwt = await userJwt(SEED.alice, 'alice@example.com');
    const auth = { Authorization: `Bearer ${jwt}` };
    const body = await raw('tasks', { method: 'POST', body: '{"title":', headers: auth });
    expect(body.status).toBe(400);
    expect(body.json).toMatchObject({ code: 'PGRST102', message: 'Empty or invalid json' });
    expect(body.headers.get('content-type')).toBe('application/json; charset=utf-8');

    const rpcBody = await raw('rpc/sync_pull', { method: 'POST', body: '[1,2', headers: auth });
    expect(rpcBody.json).toMatchObject({ code: 'PGRST102' });

    const op = await raw('tasks?id=zz.1', { headers: auth });
    expect(op.status).toBe(400);
    expect(op.json).toMatchObject({ code: 'PGRST100' });

    const logic = await raw('tasks?or=(id.eq.1', { headers: auth });
    expect(logic.status).toBe(400);
    expect(logic.json).toMatchObject({ code: 'PGRST100' });

    // Embedding works (tests/conformance/postgrest-embedding.test.ts); an unclosed one is PGRST100.
    const embed = await raw('tasks?select=id,lists(name', { headers: auth });
    expect(embed.status).toBe(400);
    expect(embed.json).toMatchObject({ code: 'PGRST100' });

    const huge = await raw('tasks?priority=eq.99999999999999999999', { headers: auth });
    expect(huge.status).toBe(400);
    expect(huge.json).toMatchObject({ code: '22003' });
  });

  it('answers odd requests with a 4xx PostgREST error, never a 5xx', async () => {
    const jwt = await userJwt(SEED.alice, 'alice@example.com');
    const auth = { Authorization: `Bearer ${jwt}` };
    const cases: [string, string, string | undefined, number, string][] = [
      ['GET', 'tasks?limit=abc', undefined, 400, 'PGRST100'],
      ['GET', 'tasks?offset=-1', undefined, 400, 'PGRST100'],
      ['GET', 'tasks?order=title.sideways', undefined, 400, 'PGRST100'],
      ['GET', 'tasks?order=nope.asc', undefined, 400, '42703'],
      ['GET', 'tasks?id=in.(x', undefined, 400, 'PGRST100'],
      ['GET', 'tasks?priority=is.maybe', undefined, 400, 'PGRST100'],
      ['GET', 'tasks?or=()', undefined, 400, 'PGRST100'],
      ['GET', 'tasks?select=id,"weird', undefined, 400, 'PGRST100'],
      // An unterminated quoted name does not parse (PostgREST's pQuotedValue).
      ['GET', 'tasks?%22%3B%20drop%20table%20tasks=eq.1', undefined, 400, 'PGRST100'],
      ['GET', 'tasks?%22%3B%20drop%20table%20tasks%22=eq.1', undefined, 400, '42703'],
      ['GET', 'pg_class', undefined, 404, 'PGRST205'],
      ['POST', 'tasks', '[1,2]', 400, 'PGRST102'],
      ['POST', 'tasks', '{"nope":1}', 400, 'PGRST204'],
      ['POST', 'tasks?on_conflict=nope', '{"title":"x"}', 400, '42703'],
      ['PATCH', 'tasks?id=eq.x', '"str"', 400, 'PGRST102'],
      ['PUT', 'tasks', '{}', 405, 'PGRST117'],
      ['POST', 'rpc/sync_push', '{"client_id":{"a":1},"mutations":5}', 400, '22P02'],
      ['POST', 'rpc/sync_pull', '{"max_rows":"1e9999"}', 400, '22P02'],
      ['POST', 'rpc/sync_pull', 'null', 400, 'PGRST102'],
      ['PATCH', 'rpc/sync_pull', '{}', 405, 'PGRST101'],
      ['GET', `tasks?or=${'and('.repeat(20)}id.eq.1${')'.repeat(20)}`, undefined, 400, 'PGRST100'],
    ];
    for (const [method, path, body, status, code] of cases) {
      const res = await raw(path, {
        method,
        headers: method === 'PUT' ? auth : { ...auth, Prefer: 'resolution=merge-duplicates' },
        ...(body === undefined ? {} : { body }),
      });
      expect({ method, path, status: res.status, json: res.json }).toMatchObject({
        status,
        json: { code },
      });
    }
    // A query string too long for Node's HTTP parser is refused before it reaches us.
    const manyValues = Array.from({ length: 40_000 }, (_, i) => i).join(',');
    const huge = await fetch(`${stack.url}/rest/v1/tasks?id=in.(${manyValues})`, {
      headers: { apikey: stack.publishableKey, ...auth },
    });
    expect(huge.status).toBe(431);

    const schema = await raw('tasks', { headers: { ...auth, 'Accept-Profile': 'private' } });
    expect(schema.status).toBe(406);
    expect(schema.json).toMatchObject({ code: 'PGRST106' });

    const emptyPatch = await raw(`tasks?id=eq.${SEED.task(3)}`, {
      method: 'PATCH',
      body: '{}',
      headers: auth,
    });
    expect(emptyPatch.status).toBe(204);

    const ranged = await raw('tasks?select=id&order=id', {
      headers: { ...auth, Range: '0-1', Prefer: 'count=exact' },
    });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toMatch(/^0-1\/\d+$/);
    expect(ranged.json).toHaveLength(2);
  });

  it('answers missing, expired and invalid credentials with 401', async () => {
    const missing = await fetch(`${stack.url}/rest/v1/tasks`);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({ message: 'No API key found in request' });
    expect(missing.headers.get('content-type')).toBe('application/json; charset=utf-8');

    const expired = await userJwt(SEED.alice, 'alice@example.com', -10);
    const exp = await raw('tasks', { headers: { Authorization: `Bearer ${expired}` } });
    expect(exp.status).toBe(401);
    expect(exp.json).toEqual({
      code: 'PGRST303',
      details: null,
      hint: null,
      message: 'JWT expired',
    });

    const forged = await forgedKeys(stack);
    const bad = await forged.sign({ sub: SEED.alice, role: 'authenticated' }, 3600);
    const inv = await raw('tasks', { headers: { Authorization: `Bearer ${bad}` } });
    expect(inv.status).toBe(401);
    expect(inv.json).toMatchObject({ code: 'PGRST301' });
  });

  it('answers anon RLS refusals with 401 and sync_push refusal as 401', async () => {
    const anon = stack.client();
    const res = await anon
      .from('tasks')
      .insert({ list_id: SEED.list, title: 'anon', position: 'zv' });
    expect(res.status).toBe(401);
    expect(res.error?.code).toBe('42501');
  });
});
