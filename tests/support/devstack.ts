// A devstack per test suite, on PGlite (in memory, from the snapshot) or on a throwaway
// Postgres 15 cluster, plus supabase-js clients for it. Node 20 needs `ws` as the realtime
// transport (supabase-js throws without one below Node 22).
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import WebSocket from 'ws';

import { TEST_RATE_LIMITS } from '../../devstack/auth/config';
import { startPgCluster } from '../../devstack/pg-cluster';
import { startDevstack, type Devstack, type DevstackOptions } from '../../devstack/server';
import type { EngineKind } from './database';

export interface TestDevstack extends Devstack {
  readonly kind: EngineKind;
  /** A supabase-js client with its own in-memory session storage. */
  client(options?: { key?: string; persistSession?: boolean }): SupabaseClient;
}

export { TEST_RATE_LIMITS };

export async function startTestDevstack(
  kind: EngineKind,
  options: Omit<DevstackOptions, 'databaseUrl' | 'port'> = {},
): Promise<TestDevstack> {
  const cluster = kind === 'postgres' ? await startPgCluster() : undefined;
  const auth = {
    ...options.auth,
    rateLimits: { ...TEST_RATE_LIMITS, ...options.auth?.rateLimits },
  };
  const stack = await startDevstack({ ...options, auth, port: 0, databaseUrl: cluster?.url });
  const clients: SupabaseClient[] = [];
  return {
    ...stack,
    kind,
    client(clientOptions = {}) {
      const client = createClient(stack.url, clientOptions.key ?? stack.anonKey, {
        auth: {
          persistSession: clientOptions.persistSession ?? false,
          autoRefreshToken: false,
          detectSessionInUrl: false,
        },
        realtime: { transport: WebSocket as unknown as typeof globalThis.WebSocket },
      });
      clients.push(client);
      return client;
    },
    async stop() {
      for (const client of clients) {
        await client.removeAllChannels();
        await client.realtime.disconnect();
      }
      await stack.stop();
      await cluster?.stop();
    },
  };
}

/** Signs in one of the seeded demo users (password `outpost-demo`). */
export async function signedInDemoClient(
  stack: TestDevstack,
  who: 'alice' | 'bob',
): Promise<SupabaseClient> {
  const client = stack.client();
  const { error } = await client.auth.signInWithPassword({
    email: `${who}@example.com`,
    password: 'outpost-demo',
  });
  if (error) throw error;
  return client;
}

/** Ids the seed uses (supabase/seed.sql). */
export const SEED = {
  alice: 'a11ce000-0000-4000-8000-000000000001',
  bob: 'b0b00000-0000-4000-8000-000000000002',
  list: '11570000-0000-4000-8000-000000000001',
  task: (n: number) => `7a5c0000-0000-4000-8000-${String(n).padStart(12, '0')}`,
} as const;
