// The one validation module of Outpost (product.md §5, §9): the UI shows its messages inline, the
// repositories refuse what it refuses before anything is queued, and the database enforces
// the same limits as CHECK constraints (supabase/migrations/…_schema.sql; keep them in step).
// valibot: every validator is its own function, so a bundle carries only the ones used:
// ~1.7 kB gzip of the sync engine's budget, where zod/mini took ~8 kB (scripts/bundle-sync.mjs).
import * as v from 'valibot';

/** Longest list name (characters). */
export const LIST_NAME_MAX = 80;
/** Longest task title (characters). */
export const TASK_TITLE_MAX = 200;
/** Longest task notes (characters). */
export const TASK_NOTES_MAX = 10_000;
/** Longest comment (characters). */
export const COMMENT_BODY_MAX = 4_000;
/** Longest display name (characters). */
export const DISPLAY_NAME_MAX = 60;
/** Longest avatar path in storage (characters). */
export const AVATAR_PATH_MAX = 1024;
/** Longest attachment file name (characters). */
export const FILE_NAME_MAX = 255;
/** Largest attachment (bytes): 10 MiB. */
export const ATTACHMENT_MAX_BYTES = 10 * 1024 * 1024;
/** Most live attachments on one task. */
export const ATTACHMENTS_PER_TASK_MAX = 20;
/** Most live members of one list. */
export const MEMBERS_PER_LIST_MAX = 50;
/** Longest checklist item (characters). */
export const CHECKLIST_ITEM_TEXT_MAX = 500;
/** Most live checklist items on one task. */
export const CHECKLIST_ITEMS_PER_TASK_MAX = 100;
/** Longest "every N days after completion" (days). */
export const REPEAT_AFTER_DAYS_MAX = 365;

/** The eight list colours, by palette key. */
export const PALETTE = [
  'slate',
  'red',
  'orange',
  'yellow',
  'green',
  'teal',
  'blue',
  'purple',
] as const;
/** A list colour's palette key. */
export type ListColor = (typeof PALETTE)[number];

/** Task statuses, in their natural order. */
export const STATUSES = ['todo', 'doing', 'done'] as const;
/** A task's status. */
export type TaskStatus = (typeof STATUSES)[number];

/** Membership roles, most powerful first (product.md §6). */
export const ROLES = ['owner', 'editor', 'viewer'] as const;
/** A member's role on a list. */
export type Role = (typeof ROLES)[number];

/**
 * The rules Outpost's database triggers refuse a change by, sent as the error's HINT and
 * kept on the rejection (`Rejection.rule`); a test holds this list to the migrations'.
 */
export type RuleCode =
  | 'MEMBER_LIMIT'
  | 'LAST_OWNER'
  | 'ASSIGNEE_NOT_MEMBER'
  | 'ATTACHMENT_LIMIT'
  | 'CHECKLIST_LIMIT'
  | 'NOT_A_SUCCESSOR';

/** 0 none, 1 low, 2 medium, 3 high. */
export const PRIORITIES = [0, 1, 2, 3] as const;
/** A task's priority: 0 none, 1 low, 2 medium, 3 high. */
export type Priority = (typeof PRIORITIES)[number];

/** The file types an attachment may have (product.md §9), each with its object's file extension. */
export const ATTACHMENT_EXTENSIONS = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'application/pdf': 'pdf',
} as const;
/** An allowed attachment file type. */
export type AttachmentMimeType = keyof typeof ATTACHMENT_EXTENSIONS;
/** The file types an attachment may have (product.md §9). */
export const ATTACHMENT_MIME_TYPES = Object.keys(
  ATTACHMENT_EXTENSIONS,
) as readonly AttachmentMimeType[];

/** Status transitions of product.md §4: todo → doing → done, doing → todo, done → todo. */
export const STATUS_TRANSITIONS: Readonly<Record<TaskStatus, readonly TaskStatus[]>> = {
  todo: ['doing', 'done'],
  doing: ['todo', 'done'],
  done: ['todo'],
};

/** Whether a task may go from one status to another (staying put is always allowed). */
export function canTransition(from: TaskStatus, to: TaskStatus): boolean {
  return from === to || STATUS_TRANSITIONS[from].includes(to);
}

// Lengths by plain checks, as size_bytes below: valibot's minLength and maxLength add their
// own code to the sync library's 15 kB budget for the same rules and the same messages.

/** Text of at least one character. */
function notEmpty(label: string) {
  return v.check((value: string) => value.length >= 1, `${label} can't be empty.`);
}

/**
 * Text of at most `max` characters. The message is made when it is needed: formatting a
 * number for a locale starts up the browser's Intl, which took some 100 ms of a new tab's
 * start on a slow machine when every schema's message was made as the module loaded.
 */
function atMost(label: string, max: number) {
  return v.check(
    (value: string) => value.length <= max,
    () => `${label} can be at most ${max.toLocaleString('en-US')} characters.`,
  );
}

/** A required text: trimmed, not empty, at most `max` characters. */
function text(label: string, max: number) {
  return v.pipe(v.string(`${label} must be text.`), v.trim(), notEmpty(label), atMost(label, max));
}

/** Whether `value` is `YYYY-MM-DD` naming a day that exists (2026-02-30 does not). */
function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d\d-\d\d$/.test(value)) return false;
  const [year = NaN, month = NaN, day = NaN] = value.split('-').map(Number);
  // setUTCFullYear, not Date.UTC: the latter reads years 0–99 as 1900–1999. A day that does
  // not exist rolls over (2026-02-30 becomes 2026-03-02), so it reads back as another date.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.toISOString().startsWith(value);
}

