// Why the server refused a change, in one sentence (product.md §4 "rejected", §8): for the
// rejection toast and Settings › Rejected changes. Apart from error-messages.ts so that the
// app shell does not carry it (issue 16): the toast loads it with the first rejection.
import {
  ATTACHMENT_MAX_BYTES,
  attachmentInput,
  checklistItemPatch,
  commentInput,
  listInput,
  profilePatch,
  taskPatch,
  type RuleCode,
} from '@/data/schema';
import { validate } from '@sync/index';

import { formatBytes } from '@/utils/format';

import { errorMessage } from './error-messages';

/** "task", "list"… for a synced table's rows. */
export const ROW_NOUNS: Readonly<Record<string, string>> = {
  lists: 'list',
  tasks: 'task',
  comments: 'comment',
  attachments: 'attachment',
  memberships: 'membership',
  profiles: 'profile',
};

/** What describeRejection reads of a logged rejection (sync's `Rejection`). */
export interface RejectionFacts {
  table: string;
  op: string;
  code: string;
  /** What the device sent (full row on insert, changed columns on patch). */
  data?: Record<string, unknown>;
  /** The server's SQLSTATE. */
  sqlState?: string;
  /** The column the database named, when it named one. */
  column?: string;
  /** The rule code a database trigger raised (its HINT: LAST_OWNER…). */
  rule?: string;
  /** The constraint the database named (tasks_title_check, list_color_check…). */
  constraint?: string;
}

/**
 * One sentence on why the server refused a change and what the device did about it, for the
 * "Rejected changes" view and the revert toast. `label` names the row ("“Fix the door”").
 */
export function describeRejection(rejection: RejectionFacts, label?: string): string {
  const noun = ROW_NOUNS[rejection.table] ?? 'item';
  const what = label ? `the ${noun} ${label}` : `this ${noun}`;
  switch (rejection.code) {
    case 'PERMISSION_DENIED':
      return `You can't edit ${what} any more: your role on the list doesn't allow it. Your change was undone.`;
    case 'NOT_FOUND':
      return `${capitalise(what)} was deleted by someone else, so your change could not be saved.`;
    case 'VALIDATION_FAILED':
      return `The server refused your change to ${what}: ${rejectionRule(rejection)} Your change was undone.`;
    default:
      return `Your change to ${what} was not saved (${errorMessage(rejection.code)}).`;
  }
}

/** When neither the schema nor the database's message says which rule broke. */
export const GENERIC_RULE = "It doesn't meet the server's rules for this item.";

/**
 * The rule a VALIDATION_FAILED change broke, as a sentence for people (product.md §8 "the field's
 * rule"). Chosen by values, never by reading the database's message (SQL, in English): first
 * the change is checked again with the shared schema (which says exactly what is wrong when
 * this app knows the rule), then the rule code a trigger sent, the constraint or the column
 * the database named, the kind of error, and otherwise a plain generic sentence.
 */
export function rejectionRule(rejection: RejectionFacts): string {
  const field = rejection.constraint ? CONSTRAINT_FIELDS[rejection.constraint] : undefined;
  return (
    (rejection.data ? schemaRule(rejection.table, rejection.data) : undefined) ??
    (isRuleCode(rejection.rule) ? TRIGGER_RULES[rejection.rule] : undefined) ??
    (field ? COLUMN_RULES[field] : undefined) ??
    (rejection.column ? COLUMN_RULES[`${rejection.table}.${rejection.column}`] : undefined) ??
    (rejection.sqlState ? sqlStateRule(rejection.table, rejection.sqlState) : undefined) ??
    GENERIC_RULE
  );
}

/** Field → the schema's first message (the shape of src/data/schema.ts's `validate` errors). */
type FieldErrors = Partial<Record<string, string>>;

/** The shared schema's checks per table (patches are checked field by field, see below). */
const SCHEMA_CHECKS: Readonly<Record<string, (data: unknown) => FieldErrors | undefined>> = {
  lists: (data) => errorsOf(validate(listInput, data)),
  tasks: (data) => errorsOf(validate(taskPatch, data)),
  comments: (data) => errorsOf(validate(commentInput, data)),
  profiles: (data) => errorsOf(validate(profilePatch, data)),
  attachments: (data) => errorsOf(validate(attachmentInput, data)),
  checklist_items: (data) => errorsOf(validate(checklistItemPatch, data)),
};

function errorsOf(result: { ok: true } | { ok: false; errors: FieldErrors }) {
  return result.ok ? undefined : result.errors;
}

/** The schema's message for a field the change carried, if the schema refuses it too. */
function schemaRule(table: string, data: Record<string, unknown>): string | undefined {
  const errors = SCHEMA_CHECKS[table]?.(data);
  if (!errors) return undefined;
  // Only fields the change carried: a patch of a list's name is not missing its colour.
  for (const [field, message] of Object.entries(errors)) {
    if (message && Object.hasOwn(data, field.split('.')[0] ?? field)) return message;
  }
  return undefined;
}

/**
 * Each column's rule as the database enforces it (supabase/migrations/…_schema.sql and the
 * rules triggers), for when the schema passed the change: the row on the server broke the
 * rule, or the server's rules are newer than this app's. Keyed `table.column`.
 */
