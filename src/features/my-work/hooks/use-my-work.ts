// A My work view's rows, live: the view's query (my-work-queries.ts: dueToday, upcoming,
// assignedToMe) in a live query, so others' edits show at once. Until that query first
// answers, the view's shared query (use-my-work-view.ts), which the sidebar keeps alive for its
// counts, gives the rows from memory: Today opens as fast as a list whose rows are cached. A task done while the view is
// open stays in it, ticked, until the user leaves (as in Things or Todoist): it can be
// unticked there, and a tick does not make the rows below it jump. Those tasks are read again
// in the same live query, so a done row never disappears for a frame before coming back.
import { useLiveQuery } from 'dexie-react-hooks';
import { useEffect, useRef } from 'react';

import {
  byDueDate,
  byListThenDue,
  myWorkQueries,
  type MyWorkRow,
  type MyWorkRows,
} from '@/data/my-work-queries';
import { useMyWorkView, type MyWorkView } from '@/hooks/use-my-work-view';
import { useServices } from '@/lib/services';
import { useSession } from '@/lib/session';

/** The rows of `view` for the day `today` (the caller's local 'YYYY-MM-DD'); undefined: loading. */
export function useMyWork(view: MyWorkView, today: string): MyWorkRows | undefined {
  const { sync } = useServices();
  const { userId } = useSession();
  /** Every row this view has shown since it opened, by task id. */
  const shown = useRef(new Map<string, MyWorkRow>());
  const warm = useMyWorkView(view, today);

  const result = useLiveQuery(async (): Promise<MyWorkRows> => {
    const { queries } = sync;
    const views = queries.extend(myWorkQueries);
    const current =
      view === 'today'
        ? await views.dueToday(userId, today)
        : view === 'upcoming'
          ? await views.upcoming(userId, today)
          : await views.assignedToMe(userId);
    const ids = new Set(current.rows.map((row) => row.task.id));
    const gone = [...shown.current.values()].filter((row) => !ids.has(row.task.id));
    const now = await Promise.all(gone.map((row) => queries.row('tasks', row.task.id)));
    const done = gone.flatMap((row, i) => {
      const task = now[i];
      return task && !task.deleted_at && task.status === 'done' ? [{ ...row, task }] : [];
    });
    if (done.length === 0) return current;
    const order = view === 'assigned' ? byListThenDue : byDueDate;
    return { rows: [...current.rows, ...done].sort(order), capped: current.capped };
  }, [sync, userId, today, view]);

  useEffect(() => {
    for (const row of result?.rows ?? []) shown.current.set(row.task.id, row);
  }, [result]);

  return result ?? warm;
}
