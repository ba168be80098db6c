// Who else is looking at a list right now (product.md §2: "presence of others viewing"), for the
// tasks screen's header, and who else has a task open, on the task screen ("Bob is here").
// Presence is live-only: nothing shows offline or without an account.
//
// Presence follows the list's realtime epoch as this device holds it (the list's row): when a
// member leaves or is removed the server moves the list to the next epoch, and the avatars
// leave the old topic and join the new one, where the removed member may not follow.
//
// A presence entry is only a claim: it says which user id is viewing and nothing else. Only
// people who are live members of the list on this device are shown, each by their own profile
// as the device's database holds it (the members screen's source, useMembers); an id that is
// not a member is dropped.
import { useEffect, useMemo, useState } from 'react';

import { Avatar } from '@/components/ui/avatar';
import { useAvatarUrl } from '@/hooks/use-avatar-url';
import { useList } from '@/hooks/use-list';
import { useMembers } from '@/hooks/use-members';
import { useOnline } from '@/hooks/use-online';
import {
  joinListPresence,
  presenceTopic,
  realtimeEpochOf,
  type PresencePeer,
} from '@/lib/presence';
import { useLoadedSupabase, useServices } from '@/lib/services';
import { useSession } from '@/lib/session';

import '../members.css';

/** Avatars shown before the rest are summed up as "+N". */
export const PRESENCE_AVATARS_MAX = 4;

/** Settling time before joining, so a quick unmount (React's double effect) never joins (ms). */
const JOIN_DELAY_MS = 150;
/** How often, and for how long at most, to wait for a channel of the topic to finish leaving (ms). */
const REJOIN_POLL_MS = 50;
const REJOIN_WAIT_MAX_MS = 2_000;

/** Someone shown as viewing: a live member, as this device knows them. */
interface Viewer {
  userId: string;
  name: string;
  avatarPath: string | null;
}

function ViewerAvatar({ viewer }: { viewer: Viewer }) {
  const src = useAvatarUrl(viewer.avatarPath);
  return (
    <li className="members-presence__item">
      <Avatar id={viewer.userId} name={viewer.name} src={src} size={28} decorative />
    </li>
  );
}

/** "Bob", "Bob and Carol", "Bob, Carol and 2 others". */
function namesOf(viewers: readonly Viewer[]): string {
  const names = viewers.map((viewer) => viewer.name);
  if (names.length <= 2) return names.join(' and ');
  const rest = names.length - 2;
  return `${names.slice(0, 2).join(', ')} and ${rest} ${rest === 1 ? 'other' : 'others'}`;
}

/** With `taskId` (the task screen): only those with that task open, named in words too. */
export function PresenceAvatars({
  listId,
  taskId,
}: {
  listId: string;
  taskId?: string | undefined;
}) {
  const { now } = useServices();
  // Joined once supabase-js has loaded (just after start-up).
  const supabase = useLoadedSupabase();
  const { mode, userId } = useSession();
  const online = useOnline();
  const members = useMembers(listId);
  // The list's row (shared with the screen's own query): its epoch names the topic. No list
  // here (not yet, or no longer: left, removed, deleted) joins nothing.
  const list = useList(listId);
  const topic = list ? presenceTopic(listId, realtimeEpochOf(list)) : undefined;
  const [peers, setPeers] = useState<PresencePeer[]>([]);
  const active =
    mode === 'signed-in' && online && Boolean(listId) && supabase !== undefined && !!topic;

  useEffect(() => {
    if (!active || !supabase || !topic) return;
    let leave: (() => void) | undefined;
    let cancelled = false;
    const startedAt = Date.now();
    // supabase-js hands back a channel of the same topic while it is still leaving (React's
    // double effect in development, a quick reconnect), and that one never rejoins: wait
    // until it is gone.
    const join = () => {
      if (cancelled) return;
      const leaving = supabase
        .getChannels()
        .some((channel) => channel.topic === `realtime:${topic}`);
      if (leaving && Date.now() - startedAt < REJOIN_WAIT_MAX_MS) {
        timer = setTimeout(join, REJOIN_POLL_MS);
        return;
      }
      // A refused join (not, or no longer, a member) reports no peers; realtime-js retries.
      leave = joinListPresence(
        supabase,
        topic,
        { userId, ...(taskId ? { taskId } : {}) },
        setPeers,
        { now },
      );
    };
    let timer = setTimeout(join, JOIN_DELAY_MS);
    return () => {
      cancelled = true;
      clearTimeout(timer);
      leave?.();
      setPeers([]);
    };
  }, [active, supabase, now, topic, taskId, userId]);

  const others = useMemo((): Viewer[] => {
    if (!active || !members) return [];
    const byId = new Map(
      members.filter((member) => !member.standIn).map((member) => [member.userId, member]),
    );
    return peers.flatMap((peer) => {
      if (taskId && !peer.taskIds.includes(taskId)) return [];
      const member = peer.userId === userId ? undefined : byId.get(peer.userId);
      return member
        ? [{ userId: member.userId, name: member.name, avatarPath: member.avatarPath }]
        : [];
    });
  }, [active, members, peers, taskId, userId]);

  if (others.length === 0) return null;
  const shown = others.slice(0, PRESENCE_AVATARS_MAX);
  const more = others.length - shown.length;
  const names = others.map((viewer) => viewer.name).join(', ');
  const here = `${namesOf(others)} ${others.length === 1 ? 'is' : 'are'} here`;
  return (
    // Focusable, so the names that show on hover also show to keyboard users.
    <div
      className={`members-presence${taskId ? ' members-presence--task' : ''}`}
      role="group"
      aria-label={taskId ? here : `Also viewing: ${names}`}
      tabIndex={0}
    >
      <ul className="members-presence__list" aria-hidden="true">
        {shown.map((viewer) => (
          <ViewerAvatar key={viewer.userId} viewer={viewer} />
        ))}
        {more > 0 ? <li className="members-presence__more">+{more}</li> : null}
      </ul>
      {/* The group's label already names everyone: this is for the eyes only. */}
      <span className="members-presence__names" aria-hidden="true">
        {names}
      </span>
      {taskId ? (
        <span className="members-presence__here" aria-hidden="true">
          {here}
        </span>
      ) : null}
    </div>
  );
}
