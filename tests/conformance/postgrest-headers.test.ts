// PostgREST's headers as hosted answers them, on both engines: Prefer (tx= under Supabase's
// db-tx-end and with the override allowed in the database, handling=strict, max-affected,
// return=headers-only and Location, upsert statuses, missing=default, count=planned and
// estimated, timezone) with Preference-Applied, Range and its 416s, and the media types
// (CSV out and in, nulls=stripped, GeoJSON without PostGIS, explain plans off and on, an
// unknown Accept). Plus one database fact: `extensions` on role postgres's search_path.
import { beforeAll, describe, expect, it } from 'vitest';

import { ENGINE_KINDS } from '../support/database';
import { devstackPerEngine, fixture, rest as restCall, pgrstError } from './support';

describe.each(ENGINE_KINDS)('PostgREST headers conformance (%s)', (kind) => {
  const stack = devstackPerEngine(kind, {}, fixture('headers.sql'));
  let database = '';

  beforeAll(async () => {
    const { rows } = await stack.db.query<{ name: string }>('select current_database() as name');
    database = rows[0]?.name ?? '';
  });

  const rest = (path: string, init: RequestInit = {}) => restCall(stack, path, init);

  /** PostgREST's in-database config for this database only (other suites share the cluster). */
  async function withDbConfig<T>(name: string, value: string, fn: () => Promise<T>): Promise<T> {
    const role = `alter role authenticator in database "${database}"`;
    await stack.db.exec(`${role} set pgrst.${name} to '${value}'`);
    try {
      return await fn();
    } finally {
      await stack.db.exec(`${role} reset pgrst.${name}`);
    }
  }

  async function labels(filter: string): Promise<string[]> {
    const { rows } = await stack.db.query<{ label: string }>(
      `select label from public.hdr_items where ${filter} order by id`,
    );
    return rows.map((r) => r.label);
  }

  it('tx=rollback is ignored under Supabase db-tx-end=commit: the write commits, not applied', async () => {
    const response = await rest('hdr_items?select=label', {
      method: 'POST',
      headers: { Prefer: 'return=representation, tx=rollback' },
      body: JSON.stringify({ label: 'kept' }),
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('preference-applied')).toBe('return=representation');
    expect(await response.json()).toEqual([{ label: 'kept' }]);
    expect(await labels(`label = 'kept'`)).toEqual(['kept']);
  });

  it('with db_tx_end commit-allow-override, tx=rollback answers the write and undoes it', async () => {
    await withDbConfig('db_tx_end', 'commit-allow-override', async () => {
      const response = await rest('hdr_items?select=label', {
        method: 'POST',
        headers: { Prefer: 'return=representation,tx=rollback' },
        body: JSON.stringify([{ label: 'undone' }]),
      });
      expect(response.status).toBe(201);
      expect(response.headers.get('preference-applied')).toBe('return=representation, tx=rollback');
      expect(await response.json()).toEqual([{ label: 'undone' }]);
      expect(await labels(`label = 'undone'`)).toEqual([]);

      const commit = await rest('hdr_items?id=eq.3', {
        method: 'PATCH',
        headers: { Prefer: 'tx=commit' },
        body: JSON.stringify({ note: 'committed' }),
      });
      expect(commit.status).toBe(204);
      expect(commit.headers.get('preference-applied')).toBe('tx=commit');
      expect(await labels(`note = 'committed'`)).toEqual(['gamma']);
    });
  });

  it('handling=strict refuses an unknown preference (PGRST122); lenient ignores it', async () => {
    const strict = await rest('hdr_items?select=id&id=eq.1', {
      headers: { Prefer: 'handling=strict, count=none, foo' },
    });
    expect(strict.status).toBe(400);
    expect(await strict.json()).toEqual(
      pgrstError(
        'PGRST122',
        'Invalid preferences given with handling=strict',
        'Invalid preferences: count=none, foo',
      ),
    );
    const lenient = await rest('hdr_items?select=id&id=eq.1', {
      headers: { Prefer: 'handling=lenient, foo=bar, count=exact' },
    });
    expect(lenient.status).toBe(200);
    expect(lenient.headers.get('preference-applied')).toBe('count=exact, handling=lenient');
    expect(lenient.headers.get('content-range')).toBe('0-0/1');
  });

  it('max-affected with handling=strict refuses a write that changes more rows (PGRST124)', async () => {
    const refused = await rest('hdr_codes?code=in.(a,b)', {
      method: 'PATCH',
      headers: { Prefer: 'handling=strict, max-affected=1' },
      body: JSON.stringify({ name: 'changed' }),
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual(
      pgrstError(
        'PGRST124',
        'Query result exceeds max-affected preference constraint',
        'The query affects 2 rows',
      ),
    );
    const { rows } = await stack.db.query(`select name from public.hdr_codes order by code`);
    expect(rows).toEqual([{ name: 'one' }, { name: 'two' }]);

    const allowed = await rest('hdr_codes?code=eq.a', {
      method: 'DELETE',
      headers: { Prefer: 'handling=strict, max-affected=1, return=minimal' },
    });
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('preference-applied')).toBe(
      'return=minimal, handling=strict, max-affected=1',
    );
    // Without strict handling max-affected is not applied.
    const lenient = await rest('hdr_codes?code=eq.b', {
      method: 'PATCH',
      headers: { Prefer: 'max-affected=0' },
      body: JSON.stringify({ name: 'still' }),
    });
    expect(lenient.status).toBe(204);
    expect(lenient.headers.get('preference-applied')).toBeNull();
  });

  it('max-affected applies to the rows an rpc returns; over the limit its writes roll back', async () => {
    await stack.db.exec(`insert into public.hdr_codes values ('r1', 'x'), ('r2', 'y')`);
    const { rows: before } = await stack.db.query(
      `select code, name from public.hdr_codes order by code`,
    );
    const refused = await rest('rpc/hdr_rename_codes', {
      method: 'POST',
      headers: { Prefer: 'handling=strict, max-affected=1' },
      body: JSON.stringify({ new_name: 'renamed' }),
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { code: string; details: string }).details).toBe(
      `The query affects ${before.length} rows`,
    );
    const { rows: after } = await stack.db.query(
      `select code, name from public.hdr_codes order by code`,
    );
    expect(after).toEqual(before);
    const allowed = await rest('rpc/hdr_rename_codes?select=code&code=eq.none', {
      method: 'POST',
      headers: { Prefer: 'handling=strict, max-affected=1, count=exact' },
      body: JSON.stringify({ new_name: 'renamed' }),
    });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('preference-applied')).toBe(
      'count=exact, handling=strict, max-affected=1',
    );
    expect(
      await stack.db.query(`select name from public.hdr_codes where name = 'renamed'`),
    ).toMatchObject({
      rows: before.map(() => ({ name: 'renamed' })),
    });
  });

  it('return=headers-only answers 201 with a Location of the new row, no body', async () => {
    const response = await rest('hdr_codes', {
      method: 'POST',
      headers: { Prefer: 'return=headers-only' },
      body: JSON.stringify({ code: 'x y', name: 'spaced' }),
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe('/hdr_codes?code=eq.x%20y');
    expect(response.headers.get('content-range')).toBe('*/*');
    expect(await response.text()).toBe('');
  });

  it('upsert: merge-duplicates answers 200 when it only updated, 201 when it inserted', async () => {
    const updated = await rest('hdr_codes', {
      method: 'POST',
      headers: { Prefer: 'resolution=merge-duplicates, return=representation' },
      body: JSON.stringify({ code: 'b', name: 'merged' }),
    });
    expect(updated.status).toBe(200);
    expect(updated.headers.get('preference-applied')).toBe(
      'resolution=merge-duplicates, return=representation',
    );
    expect(await updated.json()).toEqual([{ code: 'b', name: 'merged' }]);
    // A body of the conflict key alone still meets (and returns) the row.
    const keyOnly = await rest('hdr_codes?on_conflict=code', {
      method: 'POST',
      headers: { Prefer: 'resolution=merge-duplicates, return=representation' },
      body: JSON.stringify({ code: 'b' }),
    });
    expect(keyOnly.status).toBe(200);
    expect(await keyOnly.json()).toEqual([{ code: 'b', name: 'merged' }]);
    const inserted = await rest('hdr_codes?on_conflict=code', {
      method: 'POST',
      headers: { Prefer: 'resolution=merge-duplicates' },
      body: JSON.stringify([
        { code: 'b', name: 'again' },
        { code: 'c', name: 'three' },
      ]),
    });
    expect(inserted.status).toBe(201);
    expect(inserted.headers.get('preference-applied')).toBe('resolution=merge-duplicates');
  });

  it('missing=default gives absent columns their defaults, on one row too', async () => {
    const response = await rest('hdr_items?columns=label,qty&select=label,qty', {
      method: 'POST',
      headers: { Prefer: 'missing=default, return=representation' },
      body: JSON.stringify({ label: 'defaulted' }),
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('preference-applied')).toBe(
      'missing=default, return=representation',
    );
    expect(await response.json()).toEqual([{ label: 'defaulted', qty: 7 }]);
  });

  it('count=planned is the planner estimate; count=estimated is exact below max_rows', async () => {
    const { rows } = await stack.db.query<Record<string, unknown>>(
      'explain (format json) select 1 from public.hdr_items',
    );
    const raw = Object.values(rows[0] ?? {})[0];
    const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as [
      { Plan: { 'Plan Rows': number } },
    ];
    const estimate = plan[0].Plan['Plan Rows'];
    const { rows: real } = await stack.db.query<{ n: number }>(
      'select count(*)::int as n from public.hdr_items',
    );
    const exact = real[0]?.n ?? 0;
    // The fixture's table was never analysed: the planner guesses from its size on disk.
    expect(estimate).not.toBe(exact);

    const planned = await rest('hdr_items?select=id', {
      method: 'HEAD',
      headers: { Prefer: 'count=planned' },
    });
    expect(planned.status).toBe(estimate > exact ? 206 : 200);
    expect(planned.headers.get('content-range')).toBe(`0-${exact - 1}/${estimate}`);
    expect(planned.headers.get('preference-applied')).toBe('count=planned');

    const estimated = await rest('hdr_items?select=id', {
      headers: { Prefer: 'count=estimated' },
    });
    expect(estimated.status).toBe(200);
    expect(estimated.headers.get('content-range')).toBe(`0-${exact - 1}/${exact}`);
  });

  it('a Range past the last row is 416 PGRST103 with the total; an inverted one too', async () => {
    const past = await rest('hdr_codes?select=code', {
      headers: { Prefer: 'count=exact', Range: '10-20', 'Range-Unit': 'items' },
    });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`*/${await codesCount()}`);
    expect(await past.json()).toEqual(
      pgrstError(
        'PGRST103',
        'Requested range not satisfiable',
        `An offset of 10 was requested, but there are only ${await codesCount()} rows.`,
      ),
    );
    const inverted = await rest('hdr_codes?select=code', { headers: { Range: '5-2' } });
    expect(inverted.status).toBe(416);
    expect(await inverted.json()).toEqual(
      pgrstError(
        'PGRST103',
        'Requested range not satisfiable',
        'The lower boundary must be lower than or equal to the upper boundary in the Range header.',
      ),
    );
  });

  async function codesCount(): Promise<number> {
    const { rows } = await stack.db.query<{ n: number }>(
      'select count(*)::int as n from public.hdr_codes',
    );
    return rows[0]?.n ?? 0;
  }

  it('Accept: text/csv answers a header line and Postgres record text per row', async () => {
    const response = await rest('hdr_items?select=id,label,note&id=lte.3&order=id', {
      headers: { Accept: 'text/csv' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(await response.text()).toBe(
      'id,label,note\n1,alpha,\n2,"beta, with comma","has ""quotes"""\n3,gamma,committed',
    );
    const empty = await rest('hdr_items?select=id&id=eq.0', { headers: { Accept: 'text/csv' } });
    expect(await empty.text()).toBe('\n');
  });

  it('a text/csv body inserts its rows; an unquoted NULL is null', async () => {
    const response = await rest('hdr_items?select=label,note,qty', {
      method: 'POST',
      headers: { 'Content-Type': 'text/csv', Prefer: 'return=representation' },
      body: 'label,note,qty\ncsv one,NULL,4\n"csv, two","say ""hi""",5\n',
    });
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual([
      { label: 'csv one', note: null, qty: 4 },
      { label: 'csv, two', note: 'say "hi"', qty: 5 },
    ]);
  });

  it('nulls=stripped drops null members, for arrays and for the single object', async () => {
    const array = await rest('hdr_items?select=id,note&id=eq.1', {
      headers: { Accept: 'application/vnd.pgrst.array+json;nulls=stripped' },
    });
    expect(array.status).toBe(200);
    expect(array.headers.get('content-type')).toBe(
      'application/vnd.pgrst.array+json;nulls=stripped; charset=utf-8',
    );
    expect(await array.json()).toEqual([{ id: 1 }]);
    const object = await rest('hdr_items?select=id,note&id=eq.1', {
      headers: { Accept: 'application/vnd.pgrst.object+json;nulls=stripped' },
    });
    expect(object.status).toBe(200);
    expect(object.headers.get('content-type')).toBe(
      'application/vnd.pgrst.object+json;nulls=stripped; charset=utf-8',
    );
    expect(await object.json()).toEqual({ id: 1 });
  });

  it('application/geo+json without PostGIS is the database error PostgREST passes on', async () => {
    const response = await rest('hdr_items?select=id', {
      headers: { Accept: 'application/geo+json' },
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual(
      pgrstError(
        '42883',
        'function st_asgeojson(record) does not exist',
        null,
        'No function matches the given name and argument types. You might need to add explicit type casts.',
      ),
    );
  });

  it('explain plans are off as on Supabase (406), and on when the database enables them', async () => {
    const off = await rest('hdr_items?select=id', {
      headers: { Accept: 'application/vnd.pgrst.plan' },
    });
    expect(off.status).toBe(406);
    expect(await off.json()).toEqual(
      pgrstError(
        'PGRST107',
        'None of these media types are available: application/vnd.pgrst.plan+text; for="application/json"',
      ),
    );
    await withDbConfig('db_plan_enabled', 'true', async () => {
      const text = await rest('hdr_items?select=id', {
        headers: { Accept: 'application/vnd.pgrst.plan' },
      });
      expect(text.status).toBe(200);
      expect(text.headers.get('content-type')).toBe(
        'application/vnd.pgrst.plan+text; for="application/json"; charset=utf-8',
      );
      expect(await text.text()).toMatch(/^Aggregate {2}\(cost=/);
      const json = await rest('hdr_items?select=id', {
        headers: { Accept: 'application/vnd.pgrst.plan+json; for="text/csv"' },
      });
      expect(json.status).toBe(200);
      expect(json.headers.get('content-type')).toBe(
        'application/vnd.pgrst.plan+json; for="text/csv"; charset=utf-8',
      );
      const plan = (await json.json()) as [{ Plan: { 'Node Type': string } }];
      expect(plan[0].Plan['Node Type']).toBe('Aggregate');
    });
  });

  it('an Accept nothing here produces is 406 PGRST107 naming what was asked', async () => {
    const response = await rest('hdr_items?select=id', {
      headers: { Accept: 'text/unknown, application/xml;q=0.5' },
    });
    expect(response.status).toBe(406);
    expect(await response.json()).toEqual(
      pgrstError(
        'PGRST107',
        'None of these media types are available: text/unknown, application/xml',
      ),
    );
  });

  it('timezone= sets the zone timestamps are written in; an unknown zone is 400', async () => {
    const response = await rest('hdr_items?select=seen_at&id=eq.1', {
      headers: { Prefer: 'timezone=America/Los_Angeles' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('preference-applied')).toBe('timezone=America/Los_Angeles');
    expect(await response.json()).toEqual([{ seen_at: '2024-01-01T19:04:05-08:00' }]);
    const unknown = await rest('hdr_items?select=seen_at&id=eq.1', {
      headers: { Prefer: 'timezone=Nowhere/Else' },
    });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { code: string }).code).toBe('22023');
  });

  it('Accept-Profile on reads, Content-Profile on writes; an unexposed schema is PGRST106', async () => {
    const read = await rest('hdr_codes?select=code&limit=1', {
      headers: { 'Accept-Profile': 'public' },
    });
    expect(read.status).toBe(200);
    expect(read.headers.get('content-profile')).toBe('public');
    const hidden = await rest('hdr_codes?select=code', { headers: { 'Accept-Profile': 'auth' } });
    expect(hidden.status).toBe(406);
    expect(await hidden.json()).toEqual(
      pgrstError(
        'PGRST106',
        'Invalid schema: auth',
        null,
        'Only the following schemas are exposed: public',
      ),
    );
    // A write reads Content-Profile only: an Accept-Profile on it changes nothing.
    const write = await rest('hdr_codes', {
      method: 'POST',
      headers: { 'Accept-Profile': 'auth' },
      body: JSON.stringify({ code: 'p', name: 'profiled' }),
    });
    expect(write.status).toBe(201);
    const refused = await rest('hdr_codes', {
      method: 'POST',
      headers: { 'Content-Profile': 'auth' },
      body: JSON.stringify({ code: 'q', name: 'refused' }),
    });
    expect(refused.status).toBe(406);
    expect(((await refused.json()) as { code: string }).code).toBe('PGRST106');
  });

  it('role postgres has extensions on its search_path, as every Supabase database', async () => {
    const { rows } = await stack.db.query<{ config: string[] }>(
      `select setconfig::text[] as config from pg_db_role_setting
        where setrole = (select oid from pg_roles where rolname = 'postgres') and setdatabase = 0`,
    );
    expect(rows[0]?.config).toEqual(['search_path="$user", public, extensions']);
  });
});
