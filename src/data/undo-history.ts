// The session's edits, newest last, for undo and redo: what each changed (the fields' values
// before and after, a task's place, a deleted row), kept in sessionStorage so it survives a
// reload and ends with the tab. Storage is hostile (another script, an old version, a full
// quota): what is read is checked with valibot and anything that fails is dropped, never
// trusted; a write that fails leaves the history in memory.
import * as v from 'valibot';

/** How many edits the history keeps; the oldest go first. */
export const UNDO_HISTORY_MAX = 100;

/** Where the history is kept in sessionStorage. */
export const UNDO_STORAGE_KEY = 'outpost-undo';

/**
 * The fields an undo may write back: a task's, a list's, a comment's and a checklist item's
 * editable ones.
 */
const FIELD_NAMES = [
  'title',
  'notes',
  'status',
  'priority',
  'due_on',
  'assignee_id',
  'repeat',
  'name',
  'color',
  'body',
  'text',
  'done',
] as const;

export type FieldName = (typeof FIELD_NAMES)[number];

export function isFieldName(name: string): name is FieldName {
  return (FIELD_NAMES as readonly string[]).includes(name);
}

/** The values of `keys` in a row. */
export function pick(row: object, keys: readonly string[]): Fields {
  const values = row as Record<string, unknown>;
  const out: Fields = {};
  for (const key of keys) {
    const value = values[key];
    if (
      isFieldName(key) &&
      (typeof value === 'string' ||
        typeof value === 'number' ||
        typeof value === 'boolean' ||
        value === null)
    )
      out[key] = value;
  }
  return out;
}

/** Whether a row still has the values an edit left (else it changed since). */
export function holds(row: object, values: Fields): boolean {
  const current = row as Record<string, unknown>;
  return Object.entries(values).every(([key, value]) => current[key] === value);
}

// Only the valibot functions the sync library already ships (the app shell carries them):
// no variant, record, union or literal, which would grow the shell for this lazy chunk.
const id = v.pipe(v.string(), v.maxLength(100));
const TEXT_MAX = 10_000;

/**
 * One written-back field's value: text, a priority, a tick, or null for a cleared date,
 * assignee or repeat rule.
 */
function isFieldValue(name: FieldName, value: unknown): boolean {
  if (name === 'priority') return typeof value === 'number' && Number.isInteger(value);
  if (name === 'done') return typeof value === 'boolean';
  if (value === null) return name === 'due_on' || name === 'assignee_id' || name === 'repeat';
  return typeof value === 'string' && value.length <= TEXT_MAX;
}

/** Some fields of a row (at least one), each one undo may write back. */
const fields = v.pipe(
  v.looseObject({}),
  v.check((values: Record<string, unknown>) => {
    const names = Object.keys(values);
    return names.length > 0 && names.every((n) => isFieldName(n) && isFieldValue(n, values[n]));
  }),
);

/** A task's (or checklist item's) place: its position key and the rows it sat between (null at either end). */
const place = v.object({
  position: v.pipe(v.string(), v.maxLength(200)),
  afterId: v.nullable(id),
  beforeId: v.nullable(id),
});

const CHANGES = {
  /** Fields of one row, before and after the edit (only those the edit changed). */
  fields: v.object({
    op: v.picklist(['fields']),
    table: v.picklist(['lists', 'tasks', 'comments', 'checklist_items']),
    id,
    before: fields,
    after: fields,
  }),
  /** A task moved from one place in its list to another (or an item in its checklist). */
  move: v.object({
    op: v.picklist(['move']),
    /** Tasks when absent (as entries made before checklists were). */
    table: v.optional(v.picklist(['tasks', 'checklist_items'])),
    id,
    before: place,
    after: place,
  }),
  /**
   * A row added: undo removes it, redo brings it back (a checklist item, or a task's copy in
   * the list it was moved to).
   */
  add: v.object({ op: v.picklist(['add']), table: v.picklist(['checklist_items', 'tasks']), id }),
  /**
   * A deleted row. A task keeps a copy (its fields, list and place) so it can come back as
   * a new task once its delete has reached the server, where tombstones are final.
   */
  delete: v.object({
    op: v.picklist(['delete']),
    table: v.picklist(['lists', 'tasks', 'comments', 'attachments', 'checklist_items']),
    id,
    copy: v.optional(
      v.object({ listId: id, fields, afterId: v.nullable(id), beforeId: v.nullable(id) }),
    ),
  }),
};

type ChangeOf<K extends keyof typeof CHANGES> = v.InferOutput<(typeof CHANGES)[K]>;

/** Fields of a row by name (checked as `fields` above). */
export type Fields = Partial<Record<FieldName, string | number | boolean | null>>;
export type Place = v.InferOutput<typeof place>;
/** One row's part of an edit. */
export type Change =
  | (Omit<ChangeOf<'fields'>, 'before' | 'after'> & { before: Fields; after: Fields })
  | ChangeOf<'move'>
  | ChangeOf<'add'>
  | (Omit<ChangeOf<'delete'>, 'copy'> & {
      copy?: Omit<NonNullable<ChangeOf<'delete'>['copy']>, 'fields'> & { fields: Fields };
    });

