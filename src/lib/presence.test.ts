// How a presence join's failure is told (refused by the server, or no answer), over a stand-in
// channel that reports what realtime-js reports: a refused join's error carries the server's
// reply `{ reason }` as its cause; a lost socket's carries the socket's event, or nothing.
// The words of either are never read. What a presence payload may claim, and which topic a
// list's presence is at (its realtime epoch). The real server's refusal is in
// tests/integration/presence.test.ts; the move to a new epoch in presence-avatars.test.tsx.
import { REALTIME_SUBSCRIBE_STATES, type SupabaseClient } from '@supabase/supabase-js';
import { describe, expect, it, vi } from 'vitest';

import {
  joinListPresence,
  peersOf,
  presenceTopic,
  realtimeEpochOf,
  type PresenceStatus,
} from './presence';

const LIST = '11570000-0000-4000-8000-000000000001';
const ME = '0b7d4c57-0000-4000-8000-000000000001';

/** A client whose one channel reports the subscribe states a test tells it to. */
function standInClient() {
  let report: ((state: REALTIME_SUBSCRIBE_STATES, error?: Error) => void) | undefined;
  /** The topics channels were asked for. */
  const topics: string[] = [];
  const channel = {
    on: () => channel,
    subscribe(callback: typeof report) {
      report = callback;
      return channel;
    },
    presenceState: () => ({}),
    track: () => Promise.resolve('ok'),
  };
  const client = {
    realtime: { setAuth: () => Promise.resolve() },
    channel: (topic: string) => {
      topics.push(topic);
      return channel;
    },
    removeChannel: () => Promise.resolve('ok'),
  };
  return {
    supabase: client as unknown as SupabaseClient,
    topics,
    report: async (state: REALTIME_SUBSCRIBE_STATES, error?: Error) => {
      await vi.waitFor(() => expect(report).toBeDefined());
      report?.(state, error);
    },
  };
}

/** What onStatus hears after the channel reports `state` with `error`. */
async function statusAfter(
  state: REALTIME_SUBSCRIBE_STATES,
  error?: Error,
): Promise<PresenceStatus[]> {
  const { supabase, report } = standInClient();
  const statuses: PresenceStatus[] = [];
  const leave = joinListPresence(
    supabase,
    presenceTopic(LIST, 0),
    { userId: ME },
    () => undefined,
    {
      onStatus: (status) => statuses.push(status),
    },
  );
  await report(state, error);
  leave();
  return statuses;
}

/** A join the server refused, as realtime-js reports it: the reply is the error's cause. */
const refusal = (reason: string) => new Error(reason, { cause: { reason } });

describe('a presence join that did not work', () => {
  it.each([
    'Unauthorized: You do not have permissions to read from this Channel topic: list:x:presence',
    'InvalidJWTToken: Token has expired 3 seconds ago',
    'ClientJoinRateLimitReached: Too many joins per second',
  ])('is refused when the server answered the join with an error (%s)', async (reason) => {
    const error = refusal(reason);
    expect(await statusAfter(REALTIME_SUBSCRIBE_STATES.CHANNEL_ERROR, error)).toEqual([
      { state: 'refused', error },
    ]);
  });

  it.each([
    // The words of a refusal, with no reply behind them.
    ['a message alone', new Error('Unauthorized: You do not have permissions')],
    // A closed socket (realtime-js: "socket closed: <code> (<reason>)", the event as cause).
    [
      'a closed socket',
      new Error('socket closed: 1006 (Unauthorized: nope)', {
        cause: new CloseEvent('close', { code: 1006, reason: 'Unauthorized: nope' }),
      }),
    ],
    [
      'a transport error',
      new Error('channel error: transport failure', { cause: new Event('error') }),
    ],
    // The server's channel crashed (phx_error): a reply with no reason.
    ['a crashed channel', new Error('channel error: transport failure', { cause: {} })],
  ])('has failed when nothing answered the join: %s', async (_, error) => {
    expect(await statusAfter(REALTIME_SUBSCRIBE_STATES.CHANNEL_ERROR, error)).toEqual([
      { state: 'failed', error },
    ]);
  });

  it('has failed when the join timed out', async () => {
    const [status] = await statusAfter(REALTIME_SUBSCRIBE_STATES.TIMED_OUT);
    expect(status).toMatchObject({ state: 'failed', error: { message: 'presence timed_out' } });
  });
});

describe('what a presence payload claims', () => {
  it('is a non-empty user id and a finite time; nothing else is read or kept', () => {
    const state = {
      a: [{ userId: 'a', since: 200, name: 'Alice' }],
      b: [{ userId: 'b', since: Number.POSITIVE_INFINITY }],
      c: [{ userId: 'c' }],
      d: [{ userId: 'd', since: Number.NaN }],
      junk: [{ userId: '' }, { userId: 7, since: 1 }, null, 'text', [], { since: 5 }],
    };
    expect(peersOf(state)).toEqual([
      { userId: 'b', since: 0, taskIds: [] },
      { userId: 'c', since: 0, taskIds: [] },
      { userId: 'd', since: 0, taskIds: [] },
      { userId: 'a', since: 200, taskIds: [] },
    ]);
  });

  it('names the tasks a person has open, from any of their tabs; only uuids count', () => {
    const task = '11570000-0000-4000-8000-000000000101';
    const other = '11570000-0000-4000-8000-000000000102';
    const state = {
      'a:1': [{ userId: 'a', since: 300, taskId: task }],
      'a:2': [{ userId: 'a', since: 100 }],
      'a:3': [{ userId: 'a', since: 200, taskId: other }],
      'b:1': [{ userId: 'b', since: 50, taskId: '<script>' }],
      'c:1': [{ userId: 'c', since: 60, taskId: 42 }],
    };
    expect(peersOf(state)).toEqual([
      { userId: 'b', since: 50, taskIds: [] },
      { userId: 'c', since: 60, taskIds: [] },
      { userId: 'a', since: 100, taskIds: [task, other] },
    ]);
  });
});

describe("a list's presence topic", () => {
  it('is the list at its realtime epoch: list:<id>:<epoch>:presence', async () => {
    expect(presenceTopic(LIST, 0)).toBe(`list:${LIST}:0:presence`);
    expect(presenceTopic(LIST, 7)).toBe(`list:${LIST}:7:presence`);
    const { supabase, topics, report } = standInClient();
    const leave = joinListPresence(supabase, presenceTopic(LIST, 2), { userId: ME }, () => {});
    await report(REALTIME_SUBSCRIBE_STATES.SUBSCRIBED);
    leave();
    expect(topics).toEqual([`list:${LIST}:2:presence`]);
  });

  it("takes the epoch from the device's list row; a row without one (not on the server yet) is at 0", () => {
    expect(realtimeEpochOf({ id: LIST, realtime_epoch: 3 })).toBe(3);
    expect(realtimeEpochOf({ id: LIST })).toBe(0);
    for (const odd of [-1, 1.5, Number.NaN, '2', null]) {
      expect(realtimeEpochOf({ id: LIST, realtime_epoch: odd })).toBe(0);
    }
  });
});
