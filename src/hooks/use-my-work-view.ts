// A My work view's rows (Today, Upcoming, Assigned to me) as one shared live query per view,
// user and day: the sidebar reads Today's and Assigned to me's for their counts, so a view
// opened from it has its rows at once, from memory, as a list's first rows are.
import { myWorkQueries, type MyWorkRows } from '@/data/my-work-queries';
import { useSharedLiveQuery } from '@/data/use-shared-live-query';
import { useServices } from '@/lib/services';
import { useSession } from '@/lib/session';

/** The three views. */
export type MyWorkView = 'today' | 'upcoming' | 'assigned';

/** `view`'s rows for the day `today` (local 'YYYY-MM-DD'), live; undefined until read. */
export function useMyWorkView(view: MyWorkView, today: string): MyWorkRows | undefined {
  const { sync } = useServices();
  const { userId } = useSession();
  const queries = sync.queries.extend(myWorkQueries);
  return useSharedLiveQuery(sync.queries, `my-work:${view}:${userId}:${today}`, () =>
    view === 'today'
      ? queries.dueToday(userId, today)
      : view === 'upcoming'
        ? queries.upcoming(userId, today)
        : queries.assignedToMe(userId),
  );
}
