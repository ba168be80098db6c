// The read API: every question a screen asks of the device, answered from IndexedDB with
// indexed reads and typed rows. Each is a plain async function, so a screen runs it in
// `useLiveQuery(() => sync.queries.tasks(listId), [sync, listId])` and is redrawn when a
// table it read changes. Screens never see the Dexie tables or the engine's own (`_outbox`,
// `_meta`, `_rejections`, `_files`): what those hold is answered here, through the
// library's DeviceReader.
import type { DeviceReader, FileRecord, LoggedRejection, Stored } from '@sync/index';
import type {
  Attachment,
  ChecklistItem,
  Comment,
  DeviceMembership,
  List,
  Membership,
  OutpostDeviceRows,
  OutpostRows,
  Profile,
  Task,
} from './rows';
import type { Role } from './schema';

/** A task looked up by id: live, a tombstone (deleted, maybe by someone else), or not here. */
export type TaskLookup =
  { state: 'live'; task: Task } | { state: 'deleted' } | { state: 'missing' };

/** A member of a list with their profile, once that profile is on this device. */
export interface MemberRow {
  membership: Membership;
  profile: Profile | undefined;
  /** Made on this device when the list was created offline; the server's row replaces it. */
  standIn: boolean;
}

/** A list's live tasks: not done, and done. */
export interface TaskCounts {
  open: number;
  done: number;
}

/** A list with what the lists screen shows of it. */
export interface ListSummary {
  list: List;
  /** Live tasks not done, and done. */
  open: number;
  done: number;
  members: MemberRow[];
  /** The user's role; null when they have none here. */
  role: Role | null;
  /** Changes of this list still queued on the device. */
  pending: number;
}

/** A logged rejection with the row it was for, as it is on the device now. */
export interface RejectionRow {
  rejection: LoggedRejection;
  /** The row now: undefined when it is gone (or of a table this version does not know). */
  row: Record<string, unknown> | undefined;
  /** The live list (and task) it belongs to, for a link; null when neither is here. */
  listId: string | null;
  taskId: string | null;
}

/** Lists and tasks whose names contain a text (the command palette's jump). */
export interface FoundRows {
  /** The user's live lists whose name contains the text (all of them for no text). */
  lists: List[];
  /** Live tasks of those lists whose title contains the text, each with its list. */
  tasks: { task: Task; list: List }[];
}

/** Most lists, and most tasks, `find` answers with. */
export const FIND_LIMIT = 20;

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

