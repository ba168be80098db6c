// One sync cycle (sync-design.md "When sync runs"): the session, a push, a pull when one is
// due, and what a failure leads to (a session refresh, a resync, a hold until sign-in, a
// backoff). When cycles run is cycle-plan.ts's; which tab runs them, schedule.ts's.
import { OWNER_KEY, type Account } from './account';
import * as plan from './cycle-plan';
import { isDexieError, type SyncDatabase } from './db';
import { isSyncError, SyncError } from './errors';
import { pendingCount } from './outbox';
import type { Clock, OnlineSignal } from './platform';
import { SERVER_SCHEMA_VERSION } from './pull';
import type { Realtime } from './realtime';
import type { Remote } from './remote';
import type { StatusStore } from './status';

/** What a cycle runs over: the engine's options, its rooms and its scheduling. */
export interface CycleContext {
  db: SyncDatabase;
  remote: Remote;
  clock: Clock;
  online: OnlineSignal;
  /** The sync contract version the app was built for (APP_OUTDATED above it). */
  schemaVersion: number;
  status: StatusStore;
  account: Account;
  /** Sends the outbox as device `client` (push.ts). */
  pushAll: (client: unknown) => Promise<void>;
  /** Pulls what changed for `userId` (pull.ts). */
  pullAll: (userId: string) => Promise<void>;
  realtime: Realtime;
  /** The engine's scheduling (cycle-plan.ts). */
  schedule: plan.ScheduleState;
  /** The engine goes back to idle: its plans, subscriptions and realtime topics go. */
  leave: () => void;
  /** The database was closed under the leading engine (EngineOptions.onDatabaseClosed). */
  onDatabaseClosed?: (() => void) | undefined;
  /** Changes stay queued for want of a network (EngineOptions.requestBackgroundSync). */
  requestBackgroundSync?: (() => void) | undefined;
}

/** The cycles of one engine, and what they remember between them. */
export interface Cycles {
  /** One cycle; it handles its own failures and never rejects. */
  run(): Promise<void>;
  /** A new sign-in: worth a session refresh of its own after a 401. */
  newSession(): void;
  /**
   * This app version is outdated for good: the status says APP_OUTDATED (never "synced")
   * and no cycle sends or pulls anything again.
   */
  retire(): void;
  /** Whether retire() was called (or a cycle found the server's contract newer). */
  outdated(): boolean;
}

