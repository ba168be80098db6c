// The live members of a list with their profiles, owners first, then by name (then by user
// id, so every device lists namesakes alike). Used for the members screen, the assignee
// picker and the tasks' assignee chips.
import { useLiveQuery } from 'dexie-react-hooks';

import type { MemberRow } from '@/data/queries';
import type { Role } from '@/data/schema';
import { useServices } from '@/lib/services';
import { useSession } from '@/lib/session';

export interface Member {
  /** The membership row's id. */
  id: string;
  userId: string;
  role: Role;
  /**
   * The profile's name; until that profile reaches this device, "You" for the signed-in
   * user and "Member" for anyone else (never "You" for someone else).
   */
  name: string;
  /** Whether `name` is the person's own (their profile is on this device). */
  named: boolean;
  avatarPath: string | null;
  /** A stand-in made on this device when the list was created offline. */
  standIn: boolean;
}

const ROLE_ORDER: Record<Role, number> = { owner: 0, editor: 1, viewer: 2 };

/** Code-unit order, the same in every locale (ids only break ties). */
function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** How the screens name a member: their profile's name, else "You" or "Member". */
export function toMember({ membership, profile, standIn }: MemberRow, me: string): Member {
  const named = Boolean(profile?.display_name);
  return {
    id: membership.id,
    userId: membership.user_id,
    role: membership.role,
    name: named ? profile!.display_name : membership.user_id === me ? 'You' : 'Member',
    named,
    avatarPath: profile?.avatar_path ?? null,
    standIn,
  };
}

export function useMembers(listId: string | undefined): Member[] | undefined {
  const { sync } = useServices();
  const { userId: me } = useSession();
  return useLiveQuery(async () => {
    if (!listId) return [];
    const members = (await sync.queries.members(listId)).map((row) => toMember(row, me));
    return members.sort(
      (a, b) =>
        ROLE_ORDER[a.role] - ROLE_ORDER[b.role] ||
        a.name.localeCompare(b.name) ||
        compareIds(a.userId, b.userId),
    );
  }, [sync, listId, me]);
}
