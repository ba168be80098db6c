// Realtime authorisation that holds after the join (issue 35, …_realtime_reauth.sql and
// devstack/realtime/reauth.ts), through supabase-js and a bare socket on both engines:
// a member joins a list's data topic only at epochs the list has reached and its presence
// topic only at its current epoch (`list:<id>:presence` is gone); once a member is removed,
// nothing new reaches any channel they joined before, at any epoch, the devstack shuts their
// channels down and their presence leaves everyone's state; and a removed member's new
// access token closes what is left. "Nothing arrives" is proven by a later message on the
// same socket that does arrive: the server sends each socket's frames in order.
import { randomUUID } from 'node:crypto';

import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';

import { createUsers, ENGINE_KINDS, testId } from '../support/database';
import { SEED, startTestDevstack, TestClock, type TestDevstack } from '../support/devstack';
import { addMember } from '../support/memberships';
import { push, type Mutation } from '../support/sync-calls';
import {
  listEpoch,
  closeRealtime,
  rawSocket,
  REALTIME_WAIT_MS,
  refusal,
  subscribed,
  waitFor,
  privateJoin,
} from '../support/realtime';

const dataTopic = (list: string, epoch: number) => `list:${list}:${epoch}`;
const presenceTopic = (list: string, epoch: number) => `list:${list}:${epoch}:presence`;

/** A private channel's life as the test sees it. */
interface Watched {
  channel: ReturnType<SupabaseClient['channel']>;
  statuses: string[];
  system: string[];
}

