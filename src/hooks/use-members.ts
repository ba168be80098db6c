// The live members of a list with their profiles, owners first, then by name. Used for the
// members screen, the assignee picker and presence.
import { useLiveQuery } from 'dexie-react-hooks';

import type { Role } from '@sync/schema';
import { useServices } from '@/lib/services';

export interface Member {
  /** The membership row's id. */
  id: string;
  userId: string;
  role: Role;
  name: string;
  avatarPath: string | null;
  /** A stand-in made on this device when the list was created offline. */
  standIn: boolean;
}

const ROLE_ORDER: Record<Role, number> = { owner: 0, editor: 1, viewer: 2 };

export function useMembers(listId: string | undefined): Member[] | undefined {
  const { sync } = useServices();
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
      return {
        id: row.id,
        userId: String(row.user_id),
        role: row.role as Role,
        name:
          typeof profile?.display_name === 'string' && profile.display_name
            ? profile.display_name
            : 'You',
        avatarPath: typeof profile?.avatar_path === 'string' ? profile.avatar_path : null,
        standIn: Boolean(row._standIn),
      };
    });
    return members.sort(
      (a, b) => ROLE_ORDER[a.role] - ROLE_ORDER[b.role] || a.name.localeCompare(b.name),
    );
  }, [sync, listId]);
}
