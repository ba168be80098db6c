// Who else is looking at a list (product.md §7: presence on `list:{id}`): a thin wrapper over
// supabase-js realtime presence, so screens never touch channels themselves. Presence is
// ephemeral and never stored: it is not data, so it lives with the app, not in the sync
// library, and it is empty while offline.
import { REALTIME_SUBSCRIBE_STATES, type SupabaseClient } from '@supabase/supabase-js';

/** What each viewer announces about themselves. */
export interface PresenceMeta {
  /** Who is viewing (their auth user id). */
  userId: string;
  /** Their display name, as their device knows it. */
  name: string;
  /** Their avatar's storage path, if they have one. */
  avatarPath: string | null;
}

/** A person viewing the list (one entry per person, however many tabs they have open). */
export interface PresencePeer extends PresenceMeta {
  /** When they started viewing (ms since epoch; earliest of their tabs). */
  since: number;
}

function isMeta(value: unknown): value is PresenceMeta & { since?: number } {
  const meta = value as Partial<PresenceMeta> | null;
  return typeof meta?.userId === 'string' && typeof meta.name === 'string';
}

/** Flattens supabase-js presence state to one peer per user, oldest first. */
export function peersOf(state: Record<string, unknown[]>): PresencePeer[] {
  const byUser = new Map<string, PresencePeer>();
  for (const metas of Object.values(state)) {
    for (const meta of metas) {
      if (!isMeta(meta)) continue;
      const since = typeof meta.since === 'number' ? meta.since : 0;
      const known = byUser.get(meta.userId);
      if (!known || since < known.since) {
        byUser.set(meta.userId, {
          userId: meta.userId,
          name: meta.name,
          avatarPath: meta.avatarPath ?? null,
          since,
        });
      }
    }
  }
  return [...byUser.values()].sort((a, b) => a.since - b.since);
}

/**
 * Joins the presence channel of a list as `me` and reports everyone there (including `me`,
 * for the caller to filter) on every change. Returns a function that leaves.
 */
export function joinListPresence(
  supabase: SupabaseClient,
  listId: string,
  me: PresenceMeta,
  onChange: (peers: PresencePeer[]) => void,
  now: () => number = Date.now,
): () => void {
  // One key per tab, not per person: realtime-js keeps one presence id per key, so when two
  // tabs of a person shared a key, the first tab's leave never matched and the person stayed
  // "viewing" after closing both. peersOf merges the tabs back into one person.
  const channel = supabase.channel(`list:${listId}`, {
    config: { presence: { key: `${me.userId}:${crypto.randomUUID()}` } },
  });
  const report = () => onChange(peersOf(channel.presenceState()));
  channel
    .on('presence', { event: 'sync' }, report)
    .on('presence', { event: 'join' }, report)
    .on('presence', { event: 'leave' }, report)
    .subscribe((status) => {
      if (status === REALTIME_SUBSCRIBE_STATES.SUBSCRIBED) {
        void channel.track({ ...me, since: now() });
      }
    });
  return () => {
    void supabase.removeChannel(channel);
  };
}
