// The sync library's generic entry: `createSync` wires the Dexie store, the app's write API
// (over the store: validate, write and queue in one transaction) and read API (named
// queries) and the engine over the app's supabase-js client, for any app's SyncSchema.
// The public entry is index.ts; Outpost's wiring is src/data/sync.ts. The engine's rooms (platform.ts lists them) are wired here and
// nothing more. In a browser, one tab leads (Web Locks, leadership.ts) and runs the engine;
// the others follow it. A sign-out (account.ts) takes the lock before it wipes, so no tab's
// engine writes into the wiped store.
import { createAccount } from './account';
import type { RemoteChange } from './apply';
import { DEVICE_DB, SyncDatabase, typedRows, type IndexedDbDeps } from './db';
import { createLeader, syncLockName, webLocksLeadership, type Leadership } from './leadership';
import { pendingCount } from './outbox';
import { realClock, type Clock, type OnlineSignal } from './platform';
import { deviceReader, type DeviceReader } from './reader';
import type { AnyRows, RowTypes, SyncSchema } from './registry';
import type { Remote, SupabaseSource } from './remote';
import { REQUEST_TIMEOUT_MS } from './requests';
import { supabaseSession } from './session';
import { lazyEngine } from './lazy-engine';
import type { SyncEngine } from './schedule';
import type { WriteContext } from './store';
import { broadcastTabChannel, type TabChannel } from './tabs';

/** How the sync library is wired; everything but `supabase` has a browser default. */
export interface SyncOptions {
  /**
   * The app's supabase-js client (its session is the engine's session), or the promise of it
   * (SupabaseSource): an app that loads supabase-js after its first paint passes the promise,
   * and reads and writes never wait for it; the engine's requests and the sign-out do.
   */
  supabase: SupabaseSource;
  /** IndexedDB database name (one per device profile; tests use one per client). */
  dbName: string;
  /** fake-indexeddb in Node tests; the browser's own by default. */
  indexedDb?: IndexedDbDeps;
  /** Time and timers (default: the real ones). */
  clock?: Clock;
  /** Connectivity (default: navigator.onLine and its events). */
  online?: OnlineSignal;
  /** Uniform in [0, 1), for backoff jitter (default Math.random). */
  random?: () => number;
  /** New row and client ids (default crypto.randomUUID). */
  newId?: () => string;
  /** Tab focus, for a pull when the user comes back (default: document visibility). */
  focus?: { subscribe(onFocus: () => void): () => void };
  /** fetch for signed-URL downloads (the app's own; tests inject faults). */
  fetch?: typeof fetch;
  /** How long deletes wait so Undo can cancel them (ms; default 5 s; tests use 0). */
  undoWindowMs?: number;
  /** Replace the Supabase port (tests of the engine alone). */
  remote?: Remote;
  /** A request unanswered after this long counts as TIMEOUT and is retried (ms; default 30 s). */
  requestTimeoutMs?: number;
  /**
   * Runs the engine only while `acquire` holds leadership (Web Locks in browsers: one tab
   * syncs, the others only write). Default: navigator.locks when present, else always leader.
   */
  leadership?: Leadership | undefined;
  /**
   * The other tabs of this device, so followers show the leader's status and pass it their
   * sync requests. Default: a BroadcastChannel when leadership is the Web Locks default.
   */
  tabs?: TabChannel;
  /**
   * Called after sign-out has wiped the device's database: clear what the app keeps of the
   * user elsewhere (the service worker's cache of attachment downloads).
   */
  onWipe?: () => Promise<void> | void;
  /**
   * Receives the refresh token of the session a sign-out ends, before that session leaves
   * the auth client's storage, so it can be revoked on the server once that is reachable
   * (Outpost's app: `src/lib/revocations.ts`). Keep it durably (it must survive a reload)
   * before returning, apart from the auth client's storage; if this throws, the sign-out
   * rejects and the session stays. Without it the session ends on this device only and
   * stays valid on the server until it expires.
   */
  keepForRevocation?: (refreshToken: string) => void;
  /**
   * Hears the server rows that changed this device's copies, pulled or by realtime, in the
   * tab that leads: what others did, for an app that tells its user (a notification while
   * the app is hidden). Called after the rows are stored; keep it quick.
   */
  onRemoteChanges?: (changes: RemoteChange[]) => void;
  /**
   * Called when changes are queued that cannot be sent now (offline, or the network failed):
   * register a one-off Background Sync whose service worker runs `syncInBackground`
   * (background.ts), so they are sent when the network is back, with the app closed too.
   */
  requestBackgroundSync?: () => void;
}

