// Undo and redo of this session's edits (Ctrl/Cmd+Z, Shift+Ctrl/Cmd+Z, a toast's Undo). The
// services hand every screen a sync whose edits go through these recording repositories
// (undo-services.ts), which note what each edit changed (undo-history.ts) and pass it on, so
// no write path can forget to. Undo and redo are new writes through the same repositories:
// they sync, and are refused, like any edit. A row that changed since the edit (another
// device wrote the same field) is left as it is, and the toast says so: an undo never
// overwrites someone's newer value.
import { showToast, useToasts } from '@/lib/toasts';

import { checklistQueries } from './checklist-queries';
import type { Repositories } from './repositories';
import type { ChecklistItem, Task } from './rows';
import { canTransition, type TaskStatus } from './schema';
import type { OutpostSync } from './sync';
import {
  createUndoHistory,
  forgetStoredHistory,
  holds,
  isFieldName,
  pick,
  type Change,
  type Fields,
  type Place,
  type Stack,
  type UndoHistory,
} from './undo-history';
import { attempt } from './writes';

type Deletable = 'lists' | 'tasks' | 'comments' | 'attachments' | 'checklist_items';
type Editable = 'lists' | 'tasks' | 'comments' | 'checklist_items';
type TaskChanges = Parameters<Repositories['tasks']['update']>[1];

export interface Undoer {
  /** The repositories, noting each edit they make. */
  readonly repos: Repositories;
  /** Undoes the newest edit (or the one with `id`, from a toast); false when nothing was. */
  undo(id?: number): Promise<boolean>;
  /** Does again the newest edit undone; false when nothing was. */
  redo(): Promise<boolean>;
}

/** What an undo or redo of one change came to. */
type Outcome =
  | { kind: 'applied'; change: Change; note?: string }
  | { kind: 'changed' }
  | { kind: 'failed'; message: string };

const quoted = (text: unknown) => `“${String(text)}”`;

function firstError(errors: Record<string, string | undefined>, fallback: string): string {
  return errors._ ?? Object.values(errors).find(Boolean) ?? fallback;
}

const TOO_LATE: Readonly<Record<Deletable, string>> = {
  lists: 'Too late to undo: the list was already deleted.',
  tasks: 'Too late to undo: the task was already deleted.',
  comments: 'Too late to undo: the comment was already deleted.',
  attachments: 'Too late to undo: the file was already removed.',
  checklist_items: 'Too late to undo: the item was already removed.',
};

