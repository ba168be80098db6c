// Leadership: which tab runs the engine. In a browser one tab holds a Web Lock and leads; the
// others follow it (tabs.ts) until the lock comes to them. `seat` is this tab's place in the
// lock's queue, or its hold on the lock once `leading`; `started` is what the app asked for
// (start/stop). Another tab's sign-out makes this one give up its seat and queue again behind
// it ('yield'); a newer version of the app opening the database retires this tab for good (it
// says "Update available").
import type { SyncDatabase } from './db';
import type { Clock } from './platform';
import { SyncError } from './errors';
import type { SyncEngine } from './schedule';
import type { TabChannel } from './tabs';

/** Calls `onLeader` once this tab leads; returns give-up (of the lock, or of the wait for it). */
export type Leadership = (onLeader: () => void) => () => void;

/**
 * How long a sign-out waits for the lock (ms): the leading tab first finishes its sync in
 * flight, whose requests give up after 30–60 s each. A tab that never lets go (an older
 * version of the app, which does not know the request) makes the sign-out fail, not hang.
 */
const SIGN_OUT_LOCK_WAIT_MS = 90_000;

/**
 * The Web Lock (and tab channel) name of the engine of device database `dbName`: whoever
 * holds it syncs, a tab or the service worker (background.ts).
 */
export function syncLockName(dbName: string): string {
  return `outpost-sync:${dbName}`;
}

/** One tab holds the lock and syncs; when it closes, another takes over. */
export function webLocksLeadership(name: string): Leadership | undefined {
  const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
  if (!locks) return undefined;
  return (onLeader) => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const controller = new AbortController();
    locks
      .request(syncLockName(name), { signal: controller.signal }, () => {
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

/** Runs `engine` in this tab only while it leads; OutpostSync's start, stop and sign-out lock. */
export interface Leader {
  /** Queues for leadership (following the leader meanwhile), unless queued or retired. */
  start: () => void;
  /** Stops the engine, then gives up leadership: its push in flight finishes while it leads. */
  stop: () => Promise<void>;
  /** The database closed under the running engine: lets another tab lead, and follows it. */
  closed(): void;
  /** Another tab's sign-out asks for the lock ('yield'): gives it up, and queues again. */
  yield(): void;
  /**
   * Runs `work` holding the lock with no engine running in any tab: over the tab channel it
   * asks the tab that leads to stop (after its push in flight) and let go. Then leads, ready
   * for the next sign-in, unless asked to step aside meanwhile. Rejects with TIMEOUT when
   * the lock has not come after SIGN_OUT_LOCK_WAIT_MS.
   */
  alone(work: () => Promise<void>): Promise<void>;
}

/**
 * Leadership of `engine` over `leadership` (none: this tab always leads), with the other tabs
 * on `tabs`.
 */
export function createLeader(
  engine: SyncEngine,
  db: SyncDatabase,
  clock: Clock,
  leadership: Leadership | undefined,
  tabs: TabChannel | undefined,
): Leader {
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

  // Another tab opened the database with a newer schema (a new deploy): Dexie reopens it
  // here at that version, but this tab's engine is the old one and must not keep the lock.
  db.on('versionchange', (event) => {
    if (!event.newVersion || retired) return;
    retired = true;
    void stepAside();
  });

  async function stop(): Promise<void> {
    // The engine first: its push in flight finishes while this tab still leads, or another
    // tab would take over and send the same entries again.
    started = false;
    await vacate();
  }

  return {
    start() {
      started = true;
      if (seat || retired) return;
      campaign();
    },
    stop,
    closed() {
      // Closed for good (Dexie reopens a database closed any other way): let another tab
      // lead, and show its status instead of a sync that stopped.
      void vacate().then(() => {
        if (started && !retired && !seat) engine.follow();
      });
    },
    yield() {
      if (leadership && !retired) void stepAside();
    },
    async alone(work) {
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
        await work();
      } finally {
        signingOut = false;
        // Leads, ready for the next sign-in (which wakes it), unless asked to step aside.
        if (stepAsideLater || retired) {
          stepAsideLater = false;
          void stepAside();
        } else if (seat === mine && mine.leading) engine.start();
      }
    },
  };
}
