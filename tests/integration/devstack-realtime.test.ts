// The Realtime service through unmodified supabase-js on both engines: postgres_changes under
// each subscriber's RLS (member hears, non-member does not, filters narrow), presence,
// broadcast (self, ack, vsn 1.0.0 and 2.0.0), access-token updates and expiry, refused
// sockets, and a client that rejoins after the server restarts on the same port. Nothing
// waits for time to pass: token expiry moves the devstack's clock, "nothing arrives" is
// proven by a later message on the same socket that does arrive, and a restarted server is
// rejoined as fast as the client is told to retry.
import { performance } from 'node:perf_hooks';

import {
  createClient,
  type RealtimeChannel,
  type RealtimePostgresChangesPayload,
  type SupabaseClient,
} from '@supabase/supabase-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';

import type { Keys } from '../../devstack/keys';
import { runAsCaller } from '../../devstack/request-db';
import type { SqlEngine } from '../../devstack/sql-engine';
import { ENGINE_KINDS, testId } from '../support/database';
import { SEED, startTestDevstack, TestClock, type TestDevstack } from '../support/devstack';
import { roundTrip, subscribed, waitFor, REALTIME_WAIT_MS } from '../support/realtime';

/** A non-member of the seed list, who owns a list of their own. */
const STRANGER = 'c0ffee00-0000-4000-8000-0000000000c1';
const OTHER_LIST = '11570000-0000-4000-8000-0000000000c2';
/**
 * realtime-js's reconnect delay for these tests' clients (its default backs off 1, 2, 5, 10 s):
 * a restarted server is found within this of listening again.
 */
const RECONNECT_MS = 25;

type Row = Record<string, unknown>;
type Change = RealtimePostgresChangesPayload<Row>;

/** The new record of a change (INSERT/UPDATE), loosely typed for assertions. */
const rowOf = (change: Change | undefined): Row => change?.new ?? {};

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

function newTaskSql(engine: SqlEngine, id: string, listId: string, title: string, by: string) {
  return engine.query(
    `insert into public.tasks (id, list_id, title, position, created_by)
     values ($1, $2, $3, 'a0', $4)`,
    [id, listId, title, by],
  );
}

