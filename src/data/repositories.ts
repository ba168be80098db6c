// The only write API of the app (sync-design.md "Write path"): Outpost's rules (task positions,
// status transitions, the last owner, attachment limits) over the library's store
// (store.ts), which validates, writes the row and queues the change in ONE Dexie transaction,
// so the screen sees it at once (liveQuery) and it survives a reload before any network call
// (I4).
import { BASE_62_DIGITS, generateKeyBetween } from 'fractional-indexing';

import type { Stored, TableName, WriteContext } from '@sync/index';
import { todayIso } from '@/utils/format';

export type { CompletedTask } from './bulk-writes';
import type { ChecklistItem, OutpostDeviceRows, Task } from './rows';
import {
  canTransition,
  CHECKLIST_ITEMS_PER_TASK_MAX,
  checklistItemInput,
  checklistItemPatch,
  commentInput,
  listInput,
  listPatch,
  profilePatch,
  taskInput,
  taskPatch,
  type ListColor,
  type TaskStatus,
} from './schema';
import { createStore, parse, ValidationError } from '@sync/index';
import type * as v from 'valibot';

/** What the repositories write with: the library's WriteContext, typed by Outpost's rows. */
export type RepoContext = WriteContext<OutpostDeviceRows>;

/**
 * The write API over `ctx.db`: lists, tasks, comments, memberships, profile, attachments.
 * Each method validates, writes the row and queues the change in one transaction; a refused
 * input throws a ValidationError before anything is written.
 */
