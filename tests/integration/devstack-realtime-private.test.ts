// Realtime Authorization (private channels) and broadcast from the database, through
// unmodified supabase-js on both engines. The suite's own RLS policies on realtime.messages
// (a member table it creates as superuser) decide: refused joins carry hosted's reason,
// realtime.send and realtime.broadcast_changes reach allowed private subscribers only (never
// the public channel of the same name, and public messages never the private one), writes
// without permission go nowhere, presence obeys read and write, a token that loses read
// closes the channel, each message is read from the database once, and old messages go after
// 3 days on the devstack's clock. "Nothing arrives" is proven by a later message on the same
// socket that does arrive: the server sends each socket's frames in order.
import { randomUUID } from 'node:crypto';

import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';

import type { Keys } from '../../devstack/keys';
import { ENGINE_KINDS } from '../support/database';
import { startTestDevstack, TestClock, type TestDevstack } from '../support/devstack';
import {
  rawSocket,
  refusal,
  roundTrip,
  subscribed,
  waitFor,
  type Heard,
  REALTIME_WAIT_MS,
  closeRealtime,
  privateJoin,
} from '../support/realtime';

describe.each(ENGINE_KINDS)('devstack realtime private channels on %s', (kind) => {
  const clock = new TestClock();
  let stack: TestDevstack;
  let keys: Keys;
  const clients: SupabaseClient[] = [];

  function userJwt(sub: string, expiresInSec = 3600): Promise<string> {
    return keys.sign({ sub, role: 'authenticated', aud: 'authenticated' }, expiresInSec);
  }

  /** A supabase-js client whose realtime connection carries `jwt` (the anon key if none). */
  async function realtimeClient(jwt?: string): Promise<SupabaseClient> {
    const client = createClient(stack.url, stack.publishableKey, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      realtime: { transport: WebSocket as unknown as typeof globalThis.WebSocket },
    });
    if (jwt) await client.realtime.setAuth(jwt);
    clients.push(client);
    return client;
  }

  /** A user with a fresh id and a client signed in as them. */
  async function user(): Promise<{ id: string; client: SupabaseClient }> {
    const id = randomUUID();
    return { id, client: await realtimeClient(await userJwt(id)) };
  }

  /** Grants a user rights on a topic in the suite's member table. */
  async function member(
    id: string,
    topic: string,
    rights: { write?: boolean; presence?: boolean; broadcast?: boolean } = {},
  ) {
    await stack.db.query(
      `insert into public.rt_members (user_id, topic, broadcast, can_write, presence)
       values ($1, $2, $3, $4, $5)`,
      [id, topic, rights.broadcast ?? true, rights.write ?? false, rights.presence ?? false],
    );
  }

  /** A channel that records every broadcast it hears. */
  function listener(
    client: SupabaseClient,
    topic: string,
    options: { private: boolean; presenceKey?: string; presence?: boolean },
  ) {
    const heard: Heard[] = [];
    const syncs: unknown[] = [];
    const system: { message?: string }[] = [];
    const channel = client
      .channel(topic, {
        config: {
          private: options.private,
          ...(options.presenceKey ? { presence: { key: options.presenceKey } } : {}),
        },
      })
      .on('broadcast', { event: '*' }, (message: Heard) => heard.push(message))
      .on('system', {}, (payload: { message?: string }) => system.push(payload));
    if (options.presence) channel.on('presence', { event: 'sync' }, () => syncs.push(1));
    return { channel, heard, syncs, system };
  }

  let fenceId = 0;
  /**
   * Sends a message from the database and waits until every listener has it. Messages go out
   * in commit order, so anything sent before that a listener has not heard by then never
   * reaches it.
   */
  async function fence(topic: string, isPrivate: boolean, ...listeners: { heard: Heard[] }[]) {
    fenceId += 1;
    const n = fenceId;
    await stack.db.query(`select realtime.send($1::jsonb, 'fence', $2, $3)`, [
      JSON.stringify({ n }),
      topic,
      isPrivate,
    ]);
    await waitFor(
      () => listeners.every((l) => l.heard.some((h) => h.event === 'fence' && h.payload?.n === n)),
      REALTIME_WAIT_MS,
      `fence ${n} on ${topic}`,
    );
  }

  const sockets: WebSocket[] = [];

  const events = (heard: Heard[]) => heard.filter((h) => h.event !== 'fence');

  beforeAll(async () => {
    stack = await startTestDevstack(kind, { clock });
    keys = stack.keys;
    // The suite's authorisation rule, as a project would write it (authorization.mdx): a
    // member table, SELECT for read and INSERT for write, per extension.
    await stack.db.exec(`
      create table public.rt_members (
        user_id uuid not null,
        topic text not null,
        broadcast boolean not null,
        can_write boolean not null,
        presence boolean not null,
        primary key (user_id, topic)
      );
      grant select on public.rt_members to authenticated;
      create policy "members read" on realtime.messages for select to authenticated using (
        exists (select 1 from public.rt_members m
                where m.user_id = (select auth.uid()) and m.topic = (select realtime.topic())
                  and ((realtime.messages.extension = 'broadcast' and m.broadcast)
                       or (realtime.messages.extension = 'presence' and m.presence))));
      create policy "writers write" on realtime.messages for insert to authenticated with check (
        exists (select 1 from public.rt_members m
                where m.user_id = (select auth.uid()) and m.topic = (select realtime.topic())
                  and m.can_write
                  and ((realtime.messages.extension = 'broadcast' and m.broadcast)
                       or (realtime.messages.extension = 'presence' and m.presence))));
      create table public.rt_items (id int primary key, title text);
      create function public.rt_items_broadcast() returns trigger
      language plpgsql security definer as $$
      begin
        perform realtime.broadcast_changes('items', tg_op, tg_op, tg_table_name,
                                           tg_table_schema, new, old);
        return null;
      end $$;
      create trigger rt_items_broadcast after insert or update or delete on public.rt_items
        for each row execute function public.rt_items_broadcast();
    `);
  });

  afterEach(() => closeRealtime(clients, sockets));

  afterAll(async () => {
    await stack?.stop();
  });

  it('refuses anon and a stranger with hosted reason; a member and the service role join', async () => {
    const topic = 'room-join';
    const anon = await realtimeClient();
    const anonChannel = anon.channel(topic, { config: { private: true } });
    const anonError = await subscribed(anonChannel).catch((error: unknown) => error);
    expect(anonError).toBeInstanceOf(Error);
    expect((anonError as Error).message).toBe(refusal(topic));
    await anon.removeChannel(anonChannel);

    const stranger = await user();
    const strangerChannel = stranger.client.channel(topic, { config: { private: true } });
    const strangerError = await subscribed(strangerChannel).catch((error: unknown) => error);
    expect((strangerError as Error).message).toBe(refusal(topic));
    await stranger.client.removeChannel(strangerChannel);

    // A member of another topic is refused here too: realtime.topic() is this topic.
    const elsewhere = await user();
    await member(elsewhere.id, 'room-elsewhere');
    const elsewhereChannel = elsewhere.client.channel(topic, { config: { private: true } });
    await expect(subscribed(elsewhereChannel)).rejects.toThrow(refusal(topic));
    await elsewhere.client.removeChannel(elsewhereChannel);

    const alice = await user();
    await member(alice.id, topic);
    await subscribed(alice.client.channel(topic, { config: { private: true } }));

    const service = await realtimeClient(stack.secretKey);
    await subscribed(service.channel(topic, { config: { private: true } }));

    // The same stranger may join the public channel of that name.
    await subscribed(stranger.client.channel(topic));
  });

  it('delivers realtime.send and broadcast_changes to private members only, never across privacy', async () => {
    const topic = 'items';
    const alice = await user();
    await member(alice.id, topic);
    const priv = listener(alice.client, topic, { private: true });
    await subscribed(priv.channel);
    const outsider = await user();
    const pub = listener(outsider.client, topic, { private: false });
    await subscribed(pub.channel);

    await stack.db.query(`select realtime.send('{"n":1}'::jsonb, 'private-ev', $1)`, [topic]);
    await stack.db.query(`select realtime.send('{"n":2}'::jsonb, 'public-ev', $1, false)`, [topic]);
    await stack.db.query(`insert into public.rt_items (id, title) values (1, 'first')`);
    await stack.db.query(`update public.rt_items set title = 'second' where id = 1`);
    // Join probes (refused and allowed) insert rows in rolled-back transactions meanwhile.
    const stranger = await user();
    const refused = stranger.client.channel(topic, { config: { private: true } });
    await expect(subscribed(refused)).rejects.toThrow(refusal(topic));
    await stranger.client.removeChannel(refused);
    const bob = await user();
    await member(bob.id, topic, { presence: true });
    await subscribed(bob.client.channel(topic, { config: { private: true } }));
    await fence(topic, true, priv);
    await fence(topic, false, pub);

    const got = events(priv.heard);
    expect(got.map((h) => h.event)).toEqual(['private-ev', 'INSERT', 'UPDATE']);
    const [sent, inserted, updated] = got;
    expect(sent).toEqual({
      type: 'broadcast',
      event: 'private-ev',
      payload: { n: 1, id: sent?.meta?.id },
      meta: { id: expect.any(String) as string },
    });
    expect(inserted?.payload).toEqual({
      id: inserted?.meta?.id,
      operation: 'INSERT',
      table: 'rt_items',
      schema: 'public',
      record: { id: 1, title: 'first' },
      old_record: null,
    });
    expect(updated?.payload).toMatchObject({
      operation: 'UPDATE',
      record: { id: 1, title: 'second' },
      old_record: { id: 1, title: 'first' },
    });
    // The public channel of the same name heard only the public message.
    expect(events(pub.heard)).toEqual([
      {
        type: 'broadcast',
        event: 'public-ev',
        payload: { n: 2, id: expect.any(String) as string },
        meta: { id: expect.any(String) as string },
      },
    ]);
    // No probe row was ever kept.
    const { rows } = await stack.db.query(
      `select count(*)::int as n from realtime.messages where event is null or payload is null`,
    );
    expect(rows[0]?.n).toBe(0);
  });

  it('reads each message from the database once, however many subscribe', async () => {
    const topic = 'room-many';
    const listeners: ReturnType<typeof listener>[] = [];
    for (let i = 0; i < 4; i++) {
      const u = await user();
      await member(u.id, topic);
      const l = listener(u.client, topic, { private: true });
      await subscribed(l.channel);
      listeners.push(l);
    }
    const before = stack.realtimeMessagesRead();
    await stack.db.query(`select realtime.send('{"once":true}'::jsonb, 'once', $1)`, [topic]);
    await waitFor(
      () => listeners.every((l) => l.heard.some((h) => h.event === 'once')),
      REALTIME_WAIT_MS,
      'every subscriber has the message',
    );
    expect(stack.realtimeMessagesRead() - before).toBe(1);
    const ids = new Set(listeners.map((l) => l.heard.find((h) => h.event === 'once')?.meta?.id));
    expect(ids.size).toBe(1);
  });

  it('delivers a message too big to ride in its NOTIFY whole, in commit order with small ones', async () => {
    const topic = 'room-big';
    const u = await user();
    await member(u.id, topic);
    const l = listener(u.client, topic, { private: true });
    await subscribed(l.channel);
    // ~20 kB: past NOTIFY's 8000 bytes, so the relay reads it back; the small ones around it
    // come whole in their NOTIFY, and must not overtake it.
    const text = 'é'.repeat(10_000);
    await stack.db.query(
      `select realtime.send('{"n":1}'::jsonb, 'seq', $1),
              realtime.send(jsonb_build_object('n', 2, 'text', $2::text), 'seq', $1),
              realtime.send('{"n":3}'::jsonb, 'seq', $1)`,
      [topic, text],
    );
    await waitFor(
      () => l.heard.filter((h) => h.event === 'seq').length === 3,
      REALTIME_WAIT_MS,
      'the three messages',
    );
    const seq = l.heard.filter((h) => h.event === 'seq').map((h) => h.payload);
    expect(seq.map((p) => (p as { n: number }).n)).toEqual([1, 2, 3]);
    expect((seq[1] as { text: string }).text).toBe(text);
  });

  it('drops a broadcast from a member without write permission; a writer reaches the others', async () => {
    const topic = 'room-write';
    const writer = await user();
    const reader = await user();
    const watcher = await user();
    await member(writer.id, topic, { write: true });
    await member(reader.id, topic);
    await member(watcher.id, topic);
    const w = listener(writer.client, topic, { private: true });
    const r = listener(reader.client, topic, { private: true });
    const seen = listener(watcher.client, topic, { private: true });
    await Promise.all([subscribed(w.channel), subscribed(r.channel), subscribed(seen.channel)]);

    expect(await r.channel.send({ type: 'broadcast', event: 'from-reader', payload: {} })).toBe(
      'ok',
    );
    await roundTrip(reader.client); // the reader's broadcast has been handled (and dropped)
    expect(await w.channel.send({ type: 'broadcast', event: 'from-writer', payload: {} })).toBe(
      'ok',
    );
    await waitFor(() => seen.heard.length > 0, REALTIME_WAIT_MS, 'the writer reaches the watcher');
    await waitFor(() => r.heard.length > 0, REALTIME_WAIT_MS, 'the writer reaches the reader');
    expect(seen.heard.map((h) => h.event)).toEqual(['from-writer']);
    // A second try is answered from the cache, and still dropped.
    await r.channel.send({ type: 'broadcast', event: 'again', payload: {} });
    await roundTrip(reader.client);
    await fence(topic, true, seen);
    expect(events(seen.heard).map((h) => h.event)).toEqual(['from-writer']);
    expect(events(w.heard)).toEqual([]);
  });

  it('refuses a track without presence write; presence needs presence read', async () => {
    const topic = 'room-presence';
    const alice = await user(); // presence read + write
    const bob = await user(); // presence read only
    const carol = { id: randomUUID() }; // broadcast read only
    const erin = { id: randomUUID() }; // presence read only
    await member(alice.id, topic, { write: true, presence: true });
    await member(bob.id, topic, { presence: true });
    await member(carol.id, topic);
    await member(erin.id, topic, { broadcast: false, presence: true });
    const a = listener(alice.client, topic, {
      private: true,
      presenceKey: 'alice',
      presence: true,
    });
    const b = listener(bob.client, topic, { private: true, presenceKey: 'bob', presence: true });
    await Promise.all([subscribed(a.channel), subscribed(b.channel)]);
    // Carol joins with presence enabled, as supabase-js would with a presence listener.
    const c = await rawSocket(stack, sockets);
    const joined = await c.push(topic, 'phx_join', privateJoin(await userJwt(carol.id), 'carol'));
    expect(joined).toMatchObject({ status: 'ok' });
    // Erin joins on presence read alone and hears presence but no broadcast.
    const e = await rawSocket(stack, sockets);
    const erinJoined = await e.push(topic, 'phx_join', privateJoin(await userJwt(erin.id), 'erin'));
    expect(erinJoined).toMatchObject({ status: 'ok' });
    await stack.db.query(`select realtime.send('{}'::jsonb, 'not-for-erin', $1)`, [topic]);
    expect(await a.channel.send({ type: 'broadcast', event: 'not-for-erin', payload: {} })).toBe(
      'ok',
    );
    await roundTrip(alice.client);

    expect(await b.channel.track({ who: 'bob' })).toBe('error');
    expect(await a.channel.track({ who: 'alice' })).toBe('ok');
    await waitFor(() => 'alice' in b.channel.presenceState(), REALTIME_WAIT_MS, 'bob sees alice');
    await waitFor(
      () => 'alice' in a.channel.presenceState(),
      REALTIME_WAIT_MS,
      'alice sees herself',
    );
    expect(Object.keys(a.channel.presenceState())).toEqual(['alice']);
    expect(Object.keys(b.channel.presenceState())).toEqual(['alice']);
    // Alice's join came after both broadcasts, on the same socket: erin has had her chance.
    await waitFor(
      () =>
        e.frames.some(
          (f) => f[3] === 'presence_diff' && JSON.stringify(f[4].joins).includes('"alice"'),
        ),
      REALTIME_WAIT_MS,
      'erin sees alice',
    );
    expect(e.frames.map((f) => f[3])).toContain('presence_state');
    expect(e.frames.map((f) => f[3])).not.toContain('broadcast');
    // Carol may join (broadcast read) but hears no presence at all: no state, no diff.
    await fence(topic, true, c);
    expect(c.frames.map((f) => f[3])).not.toContain('presence_state');
    expect(c.frames.map((f) => f[3])).not.toContain('presence_diff');
    // Carol may not track either (no presence write): an error with an empty response.
    const track = await c.push(topic, 'presence', {
      type: 'presence',
      event: 'track',
      payload: { who: 'carol' },
    });
    expect(track).toEqual({ status: 'error', response: {} });
    await fence(topic, true, a, b, c);
    expect(Object.keys(a.channel.presenceState())).toEqual(['alice']);
    expect(c.frames.map((f) => f[3])).not.toContain('presence_diff');
  });

  it('re-checks read on a new access token: losing it closes the channel, write is asked again', async () => {
    const topic = 'room-token';
    const dave = await user();
    const watcher = await user();
    await member(dave.id, topic, { write: true });
    await member(watcher.id, topic);
    const statuses: string[] = [];
    const d = listener(dave.client, topic, { private: true });
    const seen = listener(watcher.client, topic, { private: true });
    await subscribed(d.channel, statuses);
    await subscribed(seen.channel);

    await d.channel.send({ type: 'broadcast', event: 'one', payload: {} });
    await waitFor(() => seen.heard.length === 1, REALTIME_WAIT_MS, 'first broadcast');
    // Write is cached for the token: revoking it changes nothing until a new token comes.
    await stack.db.query(`update public.rt_members set can_write = false where user_id = $1`, [
      dave.id,
    ]);
    await d.channel.send({ type: 'broadcast', event: 'two', payload: {} });
    await waitFor(() => seen.heard.length === 2, REALTIME_WAIT_MS, 'second broadcast');

    // A new token while still a reader: the channel stays, write is checked again (dropped).
    await dave.client.realtime.setAuth(await userJwt(dave.id, 3000));
    await roundTrip(dave.client);
    await d.channel.send({ type: 'broadcast', event: 'three', payload: {} });
    await roundTrip(dave.client);
    await fence(topic, true, d, seen);
    expect(events(seen.heard).map((h) => h.event)).toEqual(['one', 'two']);
    expect(statuses).not.toContain('CLOSED');

    // Read revoked, then a new token: the system message and the channel closes.
    await stack.db.query(`delete from public.rt_members where user_id = $1`, [dave.id]);
    await dave.client.realtime.setAuth(await userJwt(dave.id, 2000));
    await waitFor(() => statuses.includes('CLOSED'), REALTIME_WAIT_MS, 'channel closed');
    expect(d.system).toContainEqual(
      expect.objectContaining({
        extension: 'system',
        status: 'error',
        message: `You no longer have permission to read from this Channel topic: ${topic}`,
      }),
    );
  });

  // Issue 35: a tracked presence was kept on a new token that may still read but no longer
  // track, shown to everyone under the name it had.
  it('asks a tracked presence again on a new access token: no longer allowed, it leaves and the channel closes', async () => {
    const topic = 'room-track-token';
    const frank = await user();
    const watcher = await user();
    await member(frank.id, topic, { write: true, presence: true });
    await member(watcher.id, topic, { presence: true });
    const statuses: string[] = [];
    const f = listener(frank.client, topic, {
      private: true,
      presenceKey: 'frank',
      presence: true,
    });
    const w = listener(watcher.client, topic, {
      private: true,
      presenceKey: 'watcher',
      presence: true,
    });
    const watcherStatuses: string[] = [];
    await subscribed(f.channel, statuses);
    await subscribed(w.channel, watcherStatuses);
    expect(await f.channel.track({ who: 'frank' })).toBe('ok');
    await waitFor(() => 'frank' in w.channel.presenceState(), REALTIME_WAIT_MS, 'frank seen');

    // Track revoked (read kept), then a new token: frank leaves everyone's state and his
    // channel closes.
    await stack.db.query(`update public.rt_members set can_write = false where user_id = $1`, [
      frank.id,
    ]);
    await frank.client.realtime.setAuth(await userJwt(frank.id, 3000));
    await waitFor(() => statuses.includes('CLOSED'), REALTIME_WAIT_MS, 'channel closed');
    expect(f.system).toContainEqual(
      expect.objectContaining({
        status: 'error',
        message: `You no longer have permission to read from this Channel topic: ${topic}`,
      }),
    );
    await waitFor(() => !('frank' in w.channel.presenceState()), REALTIME_WAIT_MS, 'frank gone');

    // One who never tracked keeps his channel on a new token without write: it reads on.
    await watcher.client.realtime.setAuth(await userJwt(watcher.id, 3000));
    await roundTrip(watcher.client);
    await fence(topic, true, w);
    expect(watcherStatuses).not.toContain('CLOSED');
  });

  // Last: it moves the shared clock on by hours.
  it('deletes messages older than 3 days when the devstack clock moves', async () => {
    await stack.db.query(
      `insert into realtime.messages (topic, extension, event, payload, private, inserted_at)
       values ('room-old', 'broadcast', 'old', '{}', true, now() - interval '2 days 12 hours'),
              ('room-old', 'broadcast', 'recent', '{}', true, now())`,
    );
    const left = async () =>
      (
        await stack.db.query<{ event: string }>(
          `select event from realtime.messages where topic = 'room-old' order by event`,
        )
      ).rows.map((r) => r.event);
    expect(await left()).toEqual(['old', 'recent']);
    clock.advance(13 * 60 * 60 * 1000);
    await waitFor(
      async () => (await left()).length < 2,
      REALTIME_WAIT_MS,
      'the old message deleted',
    );
    expect(await left()).toEqual(['recent']);
  });
});