/**
 * v.object whose missing keys get their field's own message, as an undefined value does
 * (valibot's own is `Invalid key: Expected "color" but received undefined`). `validate`
 * takes unknown input, so a caller can leave out a key without the compiler noticing.
 */
function object<const TEntries extends v.ObjectEntries>(entries: TEntries) {
  return v.object(entries, (issue) => {
    // A missing key's issue carries just that key; a non-object input carries no path.
    const key = issue.path?.[0]?.key;
    const entry = typeof key === 'string' ? entries[key] : undefined;
    return (entry && v.safeParse(entry, undefined).issues?.[0].message) ?? issue.message;
  });
}

const ID_MESSAGE = 'Must be an id.';
/**
 * Any hex 8-4-4-4-12 id, version bits unchecked: the local-only user is the all-zero id.
 * valibot's uuid() pattern, by a plain check (its own action is more weight for the same).
 */
const UUID_PATTERN = /^[\da-f]{8}(?:-[\da-f]{4}){3}-[\da-f]{12}$/iu;
const uuid = v.pipe(
  v.string(ID_MESSAGE),
  v.check((id: string) => UUID_PATTERN.test(id), ID_MESSAGE),
);
const DATE_MESSAGE = 'Use a date like 2026-01-31.';
const isoDate = v.pipe(v.string(DATE_MESSAGE), v.check(isCalendarDate, DATE_MESSAGE));

/** A new list: name and colour. */
export const listInput = object({
  name: text('List name', LIST_NAME_MAX),
  color: v.picklist(PALETTE, 'Pick one of the palette colours.'),
});
/** A list's rename or recolour: any of listInput's fields. */
export const listPatch = v.partial(listInput);

/**
 * A repeat rule as stored (product.md §3): `daily`, `weekly:1,4` (ISO weekdays, Monday 1,
 * ascending, no repeats), `monthly:15` (that day, or the month's last when shorter) or
 * `after:3` (days after completion, 1–365). The database's CHECK is the same pattern, and
 * recurrence.ts reads it.
 */
export const REPEAT_PATTERN =
  /^(?:daily|weekly:[1-7](?:,[1-7]){0,6}|monthly:(?:[1-9]|[12]\d|3[01])|after:(?:[1-9]|[1-9]\d|[12]\d\d|3[0-5]\d|36[0-5]))$/u;

/** Whether `rule` is a repeat rule as stored, its weekdays ascending and each once. */
export function isRepeatRule(rule: string): boolean {
  if (!REPEAT_PATTERN.test(rule)) return false;
  if (!rule.startsWith('weekly:')) return true;
  const days = rule.slice('weekly:'.length).split(',').map(Number);
  return days.every((day, i) => i === 0 || day > (days[i - 1] ?? 0));
}

const REPEAT_MESSAGE = 'Pick how the task repeats.';
const repeatRule = v.pipe(v.string(REPEAT_MESSAGE), v.check(isRepeatRule, REPEAT_MESSAGE));

/** A new task's editable fields (the repository fills in defaults first). */
export const taskInput = object({
  title: text('Title', TASK_TITLE_MAX),
  notes: v.pipe(v.string(), atMost('Notes', TASK_NOTES_MAX)),
  status: v.picklist(STATUSES, 'Status must be todo, doing or done.'),
  priority: v.picklist(PRIORITIES, 'Priority must be 0 to 3.'),
  due_on: v.nullable(isoDate),
  assignee_id: v.nullable(uuid),
  // Optional with null: a task made without a word about repeating does not repeat.
  repeat: v.optional(v.nullable(repeatRule), null),
});
/** A task edit: any of taskInput's fields. */
export const taskPatch = v.partial(taskInput);

/** A new or edited checklist item: its text and whether it is ticked. */
export const checklistItemInput = object({
  text: text('Item', CHECKLIST_ITEM_TEXT_MAX),
  done: v.boolean('Done is yes or no.'),
});
/** A checklist item's edit: its text and/or tick. */
export const checklistItemPatch = v.partial(checklistItemInput);

/** A new or edited comment. */
export const commentInput = object({ body: text('Comment', COMMENT_BODY_MAX) });

/** A profile: display name and avatar path. */
export const profileInput = object({
  display_name: text('Name', DISPLAY_NAME_MAX),
  avatar_path: v.nullable(
    v.pipe(v.string(), notEmpty('Avatar path'), atMost('Avatar path', AVATAR_PATH_MAX)),
  ),
});
/** A profile edit: display name and/or avatar path. */
export const profilePatch = v.partial(profileInput);

/** A role given to a member. */
export const roleInput = v.picklist(ROLES, 'Role must be owner, editor or viewer.');

/** A file about to be attached: name, type and size, checked before it is queued. */
export const attachmentInput = object({
  file_name: v.pipe(
    text('File name', FILE_NAME_MAX),
    v.check((name) => !/[/\\]/.test(name), 'File names cannot contain slashes.'),
  ),
  mime_type: v.picklist(
    ATTACHMENT_MIME_TYPES,
    'Only JPEG, PNG, WebP, GIF images and PDF files can be attached.',
  ),
  // Plain checks rather than safeInteger/minValue/maxValue: the same rules at a third of
  // their weight in the sync library's 15 kB budget.
  size_bytes: v.pipe(
    v.number(),
    v.check(
      (size: number) => Number.isSafeInteger(size),
      'A file size is a whole number of bytes.',
    ),
    v.check((size) => size >= 1, 'The file is empty.'),
    v.check((size) => size <= ATTACHMENT_MAX_BYTES, 'Files can be at most 10 MB.'),
  ),
});