export const COLUMN_RULES: Readonly<Record<string, string>> = {
  'lists.name': 'List name must be 1 to 80 characters, with no spaces at either end.',
  'lists.color': 'Pick one of the palette colours.',
  'tasks.title': 'Title must be 1 to 200 characters, with no spaces at either end.',
  'tasks.notes': 'Notes can be at most 10,000 characters.',
  'tasks.status': 'Status must be To do, Doing or Done.',
  'tasks.priority': 'Priority must be none, low, medium or high.',
  'tasks.due_on': 'Use a date like 2026-01-31.',
  'tasks.assignee_id': 'Tasks can only be assigned to members of the list.',
  'tasks.position': "The task's place in the list couldn't be saved.",
  // The table's own check: done ⇔ completed_at set (server-enforced, product.md §4).
  'tasks.': 'Only done tasks have a completion time.',
  'comments.body': 'A comment must be 1 to 4,000 characters, with no spaces at either end.',
  'attachments.file_name': 'File names must be 1 to 255 characters, without slashes.',
  'attachments.mime_type': 'Only JPEG, PNG, WebP, GIF images and PDF files can be attached.',
  'attachments.size_bytes': `Files can be at most ${formatBytes(ATTACHMENT_MAX_BYTES)}, and not empty.`,
  'attachments.width': 'Image sizes must be 1 to 100,000 pixels.',
  'attachments.height': 'Image sizes must be 1 to 100,000 pixels.',
  'attachments.list_id': 'A file must belong to the same list as its task.',
  // The table's own check: the storage path follows {list}/{task}/{id}.{ext}.
  'attachments.': "The file's storage place doesn't match the task it belongs to.",
  'profiles.display_name': 'Name must be 1 to 60 characters, with no spaces at either end.',
  // The check (≤ 1,024 characters) and the rules trigger (a file in the user's own folder
  // of the avatars bucket): either way the picture is not one the user uploaded as theirs.
  'profiles.avatar_path': 'The picture must be one you uploaded to your own profile.',
  'memberships.role': 'Role must be owner, editor or viewer.',
  'tasks.repeat': 'Pick how the task repeats.',
  'tasks.follows_id': 'This task already has its next time.',
  'checklist_items.text': 'An item must be 1 to 500 characters, with no spaces at either end.',
  'checklist_items.position': "The item's place in the checklist couldn't be saved.",
  'checklist_items.list_id': 'An item must belong to the same list as its task.',
};

/** The rules the database's triggers raise (P0001), by the code they send as HINT. */
export const TRIGGER_RULES: Readonly<Record<RuleCode, string>> = {
  MEMBER_LIMIT: 'A list can have at most 50 members.',
  LAST_OWNER: 'A list must keep at least one owner.',
  ASSIGNEE_NOT_MEMBER: COLUMN_RULES['tasks.assignee_id'] ?? '',
  ATTACHMENT_LIMIT: 'A task can have at most 20 files.',
  CHECKLIST_LIMIT: 'A checklist can have at most 100 items.',
  NOT_A_SUCCESSOR: 'The next time this task repeats was already made elsewhere.',
};

/** Whether a rejection's rule is one this app knows (a newer server may send others). */
function isRuleCode(rule: string | undefined): rule is RuleCode {
  return rule !== undefined && Object.hasOwn(TRIGGER_RULES, rule);
}

/**
 * The field (a COLUMN_RULES key) each check constraint of the synced tables guards, by its
 * name in the database (supabase/migrations: a column's check is `{table}_{column}_check`,
 * a table's own `{table}_check`, the colour domain's `list_color_check`). A test holds this
 * to the database's own list.
 */
export const CONSTRAINT_FIELDS: Readonly<Record<string, string>> = {
  lists_name_check: 'lists.name',
  list_color_check: 'lists.color',
  tasks_title_check: 'tasks.title',
  tasks_notes_check: 'tasks.notes',
  tasks_status_check: 'tasks.status',
  tasks_priority_check: 'tasks.priority',
  tasks_position_check: 'tasks.position',
  tasks_check: 'tasks.',
  comments_body_check: 'comments.body',
  attachments_file_name_check: 'attachments.file_name',
  attachments_mime_type_check: 'attachments.mime_type',
  attachments_size_bytes_check: 'attachments.size_bytes',
  attachments_width_check: 'attachments.width',
  attachments_height_check: 'attachments.height',
  attachments_check: 'attachments.',
  profiles_display_name_check: 'profiles.display_name',
  profiles_avatar_path_check: 'profiles.avatar_path',
  memberships_role_check: 'memberships.role',
  tasks_repeat_check: 'tasks.repeat',
  checklist_items_text_check: 'checklist_items.text',
  checklist_items_position_check: 'checklist_items.position',
};

/** The rule of an error the database names no rule for, by its kind (SQLSTATE). */
function sqlStateRule(table: string, sqlState: string): string | undefined {
  // not_null_violation without a known column.
  if (sqlState === '23502') return 'A required field was left empty.';
  // invalid_datetime_format, datetime_field_overflow: a task's due date is its only date.
  if (table === 'tasks' && (sqlState === '22007' || sqlState === '22008')) {
    return COLUMN_RULES['tasks.due_on'];
  }
  return undefined;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
