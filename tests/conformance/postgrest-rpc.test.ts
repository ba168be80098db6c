// PostgREST's /rpc as hosted answers it, on both engines: select, filters, order, limit,
// Range and count on a function's result; scalar, row, set, table and void results;
// overloads chosen by argument names (PGRST203, PGRST202 and its hints); one unnamed
// parameter taking the whole body; row-typed, array, variadic and defaulted arguments; GET
// refused for a function that writes; singular responses; methods other than GET and POST.
import { describe, expect, it } from 'vitest';

import { ENGINE_KINDS } from '../support/database';
import { answerOf, devstackPerEngine, fixture, type Answer, pgrstError } from './support';

const JSON_TYPE = 'application/json; charset=utf-8';
const AMBIGUOUS_HINT =
  'Try renaming the parameters or the function itself in the database so function overloading can be resolved';

describe.each(ENGINE_KINDS)('PostgREST rpc conformance (%s)', (kind) => {
  const stack = devstackPerEngine(kind, {}, fixture('rpc.sql'));

  async function rpc(
    path: string,
    init: { method?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const method =
      init.method ?? (init.body !== undefined || init.raw !== undefined ? 'POST' : 'GET');
    const response = await fetch(`${stack.url}/rest/v1/rpc/${path}`, {
      method,
      headers: {
        apikey: stack.publishableKey,
        ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...init.headers,
      },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      ...(init.raw !== undefined ? { body: init.raw } : {}),
    });
    return answerOf(response);
  }

  it('applies select, filters and order to a set-returning function', async () => {
    const res = await rpc(
      'conf_devices_in?min_id=1&max_id=4&state=neq.ONLINE&select=id,label&order=id.desc',
    );
    expect(res.status).toBe(200);
    expect(res.json).toEqual([
      { id: 4, label: 'delta' },
      { id: 2, label: 'beta' },
    ]);
    expect(res.headers.get('content-range')).toBe('0-1/*');
    expect(res.headers.get('content-type')).toBe(JSON_TYPE);
  });

  it('embeds from the table a function returns, with filters on the embedded rows', async () => {
    const res = await rpc(
      'conf_devices_in?min_id=1&max_id=3&select=id,conf_readings(value)&conf_readings.value=gt.10&order=id',
    );
    expect(res.status).toBe(200);
    expect(res.json).toEqual([
      { id: 1, conf_readings: [{ value: 11 }] },
      { id: 2, conf_readings: [] },
      { id: 3, conf_readings: [{ value: 30 }] },
    ]);
  });

  it('a GET argument and a filter may share a name: only op.value is a filter', async () => {
    const res = await rpc('conf_devices_in?min_id=1&max_id=4&id=gt.2&select=id');
    expect(res.json).toEqual([{ id: 3 }, { id: 4 }]);
  });

  it('pages with limit and offset or Range, and counts with Prefer: count=exact', async () => {
    const counted = await rpc('conf_devices_in?limit=1&offset=1&select=id', {
      body: { min_id: 2, max_id: 4 },
      headers: { Prefer: 'count=exact' },
    });
    expect(counted.status).toBe(206);
    expect(counted.json).toEqual([{ id: 3 }]);
    expect(counted.headers.get('content-range')).toBe('1-1/3');

    const ranged = await rpc('conf_devices_in?min_id=2&max_id=4&select=id', {
      headers: { Range: '1-1' },
    });
    expect(ranged.status).toBe(200);
    expect(ranged.json).toEqual([{ id: 3 }]);
    expect(ranged.headers.get('content-range')).toBe('1-1/*');

    const head = await rpc('conf_devices_in?min_id=2&max_id=4', {
      method: 'HEAD',
      headers: { Prefer: 'count=exact' },
    });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers.get('content-range')).toBe('0-2/3');
  });

  it('reads a TABLE result like a table: aliases and filters on its columns', async () => {
    const res = await rpc('conf_label_state?select=name:label,state', {
      body: { wanted: 'alpha' },
    });
    expect(res.json).toEqual([{ name: 'alpha', state: 'ONLINE' }]);
    const none = await rpc('conf_label_state?state=eq.OFFLINE', { body: { wanted: 'alpha' } });
    expect(none.json).toEqual([]);
    expect(none.headers.get('content-range')).toBe('*/*');
  });

  it('a scalar is the bare value, a row the object, null when filtered away; void is 204', async () => {
    const scalar = await rpc('conf_add?a=3&b=4', { headers: { Prefer: 'count=exact' } });
    expect([scalar.status, scalar.text]).toEqual([200, '7']);
    expect(scalar.headers.get('content-range')).toBe('0-0/1');

    const row = await rpc('conf_device?dev_id=2&select=id,state');
    expect(row.json).toEqual({ id: 2, state: 'OFFLINE' });
    const gone = await rpc('conf_device?dev_id=2&state=eq.ONLINE');
    expect([gone.status, gone.text]).toEqual([200, 'null']);

    const none = await rpc('conf_nothing', { body: {} });
    expect([none.status, none.text]).toEqual([204, '']);
    expect(none.headers.get('content-type')).toBeNull();

    const big = await rpc('conf_big', {
      raw: '{"v": 9223372036854775807}',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(big.text).toBe('9223372036854775807');
  });

  it('answers singular (vnd.pgrst.object) with one object or PGRST116', async () => {
    const accept = { Accept: 'application/vnd.pgrst.object+json' };
    const one = await rpc('conf_devices_in?min_id=3&max_id=3&select=label', { headers: accept });
    expect(one.status).toBe(200);
    expect(one.json).toEqual({ label: 'gamma' });
    const two = await rpc('conf_devices_in?min_id=1&max_id=2', { headers: accept });
    expect(two.status).toBe(406);
    expect(two.json).toEqual(
      pgrstError(
        'PGRST116',
        'Cannot coerce the result to a single JSON object',
        'The result contains 2 rows',
      ),
    );
  });

  it('refuses writes on GET and in a POST to a stable function (read-only), runs them on POST', async () => {
    const get = await rpc('conf_note?note=x');
    expect(get.status).toBe(405);
    expect(get.json).toEqual(
      pgrstError('25006', 'cannot execute INSERT in a read-only transaction'),
    );
    const post = await rpc('conf_note', { body: { note: 'x' } });
    expect(post.status).toBe(200);
    expect(typeof post.json).toBe('number');
    // A POST to a stable function runs read-only too: a write hidden inside it is refused.
    const sneaky = await rpc('conf_sneaky', { body: {} });
    expect(sneaky.status).toBe(405);
    expect(sneaky.json).toMatchObject({
      code: '25006',
      message: 'cannot execute INSERT in a read-only transaction',
    });
  });

  it('chooses an overload by argument names; PGRST203 lists the ones that fit, fewest then by name and type', async () => {
    expect((await rpc('conf_pick', { body: {} })).json).toBe('none');
    expect((await rpc('conf_pick', { body: { b: 1 } })).json).toBe('b 1 d');
    expect((await rpc('conf_pick?b=2&c=x')).json).toBe('b 2 x');
    const ambiguous = await rpc('conf_pick', { body: { a: 'x' } });
    expect(ambiguous.status).toBe(300);
    expect(ambiguous.json).toEqual(
      pgrstError(
        'PGRST203',
        'Could not choose the best candidate function between: public.conf_pick(a => integer), public.conf_pick(a => text), public.conf_pick(a => text, z => integer)',
        null,
        AMBIGUOUS_HINT,
      ),
    );
  });

  it('PGRST202 names what was searched for and hints the closest function or arguments', async () => {
    const misspelt = await rpc('conf_ad?a=1&b=2');
    expect(misspelt.status).toBe(404);
    expect(misspelt.json).toEqual(
      pgrstError(
        'PGRST202',
        'Could not find the function public.conf_ad(a, b) in the schema cache',
        'Searched for the function public.conf_ad with parameters a, b, but no matches were found in the schema cache.',
        'Perhaps you meant to call the function public.conf_add',
      ),
    );
    const wrongArgs = await rpc('conf_add', { body: { a: 1, c: 2 } });
    expect(wrongArgs.json).toEqual(
      pgrstError(
        'PGRST202',
        'Could not find the function public.conf_add(a, c) in the schema cache',
        'Searched for the function public.conf_add with parameters a, c or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.',
        'Perhaps you meant to call the function public.conf_add(a, b)',
      ),
    );
    // One unnamed int parameter: PostgREST cannot call it, so it is not in its schema cache.
    const unnamed = await rpc('conf_unnamed_int', { body: { '': 1 } });
    expect(unnamed.status).toBe(404);
    expect(unnamed.json).toMatchObject({
      code: 'PGRST202',
      details:
        'Searched for the function public.conf_unnamed_int with parameter  or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.',
      message: 'Could not find the function public.conf_unnamed_int() in the schema cache',
    });
  });

  it('one unnamed json, text or bytea parameter takes the whole body', async () => {
    expect((await rpc('conf_whole_json', { body: { k: 'v', other: 1 } })).json).toBe('v');
    const text = await rpc('conf_whole_text', {
      raw: 'hi there',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect([text.status, text.json]).toEqual([200, 'got hi there']);
    const bytes = await fetch(`${stack.url}/rest/v1/rpc/conf_byte_sum`, {
      method: 'POST',
      headers: { apikey: stack.publishableKey, 'Content-Type': 'application/octet-stream' },
      body: new Uint8Array([0xff, 0x00, 0x80, 0x01]),
    });
    expect([bytes.status, await bytes.text()]).toEqual([200, '384']);
    const noText = await rpc('conf_add', { raw: 'x', headers: { 'Content-Type': 'text/plain' } });
    expect(noText.status).toBe(404);
    expect(noText.json).toEqual(
      pgrstError(
        'PGRST202',
        'Could not find the function public.conf_add in the schema cache',
        'Searched for the function public.conf_add with a single unnamed text parameter, but no matches were found in the schema cache.',
      ),
    );
  });

  it('takes row-typed, array, variadic and defaulted arguments by POST, GET and form', async () => {
    const row = { id: 9, label: 'zeta', state: 'ONLINE', tags: ['x'] };
    expect((await rpc('conf_row_label', { body: { dev: row } })).json).toBe('zeta:ONLINE');
    expect((await rpc('conf_sum', { body: { nums: [1, 2, 3] } })).json).toBe(6);
    expect((await rpc(`conf_sum?nums=${encodeURIComponent('{1,2,3}')}`)).json).toBe(6);
    expect((await rpc('conf_join', { body: { parts: ['a', 'b'] } })).json).toBe('a+b');
    expect((await rpc('conf_join?parts=a&parts=b&parts=c')).json).toBe('a+b+c');
    expect((await rpc('conf_greet?name=bo')).json).toBe('hello bo');
    expect((await rpc('conf_greet', { body: { name: 'bo', greeting: 'hi' } })).json).toBe('hi bo');
    const form = await rpc('conf_greet', {
      raw: 'name=bo&greeting=hey',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(form.json).toBe('hey bo');
    // Hosted's PostgREST (13+) no longer knows params=single-object: the names still count.
    const ignored = await rpc('conf_add', {
      body: { a: 1, b: 2 },
      headers: { Prefer: 'params=single-object' },
    });
    expect(ignored.json).toBe(3);
  });

  it('answers other methods with 405 PGRST101', async () => {
    const res = await rpc('conf_add', { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(res.json).toEqual(pgrstError('PGRST101', 'Cannot use the DELETE method on RPC'));
  });
});
