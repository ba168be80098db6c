// The current user's role on a list, and what it lets them do (product.md §6). The UI hides what a
// role may not do; RLS still enforces it on the server.
import type { OutpostSync } from '@/data/sync';
import type { Role } from '@/data/schema';
import { useServices } from '@/lib/services';
import { useSession } from '@/lib/session';

import { useSharedLiveQuery, type QuerySpec } from '@/data/use-shared-live-query';

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

/** The user's role on a list (null: none; no list: null). */
export function roleQuery(
  sync: OutpostSync,
  listId: string | undefined,
  userId: string,
): QuerySpec<Role | null> {
  return {
    key: `role:${listId ?? ''}:${userId}`,
    read: async () => (listId ? sync.queries.role(listId, userId) : null),
  };
}

/**
 * The user's access to a list. Shared by every component asking of the same list, so a
 * screen's parts that mount after the screen knew the role have it at their first render
 * (no "View only" flash, no quick-add appearing late and shifting the layout).
 */
export function useListAccess(listId: string | undefined): ListAccess {
  const { sync } = useServices();
  const { userId } = useSession();
  const { key, read } = roleQuery(sync, listId, userId);
  const role = useSharedLiveQuery(sync.queries, key, read);
  return accessFor(role);
}
