// Everything the lists screen and the sidebar show, in one live query they share (sync's
// `queries.lists`): the user's live lists with open/done counts, members and queued changes,
// not those the user has just left, in name order.

import type { ListColor, Role } from '@/data/schema';
import { toMember } from '@/hooks/use-members';
import { useSharedLiveQuery } from '@/data/use-shared-live-query';
import { useServices } from '@/lib/services';
import { useSession } from '@/lib/session';

export interface ListMemberSummary {
  userId: string;
  name: string;
  avatarPath: string | null;
}

export interface ListOverview {
  id: string;
  name: string;
  color: ListColor;
  updatedAt: string;
  open: number;
  done: number;
  members: ListMemberSummary[];
  myRole: Role | null;
  /** Changes of this list still queued on the device. */
  pending: number;
}

export function useListsOverview(): ListOverview[] | undefined {
  const { sync } = useServices();
  const { userId } = useSession();
  // Shared: the sidebar and the lists screen show it at once (one read, not two).
  return useSharedLiveQuery(sync.queries, `lists-overview:${userId}`, async () => {
    const lists = await sync.queries.lists(userId);
    return lists
      .map(({ list, open, done, members, role, pending }): ListOverview => ({
        id: list.id,
        name: list.name,
        color: list.color,
        updatedAt: list.updated_at,
        open,
        done,
        myRole: role,
        pending,
        members: members.map((row) => {
          const { userId: id, name, avatarPath } = toMember(row, userId);
          return { userId: id, name, avatarPath };
        }),
      }))
      .sort(
        (a, b) =>
          a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }) ||
          (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
      );
  });
}
