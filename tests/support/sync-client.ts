// A device for sync tests: the real sync library over fake-indexeddb (its own IndexedDB
// factory, so devices share nothing: the sync kit's engine, sync/kit/device.ts, with
// Outpost's app), a supabase-js client of the devstack signed in as a user, a switchable
// online signal, and an optional fetch wrapper for faults.
// A global IndexedDB must exist, as in a browser: Dexie's liveQuery (which the engine uses
// to notice outbox writes) stays silent without one, even for a database given its own.
import './fake-indexeddb';

import type { SupabaseClient } from '@supabase/supabase-js';
import WebSocket from 'ws';

import type { Database } from '../../supabase/database.types';
import { supabaseClient } from '../../sync/kit/backend';
import { crashSync, startSyncOnFake, type FakeIndexedDb } from '../../sync/kit/device';
import type { Clock } from '../../sync/index';
import { OUTPOST_APP, type OutpostSync, type OutpostSyncOptions } from '../../src/data/sync';
import { supabaseRemote, type Remote } from '../../sync/remote';
import { switchableOnline, type SwitchableOnline } from '../../sync/switchable-online';
import type { TestDevstack } from './devstack';
import { deviceDb } from '../../sync/testing';

export { switchableOnline, type SwitchableOnline };

export interface Device {
  sync: OutpostSync;
  supabase: SupabaseClient;
  online: SwitchableOnline;
  indexedDb: FakeIndexedDb;
  /** A new engine over the same IndexedDB (a page reload). */
  reload(): Device;
  /**
   * The tab dies mid-work (a crash, a killed app): the database closes under the engine, so
   * nothing it is doing gets recorded, while a request already sent still reaches the
   * server. Returns the next start of the app, over the same IndexedDB.
   */
  crash(): Device;
  close(): Promise<void>;
}

export interface DeviceOptions {
  /** Wraps every request supabase-js makes (fault injection). */
  fetch?: typeof fetch;
  online?: boolean;
  dbName?: string;
  /** Share this device's IndexedDB (a second tab / a reload). */
  indexedDb?: Device['indexedDb'];
  supabase?: SupabaseClient;
  /** Default 0 here: tests push deletes at once unless they test Undo. */
  undoWindowMs?: number;
  /** Password of `email` (default: the demo accounts' `outpost-demo`). */
  password?: string;
  /** Backoff jitter; default 0 here, so retries come at once. */
  random?: () => number;
  /** The engine's clock (default: real time). */
  clock?: Clock;
  /** Abandon a request after this long (ms). */
  requestTimeoutMs?: number;
  /** Leadership (default: always the leader). */
  leadership?: OutpostSyncOptions['leadership'];
  /** The other tabs of this device. */
  tabs?: OutpostSyncOptions['tabs'];
  /** Tab focus events. */
  focus?: OutpostSyncOptions['focus'];
  /**
   * Replaces parts of the real Supabase port (supabase-js against the devstack), for what
   * the network cannot produce quickly: a refresh failing on the network, a write landing
   * in the middle of a pull, a storm of realtime events.
   */
  wrapRemote?: (real: Remote) => Remote;
}

