// Public API of the sync library: `createOutpostSync` wires the Dexie store, the
// repositories (the only write API) and the engine over the app's supabase-js client.
// The app reads `db` with liveQuery, writes through `repos`, and shows `engine.status`.
// In a browser, one tab leads (Web Locks) and runs the engine; the others follow it. A
// sign-out takes the lock before it wipes, so no tab's engine writes into the wiped store.
import type { SupabaseClient } from '@supabase/supabase-js';

import { SyncDatabase, type IndexedDbDeps } from './db';
import {
  ATTACHMENTS_BUCKET,
  createSyncEngine,
  LOCAL_USER_ID,
  realClock,
  type Clock,
  type OnlineSignal,
  type SyncEngine,
} from './engine';
import { SyncError } from './errors';
import { OUTPOST_SCHEMA_VERSION, OUTPOST_TABLES } from './outpost';
import { pendingCount } from './outbox';
import {
  REQUEST_TIMEOUT_MS,
  supabaseRemote,
  TRANSFER_TIMEOUT_FACTOR,
  withTimeout,
  type Remote,
} from './remote';
import { createRepositories, type Repositories } from './repositories';
import { endLocalSession } from './session-end';
import { broadcastTabChannel, type TabChannel } from './tabs';

/** How the sync library is wired; everything but `supabase` has a browser default. */
export interface OutpostSyncOptions {
  /** The app's supabase-js client (its session is the engine's session). */
  supabase: SupabaseClient;
  /** IndexedDB database name (one per device profile; tests use one per client). */
  dbName?: string;
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
  leadership?: (onLeader: () => void) => () => void;
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
}

