// PostgREST's exposed schemas as hosted answers them, on both engines: config.toml's
// `[api] schemas` lists a second schema, chosen by Accept-Profile (reads) or Content-Profile
// (writes and RPC POST), the first listed otherwise; tables, views, embedding and functions
// of the chosen schema, run on its search_path; an unexposed schema refused (PGRST106) and
// never reached by an embed. Plus bulk inserts and upserts under `Prefer: missing=default`:
// the columns' union, each absent key its column's DEFAULT (evaluated for every row).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { ENGINE_KINDS } from '../support/database';
import { devstackPerEngine, fixture, rest as restCall } from './support';

const EXPOSED = 'public, sch_extra, graphql_public';

/**
 * The repository's config.toml with `sch_extra` exposed after `public`, as a project's would;
 * its relative paths (signing keys, seed) made absolute, since the copy lives elsewhere.
 */
function configWithSchemas(dir: string): string {
  const supabase = join(import.meta.dirname, '..', '..', 'supabase');
  const base = readFileSync(join(supabase, 'config.toml'), 'utf8');
  const text = base
    .replace(/^schemas = \[.*\]$/m, 'schemas = ["public", "sch_extra", "graphql_public"]')
    .replaceAll('"./', `"${supabase}/`);
  if (!text.includes('"sch_extra"')) throw new Error('config.toml has no [api] schemas line');
  const path = join(dir, 'config.toml');
  writeFileSync(path, text);
  return path;
}