describe.each(ENGINE_KINDS)('devstack realtime on %s', (kind) => {
  const clock = new TestClock();
  let stack: TestDevstack;
  let keys: Keys;
  const latencies: number[] = [];

  /** A token on the devstack's clock, expiring `expiresInSec` from its now. */
  function userJwt(sub: string, expiresInSec = 3600): Promise<string> {
    return keys.sign({ sub, role: 'authenticated', aud: 'authenticated' }, expiresInSec);
  }

  /** The clients of the running test (each test closes its own). */
  let clients: SupabaseClient[] = [];

  /** A supabase-js client whose realtime connection carries `jwt`. */
  async function realtimeClient(jwt: string, vsn?: '1.0.0'): Promise<SupabaseClient> {
    const client = createClient(stack.url, stack.publishableKey, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      realtime: {
        transport: WebSocket as unknown as typeof globalThis.WebSocket,
        reconnectAfterMs: () => RECONNECT_MS,
        ...(vsn ? { vsn } : {}),
      },
    });
    await client.realtime.setAuth(jwt);
    clients.push(client);
    return client;
  }

  let probeId = 0;
  /**
   * A channel on tasks that records every change it hears, plus every row of the probe table
   * (readable by all), so `quiet()` can prove that nothing else is on its way.
   */
  async function taskListener(client: SupabaseClient, name: string, filter?: string) {
    const heard: { at: number; change: Change }[] = [];
    const probes: unknown[] = [];
    const channel = client
      .channel(name)
      .on(
        'postgres_changes',
        { event: '*', schema: 'public', table: 'tasks', ...(filter ? { filter } : {}) },
        (change: Change) => heard.push({ at: performance.now(), change }),
      )
      .on(
        'postgres_changes',
        { event: 'INSERT', schema: 'public', table: 'realtime_probe' },
        (change: Change) => probes.push(rowOf(change).id),
      );
    await subscribed(channel);
    return { channel, heard, probes };
  }

  /**
   * Returns once every listener has heard a probe row written after everything before: changes
   * are delivered in commit order, one subscriber's on one socket, so a change a listener has
   * not heard by then never reaches it.
   */
  async function quiet(...listeners: { probes: unknown[] }[]): Promise<void> {
    probeId += 1;
    const id = probeId;
    await stack.db.query('insert into public.realtime_probe (id) values ($1)', [id]);
    await waitFor(
      () => listeners.every((l) => l.probes.includes(id)),
      REALTIME_WAIT_MS,
      `probe ${id}`,
    );
  }

  beforeAll(async () => {
    stack = await startTestDevstack(kind, { clock });
    keys = stack.keys;
    // The probe table quiet() writes to: published, no RLS, readable by every role.
    await stack.db.exec(
      `create table public.realtime_probe (id int primary key);
       grant select on public.realtime_probe to anon, authenticated;
       alter publication supabase_realtime add table public.realtime_probe;`,
    );
    await stack.db.query(
      `insert into auth.users (id, aud, role, email, raw_user_meta_data, created_at, updated_at)
       values ($1, 'authenticated', 'authenticated', 'stranger@example.com',
               '{"display_name":"Stranger"}', now(), now())`,
      [STRANGER],
    );
    await stack.db.query(
      `insert into public.lists (id, name, created_by) values ($1, 'Stranger things', $2)`,
      [OTHER_LIST, STRANGER],
    );
  });

  afterEach(async () => {
    for (const client of clients) {
      await client.removeAllChannels();
      await client.realtime.disconnect();
    }
    clients = [];
  });

  afterAll(async () => {
    await stack?.stop();
    if (latencies.length > 0) {
      console.info(
        `[realtime ${kind}] commit→event over ${latencies.length} events: ` +
          `p50 ${percentile(latencies, 50).toFixed(1)} ms, ` +
          `p95 ${percentile(latencies, 95).toFixed(1)} ms, ` +
          `max ${Math.max(...latencies).toFixed(1)} ms`,
      );
    }
  });

  it('delivers INSERT and UPDATE to a member, in order, nothing to a non-member', async () => {
    const alice = await taskListener(
      await realtimeClient(await userJwt(SEED.alice)),
      'alice-tasks',
      `list_id=eq.${SEED.list}`,
    );
    const stranger = await taskListener(await realtimeClient(await userJwt(STRANGER)), 'str');
    const anon = await taskListener(await realtimeClient(stack.publishableKey), 'anon-tasks');
    const otherList = await taskListener(
      await realtimeClient(await userJwt(SEED.alice)),
      'alice-other',
      `list_id=eq.${OTHER_LIST}`,
    );

    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      // Half written as the superuser, half by alice through RLS as the REST service would.
      const id = testId('ee5c');
      ids.push(id);
      const before = alice.heard.length;
      const start = performance.now();
      if (i % 2 === 0) {
        await newTaskSql(stack.db, id, SEED.list, `Realtime task ${i}`, SEED.alice);
      } else {
        await runAsCaller(
          stack.db,
          'authenticated',
          { sub: SEED.alice, role: 'authenticated' },
          undefined,
          (tx) =>
            tx.query(
              `insert into public.tasks (id, list_id, title, position) values ($1, $2, $3, 'a0')`,
              [id, SEED.list, `Realtime task ${i}`],
            ),
        );
      }
      await waitFor(() => alice.heard.length > before, REALTIME_WAIT_MS, `INSERT ${i}`);
      latencies.push((alice.heard[before]?.at ?? Infinity) - start);
    }
    for (const [i, id] of ids.entries()) {
      const before = alice.heard.length;
      const start = performance.now();
      await stack.db.query(`update public.tasks set status = 'doing' where id = $1`, [id]);
      await waitFor(() => alice.heard.length > before, REALTIME_WAIT_MS, `UPDATE ${i}`);
      latencies.push((alice.heard[before]?.at ?? Infinity) - start);
    }

    const inserts = alice.heard.filter((h) => h.change.eventType === 'INSERT');
    const updates = alice.heard.filter((h) => h.change.eventType === 'UPDATE');
    expect(inserts.map((h) => rowOf(h.change).id)).toEqual(ids);
    expect(updates.map((h) => rowOf(h.change).id)).toEqual(ids);
    const insert = inserts[0]?.change;
    expect(insert).toMatchObject({
      schema: 'public',
      table: 'tasks',
      eventType: 'INSERT',
      errors: null,
      old: {},
      new: { id: ids[0], list_id: SEED.list, title: 'Realtime task 0', status: 'todo' },
    });
    expect(insert?.commit_timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(typeof rowOf(insert).version).toBe('number');
    expect(updates[0]?.change).toMatchObject({
      eventType: 'UPDATE',
      new: { id: ids[0], status: 'doing' },
      old: { id: ids[0] },
    });
    expect(Object.keys(updates[0]?.change.old ?? {})).toEqual(['id']);

    // Latency is a figure (printed after the suite), not a check: a busy machine stretches
    // it; `npm run bench` (devstack.bench.ts) measures it on an idle one.

    await quiet(stranger, anon, otherList);
    expect(stranger.heard).toEqual([]);
    expect(anon.heard).toEqual([]);
    expect(otherList.heard).toEqual([]);

    // A task on the stranger's own list: the stranger hears it; alice hears it neither on
    // her seed-list filter nor on her other-list filter (she is not a member of that list).
    const own = testId('ee5c');
    await newTaskSql(stack.db, own, OTHER_LIST, 'Stranger task', STRANGER);
    await waitFor(() => stranger.heard.length === 1, REALTIME_WAIT_MS, "the stranger's own task");
    expect(stranger.heard[0]?.change.new).toMatchObject({ id: own, list_id: OTHER_LIST });
    await quiet(alice, otherList);
    expect(otherList.heard).toEqual([]);
    expect(alice.heard.length).toBe(ids.length * 2);
  });

  it('sends DELETE with the old primary key only, and honours event and eq/in filters', async () => {
    const client = await realtimeClient(await userJwt(SEED.alice));
    const deletes: Change[] = [];
    const doing: Change[] = [];
    const channel = client
      .channel('alice-deletes')
      .on('postgres_changes', { event: 'DELETE', schema: 'public', table: 'tasks' }, (c: Change) =>
        deletes.push(c),
      )
      .on(
        'postgres_changes',
        { event: 'UPDATE', schema: 'public', table: 'tasks', filter: 'status=in.(doing,done)' },
        (c: Change) => doing.push(c),
      );
    await subscribed(channel);
    const id = testId('ee5c');
    await newTaskSql(stack.db, id, SEED.list, 'Short-lived', SEED.alice);
    await stack.db.query(`update public.tasks set priority = 2 where id = $1`, [id]);
    await stack.db.query(`update public.tasks set status = 'doing' where id = $1`, [id]);
    // Rows are read when the change is delivered (not as of the change), so the priority
    // update may be read after the status update and match too; let it arrive before deleting.
    await waitFor(() => doing.length >= 1, REALTIME_WAIT_MS, 'update');
    await stack.db.query(`delete from public.tasks where id = $1`, [id]);
    await waitFor(() => deletes.length === 1, REALTIME_WAIT_MS, 'delete');
    expect(deletes[0]).toMatchObject({ eventType: 'DELETE', old: { id }, new: {} });
    expect(Object.keys(deletes[0]?.old ?? {})).toEqual(['id']);
    expect(doing.length).toBeLessThanOrEqual(2);
    for (const change of doing) expect(change.new).toMatchObject({ id, status: 'doing' });
  });

  it('syncs presence state and diffs between two clients', async () => {
    const a = (await realtimeClient(await userJwt(SEED.alice))).channel('room-presence', {
      config: { presence: { key: 'alice' } },
    });
    const b = (await realtimeClient(await userJwt(SEED.bob))).channel('room-presence', {
      config: { presence: { key: 'bob' } },
    });
    const leftSeenByA: string[] = [];
    const joinedSeenByB: string[] = [];
    a.on('presence', { event: 'leave' }, ({ key }: { key: string }) => leftSeenByA.push(key));
    b.on('presence', { event: 'join' }, ({ key }: { key: string }) => joinedSeenByB.push(key));
    await subscribed(a);
    expect(await a.track({ status: 'online' })).toBe('ok');
    await subscribed(b);
    expect(await b.track({ status: 'busy' })).toBe('ok');

    await waitFor(
      () => Object.keys(a.presenceState()).length === 2,
      REALTIME_WAIT_MS,
      'a sees both',
    );
    await waitFor(
      () => Object.keys(b.presenceState()).length === 2,
      REALTIME_WAIT_MS,
      'b sees both',
    );
    expect(joinedSeenByB.sort()).toEqual(['alice', 'bob']); // alice from state, bob from diff
    const bobSeenByA = a.presenceState<{ status?: string }>().bob;
    expect(bobSeenByA).toHaveLength(1);
    expect(bobSeenByA?.[0]?.status).toBe('busy');
    expect(typeof bobSeenByA?.[0]?.presence_ref).toBe('string');

    // Re-tracking replaces the meta instead of adding a second one.
    expect(await b.track({ status: 'away' })).toBe('ok');
    await waitFor(
      () => a.presenceState<{ status?: string }>().bob?.[0]?.status === 'away',
      REALTIME_WAIT_MS,
      'update',
    );
    expect(a.presenceState().bob).toHaveLength(1);

    expect(await b.untrack()).toBe('ok');
    await waitFor(() => a.presenceState().bob === undefined, REALTIME_WAIT_MS, 'untrack');
    expect(await b.track({ status: 'back' })).toBe('ok');
    await waitFor(
      () => a.presenceState<{ status?: string }>().bob?.[0]?.status === 'back',
      REALTIME_WAIT_MS,
      'retrack',
    );
    await b.unsubscribe();
    await waitFor(
      () => a.presenceState().bob === undefined,
      REALTIME_WAIT_MS,
      'leave on unsubscribe',
    );
    expect(leftSeenByA).toContain('bob');
  });

  it('broadcasts to others, to self only with self: true, acks with ack: true', async () => {
    const heard: Record<string, unknown[]> = { a: [], b: [], c: [], v1: [] };
    const listen = (who: string, channel: RealtimeChannel) =>
      channel.on('broadcast', { event: 'cursor' }, (msg: unknown) => heard[who]?.push(msg));
    const a = listen('a', (await realtimeClient(await userJwt(SEED.alice))).channel('room-b'));
    const b = listen('b', (await realtimeClient(await userJwt(SEED.bob))).channel('room-b'));
    const c = listen(
      'c',
      (await realtimeClient(stack.publishableKey)).channel('room-b', {
        config: { broadcast: { self: true, ack: true } },
      }),
    );
    const v1 = listen(
      'v1',
      (await realtimeClient(stack.publishableKey, '1.0.0')).channel('room-b'),
    );
    await Promise.all([a, b, c, v1].map((ch) => subscribed(ch)));

    expect(await a.send({ type: 'broadcast', event: 'cursor', payload: { x: 1 } })).toBe('ok');
    await waitFor(() => heard.b?.length === 1 && heard.c?.length === 1 && heard.v1?.length === 1);
    expect(heard.b?.[0]).toEqual({ type: 'broadcast', event: 'cursor', payload: { x: 1 } });
    expect(heard.v1?.[0]).toEqual(heard.b?.[0]);

    expect(await c.send({ type: 'broadcast', event: 'cursor', payload: { x: 2 } })).toBe('ok');
    await waitFor(() => heard.c?.length === 2 && heard.a?.length === 1 && heard.b?.length === 2);

    expect(await v1.send({ type: 'broadcast', event: 'cursor', payload: { x: 3 } })).toBe('ok');
    await waitFor(() => heard.a?.length === 2 && heard.b?.length === 3 && heard.c?.length === 3);
    expect(heard.a?.[1]).toEqual({ type: 'broadcast', event: 'cursor', payload: { x: 3 } });

    // Raw bytes travel as binary frames to vsn 2.0.0 clients; vsn 1.0.0 cannot carry them.
    const bytes = new Uint8Array([1, 2, 250]).buffer;
    expect(await a.send({ type: 'broadcast', event: 'cursor', payload: bytes })).toBe('ok');
    await waitFor(() => heard.b?.length === 4 && heard.c?.length === 4, REALTIME_WAIT_MS, 'binary');
    const binary = heard.b?.[3] as { event?: string; payload?: unknown };
    expect(binary.event).toBe('cursor');
    expect(binary.payload).toBeInstanceOf(ArrayBuffer);
    expect([...new Uint8Array(binary.payload as ArrayBuffer)]).toEqual([1, 2, 250]);

    // Other events are not delivered to 'cursor' listeners; a sender without self never hears
    // itself. The server handles a's messages in order, so once v1 hears a's next cursor, the
    // 'other' event (and any echo of either to a) has been sent; once a hears b's cursor after
    // that, on the same socket as any echo, nothing more is coming.
    await a.send({ type: 'broadcast', event: 'other', payload: {} });
    expect(await a.send({ type: 'broadcast', event: 'cursor', payload: { x: 4 } })).toBe('ok');
    await waitFor(() => heard.v1?.length === 3, REALTIME_WAIT_MS, "v1 hears a's next cursor");
    expect(heard.v1?.[2]).toEqual({ type: 'broadcast', event: 'cursor', payload: { x: 4 } });
    expect(await b.send({ type: 'broadcast', event: 'cursor', payload: { x: 5 } })).toBe('ok');
    await waitFor(
      () => (heard.a?.length ?? 0) >= 3 && (heard.v1?.length ?? 0) >= 4,
      REALTIME_WAIT_MS,
      "a and v1 hear b's cursor",
    );
    const cursor = (x: number) => ({ type: 'broadcast', event: 'cursor', payload: { x } });
    expect(heard.a).toEqual([cursor(2), cursor(3), cursor(5)]);
    expect(heard.v1).toEqual([cursor(1), cursor(2), cursor(4), cursor(5)]);
  });

  it('applies access_token updates: a non-member becomes a member, an expired token closes', async () => {
    const client = await realtimeClient(await userJwt(STRANGER));
    const statuses: string[] = [];
    const system: unknown[] = [];
    const heard: Change[] = [];
    const probes: unknown[] = [];
    const channel = client
      .channel('token-swap')
      .on(
        'postgres_changes',
        { event: 'INSERT', schema: 'public', table: 'tasks', filter: `list_id=eq.${SEED.list}` },
        (c: Change) => heard.push(c),
      )
      .on(
        'postgres_changes',
        { event: 'INSERT', schema: 'public', table: 'realtime_probe' },
        (c: Change) => probes.push(rowOf(c).id),
      )
      .on('system', {}, (payload: unknown) => system.push(payload));
    await subscribed(channel, statuses);

    await newTaskSql(stack.db, testId('ee5c'), SEED.list, 'Before the swap', SEED.alice);
    await quiet({ probes });
    expect(heard).toEqual([]);

    await client.realtime.setAuth(await userJwt(SEED.alice));
    await roundTrip(client); // the access_token push has no reply of its own
    const id = testId('ee5c');
    await newTaskSql(stack.db, id, SEED.list, 'After the swap', SEED.alice);
    await waitFor(() => heard.length === 1, REALTIME_WAIT_MS, 'event after token swap');
    expect(rowOf(heard[0]).id).toBe(id);

    await client.realtime.setAuth(await userJwt(SEED.alice, -10));
    await waitFor(
      () => statuses.includes('CLOSED'),
      REALTIME_WAIT_MS,
      'CLOSED after expired token',
    );
    expect(system).toContainEqual(
      expect.objectContaining({
        extension: 'system',
        status: 'error',
        message: 'InvalidJWTToken: Token has expired 10 seconds ago',
      }),
    );
  });

  it('shuts a channel down when its token expires on the devstack clock', async () => {
    const client = await realtimeClient(await userJwt(SEED.alice, 60));
    const statuses: string[] = [];
    const system: { message?: string }[] = [];
    const channel = client
      .channel('short-token')
      .on('system', {}, (payload: { message?: string }) => system.push(payload));
    await subscribed(channel, statuses);
    // A second short of exp it is still open (a heartbeat later, nothing has closed it).
    clock.advance(59_000);
    await roundTrip(client);
    expect(statuses).not.toContain('CLOSED');
    clock.advance(1_000);
    await waitFor(() => statuses.includes('CLOSED'), REALTIME_WAIT_MS, 'expiry shutdown');
    expect(system.map((s) => s.message)).toContainEqual('Token has expired 0 seconds ago');
  });

  it('refuses bad tokens at join and bad apikeys at the socket', async () => {
    const client = await realtimeClient('not-a-jwt');
    const channel = client.channel('bad-token');
    await expect(subscribed(channel)).rejects.toThrow(/InvalidJWTToken/);
    await client.removeChannel(channel);

    const expired = await realtimeClient(await userJwt(SEED.alice, -60));
    await expect(subscribed(expired.channel('expired'))).rejects.toThrow(
      /Token has expired 60 seconds ago/,
    );

    const wsUrl = stack.url.replace(/^http/, 'ws');
    const status = (url: string) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(url);
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('open', () => {
          ws.close();
          resolve(101);
        });
        ws.on('error', () => resolve(-1));
      });
    expect(await status(`${wsUrl}/realtime/v1/websocket?vsn=2.0.0`)).toBe(401);
    expect(await status(`${wsUrl}/realtime/v1/websocket?apikey=nope&vsn=2.0.0`)).toBe(403);
    expect(
      await status(`${wsUrl}/realtime/v1/websocket?apikey=${stack.publishableKey}&vsn=9`),
    ).toBe(400);
    expect(await status(`${wsUrl}/elsewhere?apikey=${stack.publishableKey}`)).toBe(-1);
    expect(
      await status(`${wsUrl}/realtime/v1/websocket?apikey=${stack.publishableKey}&vsn=2.0.0`),
    ).toBe(101);
  });

  it('survives malformed frames and answers heartbeats and unmatched topics', async () => {
    const ws = new WebSocket(
      `${stack.url.replace(/^http/, 'ws')}/realtime/v1/websocket?apikey=${stack.publishableKey}&vsn=2.0.0`,
    );
    const frames: unknown[] = [];
    ws.on('message', (data: Buffer) => frames.push(JSON.parse(data.toString()) as unknown));
    await new Promise((resolve) => ws.once('open', resolve));
    ws.send('not json');
    ws.send('{"an":"object"}');
    ws.send(Buffer.from([3, 200, 0, 0, 0, 0, 1]), { binary: true }); // truncated kind 3
    ws.send(Buffer.from([9]), { binary: true });
    ws.send(
      JSON.stringify(['1', '1', 'realtime:x', 'phx_join', { config: { postgres_changes: 5 } }]),
    );
    ws.send(JSON.stringify([null, '2', 'realtime:nope', 'broadcast', {}]));
    ws.send(JSON.stringify([null, '3', 'phoenix', 'heartbeat', {}]));
    await waitFor(() => frames.length === 3, REALTIME_WAIT_MS, 'three replies');
    expect(frames).toEqual([
      [
        '1',
        '1',
        'realtime:x',
        'phx_reply',
        { status: 'error', response: { reason: 'postgres_changes must be a list' } },
      ],
      [
        null,
        '2',
        'realtime:nope',
        'phx_reply',
        {
          status: 'error',
          response: { reason: 'unmatched topic' },
        },
      ],
      [null, '3', 'phoenix', 'phx_reply', { status: 'ok', response: {} }],
    ]);
    ws.close();
  });

  // Last: it restarts the stack (on the same database).
  it('rejoins after the server restarts on the same port and hears changes again', async () => {
    const client = await realtimeClient(await userJwt(SEED.alice));
    const statuses: string[] = [];
    const heard: Change[] = [];
    const channel = client
      .channel('restart')
      .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'tasks' }, (c: Change) =>
        heard.push(c),
      );
    await subscribed(channel, statuses);
    await newTaskSql(stack.db, testId('ee5c'), SEED.list, 'Before restart', SEED.alice);
    await waitFor(() => heard.length === 1, REALTIME_WAIT_MS, 'event before restart');

    const port = stack.port;
    await stack.restart();
    expect(stack.port).toBe(port);
    await waitFor(
      () => statuses.includes('CHANNEL_ERROR'),
      REALTIME_WAIT_MS,
      'error on disconnect',
    );
    // realtime-js reconnects every RECONNECT_MS and rejoins its channels on open.
    await waitFor(
      () => statuses.filter((s) => s === 'SUBSCRIBED').length === 2,
      REALTIME_WAIT_MS,
      'rejoin',
    );

    const id = testId('ee5c');
    await newTaskSql(stack.db, id, SEED.list, 'After restart', SEED.alice);
    await waitFor(() => heard.length === 2, REALTIME_WAIT_MS, 'event after restart');
    expect(rowOf(heard[1]).id).toBe(id);
  });
});

describe.each(ENGINE_KINDS)('a devstack just started, on %s', (kind) => {
  let stack: TestDevstack | undefined;
  let client: SupabaseClient | undefined;

  afterAll(async () => {
    await client?.removeAllChannels();
    await stack?.stop();
  });

  // The devstack installs its broadcast trigger after it starts listening for requests: a
  // join's reply must wait for it, or a message committed after SUBSCRIBED is never sent.
  it('delivers the first message committed after the first join is answered', async () => {
    stack = await startTestDevstack(kind, { seed: false });
    client = createClient(stack.url, stack.publishableKey, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      realtime: { transport: WebSocket as unknown as typeof globalThis.WebSocket },
    });
    const heard: unknown[] = [];
    const channel = client
      .channel('first')
      .on('broadcast', { event: 'hello' }, (message: { payload?: unknown }) =>
        heard.push(message.payload),
      );
    await subscribed(channel);
    await stack.db.query(`select realtime.send('{"n":1}'::jsonb, 'hello', 'first', false)`);
    await waitFor(() => heard.length === 1, REALTIME_WAIT_MS, 'the first message');
    expect(heard).toEqual([expect.objectContaining({ n: 1 })]);
  });
});
