// Realtime (architecture.md "Realtime deltas"): joins the signed-in user's topics and the
// topics of their lists, and applies each row message as a pull would, without moving the
// cursor, when it came on a topic the server sends such a row to. What it cannot apply, or
// may have missed, it leaves to a pull (`syncSoon`). A change of the user's own memberships
// renews the realtime token, so the server checks every joined channel again.
import { OWNER_KEY } from './account';
import { applyServerRows, changedRows, listIdOf, markDelivered, type RemoteChange } from './apply';
import type { SyncDatabase } from './db';
import type { TableSpec } from './registry';
import type { Remote, RowMessage } from './remote';

/** Realtime channels (re)joining in a burst cause one pull after this (ms). */
export const REALTIME_DEBOUNCE_MS = 100;

/** Thrown to abort a realtime row's transaction: the store or the list is not this user's. */
const NOT_FOLLOWED = new Error('realtime row not followed');

/** The list of a list topic `list:<id>:<epoch>`; undefined for any other topic. */
function listOfTopic(topic: string): string | undefined {
  return /^list:(.+):\d+$/.exec(topic)?.[1];
}

/**
 * Reads the device's copy of row `id` of `table` into the running transaction's cache, where
 * Dexie looks for the row a write replaces (a modify that changes nothing: it reads the row and
 * keeps it there). The write then tells the live queries which of the table's indexes it
 * changed, where over a row Dexie has not seen it says that any row may have gone, and every
 * live count over the table is read again: each list's counts in an app's sidebar, which
 * Chromium counts entry by entry (tens of ms for a list of 10,000 tasks), for one row.
 */
function readBeforeWrite(db: SyncDatabase, table: string, id: string): Promise<unknown> {
  return db
    .rows(table)
    .where(':id')
    .equals(id)
    .modify(() => false);
}

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
 * Realtime over the engine's database and server. `syncSoon(delayMs)` asks for a cycle
 * with its pull, at once by default; `leading()` says whether the engine leads (a
 * follower joins nothing); `outdated()` whether this app version is outdated (nothing more
 * is applied); `onRemoteChanges` hears each row that changed the device's copy, once applied.
 */
