// Devstack figures (printed, not asserted): start-up time (cold and from the snapshot),
// requests/s of a small RPC with 50 concurrent clients, and realtime latency from commit
// (sent UPDATE, commit included) to the subscriber's callback.
import { REALTIME_SUBSCRIBE_STATES, type RealtimeChannel } from '@supabase/supabase-js';

import { startDevstack } from '../../devstack/server';
import type { EngineKind } from '../support/database';
import { SEED, signedInDemoClient, startTestDevstack } from '../support/devstack';
import { percentile } from './percentiles';

const RPC_CLIENTS = 50;
const RPC_SECONDS = 3;
const REALTIME_EVENTS = 100;

export interface StartupFigures {
  coldMs: number;
  warmMs: number;
}

export async function benchStartup(): Promise<StartupFigures> {
  let t = performance.now();
  const cold = await startDevstack({ port: 0, useSnapshot: false });
  const coldMs = performance.now() - t;
  await cold.stop();
  // The cold start above refreshed the snapshot; this one starts from it.
  t = performance.now();
  const warm = await startDevstack({ port: 0 });
  const warmMs = performance.now() - t;
  await warm.stop();
  return { coldMs, warmMs };
}

export interface ServingFigures {
  engine: EngineKind;
  rpcRequests: number;
  rpcPerSec: number;
  rpcErrors: number;
  realtimeP50Ms: number;
  realtimeP95Ms: number;
  realtimeReceived: number;
}

export async function benchServing(kind: EngineKind): Promise<ServingFigures> {
  const stack = await startTestDevstack(kind);
  try {
    // Small RPC, 50 clients in parallel, each sending back-to-back.
    const url = `${stack.url}/rest/v1/rpc/sync_schema_version`;
    const headers = {
      apikey: stack.publishableKey,
      authorization: `Bearer ${stack.publishableKey}`,
      'content-type': 'application/json',
    };
    let requests = 0;
    let errors = 0;
    const deadline = performance.now() + RPC_SECONDS * 1000;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: RPC_CLIENTS }, async () => {
        while (performance.now() < deadline) {
          const res = await fetch(url, { method: 'POST', headers, body: '{}' });
          await res.arrayBuffer();
          if (res.ok) requests += 1;
          else errors += 1;
        }
      }),
    );
    const rpcPerSec = requests / ((performance.now() - started) / 1000);

    // Realtime: commit an update, time until alice's subscription callback runs.
    const alice = await signedInDemoClient(stack, 'alice');
    const received = new Map<string, number>();
    let channel: RealtimeChannel | undefined;
    await new Promise<void>((resolve, reject) => {
      channel = alice
        .channel('bench')
        .on(
          'postgres_changes',
          { event: 'UPDATE', schema: 'public', table: 'tasks', filter: `list_id=eq.${SEED.list}` },
          (payload) => {
            const notes = (payload.new as { notes?: string }).notes ?? '';
            if (!received.has(notes)) received.set(notes, performance.now());
          },
        )
        .subscribe((status) => {
          if (status === REALTIME_SUBSCRIBE_STATES.SUBSCRIBED) resolve();
          if (
            status === REALTIME_SUBSCRIBE_STATES.CHANNEL_ERROR ||
            status === REALTIME_SUBSCRIBE_STATES.TIMED_OUT
          ) {
            reject(new Error(status));
          }
        });
    });
    const latencies: number[] = [];
    for (let i = 0; i < REALTIME_EVENTS; i += 1) {
      const marker = `bench ${i}`;
      // Timed from before the UPDATE is sent, so the figure includes the commit itself.
      const sent = performance.now();
      await stack.db.query('update public.tasks set notes = $1 where id = $2', [
        marker,
        SEED.task(1),
      ]);
      const until = sent + 2000;
      while (!received.has(marker) && performance.now() < until) {
        await new Promise((r) => setTimeout(r, 1));
      }
      const at = received.get(marker);
      if (at !== undefined) latencies.push(at - sent);
    }
    if (channel) await alice.removeChannel(channel);
    return {
      engine: kind,
      rpcRequests: requests,
      rpcPerSec,
      rpcErrors: errors,
      realtimeP50Ms: percentile(latencies, 0.5),
      realtimeP95Ms: percentile(latencies, 0.95),
      realtimeReceived: latencies.length,
    };
  } finally {
    await stack.stop();
  }
}
