// Outpost's rows as the device keeps them, typed from the one schema (schema.ts): what a
// client may write is the input schema's output, plus the columns the server fills in. Types
// only: nothing here reaches the bundle.
import type * as v from 'valibot';

import type {
  attachmentInput,
  checklistItemInput,
  commentInput,
  listInput,
  profileInput,
  Role,
  taskInput,
} from './schema';

/**
 * The columns every synced row has on the server. (A type, not an interface, so rows stay
 * assignable to `Record<string, unknown>` for generic code such as the export.)
 */
export type ServerColumns = {
  id: string;
  /** Bumped by the server on every change (the pull's and realtime's order). */
  version: number;
  created_at: string;
  updated_at: string;
  /** A tombstone's time of deletion; null while the row is live. */
  deleted_at: string | null;
};

/** A list: name and colour, and who made it. */
export type List = ServerColumns & v.InferOutput<typeof listInput> & { created_by: string };

/** A task of a list, at `position` (fractional index) in the list's order. */
export type Task = ServerColumns &
  v.InferOutput<typeof taskInput> & {
    list_id: string;
    position: string;
    completed_at: string | null;
    /** NOT NULL on the server (its creator's account deletion deletes the task). */
    created_by: string;
    /**
     * The occurrence of a repeating task this one follows (its id is derived from that one's:
     * recurrence.ts), or null. Set once, at insert; the server keeps one successor per task.
     */
    follows_id: string | null;
  };

/** An item of a task's checklist, at `position` (fractional index) in the checklist. */
export type ChecklistItem = ServerColumns &
  v.InferOutput<typeof checklistItemInput> & {
    task_id: string;
    list_id: string;
    position: string;
    created_by: string;
  };

/** Someone's role on a list. */
export type Membership = ServerColumns & { list_id: string; user_id: string; role: Role };

/** A comment on a task. */
export type Comment = ServerColumns &
  v.InferOutput<typeof commentInput> & { task_id: string; list_id: string; author_id: string };

/** A photo or file attached to a task; its bytes live in Storage at `object_path`. */
export type Attachment = ServerColumns &
  v.InferOutput<typeof attachmentInput> & {
    task_id: string;
    list_id: string;
    object_path: string;
    width: number | null;
    height: number | null;
    created_by: string;
  };

/** A person's public profile (their id is the auth user's). */
export type Profile = ServerColumns & v.InferOutput<typeof profileInput>;

/** Outpost's synced tables by name, as the server has them. */
export type OutpostRows = {
  lists: List;
  tasks: Task;
  memberships: Membership;
  comments: Comment;
  attachments: Attachment;
  profiles: Profile;
  checklist_items: ChecklistItem;
};

/** A membership as this device may keep it: see `_standIn`. */
export type DeviceMembership = Membership & {
  /** A membership made on this device for a list created offline, until the server's arrives. */
  _standIn?: 1;
};

/**
 * Outpost's synced tables as the sync library keeps them (its SyncSchema's rows): the
 * server's rows, a membership perhaps a stand-in. The store and the reader take and give
 * these, so a wrong column in a write is a compile error.
 */
export type OutpostDeviceRows = Omit<OutpostRows, 'memberships'> & {
  memberships: DeviceMembership;
};