export function clientFor(
  stack: TestDevstack,
  fetchImpl?: typeof fetch,
  transport: typeof WebSocket = WebSocket,
): SupabaseClient<Database> {
  return supabaseClient<Database>(stack.url, stack.publishableKey, {
    transport,
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
}

export async function signIn(client: SupabaseClient, email: string, password = 'outpost-demo') {
  const { error } = await client.auth.signInWithPassword({ email, password });
  if (error) throw error;
}

/** A device signed in as `email` (or local-only when email is null), started. */
export async function startDevice(
  stack: TestDevstack,
  email: string | null,
  options: DeviceOptions = {},
): Promise<Device> {
  const supabase = options.supabase ?? clientFor(stack, options.fetch);
  if (email && !options.supabase) await signIn(supabase, email, options.password);
  return openDevice(supabase, options);
}

function openDevice(supabase: SupabaseClient, options: DeviceOptions): Device {
  const dbName = options.dbName ?? 'outpost';
  // The sync kit's device engine (sync/kit/device.ts) with Outpost's app and these options.
  const started = startSyncOnFake(supabase, OUTPOST_APP, {
    dbName,
    online: options.online ?? true,
    ...(options.indexedDb ? { indexedDb: options.indexedDb } : {}),
    ...(options.undoWindowMs === undefined ? {} : { undoWindowMs: options.undoWindowMs }),
    ...(options.random ? { random: options.random } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.requestTimeoutMs === undefined
      ? {}
      : { requestTimeoutMs: options.requestTimeoutMs }),
    sync: {
      ...(options.leadership ? { leadership: options.leadership } : {}),
      ...(options.tabs ? { tabs: options.tabs } : {}),
      ...(options.focus ? { focus: options.focus } : {}),
      ...(options.wrapRemote
        ? {
            remote: options.wrapRemote(
              // The same timers as the engine's own remote: the device's clock.
              supabaseRemote(supabase, {
                ...(options.requestTimeoutMs === undefined
                  ? {}
                  : { requestTimeoutMs: options.requestTimeoutMs }),
                ...(options.clock ? { clock: options.clock } : {}),
              }),
            ),
          }
        : {}),
    },
  });
  const { sync, online, indexedDb } = started;
  const device: Device = {
    sync,
    supabase,
    online,
    indexedDb,
    reload() {
      return openDevice(supabase, { ...options, indexedDb, dbName });
    },
    crash() {
      crashSync(sync);
      return openDevice(supabase, { ...options, indexedDb, dbName });
    },
    async close() {
      await sync.close();
      await supabase.removeAllChannels();
      await supabase.realtime.disconnect();
    },
  };
  return device;
}

/** Live (not deleted) rows of a table on a device, by id. */
export async function liveRows(device: Device, table: string) {
  const rows = await deviceDb(device.sync).rows(table).toArray();
  return rows.filter((row) => !row.deleted_at);
}

/**
 * Polls until `check` holds (or throws after `timeoutMs`: sized for a machine running a heavy
 * job beside the suite; a check that holds returns at once).
 */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`waitFor: not true within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The device has pushed everything and says it is synced. */
export const synced = (d: Device) => async () =>
  d.sync.engine.status.getSnapshot().phase === 'synced' && (await d.sync.pendingCount()) === 0;

/** Where `work` is: still pending, or what it resolved to. */
export function track<T>(work: Promise<T>): { state: 'pending' | { value: T } } {
  const tracked: { state: 'pending' | { value: T } } = { state: 'pending' };
  void work.then((value) => (tracked.state = { value }));
  return tracked;
}

/** Waits until the device has pushed everything and is synced. */
export async function settled(device: Device, timeoutMs = 60_000): Promise<void> {
  await waitFor(async () => {
    const status = device.sync.engine.status.getSnapshot();
    return status.phase === 'synced' && (await device.sync.pendingCount()) === 0;
  }, timeoutMs);
}

/**
 * The devices a test file opens against its devstack, closed after each test: `device()`
 * starts one, `keep()` adds one made another way (a reload), `forget()` drops one the test
 * closed itself.
 */
export class DeviceSet {
  private readonly open: Device[] = [];

  constructor(private readonly stack: () => TestDevstack) {}

  async device(email: string | null, options: DeviceOptions = {}): Promise<Device> {
    return this.keep(await startDevice(this.stack(), email, options));
  }

  keep(device: Device): Device {
    this.open.push(device);
    return device;
  }

  forget(device: Device): void {
    const index = this.open.indexOf(device);
    if (index >= 0) this.open.splice(index, 1);
  }

  async closeAll(): Promise<void> {
    for (const device of this.open.splice(0)) await device.close();
  }
}
