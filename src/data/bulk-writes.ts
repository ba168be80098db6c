// The bulk bar's writes (issue 40): one property for a whole selection, its delete, and its move
// to another list, each in one transaction, each returning what its Undo needs. Loaded by the
// repositories on first use (as successors.ts is), so the app shell does without them.
import type { Store, Stored, TableName, WriteContext } from '@sync/index';

import type { ChecklistItem, OutpostDeviceRows, Task } from './rows';
import {
  canTransition,
  checklistItemInput,
  taskInput,
  taskPatch,
  type Priority,
  type TaskStatus,
} from './schema';
import { parse, ValidationError } from '@sync/index';
import type * as v from 'valibot';

/** One property set on every task of a selection (the bulk bar's menus). */
export type BulkChange =
  | { status: TaskStatus }
  | { priority: Priority }
  | { due_on: string | null }
  | { assignee_id: string | null };

/** The fields a bulk change may set, as a task had them. */
export type BulkFields = Partial<Pick<Task, 'status' | 'priority' | 'due_on' | 'assignee_id'>>;

/** A task updateMany() changed, with its fields before and after. */
export interface UpdatedTask {
  id: string;
  before: BulkFields;
  after: BulkFields;
}

/** What updateMany() did. */
export interface BulkUpdate {
  /** The tasks it changed (those that had the value already are not among them). */
  updated: UpdatedTask[];
  /** Tasks whose status may not go there (done → doing, product.md §4): left as they were. */
  refused: string[];
}

/** A task completeMany() marked done, with the status it had before. */
export interface CompletedTask {
  id: string;
  status: Exclude<TaskStatus, 'done'>;
}

/** A task moveMany() moved: the original, now deleted, and its copy in the other list. */
export interface MovedTask {
  id: string;
  copyId: string;
}

/** What moveMany() did. */
export interface BulkMove {
  moved: MovedTask[];
  /** Tasks with comments or files: they stay where they are (those can't be copied). */
  skipped: string[];
}

/** What the bulk writes write with: the repositories' own pieces. */
export interface BulkContext {
  store: Pick<
    Store<OutpostDeviceRows>,
    'transaction' | 'live' | 'insert' | 'remove' | 'undoDelete' | 'timestamp'
  >;
  rows: WriteContext<OutpostDeviceRows>['rows'];
  newId(): string;
  userId(): string;
  /** Changes a task's fields, completed_at following its status. */
  patchTask(task: Stored<Task>, value: v.InferOutput<typeof taskPatch>): Promise<void>;
  /** The position after the last task of a list, jittered by the new task's id. */
  endPosition(listId: string, taskId: string): Promise<string>;
  /** A task's live checklist items, in order. */
  itemsOf(taskId: string): Promise<Stored<ChecklistItem>[]>;
  /** The maker of next occurrences for tasks about to be completed (repositories.ts). */
  successorsOf(ids: readonly string[]): Promise<(task: Stored<Task>) => Promise<boolean>>;
  /** The next occurrences of completed tasks successorsOf() had no plan for. */
  completeLate(ids: readonly string[]): Promise<void>;
}

const BULK_FIELDS = ['status', 'priority', 'due_on', 'assignee_id'] as const;

/** Tables a write that may complete a repeating task writes. */
const COMPLETING: TableName<OutpostDeviceRows>[] = ['tasks', 'memberships', 'checklist_items'];

/** A task and what it holds: the tables its delete (and a move's copy) writes. */
const TASK_TREE: TableName<OutpostDeviceRows>[] = [
  'tasks',
  'comments',
  'attachments',
  'checklist_items',
];

/** The bulk fields of `row` named in `fields`. */
function pick(row: object, fields: object): BulkFields {
  const values = row as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of BULK_FIELDS) if (key in fields) out[key] = values[key];
  return out;
}

/** Whether `row` holds every value in `fields`. */
function holds(row: BulkFields, fields: BulkFields): boolean {
  return BULK_FIELDS.every((key) => !(key in fields) || row[key] === fields[key]);
}