/** The ISO date `days` after `iso` (both 'YYYY-MM-DD'; counted in UTC, so no DST shift). */
export function isoDaysAfter(iso: string, days: number): string {
  const date = new Date(`${iso}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

/** Everything the device holds of the user's lists, for an export. */
export interface DeviceRows {
  lists: List[];
  memberships: Membership[];
  tasks: Task[];
  comments: Comment[];
  attachments: Attachment[];
  checklist_items: ChecklistItem[];
  profiles: Profile[];
}

const live = <T extends { deleted_at: string | null }>(rows: T[]): T[] =>
  rows.filter((row) => !row.deleted_at);

/** Creation order (then id, the same on every device). */
const byCreation = (a: { created_at: string; id: string }, b: { created_at: string; id: string }) =>
  a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id);

/**
 * Live memberships with stand-ins resolved: a stand-in (made when the list was created
 * offline) counts only until the server's membership of the same person is here.
 */
function resolveStandIns(rows: Stored<DeviceMembership>[]): Stored<DeviceMembership>[] {
  const rowsLive = live(rows);
  const real = new Set(rowsLive.filter((row) => !row._standIn).map((row) => row.user_id));
  return rowsLive.filter((row) => !row._standIn || !real.has(row.user_id));
}

/**
 * Whether `userId` has left (or been removed from) the list and the device has not dropped
 * it yet: their membership is a tombstone and none is live. A leave made offline waits in
 * the outbox, yet the list is gone from the screens at once.
 */
function hasLeft(rows: Stored<DeviceMembership>[], listId: string, userId: string): boolean {
  const mine = rows.filter((row) => row.list_id === listId && row.user_id === userId);
  return mine.length > 0 && mine.every((row) => row.deleted_at);
}

/**
 * Outpost's read API over one device database; `owner` is the account room's reading of
 * whose device this is.
 */
export function createQueries(
  reader: DeviceReader<OutpostDeviceRows>,
  owner: () => Promise<string | null>,
) {
  const { table, minKey, maxKey } = reader;
  const get = async <K extends keyof OutpostRows>(name: K, id: string) => {
    const row = await table(name).get(id);
    return row && !row.deleted_at ? row : undefined;
  };
  const myMemberships = (listId: string, userId: string) =>
    table('memberships').where('[list_id+user_id]').equals([listId, userId]).toArray();
  const withProfiles = async (rows: Stored<DeviceMembership>[]): Promise<MemberRow[]> => {
    const profiles = await table('profiles').bulkGet(rows.map((row) => row.user_id));
    return rows.map((membership, i) => ({
      membership,
      profile: profiles[i],
      standIn: Boolean(membership._standIn),
    }));
  };

  /**
   * The user's live lists (not those they have left) by id, each with their role: the lists
   * whose tasks the user may see on this device.
   */
  async function myLists(userId: string): Promise<Map<string, { list: List; role: Role | null }>> {
    const all = live(await table('lists').toArray());
    const memberships = await table('memberships')
      .where('list_id')
      .anyOf(all.map((list) => list.id))
      .toArray();
    const resolved = resolveStandIns(memberships);
    return new Map(
      all
        .filter((list) => !hasLeft(memberships, list.id, userId))
        .map((list) => {
          const mine = resolved.find((row) => row.list_id === list.id && row.user_id === userId);
          return [list.id, { list, role: mine?.role ?? null }] as const;
        }),
    );
  }

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

  /**
   * A list's live tasks, open and done, counted by index (no task is read): all and done by
   * `[list_id+status]`, less the tombstones, which only `[list_id+status+deleted_at]` holds.
   */
  async function taskCounts(listId: string): Promise<TaskCounts> {
    const tasks = table('tasks');
    const [all, done, tombstones] = await Promise.all([
      tasks.where('list_id').equals(listId).count(),
      tasks.where('[list_id+status]').equals([listId, 'done']).count(),
      // Every status is a string: [listId, ''] sorts before all of the list's keys and
      // [listId, '\uffff'] after them.
      tasks.where('[list_id+status+deleted_at]').between([listId, ''], [listId, '\uffff']).keys(),
    ]);
    const doneGone = tombstones.filter((key) => (key as unknown[])[1] === 'done').length;
    return {
      open: all - done - (tombstones.length - doneGone),
      done: done - doneGone,
    };
  }

  return {
    /** Whether the device has finished its first pull (a missing row then really is missing). */
    pulled: reader.pulled,

    /** The user whose data this device holds; null before anyone signed in here. */
    deviceOwner: owner,

    /** The user's role on a list (the server's membership wins over a stand-in); null: none. */
    async role(listId: string, userId: string): Promise<Role | null> {
      const mine = resolveStandIns(await myMemberships(listId, userId));
      return mine[0]?.role ?? null;
    },

    /** A live list the user has not left; null when it is not (or no longer) here. */
    async list(listId: string, userId: string): Promise<List | null> {
      const row = await get('lists', listId);
      if (!row || hasLeft(await myMemberships(listId, userId), listId, userId)) return null;
      return row;
    },

    /** Whether a list has arrived on the device (an invite being accepted). */
    hasList: async (listId: string): Promise<boolean> => Boolean(await get('lists', listId)),

    /**
     * The user's live lists with counts, members and queued changes (not those the user has
     * just left). One pass over the tasks' list index, so a 10,000-task list is cheap here.
     */
    async lists(userId: string): Promise<ListSummary[]> {
      const lists = live(await table('lists').toArray());
      if (lists.length === 0) return [];
      const ids = lists.map((list) => list.id);
      const counts = new Map(
        await Promise.all(ids.map(async (id) => [id, await taskCounts(id)] as const)),
      );
      const memberships = await table('memberships').where('list_id').anyOf(ids).toArray();
      const members = await withProfiles(resolveStandIns(memberships));
      const pending = await reader.pendingByList();
      return lists
        .filter((list) => !hasLeft(memberships, list.id, userId))
        .map((list) => {
          const mine = members.filter((member) => member.membership.list_id === list.id);
          return {
            list,
            ...counts.get(list.id)!,
            members: mine,
            role:
              mine.find((member) => member.membership.user_id === userId)?.membership.role ?? null,
            pending: pending[list.id] ?? 0,
          };
        });
    },

    /**
     * The user's live lists (not those left) whose name contains `text`, and the live tasks
     * of those lists whose title does, case-insensitively, at most `limit` of each. Tasks are
     * read by one cursor over the list index that stops at the `limit`th match, so a device
     * with 100,000 tasks never builds an array of them. Lists in name order; no text: the
     * lists only.
     */
    async find(userId: string, text: string, limit = FIND_LIMIT): Promise<FoundRows> {
      const needle = text.trim().toLocaleLowerCase();
      const mine = [...(await myLists(userId)).values()].map((entry) => entry.list);
      const named = mine
        .filter((list) => list.name.toLocaleLowerCase().includes(needle))
        .sort((a, b) => a.name.localeCompare(b.name))
        .slice(0, limit);
      if (!needle || mine.length === 0) return { lists: named, tasks: [] };
      const byId = new Map(mine.map((list) => [list.id, list]));
      const tasks = await table('tasks')
        .where('list_id')
        .anyOf([...byId.keys()])
        .filter((task) => !task.deleted_at && task.title.toLocaleLowerCase().includes(needle))
        .limit(limit)
        .toArray();
      return {
        lists: named,
        tasks: tasks.map((task) => ({ task, list: byId.get(task.list_id)! })),
      };
    },

    /** A list's live members with their profiles (stand-ins resolved), in no set order. */
    async members(listId: string): Promise<MemberRow[]> {
      return withProfiles(
        resolveStandIns(await table('memberships').where('list_id').equals(listId).toArray()),
      );
    },

    /** Live profiles by user id (the user's and those of the people they share lists with). */
    async profiles(): Promise<Map<string, Profile>> {
      return new Map(live(await table('profiles').toArray()).map((row) => [row.id, row]));
    },

    /** One live profile, or null. */
    profile: async (userId: string): Promise<Profile | null> =>
      (await get('profiles', userId)) ?? null,

    /**
     * A list's live tasks in position order, by one range scan of the compound index. Equal
     * positions (made on two devices offline) come in id order, as IndexedDB orders equal
     * keys by primary key: the same on every device, and the order tasks.move() assumes.
     */
    async tasks(listId: string): Promise<Task[]> {
      return live(
        await table('tasks')
          .where('[list_id+position]')
          .between([listId, minKey], [listId, maxKey])
          .toArray(),
      );
    },

    /** A list's live tasks, open and done, counted by index: no task is read. */
    taskCounts,

    /**
     * The live tasks among a list's first `limit` in position order (what a screen shows
     * before it has the rest): one bounded read (getAll with a count: a filter would make it
     * a cursor, a round trip per row). `whole` when that was all of the list.
     */
    async firstTasks(listId: string, limit: number): Promise<{ tasks: Task[]; whole: boolean }> {
      const first = await table('tasks')
        .where('[list_id+position]')
        .between([listId, minKey], [listId, maxKey])
        .limit(limit)
        .toArray();
      return { tasks: live(first), whole: first.length < limit };
    },

    /**
     * The live tasks either side of `position` in a list's order (a task's place): two
     * bounded index reads, never the whole list.
     */
    async neighbours(
      listId: string,
      position: string,
    ): Promise<{ before: string | null; after: string | null }> {
      const byPlace = () => table('tasks').where('[list_id+position]');
      const [before, after] = await Promise.all([
        byPlace()
          .between([listId, minKey], [listId, position], true, false)
          .reverse()
          .filter((t) => !t.deleted_at)
          .first(),
        byPlace()
          .between([listId, position], [listId, maxKey], false, true)
          .filter((t) => !t.deleted_at)
          .first(),
      ]);
      return { before: before?.id ?? null, after: after?.id ?? null };
    },

    /**
     * How many live tasks assigned to `userId` are not done and due on or before `today`
     * (a local 'YYYY-MM-DD'): due or overdue, for the app's badge. Read by the assignee
     * index, so only the person's own tasks are looked at.
     */
    assignedDueCount: (userId: string, today: string): Promise<number> =>
      table('tasks')
        .where('assignee_id')
        .equals(userId)
        .filter(
          (task) =>
            !task.deleted_at &&
            task.status !== 'done' &&
            task.due_on !== null &&
            task.due_on <= today,
        )
        .count(),

    /**
     * Today: open tasks of the user's lists due on or before `today` (the caller's local
     * 'YYYY-MM-DD'), overdue first, oldest first; at most `limit` (`capped` says there are
     * more). Read by `[status+due_on]`: undated tasks are not in that index at all.
     */
    async dueToday(userId: string, today: string, limit = MY_WORK_LIMIT): Promise<MyWorkRows> {
      const lists = await myLists(userId);
      const { tasks, more } = await openDue(lists, minKey, today, limit);
      return viewRows(tasks, lists, byDueDate, limit, more);
    },

    /**
     * Upcoming: open tasks of the user's lists due from the day after `today` through
     * UPCOMING_DAYS after it, by date; at most `limit`.
     */
    async upcoming(userId: string, today: string, limit = MY_WORK_LIMIT): Promise<MyWorkRows> {
      const lists = await myLists(userId);
      const { tasks, more } = await openDue(
        lists,
        isoDaysAfter(today, 1),
        isoDaysAfter(today, UPCOMING_DAYS),
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
      const lists = await myLists(userId);
      const tasks = await openAssigned(lists, userId);
      return viewRows(tasks, lists, byListThenDue, limit);
    },

    /** A task of `listId`; a task of another list counts as missing. */
    async task(listId: string, taskId: string): Promise<TaskLookup> {
      const row = await table('tasks').get(taskId);
      if (!row || row.list_id !== listId) return { state: 'missing' };
      return row.deleted_at ? { state: 'deleted' } : { state: 'live', task: row };
    },

    /**
     * A list, task, comment or attachment as the device has it now, tombstone included; undefined when
     * it is not here (undo asks whether a row changed since an edit).
     */
    row: <K extends 'lists' | 'tasks' | 'comments' | 'attachments' | 'checklist_items'>(
      name: K,
      id: string,
    ): Promise<OutpostRows[K] | undefined> => table(name).get(id),

    /** A task's live comments, oldest first. */
    async comments(taskId: string): Promise<Comment[]> {
      return live(await table('comments').where('task_id').equals(taskId).toArray()).sort(
        byCreation,
      );
    },

    /** A task's live attachments, oldest first. */
    async attachments(taskId: string): Promise<Attachment[]> {
      return live(await table('attachments').where('task_id').equals(taskId).toArray()).sort(
        byCreation,
      );
    },

    /** Where an attachment's bytes are on this device; null when they are not here. */
    fileState: async (attachmentId: string): Promise<FileRecord['state'] | null> =>
      (await reader.file(attachmentId))?.state ?? null,

    /** The attachment files kept on this device (queued or cached): how many, how large. */
    async storedFiles(): Promise<{ count: number; bytes: number }> {
      let count = 0;
      let bytes = 0;
      await reader.eachFile((file) => {
        count += 1;
        bytes += file.blob?.size ?? 0;
      });
      return { count, bytes };
    },

    /** Ids of the rows of a list (any table) with changes queued on this device. */
    pendingRows: reader.pendingRows,

    /** Changes queued on this device and not yet on the server. */
    pendingCount: reader.pendingCount,

    /** The id of the newest logged rejection; 0 when the log is empty. */
    newestRejection: reader.newestRejection,

    /**
     * Logged rejections, newest first, each with its row as it is now and the live list and
     * task it belongs to; only those logged after `afterId` and up to `upTo` when given.
     */
    async rejections(afterId = 0, upTo = Infinity): Promise<RejectionRow[]> {
      const logged = await reader.rejections(afterId, upTo);
      return Promise.all(
        logged.map(async (rejection) => {
          const row: Record<string, unknown> | undefined = reader.synced(rejection.table)
            ? await table(rejection.table).get(rejection.rowId)
            : undefined;
          const listId = [rejection.listId, row?.list_id].find((id) => typeof id === 'string');
          const taskId =
            rejection.table === 'tasks'
              ? rejection.rowId
              : [rejection.data.task_id, row?.task_id].find((id) => typeof id === 'string');
          const listLive = typeof listId === 'string' && (await get('lists', listId));
          return {
            rejection,
            row,
            listId: listLive ? listId : null,
            taskId:
              listLive && typeof taskId === 'string' && (await get('tasks', taskId))
                ? taskId
                : null,
          };
        }),
      );
    },

    /** Every row of the synced tables, tombstones included, read in one transaction. */
    deviceRows: (): Promise<DeviceRows> =>
      reader.readAll(async () => {
        const all = <K extends keyof OutpostRows>(name: K) => table(name).toArray();
        const [lists, memberships, tasks, comments, attachments, checklist_items, profiles] =
          await Promise.all([
            all('lists'),
            all('memberships'),
            all('tasks'),
            all('comments'),
            all('attachments'),
            all('checklist_items'),
            all('profiles'),
          ]);
        return { lists, memberships, tasks, comments, attachments, checklist_items, profiles };
      }),

    // ---- Checklists (issue 39) ----

    /**
     * A task's live checklist items in order: one range of `[task_id+position]` (equal
     * positions, made on two devices offline, in id order, the same on every device).
     */
    async checklist(taskId: string): Promise<ChecklistItem[]> {
      return live(
        await table('checklist_items')
          .where('[task_id+position]')
          .between([taskId, minKey], [taskId, maxKey])
          .toArray(),
      );
    },

    /**
     * How far along the checklists of a list's tasks are, for its rows: one read of the
     * list's items by the `list_id` index (only tasks with a checklist have items, so a list
     * of 10,000 tasks reads just those). Tasks without live items are not in the map.
     */
    async checklistProgress(listId: string): Promise<Map<string, ChecklistProgress>> {
      return progressOf(await table('checklist_items').where('list_id').equals(listId).toArray());
    },

    /**
     * The same for some tasks of any lists (a view across lists): one cursor over their
     * `[task_id+position]` ranges.
     */
    async checklistProgressOf(taskIds: readonly string[]): Promise<Map<string, ChecklistProgress>> {
      if (taskIds.length === 0) return new Map();
      return progressOf(
        await table('checklist_items')
          .where('[task_id+position]')
          .inAnyRange(
            taskIds.map((id) => [
              [id, minKey],
              [id, maxKey],
            ]),
          )
          .toArray(),
      );
    },
  };
}

/** A task's checklist: items ticked, of how many (live ones). */
export interface ChecklistProgress {
  done: number;
  total: number;
}

/** Live items' progress by task id. */
function progressOf(items: readonly ChecklistItem[]): Map<string, ChecklistProgress> {
  const byTask = new Map<string, ChecklistProgress>();
  for (const item of items) {
    if (item.deleted_at) continue;
    const progress = byTask.get(item.task_id) ?? { done: 0, total: 0 };
    progress.total += 1;
    if (item.done) progress.done += 1;
    byTask.set(item.task_id, progress);
  }
  return byTask;
}

/** The read API: see createQueries. */
export type Queries = ReturnType<typeof createQueries>;