describe.each(ENGINE_KINDS)('realtime authorisation after the join on %s', (kind) => {
  const clock = new TestClock();
  let stack: TestDevstack;
  const clients: SupabaseClient[] = [];
  const sockets: WebSocket[] = [];
  let seq = 0;

  const token = (sub: string, expiresInSec = 3600) =>
    stack.keys.sign({ sub, role: 'authenticated', aud: 'authenticated' }, expiresInSec);

  async function realtimeClient(sub: string): Promise<SupabaseClient> {
    const client = createClient(stack.url, stack.publishableKey, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      realtime: { transport: WebSocket as unknown as typeof globalThis.WebSocket },
    });
    await client.realtime.setAuth(await token(sub));
    clients.push(client);
    return client;
  }

  /** A private channel (with presence under `presenceKey` if given), not yet subscribed. */
  function watch(client: SupabaseClient, topic: string, presenceKey?: string): Watched {
    const watched: Watched = {
      channel: client.channel(topic, {
        config: { private: true, ...(presenceKey ? { presence: { key: presenceKey } } : {}) },
      }),
      statuses: [],
      system: [],
    };
    watched.channel.on('system', {}, (payload: { message?: string }) =>
      watched.system.push(payload.message ?? ''),
    );
    if (presenceKey) watched.channel.on('presence', { event: 'sync' }, () => undefined);
    return watched;
  }

  /** `sub` joins `topic` (tracking `presenceKey` if given) and is accepted. */
  async function joined(sub: string, topic: string, presenceKey?: string): Promise<Watched> {
    const watched = watch(await realtimeClient(sub), topic, presenceKey);
    await subscribed(watched.channel, watched.statuses);
    if (presenceKey) expect(await watched.channel.track({ who: presenceKey })).toBe('ok');
    return watched;
  }

  /** `sub`'s join of `topic` is refused with hosted's reason. */
  async function refused(sub: string, topic: string, presence = false): Promise<void> {
    const client = await realtimeClient(sub);
    const watched = watch(client, topic, presence ? 'probe' : undefined);
    await expect(subscribed(watched.channel)).rejects.toThrow(refusal(topic));
    await client.removeChannel(watched.channel);
  }

  const present = (w: Watched) => Object.keys(w.channel.presenceState()).sort();

  async function pushAll(uid: string, mutations: Omit<Mutation, 'seq'>[]): Promise<void> {
    const response = await push(
      stack.db,
      uid,
      randomUUID(),
      mutations.map((m) => ({ ...m, seq: ++seq })),
    );
    expect(response.results.filter((r) => r.status !== 'applied')).toEqual([]);
  }

  /** A new list of alice's, with `viewer` as its viewer; returns ids and the membership. */
  async function listWithViewer() {
    const list = randomUUID();
    const viewer = testId('de1');
    await createUsers(stack.db, { [`viewer${String(++seq)}`]: viewer });
    await pushAll(SEED.alice, [
      { table: 'lists', op: 'insert', id: list, data: { name: 'Reauth', color: 'blue' } },
    ]);
    const membership = await addMember(stack.db, list, SEED.alice, viewer, 'viewer');
    return { list, viewer, membership };
  }

  const remove = (membership: string) =>
    pushAll(SEED.alice, [{ table: 'memberships', op: 'delete', id: membership }]);

  beforeAll(async () => {
    stack = await startTestDevstack(kind, { clock });
  });

  afterEach(() => closeRealtime(clients, sockets));

  afterAll(async () => {
    await stack?.stop();
  });

  it('lets a member join only the epochs a list has reached', async () => {
    const { list, viewer } = await listWithViewer();
    // A second viewer comes and goes: the list moves to epoch 1.
    const passing = testId('fa55');
    await createUsers(stack.db, { passing });
    await remove(await addMember(stack.db, list, SEED.alice, passing, 'viewer'));
    const current = await listEpoch(stack.db, list);
    expect(current).toBe(1);

    for (const epoch of [current + 1, current + 5]) {
      await refused(viewer, dataTopic(list, epoch));
    }
    await joined(viewer, dataTopic(list, current));
    await joined(viewer, dataTopic(list, current - 1)); // an old epoch only hears nothing new
  });

  it("after a viewer's removal, a new task reaches none of the channels they joined before", async () => {
    const { list, viewer, membership } = await listWithViewer();
    const epoch = await listEpoch(stack.db, list);
    const socket = await rawSocket(stack, sockets);
    const join = async (topic: string) =>
      socket.push(topic, 'phx_join', privateJoin(await token(viewer)));
    // The viewer, expecting removal, joins the list now and tries the epochs to come.
    expect(await join(dataTopic(list, epoch))).toMatchObject({ status: 'ok' });
    expect(await join(`user:${viewer}`)).toMatchObject({ status: 'ok' });
    const ahead = [epoch + 1, epoch + 2].map(dataTopic.bind(null, list));
    const aheadReplies = [];
    for (const topic of ahead) aheadReplies.push(await join(topic));

    await remove(membership);
    const task = randomUUID();
    await pushAll(SEED.alice, [
      {
        table: 'tasks',
        op: 'insert',
        id: task,
        data: { list_id: list, title: 'After the viewer left', position: 'zz' },
      },
    ]);
    // A message on the viewer's own topic, sent after the task: once it is heard, the task's
    // message has been handled, and reached none of the viewer's list channels.
    await stack.db.query(`select realtime.send('{"fence":1}'::jsonb, 'fence', $1, true)`, [
      `user:${viewer}`,
    ]);
    await waitFor(
      () => socket.heard.some((h) => h.event === 'fence'),
      REALTIME_WAIT_MS,
      'the fence on the user topic',
    );
    expect(JSON.stringify(socket.frames)).not.toContain(task);
    // The epochs to come were refused in the first place.
    expect(aheadReplies).toEqual(
      ahead.map((topic) => ({ status: 'error', response: { reason: refusal(topic) } })),
    );

    // The devstack shut the list channel down when the membership changed, as a refused join.
    const closed = (topic: string) =>
      socket.frames.some((f) => f[2] === `realtime:${topic}` && f[3] === 'phx_close');
    expect(closed(dataTopic(list, epoch))).toBe(true);
    expect(socket.frames).toContainEqual([
      expect.anything(),
      null,
      `realtime:${dataTopic(list, epoch)}`,
      'system',
      expect.objectContaining({ status: 'error', message: refusal(dataTopic(list, epoch)) }),
    ]);
    expect(closed(`user:${viewer}`)).toBe(false);
  });

  it('keeps presence at the current epoch: a removed member is shut out and leaves the state', async () => {
    const { list, viewer, membership } = await listWithViewer();
    const epoch = await listEpoch(stack.db, list);
    await refused(viewer, `list:${list}:presence`, true);
    await refused(viewer, presenceTopic(list, epoch + 1), true);

    const alice = await joined(SEED.alice, presenceTopic(list, epoch), 'alice');
    const mine = await joined(viewer, presenceTopic(list, epoch), 'viewer');
    await waitFor(() => present(alice).join() === 'alice,viewer', REALTIME_WAIT_MS, 'both seen');

    await remove(membership);
    // The viewer's channel is shut down as a refused join, and their presence leaves alice's
    // state; alice's own channel at the old epoch closes too (presence moves with the epoch).
    await waitFor(() => mine.statuses.includes('CLOSED'), REALTIME_WAIT_MS, 'viewer shut out');
    expect(mine.system).toContain(refusal(presenceTopic(list, epoch)));
    await waitFor(() => !present(alice).includes('viewer'), REALTIME_WAIT_MS, 'viewer gone');
    await waitFor(() => alice.statuses.includes('CLOSED'), REALTIME_WAIT_MS, 'old epoch closed');

    // Alice re-joins at the new epoch and is alone there; the viewer may join neither.
    expect(await listEpoch(stack.db, list)).toBe(epoch + 1);
    const again = await joined(SEED.alice, presenceTopic(list, epoch + 1), 'alice');
    await waitFor(() => present(again).join() === 'alice', REALTIME_WAIT_MS, 'alice alone');
    await refused(viewer, presenceTopic(list, epoch + 1), true);
    await refused(viewer, presenceTopic(list, epoch), true);
    expect(present(again)).toEqual(['alice']);
  });

  it("closes a removed member's list channels and drops their presence on a new access token", async () => {
    const { list, viewer, membership } = await listWithViewer();
    const epoch = await listEpoch(stack.db, list);
    const alice = await joined(SEED.alice, presenceTopic(list, epoch), 'alice');
    const client = await realtimeClient(viewer);
    const data = watch(client, dataTopic(list, epoch));
    const presence = watch(client, presenceTopic(list, epoch), 'viewer');
    await subscribed(data.channel, data.statuses);
    await subscribed(presence.channel, presence.statuses);
    expect(await presence.channel.track({ who: 'viewer' })).toBe('ok');
    await waitFor(() => present(alice).join() === 'alice,viewer', REALTIME_WAIT_MS, 'both seen');

    // Removed where the devstack cannot see it (no trigger fires, so no broadcast and no new
    // epoch): as on hosted, which re-checks only on a new token, the token must catch it.
    await stack.db.transaction(async (tx) => {
      await tx.query(`set local session_replication_role = replica`);
      await tx.query(`update public.memberships set deleted_at = now() where id = $1`, [
        membership,
      ]);
    });
    await client.realtime.setAuth(await token(viewer, 3000));
    await waitFor(
      () => data.statuses.includes('CLOSED') && presence.statuses.includes('CLOSED'),
      REALTIME_WAIT_MS,
      'both channels closed',
    );
    for (const [watched, topic] of [
      [data, dataTopic(list, epoch)],
      [presence, presenceTopic(list, epoch)],
    ] as const) {
      expect(watched.system).toContain(
        `You no longer have permission to read from this Channel topic: ${topic}`,
      );
    }
    await waitFor(() => present(alice).join() === 'alice', REALTIME_WAIT_MS, 'viewer gone');
    expect(alice.statuses).not.toContain('CLOSED');
  });
});