export function createBulkWrites(w: BulkContext) {
  const { store, rows } = w;

  /** The ids of `ids` whose tasks are live on the device. */
  async function liveIds(ids: readonly string[]): Promise<string[]> {
    const found = await rows('tasks').bulkGet([...ids]);
    return found.flatMap((task) => (task && !task.deleted_at ? [task.id] : []));
  }

  /** Whether a task has a live comment or file (a move can't copy those). */
  async function hasThread(taskId: string): Promise<boolean> {
    for (const table of ['comments', 'attachments'] as const) {
      const found = await rows(table).where('task_id').equals(taskId).toArray();
      if (found.some((row) => !row.deleted_at)) return true;
    }
    return false;
  }

  /**
   * Marks several tasks done in one transaction (those already done are left alone), making
   * their next occurrences. Returns the tasks it completed with the status each had.
   */
  async function completeMany(ids: readonly string[]): Promise<CompletedTask[]> {
    const makeNext = await w.successorsOf(ids);
    const late: string[] = [];
    const completed = await store.transaction(COMPLETING, async () => {
      const done: CompletedTask[] = [];
      for (const id of ids) {
        const task = await store.live('tasks', id);
        if (task.status === 'done') continue;
        await w.patchTask(task, { status: 'done' });
        if (!(await makeNext(await store.live('tasks', id)))) late.push(id);
        done.push({ id, status: task.status });
      }
      return done;
    });
    await w.completeLate(late);
    return completed;
  }

  return {
    completeMany,
    /**
     * Undoes completeMany(): each task still done goes back to the status it had (a queued
     * change like any other, so it works offline and at any time). A task reopened or
     * deleted since is left as it is. Returns how many went back.
     */
    undoComplete(completed: readonly CompletedTask[]): Promise<number> {
      return store.transaction(['tasks'], async () => {
        let restored = 0;
        for (const { id, status } of completed) {
          const value = parse(taskPatch, { status });
          const task = await rows('tasks').get(id);
          if (!task || task.deleted_at || task.status !== 'done') continue;
          // done → doing is not a step a user takes, but putting back what was is fine:
          // the server only ties completed_at to status.
          await w.patchTask(task, value);
          restored += 1;
        }
        return restored;
      });
    },

    /**
     * Sets one property on each task of `ids` in one transaction: priority, due date,
     * assignee, or status through the allowed transitions (to done the way completeMany
     * goes, making next occurrences). Gone tasks and those with the value already are left
     * out; returns what changed, for undoUpdateMany().
     */
    async updateMany(ids: readonly string[], change: BulkChange): Promise<BulkUpdate> {
      const value = parse(taskPatch, change);
      const keys = Object.keys(value);
      if (keys.length !== 1 || !BULK_FIELDS.some((field) => field === keys[0])) {
        throw new ValidationError({ _: 'Change one property at a time.' });
      }
      if (value.status === 'done') {
        const completed = await completeMany(await liveIds(ids));
        return {
          updated: completed.map(({ id, status }) => ({
            id,
            before: { status },
            after: { status: 'done' },
          })),
          refused: [],
        };
      }
      const after = pick(value, value);
      return store.transaction(['tasks'], async () => {
        const result: BulkUpdate = { updated: [], refused: [] };
        for (const id of ids) {
          const task = await rows('tasks').get(id);
          if (!task || task.deleted_at || holds(task, after)) continue;
          if (value.status && !canTransition(task.status, value.status)) {
            result.refused.push(id);
            continue;
          }
          await w.patchTask(task, value);
          result.updated.push({ id, before: pick(task, after), after });
        }
        return result;
      });
    },

    /**
     * Undoes updateMany(): each task that still holds what it set gets its value back (a
     * task changed since, or deleted, is left as it is); a task going back to done makes its
     * next occurrence as a completion does (none if it has one). Returns how many went back.
     */
    async undoUpdateMany(updated: readonly UpdatedTask[]): Promise<number> {
      const makeNext = await w.successorsOf(
        updated.filter((u) => u.before.status === 'done').map((u) => u.id),
      );
      const late: string[] = [];
      const restored = await store.transaction(COMPLETING, async () => {
        let count = 0;
        for (const { id, before, after } of updated) {
          const task = await rows('tasks').get(id);
          if (!task || task.deleted_at || !holds(task, after)) continue;
          const value = parse(taskPatch, before);
          // Putting back what was (done → doing included): the server ties only
          // completed_at to the status.
          await w.patchTask(task, value);
          if (value.status === 'done' && !(await makeNext(await store.live('tasks', id)))) {
            late.push(id);
          }
          count += 1;
        }
        return count;
      });
      await w.completeLate(late);
      return restored;
    },

    /**
     * Deletes the live tasks of `ids` with what they hold, in one transaction; each delete
     * is held back for Undo (undoDeleteMany) as a single delete is. Returns the ids deleted.
     */
    deleteMany(ids: readonly string[]): Promise<string[]> {
      return store.transaction(TASK_TREE, async () => {
        const deleted: string[] = [];
        for (const id of await liveIds(ids)) {
          await store.remove('tasks', id);
          deleted.push(id);
        }
        return deleted;
      });
    },

    /** Takes back deleteMany()'s deletes not sent yet; returns how many came back. */
    undoDeleteMany(ids: readonly string[]): Promise<number> {
      return store.transaction(TASK_TREE, async () => {
        let restored = 0;
        for (const id of ids) if (await store.undoDelete('tasks', id)) restored += 1;
        return restored;
      });
    },

    /**
     * Moves tasks to another list. The server keeps a task's list for good, so each is made
     * anew at the end of `toListId` (title, notes, status, priority, due date, repeat rule,
     * the assignee while a member there, its checklist) and the original deleted, all in one
     * transaction. Tasks with comments or files stay (returned as skipped): those don't
     * copy. Returns each move, for undoMoveMany().
     */
    moveMany(ids: readonly string[], toListId: string): Promise<BulkMove> {
      return store.transaction(['lists', 'memberships', ...TASK_TREE], async () => {
        await store.live('lists', toListId);
        const result: BulkMove = { moved: [], skipped: [] };
        for (const id of ids) {
          const task = await rows('tasks').get(id);
          if (!task || task.deleted_at || task.list_id === toListId) continue;
          if (await hasThread(id)) {
            result.skipped.push(id);
            continue;
          }
          const member =
            task.assignee_id !== null &&
            (
              await rows('memberships')
                .where('[list_id+user_id]')
                .equals([toListId, task.assignee_id])
                .toArray()
            ).some((m) => !m.deleted_at);
          const fields = parse(taskInput, {
            title: task.title,
            notes: task.notes,
            status: task.status,
            priority: task.priority,
            due_on: task.due_on,
            assignee_id: member ? task.assignee_id : null,
            repeat: task.repeat,
          });
          const copyId = w.newId();
          await store.insert('tasks', {
            id: copyId,
            list_id: toListId,
            ...fields,
            position: await w.endPosition(toListId, copyId),
            completed_at: fields.status === 'done' ? store.timestamp() : null,
            created_by: w.userId(),
            follows_id: null,
          });
          for (const item of await w.itemsOf(id)) {
            await store.insert('checklist_items', {
              id: w.newId(),
              task_id: copyId,
              list_id: toListId,
              ...parse(checklistItemInput, { text: item.text, done: item.done }),
              position: item.position,
              created_by: w.userId(),
            });
          }
          await store.remove('tasks', id);
          result.moved.push({ id, copyId });
        }
        return result;
      });
    },

    /**
     * Undoes moveMany(): each original whose delete is not sent yet comes back (with its
     * checklist) and its copy is deleted; an original already deleted on the server keeps
     * its copy, so no task is lost. Returns how many came back.
     */
    undoMoveMany(moved: readonly MovedTask[]): Promise<number> {
      return store.transaction(TASK_TREE, async () => {
        let restored = 0;
        for (const { id, copyId } of moved) {
          if (!(await store.undoDelete('tasks', id))) continue;
          const copy = await rows('tasks').get(copyId);
          if (copy && !copy.deleted_at) await store.remove('tasks', copyId);
          restored += 1;
        }
        return restored;
      });
    },
  };
}

/** The bulk writes over one device's repositories. */
export type BulkWrites = ReturnType<typeof createBulkWrites>;