describe.each(ENGINE_KINDS)('PostgREST schemas conformance (%s)', (kind) => {
  let dir = '';
  // Registered before the devstack's own afterAll, so it runs after the devstack stopped.
  afterAll(() => {
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });
  const stack = devstackPerEngine(
    kind,
    () => {
      dir = mkdtempSync(join(tmpdir(), 'outpost-schemas-'));
      return { configPath: configWithSchemas(dir) };
    },
    fixture('schemas.sql'),
  );

  const rest = (path: string, init: RequestInit = {}) => restCall(stack, path, init);

  it('Accept-Profile reads the table of that schema; without one, the first schema listed', async () => {
    const extra = await rest('sch_people?order=id', { headers: { 'Accept-Profile': 'sch_extra' } });
    expect(extra.status).toBe(200);
    expect(extra.headers.get('content-profile')).toBe('sch_extra');
    expect(await extra.json()).toEqual([
      { id: 1, name: 'ada', mood: 'busy' },
      { id: 2, name: 'lin', mood: 'calm' },
    ]);
    // A read takes Accept-Profile only: Content-Profile on a GET changes nothing.
    const plain = await rest('sch_people?order=id', {
      headers: { 'Content-Profile': 'sch_extra' },
    });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-profile')).toBe('public');
    expect(await plain.json()).toEqual([{ id: 1, name: 'public-only' }]);
  });

  it('views and embedding follow the chosen schema; HEAD counts there', async () => {
    const view = await rest('calm_people', { headers: { 'Accept-Profile': 'sch_extra' } });
    expect(view.status).toBe(200);
    expect(await view.json()).toEqual([{ id: 2, name: 'lin' }]);
    const embedded = await rest('sch_notes?select=body,sch_people(name,mood)&order=id', {
      headers: { 'Accept-Profile': 'sch_extra' },
    });
    expect(embedded.status).toBe(200);
    expect(await embedded.json()).toEqual([
      { body: 'first', sch_people: { name: 'ada', mood: 'busy' } },
      { body: 'second', sch_people: { name: 'ada', mood: 'busy' } },
    ]);
    const head = await rest('sch_people', {
      method: 'HEAD',
      headers: { 'Accept-Profile': 'sch_extra', Prefer: 'count=exact' },
    });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-range')).toBe('0-1/2');
  });

  it('a table of the schema that is missing is PGRST205 naming the schema', async () => {
    const missing = await rest('sch_nowhere_table', { headers: { 'Accept-Profile': 'sch_extra' } });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({
      code: 'PGRST205',
      message: "Could not find the table 'sch_extra.sch_nowhere_table' in the schema cache",
    });
  });

  it('an embed never reaches an unexposed schema, even along a real foreign key', async () => {
    const response = await rest('sch_notes?select=body,secrets(words)', {
      headers: { 'Accept-Profile': 'sch_extra' },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      code: 'PGRST200',
      message:
        "Could not find a relationship between 'sch_notes' and 'secrets' in the schema cache",
      details:
        "Searched for a foreign key relationship between 'sch_notes' and 'secrets' in the schema 'sch_extra', but no matches were found.",
    });
  });

  it("RPC runs the schema's function on its search_path: Content-Profile on POST, Accept-Profile on GET", async () => {
    const post = await rest('rpc/people_mood', {
      method: 'POST',
      headers: { 'Content-Profile': 'sch_extra' },
      body: JSON.stringify({ name_param: 'ada' }),
    });
    expect(post.status).toBe(200);
    expect(post.headers.get('content-profile')).toBe('sch_extra');
    expect(await post.json()).toBe('busy');
    // Unqualified `sch_people` inside the function: the request's schema comes first.
    const get = await rest('rpc/people_count', { headers: { 'Accept-Profile': 'sch_extra' } });
    expect(get.status).toBe(200);
    expect(await get.json()).toBe(2);
    // Without the profile the function is not in `public`.
    const none = await rest('rpc/people_count', { method: 'POST', body: '{}' });
    expect(none.status).toBe(404);
    expect(await none.json()).toMatchObject({
      code: 'PGRST202',
      message:
        'Could not find the function public.people_count without parameters in the schema cache',
    });
  });

  it('writes go to the schema Content-Profile names; Accept-Profile on a write changes nothing', async () => {
    const created = await rest('sch_people', {
      method: 'POST',
      headers: { 'Content-Profile': 'sch_extra', Prefer: 'return=representation' },
      body: JSON.stringify({ name: 'new' }),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('content-profile')).toBe('sch_extra');
    expect(await created.json()).toEqual([{ id: 51, name: 'new', mood: 'calm' }]);
    const patched = await rest('sch_people?id=eq.51', {
      method: 'PATCH',
      headers: { 'Content-Profile': 'sch_extra', Prefer: 'return=representation' },
      body: JSON.stringify({ mood: 'busy' }),
    });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toEqual([{ id: 51, name: 'new', mood: 'busy' }]);
    const removed = await rest('sch_people?id=eq.51', {
      method: 'DELETE',
      headers: { 'Content-Profile': 'sch_extra' },
    });
    expect(removed.status).toBe(204);
    const toPublic = await rest('sch_people', {
      method: 'POST',
      headers: { 'Accept-Profile': 'sch_extra', Prefer: 'return=representation' },
      body: JSON.stringify({ id: 7, name: 'public-write' }),
    });
    expect(toPublic.status).toBe(201);
    expect(await toPublic.json()).toEqual([{ id: 7, name: 'public-write' }]);
    const { rows } = await stack.db.query<{ n: number }>(
      'select count(*)::int as n from sch_extra.sch_people',
    );
    expect(rows[0]?.n).toBe(2);
  });

  it('only the exposed schemas are served: any other is 406 PGRST106, whatever its grants', async () => {
    const served = await rest('rpc/people_count', {
      method: 'POST',
      headers: { 'Content-Profile': 'sch_extra' },
      body: '{}',
    });
    expect(served.status).toBe(200);
    const expected = {
      code: 'PGRST106',
      details: null,
      hint: `Only the following schemas are exposed: ${EXPOSED}`,
    };
    const read = await rest('secrets', { headers: { 'Accept-Profile': 'sch_hidden' } });
    expect(read.status).toBe(406);
    expect(await read.json()).toEqual({ ...expected, message: 'Invalid schema: sch_hidden' });
    const write = await rest('users', {
      method: 'POST',
      headers: { 'Content-Profile': 'auth' },
      body: JSON.stringify({}),
    });
    expect(write.status).toBe(406);
    expect(await write.json()).toEqual({ ...expected, message: 'Invalid schema: auth' });
    const rpc = await rest('rpc/people_count', {
      method: 'POST',
      headers: { 'Content-Profile': 'storage' },
      body: '{}',
    });
    expect(rpc.status).toBe(406);
    expect(await rpc.json()).toEqual({ ...expected, message: 'Invalid schema: storage' });
  });

  it('missing=default in bulk: the keys union, an absent key its DEFAULT, every default evaluated per row', async () => {
    const response = await rest('sch_channels?select=id,slug,kind', {
      method: 'POST',
      headers: { Prefer: 'missing=default, return=representation, count=exact' },
      body: JSON.stringify([{ id: 100 }, { slug: 's' }, { slug: 'x', kind: null }]),
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('content-range')).toBe('*/3');
    // The sequence (at 10) advances for every row, the one with its own id too, as on hosted.
    expect(await response.json()).toEqual([
      { id: 100, slug: null, kind: 'plain' },
      { id: 12, slug: 's', kind: 'plain' },
      { id: 13, slug: 'x', kind: null },
    ]);
  });

  it('missing=default in a bulk upsert: the met row takes the defaults of the keys it lacks', async () => {
    const response = await rest('sch_upserts', {
      method: 'POST',
      headers: {
        Prefer: 'resolution=merge-duplicates, missing=default, return=representation, count=exact',
      },
      body: JSON.stringify([{ id: 1 }, { slug: 'new' }]),
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('content-range')).toBe('*/2');
    expect(await response.json()).toEqual([
      { id: 1, slug: null, kind: 'odd' },
      { id: 22, slug: 'new', kind: 'plain' },
    ]);
  });
});