/**
 * The sync library for one device database: read through `queries`, write through
 * `repos` (both the app's, built on the library: `Q` and `W`), watch `engine`.
 */
export interface Sync<Q, W> {
  /** The device's database: the library's own (tests reach it through sync/testing.ts). */
  readonly [DEVICE_DB]: SyncDatabase;
  /** The read API: every question a screen asks of the device (run them in liveQuery). */
  readonly queries: Q;
  /** The only write API: validate, write and queue in one transaction. */
  readonly repos: W;
  /** Push, pull and their schedule; `engine.status` for the UI. */
  readonly engine: SyncEngine;
  /** Queued changes not yet on the server (for the sign-out warning). */
  pendingCount(): Promise<number>;
  /**
   * An attachment's bytes: from this device when it has them (captured here, or fetched
   * before), else downloaded once through a signed URL and kept for offline viewing.
   * Resolves to undefined when it is neither here nor reachable.
   */
  attachmentBlob(attachmentId: string): Promise<Blob | undefined>;
  /** Removes one entry from the log of rejected changes (the user has read it). */
  dismissRejection(id: number): Promise<void>;
  /** Empties the log of rejected changes. */
  clearRejections(): Promise<void>;
  /** Starts syncing: this tab follows the leader until it is granted leadership itself. */
  start(): void;
  /** Stops syncing (an in-flight push finishes first); the database stays open. */
  stop(): Promise<void>;
  /**
   * Signs out and wipes this device's data, then starts again, ready for the next sign-in.
   * The session ends on the device at once, with or without a network; its refresh token
   * goes to `keepForRevocation` first. With unsynced changes and no `force`, does nothing
   * and returns their count so the UI can warn first. The tab takes the lock first: over
   * the tab channel it asks the tab that leads to stop (after its push in flight) and let
   * go, and tells every tab once the device belongs to nobody. Rejects with TIMEOUT when the lock has not come after 90 s.
   */
  signOut(options?: { force?: boolean }): Promise<{ signedOut: boolean; pending: number }>;
  /** Closes the database (tests). */
  close(): Promise<void>;
}

/** Browser connectivity: navigator.onLine and its events; always online where there are none. */
export function browserOnline(): OnlineSignal {
  const hasWindow = typeof window !== 'undefined' && typeof navigator !== 'undefined';
  return {
    isOnline: () => (hasWindow ? navigator.onLine : true),
    subscribe(onChange) {
      if (!hasWindow) return () => undefined;
      const up = () => onChange(true);
      const down = () => onChange(false);
      window.addEventListener('online', up);
      window.addEventListener('offline', down);
      return () => {
        window.removeEventListener('online', up);
        window.removeEventListener('offline', down);
      };
    },
  };
}

/** Tab focus/visibility: a pull when the user comes back. */
function browserFocus(): SyncOptions['focus'] {
  if (typeof document === 'undefined') return undefined;
  return {
    subscribe(onFocus) {
      const handler = () => {
        if (document.visibilityState === 'visible') onFocus();
      };
      document.addEventListener('visibilitychange', handler);
      return () => document.removeEventListener('visibilitychange', handler);
    },
  };
}

/**
 * What an app adds to the library: its data, and its read and write APIs over it. `Rows`
 * are its rows by table (default: any columns): the reader and the store give and take them.
 */
export interface AppDefinition<Q, W, Rows extends RowTypes = AnyRows> {
  /** The app's synced tables, access model, files and cascades. */
  schema: SyncSchema<Rows>;
  /**
   * The app's read API over the device: named queries the screens run in liveQuery
   * (Outpost: queries.ts). `owner` answers whose device this is.
   */
  queries: (reader: DeviceReader<Rows>, owner: () => Promise<string | null>) => Q;
  /** The app's write API over the store (createStore; Outpost: repositories.ts). */
  writes: (ctx: WriteContext<Rows>) => W;
}

