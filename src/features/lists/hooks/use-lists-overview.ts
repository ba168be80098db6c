// Everything the lists screen shows, in one live query: the user's live lists with open/done
// counts, members and queued changes (not those the user has just left). One pass over the
// tasks table, so a device with a 10,000-task list still opens this screen quickly.
import { useLiveQuery } from 'dexie-react-hooks';

import type { ListColor, Role } from '@sync/schema';
import { hasLeft } from '@/hooks/use-list';
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
  return useLiveQuery(async () => {
    const { db } = sync;
    const lists = (await db.rows('lists').toArray()).filter((row) => !row.deleted_at);
    if (lists.length === 0) return [];
    const ids = lists.map((list) => list.id);
    const counts = new Map<string, { open: number; done: number }>();
    await db
      .rows('tasks')
      .where('list_id')
      .anyOf(ids)
      .each((task) => {
        if (task.deleted_at) return;
        const key = String(task.list_id);
        const count = counts.get(key) ?? { open: 0, done: 0 };
        if (task.status === 'done') count.done += 1;
        else count.open += 1;
        counts.set(key, count);
      });
    const memberships = await db.rows('memberships').where('list_id').anyOf(ids).toArray();
    const live = memberships.filter((row) => !row.deleted_at);
    const profiles = new Map(
      (await db.rows('profiles').toArray()).map((row) => [row.id, row] as const),
    );
    const pending = new Map<string, number>();
    await db._outbox.each((entry) => {
      if (entry.listId) pending.set(entry.listId, (pending.get(entry.listId) ?? 0) + 1);
    });

    return lists
      .filter((list) => !hasLeft(memberships, list.id, userId))
      .map((list): ListOverview => {
        const rows = live.filter((m) => m.list_id === list.id);
        // The server's membership replaces the stand-in made when the list was created here.
        const real = new Set(rows.filter((m) => !m._standIn).map((m) => String(m.user_id)));
        const members = rows.filter((m) => !m._standIn || !real.has(String(m.user_id)));
        const mine = members.find((m) => m.user_id === userId);
        return {
          id: list.id,
          name: String(list.name),
          color: list.color as ListColor,
          updatedAt: String(list.updated_at),
          open: counts.get(list.id)?.open ?? 0,
          done: counts.get(list.id)?.done ?? 0,
          myRole: (mine?.role as Role | undefined) ?? null,
          pending: pending.get(list.id) ?? 0,
          members: members.map((m) => {
            const profile = profiles.get(String(m.user_id));
            return {
              userId: String(m.user_id),
              name:
                typeof profile?.display_name === 'string' && profile.display_name
                  ? profile.display_name
                  : m.user_id === userId
                    ? 'You'
                    : 'Member',
              avatarPath: typeof profile?.avatar_path === 'string' ? profile.avatar_path : null,
            };
          }),
        };
      })
      .sort(
        (a, b) =>
          a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }) ||
          (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
      );
  }, [sync, userId]);
}
