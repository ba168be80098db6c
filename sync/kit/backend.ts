// An in-memory Supabase-compatible backend for tests: the devstack (auth, REST, realtime,
// storage) over PGlite, built from the bootstrap and an app's own migrations, on a free port.
// Node 20 needs `ws` as supabase-js's realtime transport (it throws without one below 22).
import {
  createClient,
  type SupabaseClient,
  type SupabaseClientOptions,
} from '@supabase/supabase-js';
import WebSocket from 'ws';

import { TEST_RATE_LIMITS } from '../../devstack/auth/config';
import { BCRYPT_MIN_COST } from '../../devstack/auth/routes';
import type { DevstackClock } from '../../devstack/clock';
import { openDevstackDatabase } from '../../devstack/database';
import { MIGRATIONS_DIR } from '../../devstack/schema-files';
import { startDevstack, type Devstack } from '../../devstack/server';
import type { Row, SqlEngine, SqlParam } from '../../devstack/sql-engine';
import { resolve } from 'node:path';

/** What `startBackend` builds and how. */
export interface BackendOptions {
  /**
   * A directory of .sql migrations, applied in name order after the bootstrap (what hosted
   * Supabase provides: the auth, storage and realtime schemas, the API roles). Default
   * supabase/migrations of this repository.
   */
  migrations?: string;
  /**
   * A seed .sql file loaded after the migrations, or false for none. Default: none with
   * your own `migrations`; supabase/seed.sql with the default ones.
   */
  seed?: string | false;
  /**
   * The backend's time (token expiry, rate limits, signed URLs): a `TestClock` to test
   * expiry without waiting. Default the real clock.
   */
  clock?: DevstackClock;
  /** Access-token lifetime (s); default supabase/config.toml's `auth.jwt_expiry`. */
  accessTokenTtlSec?: number;
}

/** A user made on the backend, with what signs them in. */
export interface User {
  readonly id: string;
  readonly email: string;
  readonly password: string;
}

/** A running backend. Stop it when the suite ends: `stop()` closes its devices too. */
export interface Backend {
  /** The API's base URL (http://127.0.0.1:port), for supabase-js. */
  readonly url: string;
  /** The publishable key (what an app ships; role anon). */
  readonly publishableKey: string;
  /** The secret key (role service_role: bypasses row-level security; servers only). */
  readonly secretKey: string;
  /** The database, as the superuser (the kit's SQL helpers take it). */
  readonly db: SqlEngine;
  /** Runs `text` as the superuser (no RLS) and returns its rows; `$1`… are `params`. */
  sql<R extends Row = Row>(text: string, params?: readonly SqlParam[]): Promise<R[]>;
  /** Signs up a user (a unique email when none is given; password default `password-123`). */
  createUser(email?: string, password?: string): Promise<User>;
  /**
   * A supabase-js client for this backend, with its own in-memory session (not persisted,
   * no auto-refresh); `fetch` and `transport` replace its HTTP and realtime transports.
   */
  client(options?: ClientOptions): SupabaseClient;
  /** A client signed in as `user`. */
  signIn(user: Pick<User, 'email' | 'password'>, options?: ClientOptions): Promise<SupabaseClient>;
  /** Closes every device and client opened on it, then the server and the database. */
  stop(): Promise<void>;
}

/** How `Backend.client` makes a supabase-js client. */
export interface ClientOptions {
  /** The API key (default the publishable key). */
  key?: string;
  /** Every HTTP request goes through this (a FaultyNetwork's `fetch`). */
  fetch?: typeof fetch;
  /** The realtime WebSocket class (default `ws`; a cuttable one to cut sockets). */
  transport?: typeof WebSocket;
  /** Keep the session in (in-memory) storage; default false. */
  persistSession?: boolean;
  /** Other realtime options (the transport is `transport`). */
  realtime?: SupabaseClientOptions<'public'>['realtime'];
}