export function createRepositories(ctx: RepoContext) {
  const { rows } = ctx;
  const store = createStore(ctx);
  const { transaction: rw, timestamp: iso, newRow, insert, patch, edit, live, deletable } = store;

  const lists = {
    /** delete(): the list with its tasks, comments and attachments; undoDelete(). */
    ...deletable('lists'),
    /** Creates a list owned by the current user; returns its id. */
    async create(input: { name: string; color: ListColor }): Promise<string> {
      const value = parse(listInput, input);
      const id = ctx.newId();
      await rw(['lists', 'memberships'], async () => {
        await insert('lists', { id, ...value, created_by: ctx.userId() });
        // The server makes the owner membership itself (trigger); this local stand-in lets
        // the screens know the role at once and is replaced when the real one is pulled.
        await rows('memberships').put(
          newRow('memberships', {
            id: ctx.newId(),
            list_id: id,
            user_id: ctx.userId(),
            role: 'owner',
            _standIn: 1,
          }),
        );
      });
      return id;
    },
    /** Renames a list (owners and editors). */
    async rename(id: string, name: string): Promise<void> {
      await edit('lists', id, parse(listPatch, { name }));
    },
    /** Gives a list another palette colour (owners and editors). */
    async recolor(id: string, color: ListColor): Promise<void> {
      await edit('lists', id, parse(listPatch, { color }));
    },
  };

  /**
   * The position after the last task of a list. Every device computes the same key from the
   * same last task, so it is jittered with the new task's own id: two devices adding at the
   * end while offline get different positions rather than a tie.
   */
  async function endPosition(listId: string, taskId: string): Promise<string> {
    const last = await rows('tasks')
      .where('[list_id+position]')
      .between([listId, ''], [listId, '\uffff'])
      .last();
    return jitteredKeyBetween(positionIn(last), null, taskId);
  }

  /** A task's position; null for no task (either end of the list) or one not on the device. */
  async function positionOf(taskId: string | null): Promise<string | null> {
    return taskId ? positionIn(await rows('tasks').get(taskId)) : null;
  }

  /**
   * Puts `id` right after `afterId` when no key fits between it and the task shown next:
   * they share a position (two devices wrote the same key). The tasks tied with `afterId`
   * that sort after it (by id, as every screen shows ties) get new keys after the moved
   * task's, in the same order, all before the next higher position; queued like any move.
   */
  async function moveIntoTie(id: string, listId: string, afterId: string, at: string) {
    const tied = (
      await rows('tasks').where('[list_id+position]').equals([listId, at]).toArray()
    ).filter((row) => !row.deleted_at && row.id !== id);
    const index = tied.findIndex((row) => row.id === afterId);
    const following = tied.slice(index + 1);
    const next = await rows('tasks')
      .where('[list_id+position]')
      .between([listId, at], [listId, '\uffff'], false, true)
      .filter((row) => !row.deleted_at && row.id !== id)
      .first();
    const bound = positionIn(next);
    let previous = at;
    for (const rowId of [id, ...following.map((row) => row.id)]) {
      previous = jitteredKeyBetween(previous, bound, ctx.newId());
      await patch('tasks', rowId, { position: previous }, listId);
    }
  }

  /**
   * Changes fields of a task; a new status sets or clears completed_at locally, mirroring the
   * server's trigger so the screen is right before sync. Transitions are the caller's to check.
   */
  function patchTask(task: Stored<Task>, value: v.InferOutput<typeof taskPatch>): Promise<void> {
    const to = value.status ?? task.status;
    const completed = to === task.status ? {} : { completed_at: to === 'done' ? iso() : null };
    return patch('tasks', task.id, value, task.list_id, completed);
  }

  /**
   * For a write completing `ids`: what makes the next occurrence of each that repeats
   * (successors.ts, loaded with recurrence.ts only when one of them repeats), its ids worked
   * out before the write's transaction. It answers false for a task it has no plan for that
   * repeats by the time it is completed (a pull changed it in between): completeLate() then
   * makes its next occurrence in a transaction of its own.
   */
  async function successorsOf(
    ids: readonly string[],
    completed = false,
  ): Promise<(task: Stored<Task>) => Promise<boolean>> {
    const completing = await rows('tasks').bulkGet([...ids]);
    const repeats = (task: Stored<Task> | undefined) =>
      Boolean(task?.repeat) && (completed || task?.status !== 'done');
    if (!completing.some(repeats)) return (task) => Promise.resolve(!task.repeat);
    const { planSuccessors, makeSuccessor } = await import('./successors');
    const plans = await planSuccessors(rows, completing.filter(repeats));
    const writes = {
      rows,
      insert,
      endPosition,
      userId: () => ctx.userId(),
      today: () => todayIso(ctx.now()),
    };
    return async (task) => {
      const plan = plans.get(task.id);
      if (plan) await makeSuccessor(writes, task, plan);
      return Boolean(plan) || !task.repeat;
    };
  }

  /** The next occurrences of tasks just completed that successorsOf() had no plan for. */
  async function completeLate(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const makeNext = await successorsOf(ids, true);
    await rw(COMPLETING, async () => {
      for (const id of ids) {
        const task = await rows('tasks').get(id);
        if (task && !task.deleted_at && task.status === 'done') await makeNext(task);
      }
    });
  }

  /** The bulk bar's writes (bulk-writes.ts), loaded on first use: the app shell does without them. */
  const bulk = lazily(() =>
    import('./bulk-writes').then(({ createBulkWrites }) =>
      createBulkWrites({
        store,
        rows,
        newId: () => ctx.newId(),
        userId: () => ctx.userId(),
        patchTask,
        endPosition,
        itemsOf,
        successorsOf,
        completeLate,
      }),
    ),
  );

  /** Tables a write that may complete a repeating task writes. */
  const COMPLETING: TableName<OutpostDeviceRows>[] = ['tasks', 'memberships', 'checklist_items'];

  const tasks = {
    /** delete(): the task with its comments and attachments; undoDelete(). */
    ...deletable('tasks'),
    /** Adds a task at the end of its list; returns its id. */
    async create(
      listId: string,
      input: { title: string } & Partial<v.InferInput<typeof taskInput>>,
    ): Promise<string> {
      const value = parse(taskInput, {
        notes: '',
        status: 'todo',
        priority: 0,
        due_on: null,
        assignee_id: null,
        repeat: null,
        ...input,
      });
      const id = ctx.newId();
      await rw(['lists', 'tasks'], async () => {
        await live('lists', listId);
        const completed = value.status === 'done' ? iso() : null;
        await insert('tasks', {
          id,
          list_id: listId,
          ...value,
          position: await endPosition(listId, id),
          completed_at: completed,
          created_by: ctx.userId(),
          follows_id: null,
        });
      });
      return id;
    },
    /**
     * Changes fields of a task (status through setStatus rules). Completing an occurrence of
     * a repeating task makes the next one (successors.ts).
     */
    async update(id: string, changes: Partial<v.InferInput<typeof taskInput>>): Promise<void> {
      const value = parse(taskPatch, changes);
      const makeNext = value.status === 'done' ? await successorsOf([id]) : undefined;
      const planned = await rw(COMPLETING, async () => {
        const task = await live('tasks', id);
        const from = task.status;
        const to = value.status ?? from;
        if (!canTransition(from, to)) {
          throw new ValidationError({ status: `A task can't go from ${from} to ${to}.` });
        }
        await patchTask(task, value);
        return to !== 'done' || from === 'done' || (await makeNext?.(await live('tasks', id)));
      });
      if (planned === false) await completeLate([id]);
    },
    /** Moves a task to another status, if product.md §4 allows that transition. */
    setStatus(id: string, status: TaskStatus): Promise<void> {
      return tasks.update(id, { status });
    },
    /**
     * Moves a task between two neighbours (ids, or null at either end), exactly there even
     * when the neighbours share a position (then the later ones get new keys too). The new
     * key is jittered, so two devices moving tasks into the same gap offline don't tie.
     */
    async move(id: string, afterId: string | null, beforeId: string | null): Promise<void> {
      await rw(['tasks'], async () => {
        const task = await live('tasks', id);
        const listId = task.list_id;
        const a = await positionOf(afterId);
        const b = await positionOf(beforeId);
        if (afterId !== null && a !== null && b !== null && a >= b) {
          await moveIntoTie(id, listId, afterId, a);
          return;
        }
        await patch('tasks', id, { position: jitteredKeyBetween(a, b, ctx.newId()) }, listId);
      });
    },
    // The bulk bar's writes (bulk-writes.ts says what each does and returns).
    completeMany: bulk('completeMany'),
    undoComplete: bulk('undoComplete'),
    updateMany: bulk('updateMany'),
    undoUpdateMany: bulk('undoUpdateMany'),
    deleteMany: bulk('deleteMany'),
    undoDeleteMany: bulk('undoDeleteMany'),
    moveMany: bulk('moveMany'),
    undoMoveMany: bulk('undoMoveMany'),
  };

  /** A task's live checklist items, in order. */
  async function itemsOf(taskId: string): Promise<Stored<ChecklistItem>[]> {
    const items = await rows('checklist_items')
      .where('[task_id+position]')
      .between([taskId, ''], [taskId, '\uffff'])
      .toArray();
    return items.filter((item) => !item.deleted_at);
  }

  const checklist = {
    /** delete() and undoDelete() of a checklist item. */
    ...deletable('checklist_items'),
    /**
     * Adds an unticked item to a task's checklist, right after the item `afterId` (Enter in
     * an item), or at the end (null); returns its id.
     */
    async add(taskId: string, text: string, afterId: string | null = null): Promise<string> {
      const value = parse(checklistItemInput, { text, done: false });
      const id = ctx.newId();
      await rw(['tasks', 'checklist_items'], async () => {
        const task = await live('tasks', taskId);
        const items = await itemsOf(taskId);
        if (items.length >= CHECKLIST_ITEMS_PER_TASK_MAX) {
          throw new ValidationError({
            text: `A checklist can have at most ${CHECKLIST_ITEMS_PER_TASK_MAX} items.`,
          });
        }
        const found = afterId === null ? -1 : items.findIndex((item) => item.id === afterId);
        const at = found < 0 ? items.length - 1 : found;
        await insert('checklist_items', {
          id,
          task_id: taskId,
          list_id: task.list_id,
          ...value,
          position: jitteredKeyBetween(
            items[at]?.position ?? null,
            items[at + 1]?.position ?? null,
            id,
          ),
          created_by: ctx.userId(),
        });
      });
      return id;
    },
    /** Changes an item's text and/or tick. */
    async update(id: string, changes: { text?: string; done?: boolean }): Promise<void> {
      await edit('checklist_items', id, parse(checklistItemPatch, changes));
    },
    /** Moves an item between two neighbours (ids, or null at either end). */
    async move(id: string, afterId: string | null, beforeId: string | null): Promise<void> {
      await rw(['checklist_items'], async () => {
        const item = await live('checklist_items', id);
        const a = afterId ? ((await rows('checklist_items').get(afterId))?.position ?? null) : null;
        const b = beforeId
          ? ((await rows('checklist_items').get(beforeId))?.position ?? null)
          : null;
        const position =
          a !== null && b !== null && a >= b
            ? jitteredKeyBetween(a, null, ctx.newId())
            : jitteredKeyBetween(a, b, ctx.newId());
        await patch('checklist_items', id, { position }, item.list_id);
      });
    },
  };

  const comments = {
    /** delete() and undoDelete() of a comment. */
    ...deletable('comments'),
    /** Adds a comment by the current user to a task; returns its id. */
    async create(taskId: string, body: string): Promise<string> {
      const value = parse(commentInput, { body });
      const id = ctx.newId();
      await rw(['tasks', 'comments'], async () => {
        const task = await live('tasks', taskId);
        await insert('comments', {
          id,
          task_id: taskId,
          list_id: task.list_id,
          body: value.body,
          author_id: ctx.userId(),
        });
      });
      return id;
    },
    /** Changes a comment's text (its author; the list's owner too). */
    async edit(id: string, body: string): Promise<void> {
      await edit('comments', id, parse(commentInput, { body }));
    },
  };

  /** Whether `member` is the only live owner of its list (who must stay one). */
  /** Members' roles, removals and leaving (membership-writes.ts), loaded on first use. */
  const memberWrite = lazily(() =>
    import('./membership-writes').then(({ createMembershipWrites }) =>
      createMembershipWrites({ store, rows, userId: () => ctx.userId() }),
    ),
  );
  const memberships = {
    changeRole: memberWrite('changeRole'),
    remove: memberWrite('remove'),
    leave: memberWrite('leave'),
  };

  const profile = {
    /** Changes the current user's own profile (name, picture path). */
    async update(changes: { display_name?: string; avatar_path?: string | null }): Promise<void> {
      await edit('profiles', ctx.userId(), parse(profilePatch, changes));
    },
  };

  const attachments = {
    /** delete(): removes a file from its task (its bytes stay here until final); undoDelete(). */
    ...deletable('attachments'),
    /** Attaches a file to a task (attachment-writes.ts, loaded on first use). */
    add: lazily(() =>
      import('./attachment-writes').then(({ createAttachmentWrites }) =>
        createAttachmentWrites({ store, ctx }),
      ),
    )('add'),
  };

  return { lists, tasks, checklist, comments, memberships, profile, attachments };
}

