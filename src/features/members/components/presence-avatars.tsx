// Who else is looking at a list right now (product.md §2: "presence of others viewing"), for the
// tasks screen's header. Presence is live-only: nothing shows offline or without an account.
import { useEffect, useState } from 'react';

import { Avatar } from '@/components/ui/avatar';
import { useAvatarUrl } from '@/hooks/use-avatar-url';
import { useOnline } from '@/hooks/use-online';
import { joinListPresence, type PresencePeer } from '@/lib/presence';
import { useProfiles } from '@/hooks/use-profiles';
import { useServices } from '@/lib/services';
import { useSession } from '@/lib/session';

import '../members.css';

/** Avatars shown before the rest are summed up as "+N". */
export const PRESENCE_AVATARS_MAX = 4;

/** Settling time before joining, so the own profile loading a moment later does not rejoin (ms). */
const JOIN_DELAY_MS = 150;
/** How often, and for how long at most, to wait for a channel of the topic to finish leaving (ms). */
const REJOIN_POLL_MS = 50;
const REJOIN_WAIT_MAX_MS = 2_000;

function PeerAvatar({ peer }: { peer: PresencePeer }) {
  const src = useAvatarUrl(peer.avatarPath);
  return (
    <li className="members-presence__item" title={peer.name}>
      {/* The group's label names everyone, so each avatar stays silent. */}
      <Avatar id={peer.userId} name={peer.name} src={src} size={28} decorative />
    </li>
  );
}

export function PresenceAvatars({ listId }: { listId: string }) {
  const { supabase, now } = useServices();
  const { mode, user, userId } = useSession();
  const online = useOnline();
  const profiles = useProfiles();
  const [peers, setPeers] = useState<PresencePeer[]>([]);
  const profile = profiles.get(userId);
  const name = profile?.display_name || user?.email?.split('@')[0] || 'Someone';
  const avatarPath = profile?.avatar_path ?? null;
  const active = mode === 'signed-in' && online && Boolean(listId);

  useEffect(() => {
    if (!active) return;
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
        .some((channel) => channel.topic === `realtime:list:${listId}`);
      if (leaving && Date.now() - startedAt < REJOIN_WAIT_MAX_MS) {
        timer = setTimeout(join, REJOIN_POLL_MS);
        return;
      }
      leave = joinListPresence(supabase, listId, { userId, name, avatarPath }, setPeers, now);
    };
    let timer = setTimeout(join, JOIN_DELAY_MS);
    return () => {
      cancelled = true;
      clearTimeout(timer);
      leave?.();
      setPeers([]);
    };
  }, [active, supabase, now, listId, userId, name, avatarPath]);

  const others = active ? peers.filter((peer) => peer.userId !== userId) : [];
  if (others.length === 0) return null;
  const shown = others.slice(0, PRESENCE_AVATARS_MAX);
  const more = others.length - shown.length;
  const label = `Also viewing: ${others.map((peer) => peer.name).join(', ')}`;
  return (
    <div className="members-presence" role="group" aria-label={label} title={label}>
      <ul className="members-presence__list" aria-hidden="true">
        {shown.map((peer) => (
          <PeerAvatar key={peer.userId} peer={peer} />
        ))}
        {more > 0 ? <li className="members-presence__more">+{more}</li> : null}
      </ul>
    </div>
  );
}
