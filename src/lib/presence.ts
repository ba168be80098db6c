// Who else is looking at a list (product.md §7): a thin wrapper over supabase-js realtime
// presence on the list's private channel `list:<id>:<epoch>:presence`, so screens never touch
// channels themselves. Presence is ephemeral and never stored: it is not data, so it lives with
// the app, not in the sync library, and it is empty while offline.
//
// The channel is private: RLS on `realtime.messages` lets only the list's live members join and
// track, and only at the list's current epoch (lists.realtime_epoch, moved by the server when a
// member leaves or is removed): those who stay move to the new epoch's topic, and a removed
// member is left alone on the old one (the server also closes it). So anon and strangers are
// refused, and a removed member neither sees nor is seen. Even so a payload is only a claim (any
// member can track any user id), so it carries no names at all, and screens show only people
// who are live members by the device's own copy of their profile (presence-avatars.tsx).
// Types only: the list's screen is drawn before supabase-js has loaded (main.tsx), and joins
// once it has; realtime-js's REALTIME_SUBSCRIBE_STATES are compared by their values.
import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js';
import * as v from 'valibot';

/** What each viewer announces: who they are and where (names come from the database). */
export interface PresenceMeta {
  /** Who is viewing (their auth user id). */
  userId: string;
  /** The task they have open, if any (the task screen's "Bob is here"). */
  taskId?: string;
}

/** A user id seen viewing the list (one entry per id, however many tabs). Unverified. */
export interface PresencePeer {
  userId: string;
  /** When they started viewing (ms since epoch; earliest of their tabs). */
  since: number;
  /** The tasks their tabs have open (claimed, like the rest). */
  taskIds: string[];
}

/**
 * Where the join stands: `joined` (tracking and hearing the others), or `refused` (the server
 * answered the join with an error: not a member, a token it would not take, a limit) or
 * `failed` (no answer: a timeout, a lost socket; or a refused track). realtime-js keeps
 * retrying a refused or failed join by itself (1, 2, 5, then every 10 s) until it is left.
 */
export type PresenceStatus =
  { state: 'joined' } | { state: 'refused'; error: Error } | { state: 'failed'; error: Error };

/**
 * The topic of a list's presence at `epoch`, the list's `realtime_epoch` as the device holds it
 * (`list:<id>:<epoch>` is the sync engine's data channel).
 */
export function presenceTopic(listId: string, epoch: number): string {
  return `list:${listId}:${epoch}:presence`;
}

/** A list row's realtime epoch (`realtime_epoch`: a whole number from 0; anything else is 0). */
const RealtimeEpoch = v.object({
  realtime_epoch: v.fallback(v.pipe(v.number(), v.integer(), v.minValue(0)), 0),
});

/** The realtime epoch of a list row as the device holds it (0 before the server's first). */
export function realtimeEpochOf(list: object): number {
  return v.parse(RealtimeEpoch, list).realtime_epoch;
}

/**
 * What a presence payload claims, as far as it is read: a user id, since when (a number;
 * anything else counts as 0) and the task open (a uuid; anything else counts as none).
 * Checked, never cast: any member can track any payload.
 */
const PresenceClaim = v.object({
  userId: v.pipe(v.string(), v.nonEmpty()),
  since: v.fallback(v.pipe(v.number(), v.finite()), 0),
  taskId: v.fallback(v.optional(v.pipe(v.string(), v.uuid())), undefined),
});

/** Flattens supabase-js presence state to one peer per user id, oldest first. */
export function peersOf(state: Record<string, unknown[]>): PresencePeer[] {
  const byUser = new Map<string, PresencePeer>();
  for (const metas of Object.values(state)) {
    for (const meta of metas) {
      const claim = v.safeParse(PresenceClaim, meta);
      if (!claim.success) continue;
      const { userId, since, taskId } = claim.output;
      const known = byUser.get(userId) ?? { userId, since, taskIds: [] };
      known.since = Math.min(known.since, since);
      if (taskId && !known.taskIds.includes(taskId)) known.taskIds.push(taskId);
      byUser.set(userId, known);
    }
  }
  return [...byUser.values()].sort((a, b) => a.since - b.since);
}

/**
 * The server's answer to a join it refused: realtime replies `{ reason }` (its reason is text
 * only, `Unauthorized: You do not have permissions…`, so it is never read), and realtime-js
 * hands that reply on as the error's `cause`. A join that got no answer has none, or the
 * socket's event (an Event, a CloseEvent): never a plain JSON object.
 */
const JoinRefusal = v.object({ reason: v.string() });

/** Whether `error` is the server's refusal of the join, by the reply it carries. */
function refusedByServer(error: Error): boolean {
  const cause: unknown = error.cause;
  return v.is(JoinRefusal, cause) && Object.getPrototypeOf(cause) === Object.prototype;
}

function asError(error: unknown, fallback: string): Error {
  return error instanceof Error ? error : new Error(fallback);
}

/**
 * Joins a list's presence `topic` (presenceTopic: the list at its current epoch) as `me` and
 * reports everyone there (including `me`, for the caller to filter) on every change, and `[]`
 * whenever the join is refused or lost. `onStatus` hears how the join went. Returns a function
 * that leaves. When the list's epoch moves, the caller leaves and joins the new topic.
 */
export function joinListPresence(
  supabase: SupabaseClient,
  topic: string,
  me: PresenceMeta,
  onChange: (peers: PresencePeer[]) => void,
  options: { now?: () => number; onStatus?: (status: PresenceStatus) => void } = {},
): () => void {
  const now = options.now ?? Date.now;
  const onStatus = options.onStatus ?? (() => undefined);
  let left = false;
  let channel: RealtimeChannel | undefined;

  const start = async () => {
    // A private join must carry the user's JWT, not the anon key supabase-js may still hold.
    try {
      await supabase.realtime.setAuth();
    } catch (error) {
      if (!left) onStatus({ state: 'failed', error: asError(error, 'realtime setAuth failed') });
      return;
    }
    if (left) return;
    // One key per tab, not per person: realtime-js keeps one presence id per key, so when two
    // tabs of a person shared a key, the first tab's leave never matched and the person stayed
    // "viewing" after closing both. peersOf merges the tabs back into one person.
    const joined = supabase.channel(topic, {
      config: { private: true, presence: { key: `${me.userId}:${crypto.randomUUID()}` } },
    });
    channel = joined;
    const report = () => onChange(peersOf(joined.presenceState()));
    joined
      .on('presence', { event: 'sync' }, report)
      .on('presence', { event: 'join' }, report)
      .on('presence', { event: 'leave' }, report)
      .subscribe((status, error) => {
        if (left) return;
        if (String(status) === 'SUBSCRIBED') {
          const meta = {
            userId: me.userId,
            since: now(),
            ...(me.taskId ? { taskId: me.taskId } : {}),
          };
          void joined.track(meta).then((answer) => {
            if (left) return;
            if (answer === 'ok') onStatus({ state: 'joined' });
            else onStatus({ state: 'failed', error: new Error(`presence track: ${answer}`) });
          });
          return;
        }
        if (String(status) === 'CLOSED') return;
        // Refused or lost: nobody is known to be here until a retry joins again.
        onChange([]);
        const reason = asError(error, `presence ${status.toLowerCase()}`);
        onStatus(
          refusedByServer(reason)
            ? { state: 'refused', error: reason }
            : { state: 'failed', error: reason },
        );
      });
  };
  void start();

  return () => {
    left = true;
    if (channel) void supabase.removeChannel(channel);
  };
}