/** Undo for one sync library: its recording repositories and the session's history. */
export function createUndoer(sync: OutpostSync, history: UndoHistory): Undoer {
  const raw = sync.repos;
  const { queries } = sync;
  /** The last "Moved" toast, updated in place while the same task keeps moving. */
  let moveToast: { toastId: number; taskId: string } | null = null;

  const live = async <K extends Deletable>(table: K, id: string) => {
    const row = await queries.row(table, id);
    return row && !row.deleted_at ? row : undefined;
  };
  /** The repository of a table's rows (checklist items have `checklist`). */
  const repoOf = <K extends Deletable>(table: K) =>
    table === 'checklist_items' ? raw.checklist : raw[table as Exclude<K, 'checklist_items'>];

  /** A checklist item's place in its checklist (the items either side, null at an end). */
  async function itemPlaceOf(item: ChecklistItem): Promise<Place> {
    const items = await queries.extend(checklistQueries).checklist(item.task_id);
    const at = items.findIndex((other) => other.id === item.id);
    return {
      position: item.position,
      afterId: items[at - 1]?.id ?? null,
      beforeId: items[at + 1]?.id ?? null,
    };
  }

  /** A task's place in its list's order (the tasks either side, null at an end). */
  async function placeOf(task: Task): Promise<Place> {
    const { before, after } = await queries.neighbours(task.list_id, task.position);
    return { position: task.position, afterId: before, beforeId: after };
  }

  const undoAction = (entryId: number) => ({
    label: 'Undo',
    run: async () => {
      await undoer.undo(entryId);
    },
  });

  /** Notes an edit of one row's fields (those it changed), if it changed any. */
  async function recordFields(
    table: Editable,
    id: string,
    before: object,
    keys: readonly string[],
    label: (changed: Fields, after: Fields) => string,
  ): Promise<{ entryId: number; after: Fields } | null> {
    const row = await queries.row(table, id);
    if (!row) return null;
    const old = pick(before, keys);
    const now = pick(row, keys);
    const changed = Object.keys(now).filter((key) => isFieldName(key) && now[key] !== old[key]);
    if (changed.length === 0) return null;
    const after = pick(row, changed);
    const entryId = history.push({
      label: label(pick(before, changed), after),
      changes: [{ op: 'fields', table, id, before: pick(before, changed), after }],
    });
    return { entryId, after };
  }

  async function updateTask(id: string, changes: TaskChanges): Promise<void> {
    // Asked for before the write, not awaited first: IndexedDB runs transactions in the order
    // they were asked for, so this read gets the row as it was, and the write does not wait
    // for a round trip to the store (it is what the engine pushes).
    const reading = live('tasks', id).catch(() => undefined);
    await raw.tasks.update(id, changes);
    const before = await reading;
    if (!before) return;
    const recorded = await recordFields('tasks', id, before, Object.keys(changes), (was, now) =>
      now.status === 'done'
        ? `complete ${quoted(before.title)}`
        : 'title' in was
          ? `rename ${quoted(was.title)}`
          : `edit ${quoted(before.title)}`,
    );
    if (recorded?.after.status === 'done') {
      showToast({
        message: `Marked ${quoted(before.title)} done`,
        action: undoAction(recorded.entryId),
      });
    }
  }

  /** What brings a deleted task back once its delete has reached the server. */
  async function copyOf(task: Task) {
    const { afterId, beforeId } = await placeOf(task);
    const fields = pick(task, [
      'title',
      'notes',
      'status',
      'priority',
      'due_on',
      'assignee_id',
      'repeat',
    ]);
    return { listId: task.list_id, fields, afterId, beforeId };
  }

  /** Deletes through `table`'s repository, noting what comes back with an undo. */
  function deletable<K extends Deletable>(table: K) {
    const repo = repoOf(table);
    return {
      async delete(id: string): Promise<void> {
        const before = await live(table, id);
        const copy = table === 'tasks' && before ? await copyOf(before as Task) : undefined;
        await repo.delete(id);
        if (!before) return;
        const name =
          'title' in before
            ? before.title
            : 'name' in before
              ? before.name
              : 'file_name' in before
                ? before.file_name
                : 'text' in before
                  ? before.text
                  : null;
        history.push({
          label:
            name === null
              ? 'delete the comment'
              : `${table === 'checklist_items' ? 'remove' : 'delete'} ${quoted(name)}`,
          changes: [{ op: 'delete', table, id, ...(copy ? { copy } : {}) }],
        });
      },
      /** The delete toast's own Undo: the history learns the delete was undone. */
      async undoDelete(id: string): Promise<boolean> {
        const undone = await repo.undoDelete(id);
        if (undone)
          history.settle('done', (e) => e.changes.some((c) => c.op === 'delete' && c.id === id));
        return undone;
      },
    };
  }

  const tasks: Repositories['tasks'] = {
    ...raw.tasks,
    ...deletable('tasks'),
    update: updateTask,
    setStatus: (id, status) => updateTask(id, { status }),
    async move(id, afterId, beforeId) {
      const task = await live('tasks', id);
      const before = task ? await placeOf(task) : undefined;
      await raw.tasks.move(id, afterId, beforeId);
      const moved = await live('tasks', id);
      if (!task || !before || !moved || moved.position === before.position) return;
      const entryId = history.push({
        label: `move ${quoted(task.title)}`,
        changes: [
          { op: 'move', id, before, after: { position: moved.position, afterId, beforeId } },
        ],
      });
      const message = `Moved ${quoted(task.title)}`;
      const action = undoAction(entryId);
      // Alt+↓ five times is one toast, whose Undo takes back the last step.
      if (
        moveToast?.taskId === id &&
        useToasts.getState().update(moveToast.toastId, { message, action })
      )
        return;
      moveToast = { toastId: showToast({ message, action }), taskId: id };
    },
    async completeMany(ids) {
      const titles = new Map<string, string>();
      for (const id of ids) {
        const task = await live('tasks', id);
        if (task) titles.set(id, task.title);
      }
      const completed = await raw.tasks.completeMany(ids);
      const first = completed[0];
      if (first) {
        history.push({
          label:
            completed.length === 1
              ? `complete ${quoted(titles.get(first.id))}`
              : `complete ${completed.length} tasks`,
          changes: completed.map(({ id, status }) => ({
            op: 'fields' as const,
            table: 'tasks' as const,
            id,
            before: { status },
            after: { status: 'done' },
          })),
        });
      }
      return completed;
    },
    /** The bulk complete toast's own Undo: the history learns it was undone. */
    async undoComplete(completed) {
      const restored = await raw.tasks.undoComplete(completed);
      settleBulk(completed.map((c) => c.id));
      return restored;
    },
    async updateMany(ids, change) {
      const result = await raw.tasks.updateMany(ids, change);
      const { updated } = result;
      if (updated[0]) {
        history.push({
          label: await bulkLabel('edit', updated[0].id, updated.length),
          changes: updated.map(({ id, before, after }) => ({
            op: 'fields' as const,
            table: 'tasks' as const,
            id,
            before,
            after,
          })),
        });
      }
      return result;
    },
    /** The bulk bar's toast's own Undo: the history learns it was undone. */
    async undoUpdateMany(updated) {
      const restored = await raw.tasks.undoUpdateMany(updated);
      settleBulk(updated.map((u) => u.id));
      return restored;
    },
    async deleteMany(ids) {
      const copies = await copiesOf(ids);
      const deleted = await raw.tasks.deleteMany(ids);
      if (deleted[0]) {
        history.push({
          label: bulkLabelOf('delete', copies.get(deleted[0])?.title, deleted.length),
          changes: deleted.map((id) => deleteChange(id, copies)),
        });
      }
      return deleted;
    },
    async undoDeleteMany(ids) {
      const restored = await raw.tasks.undoDeleteMany(ids);
      settleBulk(ids);
      return restored;
    },
    async moveMany(ids, toListId) {
      const copies = await copiesOf(ids);
      const result = await raw.tasks.moveMany(ids, toListId);
      const { moved } = result;
      if (moved[0]) {
        history.push({
          label: bulkLabelOf('move', copies.get(moved[0].id)?.title, moved.length),
          // Undone backwards: each original comes back before its copy goes.
          changes: moved.flatMap(({ id, copyId }): Change[] => [
            { op: 'add', table: 'tasks', id: copyId },
            deleteChange(id, copies),
          ]),
        });
      }
      return result;
    },
    async undoMoveMany(moved) {
      const restored = await raw.tasks.undoMoveMany(moved);
      settleBulk(moved.flatMap(({ id, copyId }) => [id, copyId]));
      return restored;
    },
  };

  /** "edit “Alpha”", or "edit 3 tasks". */
  function bulkLabelOf(verb: string, title: string | undefined, count: number): string {
    return count === 1 && title !== undefined
      ? `${verb} ${quoted(title)}`
      : `${verb} ${count} tasks`;
  }

  async function bulkLabel(verb: string, firstId: string, count: number): Promise<string> {
    return bulkLabelOf(verb, (await live('tasks', firstId))?.title, count);
  }

  /** The live tasks of `ids` with what brings each back once its delete reached the server. */
  async function copiesOf(ids: readonly string[]) {
    const copies = new Map<string, { title: string; copy: Awaited<ReturnType<typeof copyOf>> }>();
    for (const id of ids) {
      const task = await live('tasks', id);
      if (task) copies.set(id, { title: task.title, copy: await copyOf(task) });
    }
    return copies;
  }

  function deleteChange(id: string, copies: Awaited<ReturnType<typeof copiesOf>>): Change {
    const copy = copies.get(id)?.copy;
    return { op: 'delete', table: 'tasks', id, ...(copy ? { copy } : {}) };
  }

  /** A bulk edit's toast Undo ran: the history entry of exactly those rows is settled. */
  function settleBulk(rowIds: readonly string[]): void {
    const ids = new Set(rowIds);
    history.settle(
      'done',
      (e) =>
        e.changes.length === ids.size && e.changes.every((c) => c.op !== 'move' && ids.has(c.id)),
    );
  }

  const lists: Repositories['lists'] = {
    ...raw.lists,
    ...deletable('lists'),
    async rename(id, name) {
      const before = await live('lists', id);
      await raw.lists.rename(id, name);
      if (before)
        await recordFields('lists', id, before, ['name'], (was) => `rename ${quoted(was.name)}`);
    },
    async recolor(id, color) {
      const before = await live('lists', id);
      await raw.lists.recolor(id, color);
      if (before)
        await recordFields('lists', id, before, ['color'], () => `recolour ${quoted(before.name)}`);
    },
  };

  const comments: Repositories['comments'] = {
    ...raw.comments,
    ...deletable('comments'),
    async edit(id, body) {
      const before = await live('comments', id);
      await raw.comments.edit(id, body);
      if (before) await recordFields('comments', id, before, ['body'], () => 'edit the comment');
    },
  };

  const checklist: Repositories['checklist'] = {
    ...raw.checklist,
    ...deletable('checklist_items'),
    async add(taskId, text, afterId) {
      const id = await raw.checklist.add(taskId, text, afterId);
      const added = await live('checklist_items', id);
      history.push({
        label: `add ${quoted(added?.text ?? text.trim())}`,
        changes: [{ op: 'add', table: 'checklist_items', id }],
      });
      return id;
    },
    async update(id, changes) {
      const before = await live('checklist_items', id);
      await raw.checklist.update(id, changes);
      if (before)
        await recordFields('checklist_items', id, before, Object.keys(changes), (was, now) =>
          now.done === true
            ? `tick ${quoted(before.text)}`
            : now.done === false
              ? `untick ${quoted(before.text)}`
              : `edit ${quoted(was.text ?? before.text)}`,
        );
    },
    async move(id, afterId, beforeId) {
      const item = await live('checklist_items', id);
      const before = item ? await itemPlaceOf(item) : undefined;
      await raw.checklist.move(id, afterId, beforeId);
      const moved = await live('checklist_items', id);
      if (!item || !before || !moved || moved.position === before.position) return;
      history.push({
        label: `move ${quoted(item.text)}`,
        changes: [
          {
            op: 'move',
            table: 'checklist_items',
            id,
            before,
            after: { position: moved.position, afterId, beforeId },
          },
        ],
      });
    },
  };

  const repos: Repositories = {
    ...raw,
    lists,
    tasks,
    comments,
    attachments: { ...raw.attachments, ...deletable('attachments') },
    checklist,
  };

  /** Writes `values` to a row that has the fields it may change. */
  async function writeFields(
    table: Editable,
    id: string,
    row: object,
    values: Fields,
  ): Promise<void> {
    if (table === 'lists') {
      if (typeof values.name === 'string') await raw.lists.rename(id, values.name);
      if (typeof values.color === 'string')
        await raw.lists.recolor(
          id,
          values.color as Parameters<Repositories['lists']['recolor']>[1],
        );
      return;
    }
    if (table === 'comments') {
      if (typeof values.body === 'string') await raw.comments.edit(id, values.body);
      return;
    }
    if (table === 'checklist_items') {
      const { text, done } = values;
      await raw.checklist.update(id, {
        ...(typeof text === 'string' ? { text } : {}),
        ...(typeof done === 'boolean' ? { done } : {}),
      });
      return;
    }
    const { status, ...rest } = values;
    const from = (row as Task).status;
    // done → doing is no step a user takes, but putting back what was is (undoComplete).
    if (
      typeof status === 'string' &&
      !canTransition(from, status as TaskStatus) &&
      from === 'done'
    ) {
      await raw.tasks.undoComplete([{ id, status: status as Exclude<TaskStatus, 'done'> }]);
    } else if (status !== undefined) {
      (rest as Record<string, unknown>).status = status;
    }
    if (Object.keys(rest).length > 0) await raw.tasks.update(id, rest as TaskChanges);
  }

  /** Undoes (`back`) or redoes one change, unless its row changed since. */
  async function apply(change: Change, back: boolean): Promise<Outcome> {
    const result = await attempt(async (): Promise<Outcome> => {
      if (change.op === 'fields') {
        const row = await live(change.table, change.id);
        if (!row || !holds(row, back ? change.after : change.before)) return { kind: 'changed' };
        await writeFields(change.table, change.id, row, back ? change.before : change.after);
        return { kind: 'applied', change };
      }
      if (change.op === 'move') {
        const table = change.table ?? 'tasks';
        const row = await live(table, change.id);
        const expected = back ? change.after : change.before;
        if (!row || row.position !== expected.position) return { kind: 'changed' };
        const target = back ? change.before : change.after;
        await repoOf(table).move(change.id, target.afterId, target.beforeId);
        const moved = await live(table, change.id);
        const place = { ...target, position: moved?.position ?? target.position };
        return {
          kind: 'applied',
          change: back ? { ...change, before: place } : { ...change, after: place },
        };
      }
      if (change.op === 'add') {
        const repo = repoOf(change.table);
        const here = await live(change.table, change.id);
        if (back) {
          if (here) await repo.delete(change.id);
          return here ? { kind: 'applied', change } : { kind: 'changed' };
        }
        if (here || (await repo.undoDelete(change.id))) return { kind: 'applied', change };
        return {
          kind: 'failed',
          message:
            change.table === 'tasks'
              ? 'Too late to redo: the task was already deleted.'
              : 'Too late to redo: the item was already removed.',
        };
      }
      const repo = repoOf(change.table);
      if (!back) {
        if (!(await live(change.table, change.id))) return { kind: 'changed' };
        await repo.delete(change.id);
        return { kind: 'applied', change };
      }
      if (await live(change.table, change.id)) return { kind: 'applied', change };
      if (await repo.undoDelete(change.id)) return { kind: 'applied', change };
      // The delete reached the server, where tombstones are final: a task comes back as a
      // new one with the same fields, at the same place; its comments and files do not.
      if (!change.copy) return { kind: 'failed', message: TOO_LATE[change.table] };
      const { listId, fields, afterId, beforeId } = change.copy;
      const id = await raw.tasks.create(listId, {
        ...(fields as TaskChanges),
        title: String(fields.title),
      });
      await raw.tasks.move(id, afterId, beforeId);
      return {
        kind: 'applied',
        change: { ...change, id },
        note: 'It is back as a new task; its comments and files stay deleted.',
      };
    });
    return result.ok
      ? result.value
      : { kind: 'failed', message: firstError(result.errors, "Couldn't undo.") };
  }

  /** Takes an edit off `from`, writes it back (or again), and puts it on the other stack. */
  async function run(from: Stack, wanted?: number): Promise<boolean> {
    const back = from === 'done';
    const entry = history.take(from, wanted);
    if (!entry) {
      showToast({ message: back ? 'Nothing to undo' : 'Nothing to redo' });
      return false;
    }
    const applied: Change[] = [];
    const notes: string[] = [];
    let changed = 0;
    let failure: string | undefined;
    for (const change of back ? [...entry.changes].reverse() : entry.changes) {
      const outcome = await apply(change, back);
      if (outcome.kind === 'applied') {
        applied.push(outcome.change);
        if (outcome.note) notes.push(outcome.note);
      } else if (outcome.kind === 'changed') changed += 1;
      else {
        failure = outcome.message;
        break;
      }
    }
    if (applied.length > 0) {
      history.put(back ? 'undone' : 'done', {
        ...entry,
        changes: back ? applied.reverse() : applied,
      });
    }
    const verb = back ? 'Undone' : 'Redone';
    if (failure !== undefined) {
      showToast({ message: failure, tone: 'error' });
    } else if (applied.length === 0) {
      showToast({
        message: `Not ${verb.toLowerCase()}: ${entry.label} — it changed since.`,
        tone: 'error',
      });
    } else {
      const rest = changed > 0 ? ' Some of it changed since and was left as it is.' : '';
      showToast({
        message: `${verb}: ${entry.label}.${rest}${notes.map((n) => ` ${n}`).join('')}`,
      });
    }
    return applied.length > 0;
  }

  const undoer: Undoer = {
    repos,
    undo: (id) => run('done', id),
    redo: () => run('undone'),
  };
  return undoer;
}

const undoers = new WeakMap<OutpostSync, Undoer>();
/** The histories of those undoers (one per sync library: one in the app), for a sign-out. */
const histories = new Set<UndoHistory>();

/**
 * The one undoer of a sync library (not the recording sync the screens get: see
 * undo-services.ts `rawSync`), over the session's history in sessionStorage.
 */
export function undoerOf(sync: OutpostSync, history?: UndoHistory): Undoer {
  let undoer = undoers.get(sync);
  if (!undoer) {
    const made = history ?? createUndoHistory();
    histories.add(made);
    undoer = createUndoer(sync, made);
    undoers.set(sync, undoer);
  }
  return undoer;
}

/**
 * Forgets this tab's edits, in memory and in sessionStorage (forget-account.ts, at sign-out
 * and when another account signs in): nothing of the previous person's to undo or read.
 */
export function forgetUndoHistory(): void {
  for (const history of histories) history.clear();
  // Also when no undoer was made yet in this page: a reload keeps sessionStorage.
  forgetStoredHistory();
}