/** The cycles over `ctx`. */
export function createCycles(ctx: CycleContext): Cycles {
  const { db, remote, clock, online, schemaVersion, status, account, realtime, schedule } = ctx;
  /** Set once this app version is known to be outdated (APP_OUTDATED): for good. */
  let outdated: SyncError | null = null;
  /**
   * A session refresh was tried since the last successful cycle: one per failure streak, so
   * a refresh that "works" but still gets 401s does not loop.
   */
  let refreshedSinceSuccess = false;

  /**
   * cycle handles its own failures; anything still thrown (a status listener failing) is
   * logged here, never left to reject the running cycle with no one to hear it.
   */
  async function run(): Promise<void> {
    try {
      await cycle();
    } catch (error) {
      console.error('[sync] cycle failed', error);
    }
  }

  async function cycle(): Promise<void> {
    if (outdated) {
      showOutdated();
      return;
    }
    if (!online.isOnline()) {
      status.set({ phase: 'offline' });
      await askForBackgroundSync();
      return;
    }
    try {
      // The bookkeeping a cycle needs, read at once (one transaction, not four in a row): an
      // earlier pull's news of a newer server contract (then this app version must not push:
      // APP_OUTDATED), a resync under way, the store's owner and this device's
      // client id. The engine is their only writer while it leads. The session is read
      // meanwhile.
      const [metas, userId] = await Promise.all([
        db._meta.bulkGet([SERVER_SCHEMA_VERSION, 'resync', OWNER_KEY, 'clientId']),
        remote.userId(),
      ]);
      const [serverVersion, resync, owner, client] = metas.map((meta) => meta?.value);
      if (Number(serverVersion ?? 0) > schemaVersion) {
        retire();
        return;
      }
      if (!userId) {
        // Queued work stays; a sign-in (an auth change) asks for a cycle again.
        plan.hold(schedule, 'signed-out');
        status.set({ phase: 'signed-out' });
        return;
      }
      realtime.join(userId);
      const resyncing = resync !== undefined;
      status.set({
        phase: 'syncing',
        ...(resyncing ? { lastError: new SyncError('CURSOR_EXPIRED', 'Refreshing all data') } : {}),
      });
      await account.adopt(userId, owner);
      // Push first, so the pull that follows already includes our own changes.
      await ctx.pushAll(client);
      if (schedule.pullDue || resyncing || !realtime.live()) {
        await plan.pulling(schedule, () => ctx.pullAll(userId));
        await realtime.followLists(userId);
      }
      plan.forgetFailures(schedule);
      refreshedSinceSuccess = false;
      const pending = await pendingCount(db);
      status.set({ phase: 'synced', lastSyncedAt: clock.now(), lastError: null, pending });
      plan.planSafetyPull(schedule);
    } catch (error) {
      try {
        await onCycleError(error);
      } catch (handlingError) {
        // Handling the failure failed too (its own write hit a closed database): nothing
        // may escape the cycle, or it rejects with no one to hear it.
        if (isDatabaseClosed(handlingError)) {
          ctx.leave();
          return;
        }
        console.error('[sync] handling a failure failed', handlingError);
        backOff(unexpected(handlingError));
      }
    }
  }

  /**
   * The server speaks a newer sync contract: nothing is sent or pulled until the app is
   * updated, and queued edits wait in the outbox for the new version. Not "synced": the
   * error stays, and the UI offers the update.
   */
  function showOutdated(): void {
    status.set({
      phase: online.isOnline() ? 'backing-off' : 'offline',
      lastError: outdated,
    });
  }

  async function onCycleError(error: unknown): Promise<void> {
    if (isDatabaseClosed(error)) {
      // The database went away under us (the tab is closing, or another tab opened a newer
      // schema): this engine is done. Nothing is lost: what it had sent is frozen and replays.
      const leading = schedule.role.kind === 'leader';
      ctx.leave();
      if (leading) ctx.onDatabaseClosed?.();
      return;
    }
    const failure = isSyncError(error) ? error : unexpected(error);
    if (!isSyncError(error)) console.error('[sync] unexpected error', error);

    if (failure.code === 'AUTH_EXPIRED') {
      // One refresh per failure streak: a refresh that "works" but still gets 401s must not
      // loop (its own TOKEN_REFRESHED event would otherwise ask for the next round).
      if (!refreshedSinceSuccess) {
        refreshedSinceSuccess = true;
        let refreshed: boolean;
        try {
          refreshed = await remote.refresh();
        } catch (refreshError) {
          // The network failed, not the session: try again later, refresh included.
          refreshedSinceSuccess = false;
          backOff(isSyncError(refreshError) ? refreshError : failure);
          return;
        }
        if (refreshed) {
          plan.againEvenIfHeld(schedule);
          return;
        }
      }
      // Keep queueing; a sign-in (auth change) asks for a cycle again.
      plan.hold(schedule, 'signed-out');
      status.set({ phase: 'signed-out', lastError: failure });
      return;
    }
    if (failure.code === 'CURSOR_EXPIRED') {
      // Offline past the tombstone retention: pull everything again. The rows stay on
      // screen meanwhile; the ones not delivered again are swept at the end (apply.ts).
      await db.transaction('rw', db._meta, async () => {
        await db.setMeta('resync', clock.now());
        await db._meta.delete('cursor');
      });
      plan.againEvenIfHeld(schedule);
      return;
    }
    if (failure.code === 'APP_OUTDATED') {
      retire();
      return;
    }
    if (!online.isOnline()) {
      status.set({ phase: 'offline' });
      await askForBackgroundSync();
      return;
    }
    backOff(failure);
    if (failure.code === 'OFFLINE' || failure.code === 'TIMEOUT') await askForBackgroundSync();
  }

  /**
   * With changes queued and no way to send them now, the app may hand them to its service
   * worker for when the network is back (EngineOptions.requestBackgroundSync).
   */
  async function askForBackgroundSync(): Promise<void> {
    if (!ctx.requestBackgroundSync || (await pendingCount(db)) === 0) return;
    ctx.requestBackgroundSync();
  }

  /** Retries later (cycle-plan.ts's backOff), showing why meanwhile. */
  function backOff(failure: SyncError): void {
    plan.backOff(schedule);
    status.set({ phase: 'backing-off', lastError: failure });
  }

  function retire(): void {
    outdated = new SyncError('APP_OUTDATED', 'Update available');
    showOutdated();
  }

  return {
    run,
    newSession: () => {
      refreshedSinceSuccess = false;
    },
    retire,
    outdated: () => outdated !== null,
  };
}

/** Anything thrown that is not a SyncError: a bug or a platform failure, retried as SERVER_ERROR. */
function unexpected(error: unknown): SyncError {
  return new SyncError('SERVER_ERROR', error instanceof Error ? error.message : String(error));
}

/** Dexie's error for a database closed under a running operation. */
function isDatabaseClosed(error: unknown): boolean {
  return isDexieError(error, 'DatabaseClosedError');
}
