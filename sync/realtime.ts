// Realtime (architecture.md "Realtime deltas"): joins the signed-in user's topics and the
// topics of their lists, and applies each row message as a pull would, without moving the
// cursor. What it cannot apply, or may have missed, it leaves to a pull (`wake`).
import { OWNER_KEY } from './account';
import { applyServerRows, listIdOf, markDelivered } from './apply';
import type { SyncDatabase } from './db';
import type { Remote, RowMessage } from './remote';

/** Realtime channels (re)joining in a burst cause one pull after this (ms). */
export const REALTIME_DEBOUNCE_MS = 100;

/** Thrown to abort a realtime row's transaction: the store or the list is not this user's. */
const NOT_FOLLOWED = new Error('realtime row not followed');

/** Realtime of one engine; `join(null)` leaves every topic. */
export interface Realtime {
  /** Follows `userId`'s topics, unless it already does: the user's own now, its lists' soon. */
  join(userId: string | null): void;
  /**
   * Listens to `user:<me>` and to `list:<id>:<epoch>` of every list the device holds a live
   * membership of for `userId` (one the server has: not a stand-in of a list made offline,
   * which no one may join yet), at the epoch of the list's row here (the server moves a list
   * to the next epoch when a member leaves or is removed, and tells those who stay on their
   * own topic). Runs at sign-in, after every sync and after a list's row arrives by realtime,
   * so lists gained are joined, lists lost (revoked, deleted, purged) left, and a new epoch
   * replaces the old.
   */
  followLists(userId: string): Promise<void>;
  /** Every topic followed is subscribed and has not been lost since. */
  live(): boolean;
  /** Settles once the row messages received so far are applied. */
  settled(): Promise<void>;
}

/**
 * Realtime over the engine's database and server. `wake(delayMs)` asks the schedule for a
 * cycle (with its pull), at once by default; `leading()` says whether the engine leads (a
 * follower joins nothing); `outdated()` whether this app version is outdated (nothing more
 * is applied).
 */
export function createRealtime(
  db: SyncDatabase,
  remote: Remote,
  wake: (delayMs?: number) => void,
  leading: () => boolean,
  outdated: () => boolean,
): Realtime {
  let realtimeOff: (() => void) | undefined;
  /** The realtime topics joined, each with its leave. */
  const topics = new Map<string, () => void>();
  /** Topics subscribed and not lost since: while all are, realtime brings others' changes. */
  const liveTopics = new Set<string>();
  /** Realtime row messages are applied one at a time, in the order they came. */
  let applying: Promise<void> = Promise.resolve();
  /** The user whose realtime topics are joined. */
  let realtimeUserId: string | null = null;
  const { scopes, members, memberScope, memberUser } = db.schema.access;
  /** The compound index of a user's membership of a list. */
  const memberKey = `[${memberScope}+${memberUser}]`;

  function join(userId: string | null): void {
    if (userId === realtimeUserId) return;
    realtimeUserId = userId;
    realtimeOff?.();
    realtimeOff = undefined;
    if (!userId) return;
    realtimeOff = () => joinTopics(new Set());
    joinTopics(new Set([`user:${userId}`]));
    followLists(userId).catch(() => undefined);
  }

  /**
   * Joins the topics of `wanted` not joined yet and leaves the others. Each
   * (re)join wakes a pull: what was broadcast while the channel was down is lost to it.
   */
  function joinTopics(wanted: ReadonlySet<string>): void {
    for (const [topic, leaveTopic] of topics) {
      if (wanted.has(topic)) continue;
      leaveTopic();
      topics.delete(topic);
      liveTopics.delete(topic);
    }
    for (const topic of wanted) {
      if (topics.has(topic)) continue;
      topics.set(
        topic,
        remote.subscribeTopic(topic, {
          onSubscribed: () => {
            liveTopics.add(topic);
            wake(REALTIME_DEBOUNCE_MS);
          },
          onLost: () => liveTopics.delete(topic),
          onRow: (message) => {
            const userId = realtimeUserId;
            applying = applying.then(() => applyRealtimeRow(message, topic, userId));
          },
        }),
      );
    }
  }

  async function followLists(userId: string): Promise<void> {
    const wanted = new Set([`user:${userId}`]);
    const live: string[] = [];
    await db
      .rows(members)
      .where(memberUser)
      .equals(userId)
      .each((m) => {
        if (!m.deleted_at && m._v > 0) live.push(String(m[memberScope]));
      });
    for (const list of await db.rows(scopes).bulkGet(live)) {
      if (list) wanted.add(`list:${list.id}:${Number(list.realtime_epoch) || 0}`);
    }
    if (realtimeUserId === userId && leading()) joinTopics(wanted);
  }

  /**
   * One realtime row message of `topic`, in one transaction. Applied only when newer than
   * the device's copy, with the fields still queued here laid back on top, exactly as a pull
   * applies it (applyServerRows); the cursor never moves, so the next pull still delivers
   * everything from where the last one stopped. A membership changes what the device may see
   * (a list to backfill or to purge): that is left to a pull, at once. A list's row (on its
   * topic, or on `user:<me>` when the list moved to a new epoch) is followed by a look at the
   * topics. A version more than one above the device's copy means an update was missed:
   * applied, and a pull fetches the rest. Ignored: tables not in the registry, rows of
   * another list than the topic's, rows of a list the device holds no live membership of (a
   * message queued behind the purge must not bring the list back), and messages for a store
   * that is no longer this user's.
   */
  async function applyRealtimeRow(
    { table, row }: RowMessage,
    topic: string,
    userId: string | null,
  ): Promise<void> {
    const spec = db.registry.find((s) => s.name === table);
    if (!spec || !userId || outdated()) return;
    if (table === members) return wake();
    const listId = listIdOf(spec, row);
    const epochMove = table === scopes && topic === `user:${userId}`;
    if (listId && !topic.startsWith(`list:${listId}:`) && !epochMove) return;
    try {
      const gap = await db.transaction(
        'rw',
        [db.rows(table), db.rows(members), db._outbox, db._files, db._meta],
        async () => {
          if (realtimeUserId !== userId) return false;
          // The checks (the store's owner, a resync under way, the membership) and the row's
          // application are asked for together, not one after the other: a round trip to the
          // store less. A check that fails aborts the transaction, taking the write with it.
          const [[owner, resync], member, [local]] = await Promise.all([
            db._meta.bulkGet([OWNER_KEY, 'resync']).then((metas) => metas.map((m) => m?.value)),
            listId
              ? db
                  .rows(members)
                  .where(memberKey)
                  .equals([listId, userId])
                  .filter((m) => !m.deleted_at)
                  .first()
              : true,
            applyServerRows(db, table, [row]),
          ]);
          if (owner !== userId || !member) throw NOT_FOLLOWED;
          // A resync running: the row is on the server, so its sweep must keep it.
          if (typeof resync === 'number') await markDelivered(db, [{ table, row }], resync);
          return row.version > (local?._v ?? 0) + 1;
        },
      );
      if (gap) wake();
      if (table === scopes) await followLists(userId);
    } catch (error) {
      if (error === NOT_FOLLOWED) return;
      console.error('[sync] realtime row not applied', error);
      wake();
    }
  }

  return {
    join,
    followLists,
    live: () => topics.size > 0 && [...topics.keys()].every((topic) => liveTopics.has(topic)),
    settled: () => applying,
  };
}