/**
 * A supabase-js client of a test backend at `url`: no session in the URL, no auto-refresh
 * (tests refresh when they mean to), `ws` (or `options.transport`) for realtime. `DB` is the
 * app's generated `Database` type (`supabase gen types typescript`), as `createClient<DB>`
 * takes it; the kit itself knows no app's schema, so it is untyped by default.
 */
export function supabaseClient<DB = unknown>(
  url: string,
  publishableKey: string,
  options: ClientOptions = {},
): SupabaseClient<DB> {
  return createClient<DB>(url, options.key ?? publishableKey, {
    auth: {
      persistSession: options.persistSession ?? false,
      autoRefreshToken: false,
      detectSessionInUrl: false,
    },
    realtime: {
      ...options.realtime,
      transport: (options.transport ?? WebSocket) as unknown as typeof globalThis.WebSocket,
    },
    ...(options.fetch ? { global: { fetch: options.fetch } } : {}),
  });
}

/** Things the backend closes when it stops (devices opened on it). */
const closers = new WeakMap<Backend, Set<() => Promise<void>>>();

/** Registers `close` to run when `backend` stops; returns a function that unregisters it. */
export function closeWithBackend(backend: Backend, close: () => Promise<void>): () => void {
  const set = closers.get(backend);
  set?.add(close);
  return () => set?.delete(close);
}

let users = 0;

/**
 * Starts a backend on in-memory PGlite with `options.migrations` (default this repository's)
 * on a free port. The first start of a schema builds it (seconds) and keeps a snapshot under
 * node_modules/.cache, keyed by the SQL files' names and content; later starts load it.
 */
export async function startBackend(options: BackendOptions = {}): Promise<Backend> {
  const migrationsDir =
    options.migrations === undefined ? MIGRATIONS_DIR : resolve(options.migrations);
  const seedFile =
    options.seed === undefined
      ? options.migrations === undefined
        ? undefined
        : false
      : options.seed;
  const db = await openDevstackDatabase({
    seed: seedFile !== false,
    schema: { migrationsDir, seedFile },
  });
  let stack: Devstack;
  try {
    stack = await startDevstack({
      port: 0,
      database: db,
      // Suites sign up dozens of users: bcrypt's least cost, and rate limits for tests.
      passwordHashCost: BCRYPT_MIN_COST,
      auth: { rateLimits: TEST_RATE_LIMITS },
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.accessTokenTtlSec === undefined
        ? {}
        : { accessTokenTtlSec: options.accessTokenTtlSec }),
    });
  } catch (error) {
    await db.close();
    throw error;
  }
  const clients: SupabaseClient[] = [];
  const toClose = new Set<() => Promise<void>>();
  let stopped: Promise<void> | undefined;
  const backend: Backend = {
    url: stack.url,
    publishableKey: stack.publishableKey,
    secretKey: stack.secretKey,
    db,
    async sql<R extends Row = Row>(text: string, params: readonly SqlParam[] = []) {
      return (await db.query<R>(text, params)).rows;
    },
    async createUser(email, password = 'password-123') {
      users += 1;
      const address = email ?? `user-${process.pid}-${Date.now()}-${users}@example.com`;
      const client = backend.client();
      const { data, error } = await client.auth.signUp({ email: address, password });
      if (error) throw error;
      if (!data.user) throw new Error(`createUser: no user made for ${address}`);
      return { id: data.user.id, email: address, password };
    },
    client(clientOptions = {}) {
      const client = supabaseClient(stack.url, stack.publishableKey, clientOptions);
      clients.push(client);
      return client;
    },
    async signIn(user, clientOptions) {
      const client = backend.client(clientOptions);
      const { error } = await client.auth.signInWithPassword({
        email: user.email,
        password: user.password,
      });
      if (error) throw error;
      return client;
    },
    stop() {
      stopped ??= (async () => {
        for (const close of [...toClose]) await close().catch(() => undefined);
        for (const client of clients) {
          await client.removeAllChannels();
          await client.realtime.disconnect();
        }
        await stack.stop();
        await db.close();
      })();
      return stopped;
    },
  };
  closers.set(backend, toClose);
  return backend;
}
