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

/**
 * A list with what the lists screen shows of it, but its counts: those are read list by list
 * (taskCounts), so that what changes a summary (each change queued, a member) does not count
 * every list's tasks again.
 */
export interface ListSummary {
  list: List;
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

/** A membership's list and person, as one key (ids hold no space). */
const memberKey = (row: DeviceMembership) => `${row.list_id} ${row.user_id}`;

/**
 * Live memberships with stand-ins resolved: a stand-in (made when the list was created
 * offline) counts only until the server's membership of the same person on the same list is
 * here. Rows of several lists at once (the lists screen's) keep each list's stand-in until
 * that list's own membership comes, whatever the person's memberships of other lists.
 */
function resolveStandIns(rows: Stored<DeviceMembership>[]): Stored<DeviceMembership>[] {
  const rowsLive = live(rows);
  const real = new Set(rowsLive.filter((row) => !row._standIn).map(memberKey));
  return rowsLive.filter((row) => !row._standIn || !real.has(memberKey(row)));
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
 * The user's live lists on the device (not those they have left) by id, each with their role:
 * the lists whose tasks the user may see here.
 */
export async function myLists(
  reader: DeviceReader<OutpostDeviceRows>,
  userId: string,
): Promise<Map<string, { list: List; role: Role | null }>> {
  const all = live(await reader.table('lists').toArray());
  const memberships = await reader
    .table('memberships')
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
 * Outpost's read API over one device database; `owner` is the account room's reading of
 * whose device this is.
 */
export function createQueries(
  reader: DeviceReader<OutpostDeviceRows>,
  owner: () => Promise<string | null>,
) {
  const { table, minKey, maxKey } = reader;
  /** What extend() has made, by its maker. */
  const extensions = new Map<unknown, unknown>();
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
     * The user's live lists with members and queued changes (not those the user has just
     * left). No task is read: a list's counts are its own query (taskCounts).
     */
    async lists(userId: string): Promise<ListSummary[]> {
      const lists = live(await table('lists').toArray());
      if (lists.length === 0) return [];
      const ids = lists.map((list) => list.id);
      const memberships = await table('memberships').where('list_id').anyOf(ids).toArray();
      const members = await withProfiles(resolveStandIns(memberships));
      const pending = await reader.pendingByList();
      return lists
        .filter((list) => !hasLeft(memberships, list.id, userId))
        .map((list) => {
          const mine = members.filter((member) => member.membership.list_id === list.id);
          return {
            list,
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
      const mine = [...(await myLists(reader, userId)).values()].map((entry) => entry.list);
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
     * Reads that only some screens ask, made by `make` over this device's reader, once per
     * `make` (My work's, my-work-queries.ts, come with the sidebar's and the views' code rather
     * than in the app shell).
     */
    extend<T>(make: (reader: DeviceReader<OutpostDeviceRows>) => T): T {
      let made = extensions.get(make) as T | undefined;
      if (made === undefined) {
        made = make(reader);
        extensions.set(make, made);
      }
      return made;
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
  };
}

/** The read API: see createQueries. */
export type Queries = ReturnType<typeof createQueries>;
