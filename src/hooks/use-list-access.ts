// The current user's role on a list, and what it lets them do (product.md §6). The UI hides what a
// role may not do; RLS still enforces it on the server.
import { useLiveQuery } from 'dexie-react-hooks';

import type { Role } from '@sync/schema';
import { useServices } from '@/lib/services';
import { useSession } from '@/lib/session';

export interface ListAccess {
  /** undefined while loading; null when the user is not (or no longer) a member. */
  role: Role | null | undefined;
  canEditTasks: boolean;
  canComment: boolean;
  canEditList: boolean;
  /** Delete the list, invite, change roles, remove members. */
  canManage: boolean;
}

export function accessFor(role: Role | null | undefined): ListAccess {
  return {
    role,
    canEditTasks: role === 'owner' || role === 'editor',
    canComment: Boolean(role),
    canEditList: role === 'owner' || role === 'editor',
    canManage: role === 'owner',
  };
}

export function useListAccess(listId: string | undefined): ListAccess {
  const { sync } = useServices();
  const { userId } = useSession();
  const role = useLiveQuery(async () => {
    if (!listId) return null;
    const rows = await sync.db
      .rows('memberships')
      .where('[list_id+user_id]')
      .equals([listId, userId])
      .toArray();
    const live = rows.filter((row) => !row.deleted_at);
    // The server's row wins over the stand-in made when the list was created offline.
    const mine = live.find((row) => !row._standIn) ?? live[0];
    return (mine?.role as Role | undefined) ?? null;
  }, [sync, listId, userId]);
  return accessFor(role);
}
