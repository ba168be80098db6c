// A device for tests: the real sync library (createSync) over its own fake IndexedDB, its
// supabase-js client signed in as a user through a FaultyNetwork, its realtime sockets
// cuttable, its connectivity switchable, and a reload that keeps its IndexedDB.
// A global IndexedDB must exist, as in a browser: Dexie's liveQuery (which the engine uses
// to notice outbox writes) stays silent without one, even for a database given its own.
import './fake-indexeddb';

import type { SupabaseClient } from '@supabase/supabase-js';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';

import { createSync, type AppDefinition, type Sync, type SyncOptions } from '../core';
import type { AnyRows, RowTypes } from '../registry';
import { deviceDb } from '../testing';
import type { Clock } from '../platform';
import { switchableOnline, type SwitchableOnline } from '../switchable-online';
import { closeWithBackend, type Backend, type User } from './backend';
import { ManualClock } from './clock';
import { cuttableWebSocket, FaultyNetwork } from './faults';

export { switchableOnline, type SwitchableOnline };

/** A device's IndexedDB: its own fake factory, so devices share nothing (unless told to). */
export interface FakeIndexedDb {
  indexedDB: IDBFactory;
  IDBKeyRange: typeof IDBKeyRange;
}

/** How the engine of a test device is set up; the defaults suit tests. */
export interface EngineOptions {
  /** The engine's time (default real time); a `ManualClock` makes its schedule the test's. */
  clock?: Clock;
  /** How long deletes wait for Undo (ms); default 0 here, so deletes are pushed at once. */
  undoWindowMs?: number;
  /** Backoff jitter in [0, 1); default `() => 0` here, so retries come at once. */
  random?: () => number;
  /** Abandon a request after this long (ms; default the library's 30 s). */
  requestTimeoutMs?: number;
  /** Whether the device starts online (default true). */
  online?: boolean;
  /** The IndexedDB database name (default `kit`). */
  dbName?: string;
  /** Share this IndexedDB (a second tab, a reload); default a new one. */
  indexedDb?: FakeIndexedDb;
  /**
   * Any other option of createSync (leadership, tabs, focus, a replaced remote…). By
   * default the device always leads: no Web Locks, no other tabs.
   */
  sync?: Partial<Omit<SyncOptions, 'supabase' | 'dbName' | 'indexedDb'>>;
}

/** The engine part of a device: a started `Sync` over a fake IndexedDB. */
export interface SyncOnFake<Q, W> {
  readonly sync: Sync<Q, W>;
  readonly online: SwitchableOnline;
  readonly indexedDb: FakeIndexedDb;
  /** The options it was started with, its IndexedDB included (to start it again). */
  readonly options: EngineOptions & { indexedDb: FakeIndexedDb; dbName: string };
}

/**
 * Starts the sync library for `app` over `supabase` on a fake IndexedDB: the lower level of
 * `openDevice`, for harnesses that bring their own supabase-js client.
 */
export function startSyncOnFake<Q, W, Rows extends RowTypes = AnyRows>(
  supabase: SupabaseClient,
  app: AppDefinition<Q, W, Rows>,
  options: EngineOptions = {},
): SyncOnFake<Q, W> {
  const indexedDb = options.indexedDb ?? { indexedDB: new IDBFactory(), IDBKeyRange };
  const dbName = options.dbName ?? 'kit';
  const online = switchableOnline(options.online ?? true);
  const sync = createSync(
    {
      leadership: (onLeader) => {
        onLeader();
        return () => undefined;
      },
      ...options.sync,
      supabase,
      dbName,
      indexedDb,
      online,
      undoWindowMs: options.undoWindowMs ?? 0,
      random: options.random ?? (() => 0),
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.requestTimeoutMs === undefined
        ? {}
        : { requestTimeoutMs: options.requestTimeoutMs }),
    },
    app,
  );
  sync.start();
  return { sync, online, indexedDb, options: { ...options, indexedDb, dbName } };
}

/**
 * The tab dies mid-work (a crash, a killed app): the database closes under the engine, so
 * nothing it is doing gets recorded, while a request already sent still reaches the server.
 */
export function crashSync(sync: Sync<unknown, unknown>): void {
  void sync.engine.stop();
  deviceDb(sync).close();
}