/** The sync library for one device database: read `db`, write `repos`, watch `engine`. */
export interface OutpostSync {
  /** The device's database; screens read it with liveQuery. */
  readonly db: SyncDatabase;
  /** The only write API: validate, write and queue in one transaction. */
  readonly repos: Repositories;
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
   * and returns their count so the UI can warn first. The tab takes the lock first: over the tab channel it asks the tab that
   * leads to stop (after its push in flight) and let go, and tells every tab once the device
   * belongs to nobody. Rejects with TIMEOUT when the lock has not come after 90 s.
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
function browserFocus(): OutpostSyncOptions['focus'] {
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

/** One tab holds the lock and syncs; when it closes, another takes over. */
function webLocksLeadership(name: string): OutpostSyncOptions['leadership'] {
  const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
  if (!locks) return undefined;
  return (onLeader) => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const controller = new AbortController();
    locks
      .request(`outpost-sync:${name}`, { signal: controller.signal }, () => {
        // Granted just as the tab gave up its place: the abort came too late to cancel the
        // request, and `held` is already settled, so the lock goes straight back.
        if (!controller.signal.aborted) onLeader();
        return held;
      })
      .catch(() => undefined);
    return () => {
      controller.abort();
      release();
    };
  };
}

/** Lifetime of the signed URL used to fetch an attachment once (s). */
const SIGNED_URL_TTL_SEC = 60;

/**
 * How long a sign-out waits for the lock (ms): the leading tab first finishes its sync in
 * flight, whose requests give up after 30–60 s each. A tab that never lets go (an older
 * version of the app, which does not know the request) makes the sign-out fail, not hang.
 */
const SIGN_OUT_LOCK_WAIT_MS = 90_000;

/**
 * Opens the device's database and wires the repositories and the engine over the app's
 * supabase-js client. Call `start()` to begin syncing.
 */
export function createOutpostSync(options: OutpostSyncOptions): OutpostSync {
  const fetchImpl =
    options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const dbName = options.dbName ?? 'outpost';
  const db = new SyncDatabase(dbName, OUTPOST_TABLES, options.indexedDb);
  const clock = options.clock ?? realClock;
  const newId = options.newId ?? (() => crypto.randomUUID());
  const requestTimeoutMs = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const remote = options.remote ?? supabaseRemote(options.supabase, { requestTimeoutMs, clock });
  const defaultLeadership = options.leadership === undefined;
  const leadership = options.leadership ?? webLocksLeadership(dbName);
  const tabs =
    options.tabs ??
    (defaultLeadership && leadership ? broadcastTabChannel(`outpost-sync:${dbName}`) : undefined);
  const focus = options.focus ?? browserFocus();
  let userId = LOCAL_USER_ID;
  // Writes wait for this (RepoContext.ready); closing the database before it settles is fine.
  const ownerKnown = db
    .getMeta<string>('userId')
    .then((id) => {
      if (id && userId === LOCAL_USER_ID) userId = id;
    })
    .catch(() => undefined);
  const engine = createSyncEngine({
    db,
    remote,
    clock,
    online: options.online ?? browserOnline(),
    random: options.random ?? Math.random,
    newId,
    schemaVersion: OUTPOST_SCHEMA_VERSION,
    undoWindowMs: options.undoWindowMs,
    focus,
    tabs,
    // Closed for good under the running engine (Dexie reopens a database closed any other
    // way): let another tab lead, and show its status instead of a sync that stopped.
    onDatabaseClosed: () =>
      void vacate().then(() => {
        if (started && !retired && !seat) engine.follow();
      }),
  });
  const repos = createRepositories({
    db,
    now: () => clock.now(),
    userId: () => userId,
    newId,
    ready: ownerKnown,
    onQueued: () => engine.queued(),
  });
  const stopAuthWatch = remote.onAuthChange((id) => {
    if (id) userId = id;
  });
  remote
    .userId()
    .then((id) => {
      if (id) userId = id;
    })
    .catch(() => undefined);

  // Leadership. `seat` is this tab's place in the lock's queue, or its hold on the lock once
  // `leading`; `started` is what the app asked for (start/stop). Another tab's sign-out makes
  // this one give up its seat and queue again behind it ('yield'); a newer version of the app
  // opening the database retires this tab for good (it says "Update available").
  interface Seat {
    resign: () => void;
    leading: boolean;
  }
  let seat: Seat | undefined;
  let started = false;
  let retired = false;
  /** Set while this tab's sign-out waits for the lock: the grant is for it. */
  let onGranted: (() => void) | undefined;
  /** While this tab signs out it keeps the lock: a request to step aside waits till then. */
  let signingOut = false;
  let stepAsideLater = false;

  /** Queues this tab for leadership, following the leader meanwhile. */
  function campaign(): Seat {
    const mine: Seat = { resign: () => undefined, leading: !leadership };
    seat = mine;
    if (!leadership) engine.start();
    else {
      engine.follow();
      mine.resign = leadership(() => {
        if (seat !== mine) return; // given up before the lock came
        mine.leading = true;
        const waiting = onGranted;
        onGranted = undefined;
        if (waiting) waiting();
        else engine.start();
      });
    }
    return mine;
  }

  /** Stops the engine, then gives up the seat: its push in flight finishes while it leads. */
  async function vacate(): Promise<void> {
    const mine = seat;
    seat = undefined;
    await engine.stop();
    mine?.resign();
  }

  /** Lets another tab's sign-out (or a newer app) have the lock; queues again unless retired. */
  async function stepAside(): Promise<void> {
    if (signingOut) {
      stepAsideLater = true;
      return;
    }
    await vacate();
    if (retired) engine.retire();
    else if (started && !seat) campaign();
  }

  const stopTabWatch = tabs?.subscribe((message) => {
    // Writes from now on are local-only, claimed by whoever signs in next.
    if (message.type === 'wiped') userId = LOCAL_USER_ID;
    if (message.type === 'yield' && leadership && !retired) void stepAside();
  });
  // Another tab opened the database with a newer schema (a new deploy): Dexie reopens it
  // here at that version, but this tab's engine is the old one and must not keep the lock.
  db.on('versionchange', (event) => {
    if (!event.newVersion || retired) return;
    retired = true;
    void stepAside();
  });

  const sync: OutpostSync = {
    db,
    repos,
    engine,
    pendingCount: () => pendingCount(db),
    async attachmentBlob(attachmentId) {
      const kept = await db._files.get(attachmentId);
      if (kept) return kept.blob;
      const row = await db.rows('attachments').get(attachmentId);
      const objectPath = row?.object_path;
      const listId = row?.list_id;
      if (typeof objectPath !== 'string' || typeof listId !== 'string') return undefined;
      try {
        const url = await remote.signedUrl(ATTACHMENTS_BUCKET, objectPath, SIGNED_URL_TTL_SEC);
        // A download that never answers would leave the screen waiting for good: the answer
        // gets a request's time, its bytes as long as an upload's (a 10 MiB photo on a slow
        // link). Either timer aborts the whole download (one controller for both).
        const download = new AbortController();
        const response = await withTimeout(
          requestTimeoutMs,
          (signal) => fetchImpl(url, { signal }),
          download,
          clock,
        );
        if (!response.ok) return undefined;
        const blob = await withTimeout(
          requestTimeoutMs * TRANSFER_TIMEOUT_FACTOR,
          () => response.blob(),
          download,
          clock,
        );
        // Kept only while its row is still here: the list may have been purged (or the
        // attachment deleted) during the download, and nothing would ever remove it then.
        await db.transaction('rw', [db.rows('attachments'), db._files], async () => {
          const current = await db.rows('attachments').get(attachmentId);
          if (!current || current.deleted_at || (await db._files.get(attachmentId))) return;
          await db._files.put({
            id: attachmentId,
            blob,
            objectPath,
            state: 'cached',
            attempts: 0,
            listId,
          });
        });
        return blob;
      } catch {
        return undefined; // offline or gone: the screen shows a placeholder
      }
    },
    async dismissRejection(id) {
      await db._rejections.delete(id);
    },
    async clearRejections() {
      await db._rejections.clear();
    },
    start() {
      started = true;
      if (seat || retired) return;
      campaign();
    },
    async stop() {
      // The engine first: its push in flight finishes while this tab still leads, or another
      // tab would take over and send the same entries again.
      started = false;
      await vacate();
    },
    async signOut({ force = false } = {}) {
      const pending = await pendingCount(db);
      if (pending > 0 && !force) return { signedOut: false, pending };
      signingOut = started = true;
      const mine = seat ?? campaign();
      try {
        if (!mine.leading) {
          // Asked after this tab queued, so the tabs that let go queue again behind it.
          await new Promise<void>((resolve, reject) => {
            const timer = clock.setTimeout(() => {
              onGranted = undefined;
              reject(new SyncError('TIMEOUT', 'Another tab is still syncing: close it and retry'));
            }, SIGN_OUT_LOCK_WAIT_MS);
            onGranted = () => {
              clock.clearTimeout(timer);
              resolve();
            };
            tabs?.post({ type: 'yield' });
          });
        }
        // No engine runs in any tab now, until this one starts its own again.
        await engine.stop();
        // Not supabase-js's signOut alone: with no network it keeps the session (and the
        // account came back). The token is handed over to be revoked, then the session leaves.
        await endLocalSession(options.supabase, options.keepForRevocation);
        await db.transaction('rw', db.allTables(), async () => {
          for (const table of db.allTables()) await table.clear();
        });
        userId = LOCAL_USER_ID;
        tabs?.post({ type: 'wiped' });
        await options.onWipe?.();
      } finally {
        signingOut = false;
        // Leads, ready for the next sign-in (which wakes it), unless asked to step aside.
        if (stepAsideLater || retired) {
          stepAsideLater = false;
          void stepAside();
        } else if (seat === mine && mine.leading) engine.start();
      }
      return { signedOut: true, pending };
    },
    async close() {
      stopAuthWatch();
      stopTabWatch?.();
      await sync.stop();
      if (!options.tabs) tabs?.close();
      db.close();
    },
  };
  return sync;
}

export { SyncDatabase } from './db';
export { LOCAL_USER_ID } from './engine';
export type { Clock, OnlineSignal, SyncEngine } from './engine';
export { isSyncError, SyncError, SYNC_ERROR_CODES, type SyncErrorCode } from './errors';
export type { FieldErrors } from './schema';
export type { SyncPhase, SyncStatus } from './status';
export { ValidationError, UNDO_WINDOW_MS, type Repositories } from './repositories';
export type { LocalRow, OutboxEntry, Rejection } from './registry';
export type { TabChannel, TabMessage } from './tabs';
