// My work's reads (issue 39, product.md §10): Today, Upcoming and Assigned to me across every
// list the user holds on the device, bounded and indexed (device version 3's `[status+due_on]`
// and `[assignee_id+status]`), so they answer at local speed with 100,000 tasks on the device.
// Made over the device's reader through `queries.extend(myWorkQueries)`: this module comes with
// the sidebar's and the views' code, not in the app shell.
import type { DeviceReader } from '@sync/index';
import { addDays } from '@/utils/format';

import { myLists } from './queries';
import type { List, OutpostDeviceRows, Task } from './rows';
import type { Role } from './schema';

/** Most tasks a My work view shows (its badge then says "500+"). */
export const MY_WORK_LIMIT = 500;

/** Upcoming's reach: from tomorrow through today plus this many days (4 weeks). */
export const UPCOMING_DAYS = 28;

/** A task of a My work view, with its list and the user's role there (for what they may do). */
export interface MyWorkRow {
  task: Task;
  list: List;
  role: Role | null;
}

/** A My work view's rows, in its order. */
export interface MyWorkRows {
  rows: MyWorkRow[];
  /** More tasks match than the limit: `rows` are the first of them. */
  capped: boolean;
}

/** Code-unit order (positions and ids are compared alike on every device, in any locale). */
const byCode = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Lists in the sidebar's order: by name, ignoring case and accents, then by id. */
export const byListName = (a: List, b: List): number =>
  a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }) || byCode(a.id, b.id);

/** Within one list's tasks: position order, then id (as queries.tasks reads them). */
const byPlace = (a: MyWorkRow, b: MyWorkRow): number =>
  byCode(a.task.position, b.task.position) || byCode(a.task.id, b.task.id);

/** Today and Upcoming: by due date (oldest first), then lists in sidebar order, then place. */
export const byDueDate = (a: MyWorkRow, b: MyWorkRow): number =>
  byCode(a.task.due_on ?? '', b.task.due_on ?? '') || byListName(a.list, b.list) || byPlace(a, b);

/** Assigned to me: lists in sidebar order, then by due date (undated last), then place. */
export const byListThenDue = (a: MyWorkRow, b: MyWorkRow): number =>
  byListName(a.list, b.list) ||
  byCode(a.task.due_on ?? '\uffff', b.task.due_on ?? '\uffff') ||
  byPlace(a, b);

/** The statuses of an open task. */
const OPEN_STATUSES = ['todo', 'doing'] as const;

/** My work's reads over one device's `reader`. */
export function myWorkQueries(reader: DeviceReader<OutpostDeviceRows>) {
  const { table, minKey } = reader;

  /**
   * Open live tasks of `lists` whose `[status+due_on]` is within [from, to] (inclusive), the
   * first `limit` of them by due date and all that share the last one's date (the view orders
   * those by list and place, not as the index does): one index range per open status, read a
   * page of `limit` + 1 at a time (a getAll, not a cursor step per row) until that many are
   * live and kept, so a device with 100,000 tasks reads only about what is shown. `more`: the
   * ranges held more than that.
   */
  async function openDue(
    lists: ReadonlyMap<string, unknown>,
    from: unknown,
    to: string,
    limit: number,
  ): Promise<{ tasks: Task[]; more: boolean }> {
    const keep = (task: Task) => !task.deleted_at && lists.has(task.list_id);
    const ranges = await Promise.all(
      OPEN_STATUSES.map(async (status) => {
        const range = () => table('tasks').where('[status+due_on]');
        const found: Task[] = [];
        for (let offset = 0; ;) {
          const page = await range()
            .between([status, from], [status, to], true, true)
            .offset(offset)
            .limit(limit + 1)
            .toArray();
          found.push(...page.filter(keep));
          offset += page.length;
          if (page.length <= limit) return { found, more: false };
          if (found.length > limit) break;
        }
        // The tasks due on the same day as the last one read, which may sort before it.
        const last = found.at(-1)?.due_on;
        const tied = await range().between([status, last], [status, last], true, true).toArray();
        const read = new Set(found.map((task) => task.id));
        found.push(...tied.filter((task) => keep(task) && !read.has(task.id)));
        return { found, more: true };
      }),
    );
    return {
      tasks: ranges.flatMap((range) => range.found),
      more: ranges.some((range) => range.more),
    };
  }

  /**
   * Open live tasks of `lists` assigned to `userId`, all of them: `[assignee_id+status]` is in
   * id order, not the view's, so the view reads every one and sorts.
   */
  async function openAssigned(lists: ReadonlyMap<string, unknown>, userId: string) {
    const ranges = await Promise.all(
      OPEN_STATUSES.map((status) =>
        table('tasks').where('[assignee_id+status]').equals([userId, status]).toArray(),
      ),
    );
    return ranges.flat().filter((task) => !task.deleted_at && lists.has(task.list_id));
  }

  /** `tasks` as a view's rows in `order`, the first `limit` of them (`more`: there were more). */
  function viewRows(
    tasks: Task[],
    lists: ReadonlyMap<string, { list: List; role: Role | null }>,
    order: (a: MyWorkRow, b: MyWorkRow) => number,
    limit: number,
    more = false,
  ): MyWorkRows {
    const rows = tasks.map((task) => ({ task, ...lists.get(task.list_id)! })).sort(order);
    return { rows: rows.slice(0, limit), capped: more || rows.length > limit };
  }

  return {
    /**
     * Today: open tasks of the user's lists due on or before `today` (the caller's local
     * 'YYYY-MM-DD'), overdue first, oldest first; at most `limit` (`capped` says there are
     * more). Read by `[status+due_on]`: undated tasks are not in that index at all.
     */
    async dueToday(userId: string, today: string, limit = MY_WORK_LIMIT): Promise<MyWorkRows> {
      const lists = await myLists(reader, userId);
      const { tasks, more } = await openDue(lists, minKey, today, limit);
      return viewRows(tasks, lists, byDueDate, limit, more);
    },

    /**
     * Upcoming: open tasks of the user's lists due from the day after `today` through
     * UPCOMING_DAYS after it, by date; at most `limit`.
     */
    async upcoming(userId: string, today: string, limit = MY_WORK_LIMIT): Promise<MyWorkRows> {
      const lists = await myLists(reader, userId);
      const { tasks, more } = await openDue(
        lists,
        addDays(today, 1),
        addDays(today, UPCOMING_DAYS),
        limit,
      );
      return viewRows(tasks, lists, byDueDate, limit, more);
    },

    /**
     * Assigned to me: open tasks of the user's lists assigned to them, by list (sidebar
     * order), then due date (undated last), then place; the first `limit`. Read by
     * `[assignee_id+status]`, so only the user's own open tasks are looked at, all of them:
     * that index is not in the view's order, so the first `limit` come after the sort.
     */
    async assignedToMe(userId: string, limit = MY_WORK_LIMIT): Promise<MyWorkRows> {
      const lists = await myLists(reader, userId);
      const tasks = await openAssigned(lists, userId);
      return viewRows(tasks, lists, byListThenDue, limit);
    },
  };
}

/** My work's reads: see myWorkQueries. */
export type MyWorkQueries = ReturnType<typeof myWorkQueries>;
