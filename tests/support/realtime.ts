// What the realtime suites (devstack-realtime, devstack-realtime-private, realtime-deltas)
// share: waits for a condition, a heartbeat round trip, a subscription that settles, hosted's
// refusal text, a bare Phoenix socket that records every frame, and a list's realtime epoch.
import {
  REALTIME_SUBSCRIBE_STATES,
  type RealtimeChannel,
  type SupabaseClient,
} from '@supabase/supabase-js';
import WebSocket from 'ws';

import type { SqlRunner } from '../../devstack/sql-engine';

/** How long an awaited message may take on a busy machine before the test fails. */
export const REALTIME_WAIT_MS = 20_000;

/** A broadcast as a client receives it. */
export interface Heard {
  type?: string;
  event?: string;
  payload?: Record<string, unknown>;
  meta?: { id?: string };
}

/** Resolves when `predicate` holds, checked every 10 ms; rejects after `timeoutMs`. */
export async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  timeoutMs = REALTIME_WAIT_MS,
  what = 'condition',
): Promise<void> {
  const start = Date.now();
  while (!(await predicate())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * A heartbeat and its reply. The server handles a socket's messages in order, so once it
 * answers, everything the client sent before (an access_token push) has been applied.
 */
export function roundTrip(client: SupabaseClient): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no heartbeat reply')), REALTIME_WAIT_MS);
    client.realtime.onHeartbeat((status) => {
      if (status === 'sent') return;
      clearTimeout(timer);
      if (status === 'ok') resolve();
      else reject(new Error(`heartbeat ${status}`));
    });
    void client.realtime.sendHeartbeat();
  });
}

/** Subscribes and resolves on SUBSCRIBED; rejects on the first error status. */
export function subscribed(
  channel: RealtimeChannel,
  statuses: string[] = [],
): Promise<RealtimeChannel> {
  return new Promise((resolve, reject) => {
    channel.subscribe((status, err) => {
      statuses.push(status);
      if (status === REALTIME_SUBSCRIBE_STATES.SUBSCRIBED) resolve(channel);
      else if (
        status === REALTIME_SUBSCRIBE_STATES.CHANNEL_ERROR ||
        status === REALTIME_SUBSCRIBE_STATES.TIMED_OUT
      ) {
        reject(err ?? new Error(status));
      }
    });
  });
}

/** Hosted Realtime's answer to a private join the policies refuse. */
export const refusal = (topic: string) =>
  `Unauthorized: You do not have permissions to read from this Channel topic: ${topic}`;

type RawFrame = [string | null, string | null, string, string, Record<string, unknown>];

/**
 * A bare Phoenix socket (vsn 2.0.0) that records every frame the server sends, to see frames
 * supabase-js would hide (it holds presence diffs back until a presence_state). Added to
 * `sockets` for the suite to close.
 */
export async function rawSocket(
  stack: { url: string; publishableKey: string },
  sockets: WebSocket[],
) {
  const url = `${stack.url.replace(/^http/, 'ws')}/realtime/v1/websocket`;
  const ws = new WebSocket(`${url}?apikey=${stack.publishableKey}&vsn=2.0.0`);
  sockets.push(ws);
  const frames: RawFrame[] = [];
  ws.on('message', (data: Buffer) => {
    frames.push(JSON.parse(data.toString('utf8')) as RawFrame);
  });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  let ref = 0;
  return {
    frames,
    get heard(): Heard[] {
      return frames.filter((f) => f[3] === 'broadcast').map((f) => f[4] as Heard);
    },
    /** Sends a push and resolves to its phx_reply payload. */
    async push(topic: string, event: string, payload: Record<string, unknown>) {
      ref += 1;
      const r = String(ref);
      ws.send(JSON.stringify(['1', r, `realtime:${topic}`, event, payload]));
      await waitFor(() => frames.some((f) => f[1] === r), REALTIME_WAIT_MS, `reply to ${event}`);
      return frames.find((f) => f[1] === r)?.[4];
    },
  };
}

/** Closes what a test opened: every client's channels and socket, and every raw socket. */
export async function closeRealtime(clients: SupabaseClient[], sockets: WebSocket[]) {
  for (const client of clients.splice(0)) {
    await client.removeAllChannels();
    await client.realtime.disconnect();
  }
  for (const ws of sockets.splice(0)) ws.close();
}

/** A list's realtime_epoch, the number its private channel topics carry (list:<id>:<epoch>). */
export async function listEpoch(db: SqlRunner, list: string): Promise<number> {
  const { rows } = await db.query<{ e: number }>(
    'select realtime_epoch as e from public.lists where id = $1',
    [list],
  );
  return Number(rows[0]?.e);
}

/**
 * A private channel's phx_join payload as supabase-js sends it: no broadcast ack or echo, no
 * postgres changes, presence tracked under `presenceKey` (off without one).
 */
export function privateJoin(accessToken: string, presenceKey?: string): Record<string, unknown> {
  return {
    config: {
      broadcast: { ack: false, self: false },
      presence: { key: presenceKey ?? '', enabled: presenceKey !== undefined },
      postgres_changes: [],
      private: true,
    },
    access_token: accessToken,
  };
}
