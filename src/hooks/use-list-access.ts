// The current user's role on a list, and what it lets them do (product.md §6). The UI hides what a
// role may not do; RLS still enforces it on the server.
import { useLiveQuery } from 'dexie-react-hooks';

import type { Role } from '@sync/index';
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
  const role = useLiveQuery(
    async () => (listId ? sync.queries.role(listId, userId) : null),
    [sync, listId, userId],
  );
  return accessFor(role);
}