/** How `openDevice` sets a device up: the engine's options, and a name for messages. */
export interface DeviceOptions extends EngineOptions {
  /** What settle and assertConverged call it (default the user's email, or `local`). */
  name?: string;
}

/** A test device: a user's app on its own IndexedDB, over a network the test controls. */
export interface Device<Q, W> {
  /** For messages: the user's email unless named otherwise. */
  readonly name: string;
  /** Whose device it is (null: used without an account). */
  readonly user: User | null;
  /** The app's sync: `sync.repos` to write, `sync.queries` to read, `sync.engine` to sync. */
  readonly sync: Sync<Q, W>;
  /** Its supabase-js client, signed in as `user`. */
  readonly supabase: SupabaseClient;
  /**
   * Every request of its client goes through this: script faults (`network.script(/sync_push/,
   * 'drop-response')`), random chaos, `offline`, and counts of what reached the server.
   */
  readonly network: FaultyNetwork;
  /** Its realtime sockets: `cut()` the open ones, `cutAndHold()` until `restore()`. */
  readonly sockets: { cut(): number; cutAndHold(): number; restore(): void };
  /** What the engine believes of connectivity: `online.set(false)` takes it offline. */
  readonly online: SwitchableOnline;
  /** Its IndexedDB (to open another tab over it). */
  readonly indexedDb: FakeIndexedDb;
  /** The engine's clock as given (undefined: real time). */
  readonly clock: Clock | undefined;
  /**
   * A page reload: the engine closes, a new one starts over the same IndexedDB, client and
   * network. Use the returned device from then on.
   */
  reload(): Promise<Device<Q, W>>;
  /** A crash: the database closes under the engine mid-work; returns the next start. */
  crash(): Device<Q, W>;
  /** Closes the engine, the database and the client's realtime socket. */
  close(): Promise<void>;
}

/**
 * Opens a device of `app` for `user` (signed in through the device's own network; null
 * for a device used without an account) on `backend`, and starts syncing. The backend
 * closes it when it stops, if the test has not.
 */
export async function openDevice<Q, W, Rows extends RowTypes = AnyRows>(
  backend: Backend,
  app: AppDefinition<Q, W, Rows>,
  user: Pick<User, 'email' | 'password'> | null,
  options: DeviceOptions = {},
): Promise<Device<Q, W>> {
  const network = new FaultyNetwork(options.clock ? { clock: options.clock } : {});
  const sockets = cuttableWebSocket();
  const supabase = user
    ? await backend.signIn(user, { fetch: network.fetch, transport: sockets.transport })
    : backend.client({ fetch: network.fetch, transport: sockets.transport });
  let owner: User | null = null;
  if (user) {
    const { data } = await supabase.auth.getSession();
    const id = data.session?.user.id;
    if (!id) throw new Error(`openDevice: ${user.email} has no session`);
    owner = { id, email: user.email, password: user.password };
  }
  const name = options.name ?? owner?.email ?? 'local';
  const start = (engineOptions: EngineOptions): Device<Q, W> => {
    const started = startSyncOnFake(supabase, app, engineOptions);
    const { sync } = started;
    let closed: Promise<void> | undefined;
    const close = async () => {
      closed ??= (async () => {
        unregister();
        // Closing waits for the request in flight: one a fault holds on a manual clock (a
        // hang, a delay; a test that failed before its end) is let go by running time out.
        const clock = options.clock;
        if (isManualClock(clock) && network.held > 0) {
          await clock.runTo(clock.now() + 10 * 60_000, { quiet: network.idle });
        }
        await sync.close();
        await supabase.removeAllChannels();
        await supabase.realtime.disconnect();
      })();
      return closed;
    };
    const unregister = closeWithBackend(backend, close);
    return {
      name,
      user: owner,
      sync,
      supabase,
      network,
      sockets,
      online: started.online,
      indexedDb: started.indexedDb,
      clock: options.clock,
      async reload() {
        unregister();
        await sync.close();
        return start(started.options);
      },
      crash() {
        unregister();
        crashSync(sync);
        return start(started.options);
      },
      close,
    };
  };
  return start(options);
}

/** Whether `clock` is the kit's manual clock (settle then moves it). */
export const isManualClock = (clock: Clock | undefined): clock is ManualClock =>
  clock instanceof ManualClock;