/**
 * Opens the device's database for `app` and wires its read and write APIs and the engine
 * over the app's supabase-js client. Call `start()` to begin syncing.
 */
export function createSync<Q, W, Rows extends RowTypes = AnyRows>(
  options: SyncOptions,
  app: AppDefinition<Q, W, Rows>,
): Sync<Q, W> {
  const { dbName } = options;
  const db = new SyncDatabase(dbName, app.schema, options.indexedDb);
  const clock = options.clock ?? realClock;
  const newId = options.newId ?? (() => crypto.randomUUID());
  const requestTimeoutMs = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  // The account follows the session from the start; the rest of the Supabase port (remote.ts
  // and its wire schemas) is only the engine's and the attachments', so it comes with them.
  const session = options.remote ?? supabaseSession(options.supabase, { requestTimeoutMs, clock });
  const loadRemote = async (): Promise<Remote> =>
    options.remote ??
    (await import('./remote')).supabaseRemote(options.supabase, { requestTimeoutMs, clock });
  const defaultLeadership = options.leadership === undefined;
  const leadership = options.leadership ?? webLocksLeadership(dbName);
  const tabs =
    options.tabs ??
    (defaultLeadership && leadership ? broadcastTabChannel(syncLockName(dbName)) : undefined);
  const account = createAccount(db, session, tabs);
  // The engine's code (push, pull, realtime, their schedule) comes when it is first started
  // (lazy-engine.ts): reads and writes never need it.
  const engine = lazyEngine(async (status) => {
    // The engine's code and the Supabase port's come together.
    const [{ createSyncEngine }, remote] = await Promise.all([import('./schedule'), loadRemote()]);
    return createSyncEngine({
      db,
      remote,
      clock,
      online: options.online ?? browserOnline(),
      random: options.random ?? Math.random,
      newId,
      schemaVersion: app.schema.version,
      undoWindowMs: options.undoWindowMs,
      focus: options.focus ?? browserFocus(),
      tabs,
      onDatabaseClosed: () => leader.closed(),
      account,
      status,
      onRemoteChanges: options.onRemoteChanges,
      requestBackgroundSync: options.requestBackgroundSync,
    });
  });
  const leader = createLeader(engine, db, clock, leadership, tabs);
  // What the other tabs tell the account and leadership (the engine listens while it runs).
  const stopTabWatch = tabs?.subscribe((message) => {
    if (message.type === 'wiped') account.wiped();
    if (message.type === 'yield') leader.yield();
  });
  const repos = app.writes({
    db,
    rows: typedRows<Rows>(db),
    now: () => clock.now(),
    userId: account.userId,
    newId,
    ready: account.ready,
    onQueued: () => engine.queued(),
  });

  let attachmentBlob: ((attachmentId: string) => Promise<Blob | undefined>) | undefined;
  const sync: Sync<Q, W> = {
    [DEVICE_DB]: db,
    queries: app.queries(deviceReader<Rows>(db), account.owner),
    repos,
    engine,
    pendingCount: () => pendingCount(db),
    // Downloads on first use (files.ts: only the task screen shows files).
    async attachmentBlob(attachmentId) {
      if (!attachmentBlob) {
        const { createAttachmentBlob } = await import('./files');
        const remote = await loadRemote();
        attachmentBlob ??= createAttachmentBlob(db, remote, clock, requestTimeoutMs, options.fetch);
      }
      return attachmentBlob(attachmentId);
    },
    async dismissRejection(id) {
      await db._rejections.delete(id);
    },
    async clearRejections() {
      await db._rejections.clear();
    },
    start: leader.start,
    stop: leader.stop,
    async signOut({ force = false } = {}) {
      const pending = await pendingCount(db);
      if (pending > 0 && !force) return { signedOut: false, pending };
      await leader.alone(() => account.signOut(options));
      return { signedOut: true, pending };
    },
    async close() {
      account.close();
      stopTabWatch?.();
      await sync.stop();
      if (!options.tabs) tabs?.close();
      db.close();
    },
  };
  return sync;
}