/**
 * Methods of a module of writes loaded on the first call of any of them: what only some
 * screens' actions need stays out of the app shell.
 */
function lazily<M extends object>(load: () => Promise<M>) {
  let made: Promise<M> | undefined;
  return <K extends keyof M>(name: K) =>
    (async (...args: unknown[]) =>
      ((await (made ??= load()))[name] as (...a: unknown[]) => unknown)(...args)) as M[K];
}

/** A task row's position key; null for no row. */
function positionIn(task: Task | undefined): string | null {
  return task?.position ?? null;
}

/**
 * Base-62 digits appended to every new task position: 62³ × 61 ≈ 14.6 million endings, so
 * keys two devices make for the same spot almost never tie (and a tie still sorts by id).
 */
const POSITION_JITTER_DIGITS = 4;

/** 32-bit FNV-1a of a string: spreads an id's characters over the jitter digits. */
function hash32(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** Base-62 digits drawn from `seed`; never ending in '0' (fractional-indexing refuses that). */
function jitterDigits(seed: string): string {
  let rest = hash32(seed);
  let digits = '';
  for (let i = 0; i < POSITION_JITTER_DIGITS - 1; i += 1) {
    digits += BASE_62_DIGITS[rest % 62];
    rest = Math.floor(rest / 62);
  }
  return digits + BASE_62_DIGITS[1 + (rest % 61)];
}

/**
 * A fractional-indexing key strictly between `a` and `b` (null: either end) with a random
 * ending drawn from `seed` (a fresh id, the repositories' injected randomness). The ending
 * keeps the key below `b` unless the key is a prefix of `b` (generateKeyBetween(null, 'a0V')
 * is 'a0'), so such a key is first moved down towards `a`; each step is shorter, so it ends.
 */
export function jitteredKeyBetween(a: string | null, b: string | null, seed: string): string {
  let key = generateKeyBetween(a, b);
  while (b !== null && b.startsWith(key)) key = generateKeyBetween(a, key);
  return key + jitterDigits(seed);
}

/** The write API: one object per entity, each method validating, writing and queueing at once. */
export type Repositories = ReturnType<typeof createRepositories>;
