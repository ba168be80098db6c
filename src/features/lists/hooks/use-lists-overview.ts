// Everything the lists screen and the sidebar show: the user's live lists with members and
// queued changes, not those the user has just left, in name order, in one live query they
// share (sync's `queries.lists`), and each list's open/done counts, a live query per list
// (src/hooks/use-task-counts.ts): an edit in one list reads that list's counts again, not
// every list's.

import { useMemo, useState } from 'react';

import type { ListColor, Role } from '@/data/schema';
import { toMember } from '@/hooks/use-members';
import { useTaskCountsOf } from '@/hooks/use-task-counts';
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

/** A list as the overview has it before its counts are added. */
type Uncounted = Omit<ListOverview, 'open' | 'done'>;

export function useListsOverview(): ListOverview[] | undefined {
  const { sync } = useServices();
  const { userId } = useSession();
  // Shared: the sidebar and the lists screen show it at once (one read, not two).
  const lists = useSharedLiveQuery(sync.queries, `lists-overview:${userId}`, async () => {
    const lists = await sync.queries.lists(userId);
    return lists
      .map(({ list, members, role, pending }): Uncounted => ({
        id: list.id,
        name: list.name,
        color: list.color,
        updatedAt: list.updated_at,
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
  const ids = useMemo(() => lists?.map((list) => list.id) ?? [], [lists]);
  const counts = useTaskCountsOf(ids);
  const counted = useMemo(() => {
    if (!lists) return undefined;
    const overview: ListOverview[] = [];
    for (const [i, list] of lists.entries()) {
      const listCounts = counts[i];
      if (!listCounts) return undefined;
      overview.push({ ...list, ...listCounts });
    }
    return overview;
  }, [lists, counts]);
  // A list just added (made here, or shared with the user) has its counts a moment after it
  // comes: until then the lists stay as they were, rather than going while it is counted.
  const [shown, setShown] = useState(counted);
  if (counted && counted !== shown) setShown(counted);
  return counted ?? shown;
}