export function createRealtime(
  db: SyncDatabase,
  remote: Remote,
  syncSoon: (delayMs?: number) => void,
  leading: () => boolean,
  outdated: () => boolean,
  onRemoteChanges?: (changes: RemoteChange[]) => void,
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
  /** The user's live memberships at followLists' last look (id → version); none before it. */
  let ownMemberships: Map<string, number> | undefined;
  /** The newest version of each of the user's memberships the realtime token was renewed for. */
  const renewedFor = new Map<string, number>();
  /** A renewal of the realtime token under way, and whether another was asked for meanwhile. */
  let renewing: Promise<void> | undefined;
  let renewAgain = false;

  function join(userId: string | null): void {
    if (userId === realtimeUserId) return;
    realtimeUserId = userId;
    ownMemberships = undefined;
    renewedFor.clear();
    realtimeOff?.();
    realtimeOff = undefined;
    if (!userId) return;
    realtimeOff = () => joinTopics(new Set());
    joinTopics(new Set([`user:${userId}`]));
    followLists(userId).catch(() => undefined);
  }

  /**
   * Joins the topics of `wanted` not joined yet and leaves the others. Each
   * (re)join asks for a pull: what was broadcast while the channel was down is lost to it.
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
            syncSoon(REALTIME_DEBOUNCE_MS);
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
    const own = new Map<string, number>();
    await db
      .rows(members)
      .where(memberUser)
      .equals(userId)
      .each((m) => {
        if (m.deleted_at || m._v <= 0) return;
        live.push(String(m[memberScope]));
        own.set(m.id, m._v);
      });
    for (const list of await db.rows(scopes).bulkGet(live)) {
      if (list) wanted.add(`list:${list.id}:${Number(list.realtime_epoch) || 0}`);
    }
    if (realtimeUserId !== userId) return;
    noteOwnMemberships(own);
    if (leading()) joinTopics(wanted);
  }

  /**
   * Renews the realtime token (Remote.refreshRealtimeAuth): the server checks every channel
   * joined again, and closes those the user may no longer hear (presence the app joined, a
   * list's topic). One renewal at a time; those asked for meanwhile are one more after it.
   */
  function renewRealtimeAuth(): void {
    if (renewing) {
      renewAgain = true;
      return;
    }
    renewing = remote
      .refreshRealtimeAuth?.()
      .catch((error: unknown) => console.warn('[sync] realtime token not renewed', error))
      .finally(() => {
        renewing = undefined;
        if (renewAgain) renewRealtimeAuth();
        renewAgain = false;
      });
  }

  /**
   * Whether a change of the user's membership `id` to `version` is news: not yet renewed
   * for (the server sends one on two topics, and a pull brings it again). Notes it.
   */
  function unrenewed(id: string, version: number): boolean {
    if ((renewedFor.get(id) ?? 0) >= version) return false;
    renewedFor.set(id, version);
    return true;
  }

  /**
   * The user's live memberships after a sync, against the last look: one changed (a new
   * role) or gone (removed, left, its list deleted) that no realtime row announced (a pull
   * brought it) renews the token. One gained renews nothing: what is joined next is checked
   * at its join.
   */
  function noteOwnMemberships(now: Map<string, number>): void {
    const before = ownMemberships;
    ownMemberships = now;
    let news = false;
    for (const [id, version] of before ?? []) {
      const next = now.get(id);
      // Unchanged, or older (two looks that overlapped, noted out of order): nothing new.
      // Gone (purged with its list): its tombstone's version is not known, only that it is newer.
      if ((next === undefined || next > version) && unrenewed(id, next ?? version + 1)) {
        news = true;
      }
    }
    if (news) renewRealtimeAuth();
  }

  /**
   * Whether the server sends a row like `row` of `spec`'s table to `topic`
   * (realtime_send_row, sync/sql/templates.ts), and if so, the list and the users whose live
   * memberships of it the device must hold for the row to be applied:
   * - a row of a list: on that list's topic only; the list's own row also on `user:<me>` (an
   *   epoch move), and a membership of the user's also there;
   * - a peer's row (a profile, whose id is its user's): on the topic of each list its user is
   *   a live member of, so only on a list topic where the device holds a live membership of
   *   that list for both the user and the peer.
   * Anything else was not sent by the server's rules: undefined, and it is ignored.
   */
  function routeOf(
    spec: TableSpec,
    row: RowMessage['row'],
    topic: string,
    userId: string,
  ): { list: string; users: string[] } | undefined {
    const topicList = listOfTopic(topic);
    if (spec.scope.kind === 'peer') {
      if (topicList === undefined) return undefined;
      // (The user's own profile asks the same question twice: no harm.)
      return { list: topicList, users: [userId, row.id] };
    }
    const listId = listIdOf(spec, row);
    if (listId === undefined) return undefined;
    const ownTopic =
      topic === `user:${userId}` &&
      (spec.name === scopes || (spec.name === members && row[memberUser] === userId));
    return topicList === listId || ownTopic ? { list: listId, users: [userId] } : undefined;
  }

  /**
   * One realtime row message of `topic`, in one transaction. Applied only when newer than
   * the device's copy, with the fields still queued here laid back on top, exactly as a pull
   * applies it (applyServerRows); the cursor never moves, so the next pull still delivers
   * everything from where the last one stopped. A membership changes what the device may see
   * (a list to backfill or to purge): that is left to a pull, at once. A list's row (on its
   * topic, or on `user:<me>` when the list moved to a new epoch) is followed by a look at the
   * topics. A version more than one above the device's copy means an update was missed:
   * applied, and a pull fetches the rest. Ignored: tables not in the registry, rows on a
   * topic the server would not send them to (routeOf: another list's, a profile on the
   * user's own topic), rows of a list the device holds no live membership of (a message
   * queued behind the purge must not bring the list back), profiles of someone who is not a
   * member of the topic's list here, and messages for a store that is no longer this user's.
   */
  async function applyRealtimeRow(
    { table, row }: RowMessage,
    topic: string,
    userId: string | null,
  ): Promise<void> {
    const spec = db.registry.find((s) => s.name === table);
    if (!spec || !userId || outdated()) return;
    const route = routeOf(spec, row, topic, userId);
    if (!route) return;
    if (table === members) {
      // A change of one the user holds (at the last look) renews the realtime token.
      const held = row[memberUser] === userId ? ownMemberships?.get(row.id) : undefined;
      if (held !== undefined && row.version > held && unrenewed(row.id, row.version)) {
        renewRealtimeAuth();
      }
      return syncSoon();
    }
    try {
      let changes: RemoteChange[] = [];
      const gap = await db.transaction(
        'rw',
        [db.rows(table), db.rows(members), db._outbox, db._files, db._meta],
        async () => {
          if (realtimeUserId !== userId) return false;
          // The checks (the store's owner, a resync under way, the membership) and the row's
          // application are asked for together, not one after the other: a round trip to the
          // store less. A check that fails aborts the transaction, taking the write with it.
          const [[owner, resync], memberships, [local]] = await Promise.all([
            db._meta.bulkGet([OWNER_KEY, 'resync']).then((metas) => metas.map((m) => m?.value)),
            Promise.all(
              route.users.map((user) =>
                db
                  .rows(members)
                  .where(memberKey)
                  .equals([route.list, user])
                  .filter((m) => !m.deleted_at)
                  .first(),
              ),
            ),
            readBeforeWrite(db, table, row.id).then(() => applyServerRows(db, table, [row])),
          ]);
          if (owner !== userId || memberships.some((m) => !m)) throw NOT_FOLLOWED;
          // A resync running: the row is on the server, so its sweep must keep it.
          if (typeof resync === 'number') await markDelivered(db, [{ table, row }], resync);
          changes = changedRows(table, [row], [local]);
          return row.version > (local?._v ?? 0) + 1;
        },
      );
      if (changes.length > 0) onRemoteChanges?.(changes);
      if (gap) syncSoon();
      if (table === scopes) await followLists(userId);
    } catch (error) {
      if (error === NOT_FOLLOWED) return;
      console.error('[sync] realtime row not applied', error);
      syncSoon();
    }
  }

  return {
    join,
    followLists,
    live: () => topics.size > 0 && [...topics.keys()].every((topic) => liveTopics.has(topic)),
    settled: () => applying,
  };
}
