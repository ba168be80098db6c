// Realtime deltas on private list channels (…_realtime_deltas.sql, …_realtime_epochs.sql),
// through unmodified supabase-js on both engines: every committed change of a synced row is
// sent by the database to `list:<id>:<epoch>` (memberships also to `user:<id>`, profiles to
// each live list of their user, a list's row to each member's `user:<id>` when a removal
// moves it to the next epoch) as event 'row' with payload {table, row, xid, id}, where `row`
// is exactly what sync_pull gives; only live members join `list:<id>:<epoch>` (epochs the list
// has reached) and `list:<id>:<epoch>:presence` (its current epoch), only the user joins
// `user:<id>`, and no client may broadcast there (realtime-reauth.test.ts has the epochs' and
// the removals' rules). "Nothing arrives" is proven by a later message on the same socket that
// does arrive: the server sends each socket's frames in order.
import { randomUUID } from 'node:crypto';

import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';

import type { Keys } from '../../devstack/keys';
import { createUsers, ENGINE_KINDS, testId } from '../support/database';
import { SEED, startTestDevstack, TestClock, type TestDevstack } from '../support/devstack';
import { addMember } from '../support/memberships';
import { pullAll, push, type Mutation, type Row } from '../support/sync-calls';
import {
  listEpoch,
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

/** A delta as the contract says it arrives. */
interface Delta {
  table: string;
  row: Row;
  xid: string;
  id: string;
}

const presenceTopic = (list: string, epoch: number) => `list:${list}:${epoch}:presence`;
const userTopic = (user: string) => `user:${user}`;

describe.each(ENGINE_KINDS)('realtime deltas on private list channels on %s', (kind) => {
  const clock = new TestClock();
  let stack: TestDevstack;
  let keys: Keys;
  const clients: SupabaseClient[] = [];
  const sockets: WebSocket[] = [];
  const carol = testId('ca201'); // signed in, member of nothing of alice's
  let seq = 0;

  /** A supabase-js client whose realtime connection carries a JWT for `sub` (anon if none). */
  async function realtimeClient(sub?: string): Promise<SupabaseClient> {
    const client = createClient(stack.url, stack.publishableKey, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      realtime: { transport: WebSocket as unknown as typeof globalThis.WebSocket },
    });
    if (sub) {
      await client.realtime.setAuth(
        await keys.sign({ sub, role: 'authenticated', aud: 'authenticated' }, 3600),
      );
    }
    clients.push(client);
    return client;
  }

  /** A private channel that records every broadcast it hears. */
  function listener(client: SupabaseClient, topic: string, presenceKey?: string) {
    const heard: Heard[] = [];
    const channel = client
      .channel(topic, {
        config: { private: true, ...(presenceKey ? { presence: { key: presenceKey } } : {}) },
      })
      .on('broadcast', { event: '*' }, (message: Heard) => heard.push(message));
    if (presenceKey) channel.on('presence', { event: 'sync' }, () => undefined);
    return { channel, heard };
  }

  /** Joins `topic` privately as `sub` and records what it hears. */
  async function joined(sub: string, topic: string) {
    const l = listener(await realtimeClient(sub), topic);
    await subscribed(l.channel);
    return l;
  }

  /** The deltas (event 'row') heard, oldest first. */
  const deltas = (heard: Heard[]) =>
    heard.filter((h) => h.event === 'row').map((h) => h.payload as unknown as Delta);

  let fenceId = 0;
  /** Sends a message from the database and waits until every listener has it. */
  async function fence(topic: string, ...listeners: { heard: Heard[] }[]) {
    fenceId += 1;
    const n = fenceId;
    await stack.db.query(`select realtime.send($1::jsonb, 'fence', $2, true)`, [
      JSON.stringify({ n }),
      topic,
    ]);
    await waitFor(
      () => listeners.every((l) => l.heard.some((h) => h.event === 'fence' && h.payload?.n === n)),
      REALTIME_WAIT_MS,
      `fence ${n} on ${topic}`,
    );
  }

  /** One sync_push as `uid` from a fresh device; every mutation must apply. */
  async function pushAll(uid: string, mutations: Omit<Mutation, 'seq'>[]) {
    const response = await push(
      stack.db,
      uid,
      randomUUID(),
      mutations.map((m) => ({ ...m, seq: ++seq })),
    );
    const refused = response.results.filter((r) => r.status !== 'applied');
    expect(refused).toEqual([]);
    return response.results.map((r) => r.row as Row);
  }

  /** What `uid`'s sync_pull from scratch gives for `table/id`. */
  async function pulled(uid: string, table: string, id: string): Promise<Row | undefined> {
    const { rows } = await pullAll(stack.db, uid, null);
    return rows.find((r) => r.table === table && r.row.id === id)?.row;
  }

  /** A new list owned by `owner`, made through sync_push; returns its id. */
  async function newList(owner: string, name: string): Promise<string> {
    const id = randomUUID();
    await pushAll(owner, [{ table: 'lists', op: 'insert', id, data: { name, color: 'blue' } }]);
    return id;
  }

  /** The topic of `list` now: `list:<id>:<epoch>` (a removal moves the list to the next). */
  async function listTopic(list: string, epoch?: number): Promise<string> {
    if (epoch !== undefined) return `list:${list}:${epoch}`;
    return `list:${list}:${await listEpoch(stack.db, list)}`;
  }

  beforeAll(async () => {
    stack = await startTestDevstack(kind, { clock });
    keys = stack.keys;
    await createUsers(stack.db, { carol });
  });

  afterEach(() => closeRealtime(clients, sockets));

  afterAll(async () => {
    await stack?.stop();
  });

  it("delivers another member's task insert, update and tombstone as sync_pull's row", async () => {
    const alice = await joined(SEED.alice, await listTopic(SEED.list));
    const task = randomUUID();
    const steps: Omit<Mutation, 'seq'>[] = [
      {
        table: 'tasks',
        op: 'insert',
        id: task,
        data: { list_id: SEED.list, title: 'Check the sump pump', position: 'zz' },
      },
      { table: 'tasks', op: 'patch', id: task, data: { status: 'done', notes: 'Dry.' } },
      { table: 'tasks', op: 'delete', id: task },
    ];
    for (const [i, step] of steps.entries()) {
      const [pushedRow] = await pushAll(SEED.bob, [step]);
      await waitFor(
        () => deltas(alice.heard).filter((d) => d.row.id === task).length === i + 1,
        REALTIME_WAIT_MS,
        `delta ${i + 1}`,
      );
      const delta = deltas(alice.heard).filter((d) => d.row.id === task)[i];
      const pulledRow = await pulled(SEED.alice, 'tasks', task);
      expect(pulledRow?.version).toBe(i + 1);
      expect(delta).toEqual({
        table: 'tasks',
        row: pulledRow,
        xid: expect.stringMatching(/^[1-9][0-9]*$/) as string,
        id: expect.any(String) as string,
      });
      expect(Object.keys(delta?.row ?? {}).sort()).toEqual(Object.keys(pulledRow ?? {}).sort());
      expect(delta?.row).toEqual(pushedRow);
    }
    const [inserted, patched, deleted] = deltas(alice.heard).filter((d) => d.row.id === task);
    expect(inserted?.row).toMatchObject({ status: 'todo', deleted_at: null, created_by: SEED.bob });
    expect(patched?.row).toMatchObject({ status: 'done', notes: 'Dry.', deleted_at: null });
    expect(deleted?.row.deleted_at).toEqual(expect.any(String));
    // Each is a message of its own, in commit order, with its transaction's id.
    expect(BigInt(inserted?.xid ?? 0)).toBeLessThan(BigInt(patched?.xid ?? 0));
    expect(BigInt(patched?.xid ?? 0)).toBeLessThan(BigInt(deleted?.xid ?? 0));
    // The whole frame, as realtime-js hands it over.
    const frame = alice.heard.find((h) => h.event === 'row');
    expect(frame).toMatchObject({
      type: 'broadcast',
      event: 'row',
      meta: { id: frame?.payload?.id },
    });
  });

  it('sends lists, comments and attachments to their list topic, as sync_pull has them', async () => {
    const alice = await joined(SEED.alice, await listTopic(SEED.list));
    const comment = randomUUID();
    const attachment = randomUUID();
    const task = SEED.task(2);
    const [listRow] = await pushAll(SEED.alice, [
      { table: 'lists', op: 'patch', id: SEED.list, data: { color: 'red' } },
    ]);
    const [commentRow, attachmentRow] = await pushAll(SEED.bob, [
      {
        table: 'comments',
        op: 'insert',
        id: comment,
        data: { task_id: task, list_id: SEED.list, body: 'Seen it.' },
      },
      {
        table: 'attachments',
        op: 'insert',
        id: attachment,
        data: {
          task_id: task,
          list_id: SEED.list,
          object_path: `${SEED.list}/${task}/${attachment}.png`,
          file_name: 'crack.png',
          mime_type: 'image/png',
          size_bytes: 1234,
        },
      },
    ]);
    await fence(await listTopic(SEED.list), alice);
    const got = deltas(alice.heard);
    expect(got.map((d) => [d.table, d.row.id])).toEqual([
      ['lists', SEED.list],
      ['comments', comment],
      ['attachments', attachment],
    ]);
    expect(got.map((d) => d.row)).toEqual([listRow, commentRow, attachmentRow]);
    expect(got[0]?.row).toEqual(await pulled(SEED.alice, 'lists', SEED.list));
    expect(got[1]?.row).toEqual(await pulled(SEED.alice, 'comments', comment));
    expect(got[2]?.row).toEqual(await pulled(SEED.alice, 'attachments', attachment));
    // One push, one transaction: both rows carry its xid.
    expect(got[1]?.xid).toBe(got[2]?.xid);
  });

  it('refuses anon and a stranger on list, presence and user topics with the hosted reason', async () => {
    const epoch = await listEpoch(stack.db, SEED.list);
    const topics = [
      await listTopic(SEED.list),
      presenceTopic(SEED.list, epoch),
      userTopic(SEED.bob),
      `list:not-a-uuid`,
    ];
    for (const who of [undefined, carol]) {
      const client = await realtimeClient(who);
      for (const topic of topics) {
        const channel = client.channel(topic, { config: { private: true } });
        // With a presence listener too, so the presence probe is asked as well.
        if (topic.endsWith(':presence')) channel.on('presence', { event: 'sync' }, () => undefined);
        await expect(subscribed(channel)).rejects.toThrow(refusal(topic));
        await client.removeChannel(channel);
      }
    }
    // A member joins all three of hers.
    const alice = await realtimeClient(SEED.alice);
    await subscribed(alice.channel(await listTopic(SEED.list), { config: { private: true } }));
    await subscribed(alice.channel(userTopic(SEED.alice), { config: { private: true } }));
    await subscribed(
      alice
        .channel(presenceTopic(SEED.list, epoch), { config: { private: true } })
        .on('presence', { event: 'sync' }, () => undefined),
    );
    // Malformed topics (no epoch, a padded one, not a uuid, presence without an epoch or with
    // a tail) are refused, not an error.
    for (const topic of [
      `list:${SEED.list}`,
      `list:${SEED.list}:01`,
      'list:not-a-uuid:0',
      `list:${SEED.list}:presence`,
      `list:${SEED.list}:${epoch}:presence:x`,
    ]) {
      const bad = alice.channel(topic, { config: { private: true } });
      await expect(subscribed(bad)).rejects.toThrow(refusal(topic));
      await alice.removeChannel(bad);
    }
  });

  it("drops a member's broadcast on the list topic; presence is for members only", async () => {
    const alice = await joined(SEED.alice, await listTopic(SEED.list));
    const bobClient = await realtimeClient(SEED.bob);
    const bob = listener(bobClient, await listTopic(SEED.list));
    await subscribed(bob.channel);
    const forged = { table: 'tasks', row: { id: SEED.task(1), title: 'forged', version: 99 } };
    expect(await bob.channel.send({ type: 'broadcast', event: 'row', payload: forged })).toBe('ok');
    await roundTrip(bobClient); // handled (and dropped) before the fence is sent
    await fence(await listTopic(SEED.list), alice, bob);
    expect(deltas(alice.heard)).toEqual([]);

    // Presence on its own topic: members track and see each other.
    const presence = presenceTopic(SEED.list, await listEpoch(stack.db, SEED.list));
    const aliceP = listener(await realtimeClient(SEED.alice), presence, 'alice');
    const bobP = listener(await realtimeClient(SEED.bob), presence, 'bob');
    await Promise.all([subscribed(aliceP.channel), subscribed(bobP.channel)]);
    expect(await aliceP.channel.track({ who: 'alice' })).toBe('ok');
    expect(await bobP.channel.track({ who: 'bob' })).toBe('ok');
    await waitFor(
      () => Object.keys(aliceP.channel.presenceState()).sort().join() === 'alice,bob',
      REALTIME_WAIT_MS,
      'alice sees both',
    );

    // Not on the list topic itself: presence there is neither read nor written.
    const c = await rawSocket(stack, sockets);
    const onList = await c.push(
      await listTopic(SEED.list),
      'phx_join',
      privateJoin(await keys.sign({ sub: SEED.alice, role: 'authenticated' }, 3600), 'alice-2'),
    );
    expect(onList).toMatchObject({ status: 'ok' });
    const track = await c.push(await listTopic(SEED.list), 'presence', {
      type: 'presence',
      event: 'track',
      payload: { who: 'alice-2' },
    });
    expect(track).toEqual({ status: 'error', response: {} });

    // A stranger cannot join the presence topic, so neither tracks nor sees anyone.
    const s = await rawSocket(stack, sockets);
    const strangerJoin = await s.push(
      presence,
      'phx_join',
      privateJoin(await keys.sign({ sub: carol, role: 'authenticated' }, 3600), 'carol'),
    );
    expect(strangerJoin).toEqual({
      status: 'error',
      response: { reason: refusal(presence) },
    });
    await s.push(presence, 'presence', {
      type: 'presence',
      event: 'track',
      payload: { who: 'carol' },
    });
    // Presence topics carry no broadcast (not even the database's): a presence change that
    // alice sees after carol's refused track was handled stands in for a fence.
    await stack.db.query(`select realtime.send('{}'::jsonb, 'row', $1, true)`, [presence]);
    expect(await bobP.channel.track({ who: 'bob', again: true })).toBe('ok');
    await waitFor(
      () =>
        (aliceP.channel.presenceState().bob as { again?: boolean }[] | undefined)?.some(
          (m) => m.again,
        ) ?? false,
      REALTIME_WAIT_MS,
      "alice sees bob's second track",
    );
    expect(aliceP.heard).toEqual([]);
    expect(s.frames.map((f) => f[3])).not.toContain('presence_state');
    expect(s.frames.map((f) => f[3])).not.toContain('presence_diff');
    expect(Object.keys(aliceP.channel.presenceState()).sort()).toEqual(['alice', 'bob']);
    expect(c.frames.map((f) => f[3])).not.toContain('presence_state');
  });

  it("sends a user's membership and its removal to their own topic; removed, they hear the list no more", async () => {
    const dave = testId('da7e');
    await createUsers(stack.db, { dave });
    const mine = await joined(dave, userTopic(dave));
    const bobsTopic = await joined(SEED.bob, userTopic(SEED.bob));

    const membership = await addMember(stack.db, SEED.list, SEED.alice, dave, 'viewer');
    await waitFor(() => deltas(mine.heard).length === 1, REALTIME_WAIT_MS, 'the new membership');
    const added = deltas(mine.heard)[0];
    expect(added).toMatchObject({
      table: 'memberships',
      row: { id: membership, list_id: SEED.list, user_id: dave, role: 'viewer', deleted_at: null },
    });
    expect(added?.row).toEqual(await pulled(dave, 'memberships', membership));
    expect(added?.row).not.toHaveProperty('granted_xid');

    // Now a member: dave joins the list's topic, as bob does.
    const epoch = await listEpoch(stack.db, SEED.list);
    const daveStatuses: string[] = [];
    const onList = listener(await realtimeClient(dave), await listTopic(SEED.list));
    onList.channel.on('system', {}, (payload: { message?: string }) =>
      daveStatuses.push(`system: ${payload.message ?? ''}`),
    );
    await subscribed(onList.channel, daveStatuses);
    const bobOnOld = await joined(SEED.bob, await listTopic(SEED.list));
    await pushAll(SEED.alice, [{ table: 'memberships', op: 'delete', id: membership }]);

    // Dave hears his removal on his own topic, as sync_pull has it.
    await waitFor(() => deltas(mine.heard).length === 2, REALTIME_WAIT_MS, 'the removal');
    const removed = deltas(mine.heard)[1];
    expect(removed?.row).toMatchObject({ id: membership, version: 2 });
    expect(removed?.row.deleted_at).toEqual(expect.any(String));
    expect(removed?.row).toEqual(await pulled(dave, 'memberships', membership));
    // The list moved to the next epoch, and bob, who stays, hears that on his own topic
    // (the list's row, nothing of dave's).
    expect(await listEpoch(stack.db, SEED.list)).toBe(epoch + 1);
    await waitFor(() => deltas(bobsTopic.heard).length === 1, REALTIME_WAIT_MS, 'the new epoch');
    expect(deltas(bobsTopic.heard)[0]).toMatchObject({
      table: 'lists',
      row: { id: SEED.list, realtime_epoch: epoch + 1 },
    });
    expect(deltas(bobsTopic.heard)[0]?.row).toEqual(await pulled(SEED.bob, 'lists', SEED.list));

    // The devstack authorises the list's channels again when a membership changes: dave's is
    // shut down as a refused join would be (hosted waits for his next token, reauth.ts); bob's
    // on the old epoch stays, and hears nothing more there.
    await waitFor(() => daveStatuses.includes('CLOSED'), REALTIME_WAIT_MS, "dave's channel closed");
    expect(daveStatuses).toContain(`system: ${refusal(await listTopic(SEED.list, epoch))}`);
    // Nothing written after his removal reaches dave: not the removal, not an edit; bob hears
    // the edit on the new topic.
    const bobOnNew = await joined(SEED.bob, await listTopic(SEED.list));
    const [edited] = await pushAll(SEED.alice, [
      { table: 'tasks', op: 'patch', id: SEED.task(9), data: { title: 'After dave left' } },
    ]);
    await waitFor(
      () => deltas(bobOnNew.heard).some((d) => d.row.id === edited?.id),
      REALTIME_WAIT_MS,
      'the edit on the new topic',
    );
    await fence(await listTopic(SEED.list, epoch), bobOnOld);
    expect(deltas(onList.heard)).toEqual([]);
    expect(deltas(bobOnOld.heard)).toEqual([]);

    // And he may join neither topic again.
    for (const topic of [await listTopic(SEED.list, epoch), await listTopic(SEED.list)]) {
      const again = (await realtimeClient(dave)).channel(topic, { config: { private: true } });
      await expect(subscribed(again)).rejects.toThrow(refusal(topic));
    }
  });

  it("lets no client move a list's epoch, through PostgREST or sync_push", async () => {
    const token = await keys.sign(
      { sub: SEED.alice, role: 'authenticated', aud: 'authenticated' },
      3600,
    );
    const rest = (path: string, method: string, body: unknown) =>
      fetch(`${stack.url}/rest/v1/${path}`, {
        method,
        headers: {
          apikey: stack.publishableKey,
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          prefer: 'return=minimal',
        },
        body: JSON.stringify(body),
      });
    const id = randomUUID();
    const made = await rest('lists', 'POST', {
      id,
      name: 'Epoch guard',
      color: 'red',
      created_by: SEED.alice,
      realtime_epoch: 5,
    });
    expect(made.status).toBe(201);
    expect(await listEpoch(stack.db, id)).toBe(0);
    const patched = await rest(`lists?id=eq.${id}`, 'PATCH', {
      name: 'Renamed',
      realtime_epoch: 9,
    });
    expect(patched.status).toBe(204);
    expect(await listEpoch(stack.db, id)).toBe(0);
    expect((await pulled(SEED.alice, 'lists', id))?.name).toBe('Renamed');

    const response = await push(stack.db, SEED.alice, randomUUID(), [
      { seq: ++seq, table: 'lists', op: 'patch', id, data: { realtime_epoch: 3 } },
    ]);
    expect(response.results[0]).toMatchObject({ status: 'rejected' });
    expect(await listEpoch(stack.db, id)).toBe(0);
  });

  it("sends a profile rename to the topics of its user's lists only", async () => {
    const erin = testId('e212');
    await createUsers(stack.db, { erin });
    const elsewhere = await newList(erin, 'Erin alone');
    const onShared = await joined(SEED.bob, await listTopic(SEED.list));
    const onOther = await joined(erin, await listTopic(elsewhere));

    const [renamed] = await pushAll(SEED.alice, [
      { table: 'profiles', op: 'patch', id: SEED.alice, data: { display_name: 'Alice R.' } },
    ]);
    await waitFor(
      () => deltas(onShared.heard).some((d) => d.table === 'profiles'),
      REALTIME_WAIT_MS,
      'the rename on the shared list',
    );
    const delta = deltas(onShared.heard).find((d) => d.table === 'profiles');
    expect(delta?.row).toEqual(renamed);
    expect(delta?.row).toEqual(await pulled(SEED.bob, 'profiles', SEED.alice));
    expect(delta?.row.display_name).toBe('Alice R.');
    await fence(await listTopic(elsewhere), onOther);
    expect(deltas(onOther.heard).filter((d) => d.table === 'profiles')).toEqual([]);
  });

  it('sends exactly one message per row of a 500-patch push', async () => {
    const list = await newList(SEED.alice, 'Five hundred');
    const ids = Array.from({ length: 500 }, () => randomUUID());
    await pushAll(
      SEED.alice,
      ids.map((id, i) => ({
        table: 'tasks',
        op: 'insert',
        id,
        data: {
          list_id: list,
          title: `Task ${i}`,
          position: `a${i.toString(36).padStart(3, '0')}`,
        },
      })),
    );
    const watcher = await joined(SEED.alice, await listTopic(list));
    const rows = await pushAll(
      SEED.alice,
      ids.map((id) => ({ table: 'tasks', op: 'patch', id, data: { priority: 2 } })),
    );
    expect(rows).toHaveLength(500);
    await fence(await listTopic(list), watcher);
    // The inserts' messages may still be on their way when the watcher joins (the relay
    // reads committed messages asynchronously, as hosted's replication does): only the
    // patches' are counted, and nothing else may be there.
    const inserts = deltas(watcher.heard).filter((d) => d.row.version === 1);
    expect(new Set(inserts.map((d) => d.row.id)).size).toBe(inserts.length);
    const heard = deltas(watcher.heard).filter((d) => d.row.version !== 1);
    expect(heard).toHaveLength(500);
    expect(new Set(heard.map((d) => d.row.id))).toEqual(new Set(ids));
    expect(heard.every((d) => d.row.version === 2 && d.row.priority === 2)).toBe(true);
    const { rows: stored } = await stack.db.query<{ n: number }>(
      `select count(*)::int as n from realtime.messages
       where topic = $1 and event = 'row' and payload -> 'row' ->> 'version' = '2'`,
      [await listTopic(list)],
    );
    expect(stored[0]?.n).toBe(500);
  });
});
