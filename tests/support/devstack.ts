// A devstack per test suite, on PGlite (in memory, from the snapshot) or on a throwaway
// Postgres 15 cluster, plus supabase-js clients for it (the sync kit's, with `ws` as the
// realtime transport), a clock that tests move, the hooks that give a suite one devstack per
// engine, and fresh addresses for sign-ups. The sync kit's startBackend is the generic one
// (PGlite, any app's migrations); this one adds Postgres and restarts.
import type { SupabaseClient, SupabaseClientOptions } from '@supabase/supabase-js';
import { exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll } from 'vitest';

import { TEST_RATE_LIMITS } from '../../devstack/auth/config';
import { BCRYPT_MIN_COST } from '../../devstack/auth/routes';
import { openDevstackDatabase } from '../../devstack/database';
import { createKeys, type Keys } from '../../devstack/keys';
import { startDevstack, type Devstack, type DevstackOptions } from '../../devstack/server';
import type { Database } from '../../supabase/database.types';
import { supabaseClient } from '../../sync/kit/backend';
import { TestClock } from '../../sync/kit/clock';
import type { EngineKind } from './database';
import { freshPostgres } from './pg-databases';

export type TestDevstackOptions = Omit<DevstackOptions, 'databaseUrl' | 'database' | 'port'>;

export interface TestDevstack extends Devstack {
  readonly kind: EngineKind;
  /** A supabase-js client with its own in-memory session storage. */
  client(options?: {
    key?: string;
    persistSession?: boolean;
    realtime?: SupabaseClientOptions<'public'>['realtime'];
  }): SupabaseClient<Database>;
  /**
   * Stops the devstack and starts it again on the same port and database, with `changes`
   * applied to the options it started with. Clients keep their sessions.
   */
  restart(changes?: TestDevstackOptions): Promise<void>;
}

export { TEST_RATE_LIMITS };

/**
 * The devstack's time for tests that test expiry (sync/kit/clock.ts). Suites that sign in
 * more than 30 times move it between tests: rate-limit buckets refill only as it moves.
 */
export { TestClock };

export async function startTestDevstack(
  kind: EngineKind,
  options: TestDevstackOptions = {},
): Promise<TestDevstack> {
  // Postgres: a copy of the migrated template on the run's one cluster (global-postgres.ts).
  const cluster =
    kind === 'postgres'
      ? await freshPostgres(options.seed === false ? 'schema' : 'seeded')
      : undefined;
  // In-memory PGlite is opened here, not by the devstack, so a restart keeps its data.
  const pglite =
    kind === 'pglite' && options.dataDir === undefined
      ? await openDevstackDatabase({ seed: options.seed ?? true, useSnapshot: options.useSnapshot })
      : undefined;
  const start = (opts: TestDevstackOptions, port: number) =>
    startDevstack({
      // Dozens of sign-ups per suite: bcrypt's least cost (the seeded users' hashes stay 10).
      passwordHashCost: BCRYPT_MIN_COST,
      ...opts,
      auth: { ...opts.auth, rateLimits: { ...TEST_RATE_LIMITS, ...opts.auth?.rateLimits } },
      port,
      databaseUrl: cluster?.url,
      ...(pglite ? { database: pglite } : {}),
    });
  let current = options;
  let stack: Devstack;
  try {
    stack = await start(current, 0);
  } catch (error) {
    await pglite?.close();
    await cluster?.stop();
    throw error;
  }
  const clients: SupabaseClient<Database>[] = [];
  let stopped: Promise<void> | undefined;
  return {
    kind,
    get url() {
      return stack.url;
    },
    get port() {
      return stack.port;
    },
    get publishableKey() {
      return stack.publishableKey;
    },
    get secretKey() {
      return stack.secretKey;
    },
    get legacyKeys() {
      return stack.legacyKeys;
    },
    get keys() {
      return stack.keys;
    },
    get db() {
      return stack.db;
    },
    realtimeMessagesRead() {
      return stack.realtimeMessagesRead();
    },
    client(clientOptions = {}) {
      const client = supabaseClient<Database>(stack.url, stack.publishableKey, clientOptions);
      clients.push(client);
      return client;
    },
    async restart(changes = {}) {
      const port = stack.port;
      await stack.stop();
      current = { ...current, ...changes };
      stack = await start(current, port);
    },
    stop() {
      stopped ??= (async () => {
        for (const client of clients) {
          await client.removeAllChannels();
          await client.realtime.disconnect();
        }
        await stack.stop();
        await pglite?.close();
        await cluster?.stop();
      })();
      return stopped;
    },
  };
}

/**
 * The suite's devstack on `kind`: started (and `sql` run on it) in a beforeAll, stopped in an
 * afterAll, both registered here. What is returned stands for it once started; reading it
 * before (at collection time) throws rather than answering from nothing. `options` may be a
 * function when they need work done at start (a config file written), not at collection.
 */
export function devstackPerEngine(
  kind: EngineKind,
  options: TestDevstackOptions | (() => TestDevstackOptions) = {},
  sql?: string,
): TestDevstack {
  let current: TestDevstack | undefined;
  beforeAll(async () => {
    current = await startTestDevstack(kind, typeof options === 'function' ? options() : options);
    if (sql !== undefined) await current.db.exec(sql);
  });
  afterAll(async () => {
    await current?.stop();
  });
  return new Proxy({} as TestDevstack, {
    get(_target, property) {
      if (current === undefined) throw new Error('the devstack is read before its beforeAll');
      const value: unknown = Reflect.get(current, property);
      return typeof value === 'function' ? (value as () => unknown).bind(current) : value;
    },
  });
}

let counter = 0;
/** A fresh address; `tag` lets a list filter find exactly the users of one test. */
export function uniqueEmail(tag: string): string {
  counter += 1;
  return `${tag}-${counter}-${Date.now().toString(36)}@example.com`;
}

/**
 * Keys that sign as the devstack's do (ES256, the current kid in the header) but with another
 * private key: a forged token, refused for its signature.
 */
export async function forgedKeys(stack: { keys: Keys }): Promise<Keys> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const kid = stack.keys.signingKeys().find((key) => key.state === 'current')?.kid ?? '';
  return createKeys({ signingKeys: [{ ...(await exportJWK(privateKey)), kid, alg: 'ES256' }] });
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
