// Tabs of one device share one database, and only the leader tab (Web Locks) runs the
// engine. The others still show the sync status and offer "Sync now": they hear the leader's
// status and send it their requests over a BroadcastChannel. Queued-change counts are not
// sent: every tab counts the shared outbox itself. A sign-out uses the channel too: the
// signing-out tab takes the lock before it wipes, and tells the others when it has.
import { SyncError, SYNC_ERROR_CODES, type SyncErrorCode } from './errors';
import type { Download, SyncPhase, SyncStatus } from './status';

/** The part of the status a leader tells the others (an error travels as code + message). */
export interface SharedStatus {
  phase: SyncPhase;
  lastSyncedAt: number | null;
  lastError: { code: SyncErrorCode; message: string; status?: number | undefined } | null;
  /** Absent from a tab of an older version. */
  download?: Download | null;
}

/** Messages between the tabs of one device. */
export type TabMessage =
  /**
   * The leader's status, on every change and in answer to `hello` and `sync` (`answers`
   * carries the id of the sync request it answers, once that sync is done).
   */
  | { type: 'status'; status: SharedStatus; answers?: string | undefined }
  /** A follower asks for the leader's current status. */
  | { type: 'hello' }
  /** A follower asks the leader to sync now; `id` comes back in the answer. */
  | { type: 'sync'; id?: string }
  /**
   * A tab is signing out and has asked for the lock: whoever leads stops (its push in flight
   * finishes first) and lets go, and every tab queues for the lock again, behind that one.
   */
  | { type: 'yield' }
  /** A tab signed out and wiped the database: the device belongs to nobody until a sign-in. */
  | { type: 'wiped' };

/** A message bus between the tabs of one device (never delivers a tab its own messages). */
export interface TabChannel {
  /** Sends a message to every other tab of the device. */
  post(message: TabMessage): void;
  /** Calls `onMessage` for each message from another tab; returns unsubscribe. */
  subscribe(onMessage: (message: TabMessage) => void): () => void;
  /** Closes the channel for good. */
  close(): void;
}

/** Whether two shared statuses say the same (a leader posts only changes). */
export function sameSharedStatus(a: SharedStatus, b: SharedStatus): boolean {
  return (
    a.phase === b.phase &&
    a.lastSyncedAt === b.lastSyncedAt &&
    a.lastError?.code === b.lastError?.code &&
    a.lastError?.message === b.lastError?.message &&
    a.download?.received === b.download?.received &&
    a.download?.expected === b.download?.expected
  );
}

/** The status as it travels between tabs. */
export function shareStatus(status: SyncStatus): SharedStatus {
  const error = status.lastError;
  return {
    phase: status.phase,
    lastSyncedAt: status.lastSyncedAt,
    lastError: error ? { code: error.code, message: error.message, status: error.status } : null,
    download: status.download,
  };
}

/** A shared status back as status fields (pending is the receiving tab's own count). */
export function readSharedStatus(shared: SharedStatus): Omit<SyncStatus, 'pending'> {
  const error = shared.lastError;
  const known = error && (SYNC_ERROR_CODES as readonly string[]).includes(error.code);
  return {
    phase: shared.phase,
    lastSyncedAt: shared.lastSyncedAt,
    lastError: error && known ? new SyncError(error.code, error.message, error.status) : null,
    download: shared.download ?? null,
  };
}

/** Shaped like a message; each listener acts only on the types it knows (others' are ignored). */
function isTabMessage(data: unknown): data is TabMessage {
  return typeof (data as { type?: unknown } | null)?.type === 'string';
}

/** A TabChannel over BroadcastChannel, or undefined where there is none. */
export function broadcastTabChannel(name: string): TabChannel | undefined {
  if (typeof BroadcastChannel === 'undefined') return undefined;
  const channel = new BroadcastChannel(name);
  // Node (tests) keeps the process alive while a channel is open; browsers have no unref.
  (channel as BroadcastChannel & { unref?: () => void }).unref?.();
  return {
    post(message) {
      channel.postMessage(message);
    },
    subscribe(onMessage) {
      const listener = (event: MessageEvent<unknown>) => {
        if (isTabMessage(event.data)) onMessage(event.data);
      };
      channel.addEventListener('message', listener);
      return () => channel.removeEventListener('message', listener);
    },
    close() {
      channel.close();
    },
  };
}