/** A change of the kind its `op` names, checked by that kind's schema. */
const change = v.pipe(
  v.looseObject({ op: v.picklist(['fields', 'move', 'add', 'delete']) }),
  v.check((c) => v.is(CHANGES[c.op], c)),
);

const entrySchema = v.object({
  id: v.pipe(v.number(), v.integer(), v.minValue(1)),
  /** What the edit did, as the toast says it ("complete “Fix the gate”"). */
  label: v.pipe(v.string(), v.maxLength(300)),
  changes: v.pipe(v.array(change), v.minLength(1), v.maxLength(1_000)),
});

const storedSchema = v.object({ done: v.array(entrySchema), undone: v.array(entrySchema) });

export interface UndoEntry {
  id: number;
  label: string;
  changes: Change[];
}

/** Which stack: edits to undo, or edits undone (to redo). */
export type Stack = 'done' | 'undone';

/** The part of Storage the history uses (sessionStorage; a stand-in in tests). */
export type HistoryStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

export interface UndoHistory {
  /** Notes a new edit and returns its id; what was undone can no longer be redone. */
  push(edit: { label: string; changes: Change[] }): number;
  /** Takes an edit off a stack: the newest, or the one with `id`; undefined when none. */
  take(stack: Stack, id?: number): UndoEntry | undefined;
  /** Puts an edit on top of a stack (one just undone goes on `undone`, and back). */
  put(stack: Stack, entry: UndoEntry): void;
  /** Moves the newest edit on `from` that `matches` to the other stack (undone elsewhere). */
  settle(from: Stack, matches: (entry: UndoEntry) => boolean): void;
  /** How many edits a stack holds. */
  size(stack: Stack): number;
  /**
   * Forgets every edit, in memory and in storage (sign-out, another account): the next
   * person must not undo into, or read, the previous one's values and deleted rows.
   */
  clear(): void;
}

/** The session's sessionStorage; undefined where reaching it throws (sandboxed frames). */
export function sessionStore(): HistoryStorage | undefined {
  try {
    return globalThis.sessionStorage;
  } catch {
    return undefined;
  }
}

/** Removes the stored history (a storage that refuses has nothing to remove). */
export function forgetStoredHistory(storage: HistoryStorage | undefined = sessionStore()): void {
  try {
    storage?.removeItem(UNDO_STORAGE_KEY);
  } catch {
    // Refused: nothing could have been stored either.
  }
}

interface Stacks {
  done: UndoEntry[];
  undone: UndoEntry[];
}

function read(storage: HistoryStorage | undefined, max: number): Stacks {
  try {
    const text = storage?.getItem(UNDO_STORAGE_KEY);
    if (text) {
      const checked = v.safeParse(storedSchema, JSON.parse(text));
      if (checked.success) {
        // Each change passed its own kind's schema (`change`), which the types cannot see.
        const { done, undone } = checked.output as unknown as Stacks;
        return { done: done.slice(-max), undone: undone.slice(-max) };
      }
    }
  } catch {
    // Unreadable or not JSON: start afresh.
  }
  return { done: [], undone: [] };
}

export function createUndoHistory(
  storage: HistoryStorage | undefined = sessionStore(),
  max = UNDO_HISTORY_MAX,
): UndoHistory {
  const stacks = read(storage, max);
  let nextId = Math.max(0, ...stacks.done.map((e) => e.id), ...stacks.undone.map((e) => e.id)) + 1;
  const save = () => {
    try {
      storage?.setItem(UNDO_STORAGE_KEY, JSON.stringify(stacks));
    } catch {
      // Full or refused: the history still works until the tab closes.
    }
  };
  const other = (stack: Stack): Stack => (stack === 'done' ? 'undone' : 'done');
  const bound = (stack: Stack) => {
    if (stacks[stack].length > max) stacks[stack] = stacks[stack].slice(-max);
  };

  return {
    push(edit) {
      const entry = { id: nextId++, ...edit };
      stacks.done.push(entry);
      bound('done');
      stacks.undone = [];
      save();
      return entry.id;
    },
    take(stack, wanted) {
      const list = stacks[stack];
      const index = wanted === undefined ? list.length - 1 : list.findIndex((e) => e.id === wanted);
      if (index < 0) return undefined;
      const [entry] = list.splice(index, 1);
      save();
      return entry;
    },
    put(stack, entry) {
      stacks[stack].push(entry);
      bound(stack);
      save();
    },
    settle(from, matches) {
      const list = stacks[from];
      for (let i = list.length - 1; i >= 0; i -= 1) {
        const entry = list[i];
        if (entry && matches(entry)) {
          list.splice(i, 1);
          stacks[other(from)].push(entry);
          bound(other(from));
          save();
          return;
        }
      }
    },
    size: (stack) => stacks[stack].length,
    clear() {
      stacks.done = [];
      stacks.undone = [];
      forgetStoredHistory(storage);
    },
  };
}
