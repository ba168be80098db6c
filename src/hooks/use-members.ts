// The live members of a list with their profiles, owners first, then by name (then by user
// id, so every device lists namesakes alike). Used for the members screen, the assignee
// picker and the tasks' assignee chips.
import { useLiveQuery } from 'dexie-react-hooks';

import type { Role } from '@sync/schema';
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

export function useMembers(listId: string | undefined): Member[] | undefined {
  const { sync } = useServices();
  const { userId: me } = useSession();
  return useLiveQuery(async () => {
    if (!listId) return [];
    const rows = (
      await sync.db.rows('memberships').where('list_id').equals(listId).toArray()
    ).filter((row) => !row.deleted_at);
    // A stand-in is dropped as soon as the server's membership of the same user is here.
    const real = new Set(rows.filter((row) => !row._standIn).map((row) => String(row.user_id)));
    const live = rows.filter((row) => !row._standIn || !real.has(String(row.user_id)));
    const profiles = await sync.db.rows('profiles').bulkGet(live.map((row) => String(row.user_id)));
    const members = live.map((row, i): Member => {
      const profile = profiles[i];
      const userId = String(row.user_id);
      const named = typeof profile?.display_name === 'string' && profile.display_name !== '';
      return {
        id: row.id,
        userId,
        role: row.role as Role,
        name: named ? String(profile.display_name) : userId === me ? 'You' : 'Member',
        named,
        avatarPath: typeof profile?.avatar_path === 'string' ? profile.avatar_path : null,
        standIn: Boolean(row._standIn),
      };
    });
    return members.sort(
      (a, b) =>
        ROLE_ORDER[a.role] - ROLE_ORDER[b.role] ||
        a.name.localeCompare(b.name) ||
        compareIds(a.userId, b.userId),
    );
  }, [sync, listId, me]);
}
