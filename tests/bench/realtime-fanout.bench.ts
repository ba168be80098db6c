// What idle realtime subscribers cost everyone else (issue 19): an unrelated user's push +
// pull on the devstack (Postgres 15), timed with no one else connected and again with 1,000
// signed-in users each joined to their own private `user:<id>` topic (as the sync engine
// joins it), side by side. Under the previous design every change was read once per
// subscriber; broadcast from the database reads it once.
import type { Keys } from '../../devstack/keys';
import WebSocket from 'ws';

import { signedInDemoClient, SEED, startTestDevstack } from '../support/devstack';
import { rawSocket, privateJoin } from '../support/realtime';
import { percentiles, type Percentiles } from './percentiles';

const IDLE_USERS = 1_000;
const SAMPLES = 60;
const WARM_UP = 5;

export interface FanoutFigures {
  idleUsers: number;
  joined: number;
  /** One patch pushed, then the pull that brings it back (ms). */
  without: Percentiles;
  with: Percentiles;
}

/** A bare socket (tests/support/realtime.ts) joined to `user:<id>` as that user. */
async function idleSubscriber(
  stack: { url: string; publishableKey: string; keys: Keys },
  sockets: WebSocket[],
): Promise<boolean> {
  const id = crypto.randomUUID();
  // Signed by the devstack's current signing key, as its own sessions are.
  const token = await stack.keys.sign(
    { sub: id, role: 'authenticated', aud: 'authenticated' },
    3600,
  );
  const socket = await rawSocket(stack, sockets);
  const reply = await socket.push(`user:${id}`, 'phx_join', privateJoin(token));
  return reply?.status === 'ok';
}

export async function benchRealtimeFanout(): Promise<FanoutFigures> {
  const stack = await startTestDevstack('postgres');
  const sockets: WebSocket[] = [];
  try {
    const alice = await signedInDemoClient(stack, 'alice');
    const clientId = crypto.randomUUID();
    let seq = 0;
    let cursor: string | null = null;
    const pull = async (): Promise<boolean> => {
      const answer = await alice.rpc('sync_pull', { cursor, max_rows: 1000 });
      if (answer.error) throw answer.error;
      const page = answer.data as { cursor: string; has_more: boolean };
      cursor = page.cursor;
      return page.has_more;
    };
    while (await pull()); // caught up, as a device that has synced
    // An edit pushed, then the pull that brings it back: a device's sync of one change.
    const pushThenPull = async (): Promise<number> => {
      seq += 1;
      const t0 = performance.now();
      const pushed = await alice.rpc('sync_push', {
        client_id: clientId,
        mutations: [
          {
            seq,
            table: 'tasks',
            op: 'patch',
            id: SEED.task(1),
            data: { title: `Fan-out ${seq}` },
          },
        ],
      });
      if (pushed.error) throw pushed.error;
      await pull();
      return performance.now() - t0;
    };
    const sample = async (): Promise<Percentiles> => {
      for (let i = 0; i < WARM_UP; i++) await pushThenPull();
      const samples: number[] = [];
      for (let i = 0; i < SAMPLES; i++) samples.push(await pushThenPull());
      return percentiles(samples);
    };

    const without = await sample();
    let joined = 0;
    // Joined 50 at a time (each join is an authorisation check in the database).
    for (let start = 0; start < IDLE_USERS; start += 50) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(50, IDLE_USERS - start) }, () =>
          idleSubscriber(stack, sockets),
        ),
      );
      joined += batch.filter(Boolean).length;
    }
    const withIdle = await sample();
    return { idleUsers: IDLE_USERS, joined, without, with: withIdle };
  } finally {
    for (const ws of sockets) ws.terminate();
    await stack.stop();
  }
}
