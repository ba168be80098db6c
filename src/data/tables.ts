// Outpost's synced tables (product.md §3), mirroring public.sync_registry in
// supabase/migrations/…_sync.sql (a test checks the two agree).
import type { Registry, SyncSchema, TableName } from '@sync/index';

import type { OutpostDeviceRows } from './rows';

/** Outpost's seven synced tables: the registry its Dexie store, repositories and engine use. */
export const OUTPOST_TABLES: Registry<TableName<OutpostDeviceRows>> = [
  {
    name: 'profiles',
    scope: { kind: 'peer' },
    indexes: [],
    insertColumns: [],
    patchColumns: ['display_name', 'avatar_path'],
    depth: 0,
  },
  {
    name: 'lists',
    scope: { kind: 'list', column: 'id' },
    indexes: ['name'],
    insertColumns: ['name', 'color'],
    patchColumns: ['name', 'color'],
    depth: 1,
  },
  {
    name: 'memberships',
    scope: { kind: 'list', column: 'list_id' },
    indexes: ['list_id', 'user_id', '[list_id+user_id]'],
    // Made only by the server: with a new list (its owner) and by an accepted invite.
    insertColumns: [],
    patchColumns: ['role'],
    depth: 2,
  },
  {
    name: 'tasks',
    scope: { kind: 'list', column: 'list_id' },
    indexes: ['list_id', '[list_id+position]', 'status', 'assignee_id'],
    insertColumns: [
      'list_id',
      'title',
      'notes',
      'status',
      'priority',
      'due_on',
      'assignee_id',
      'position',
      'repeat',
      'follows_id',
    ],
    patchColumns: [
      'title',
      'notes',
      'status',
      'priority',
      'due_on',
      'assignee_id',
      'position',
      'repeat',
    ],
    depth: 2,
  },
  {
    name: 'comments',
    scope: { kind: 'list', column: 'list_id' },
    indexes: ['list_id', 'task_id'],
    insertColumns: ['task_id', 'list_id', 'body'],
    patchColumns: ['body'],
    depth: 3,
  },
  {
    name: 'attachments',
    scope: { kind: 'list', column: 'list_id' },
    indexes: ['list_id', 'task_id'],
    insertColumns: [
      'task_id',
      'list_id',
      'object_path',
      'file_name',
      'mime_type',
      'size_bytes',
      'width',
      'height',
    ],
    patchColumns: ['file_name'],
    depth: 3,
  },
  {
    name: 'checklist_items',
    scope: { kind: 'list', column: 'list_id' },
    indexes: ['list_id', '[task_id+position]'],
    insertColumns: ['task_id', 'list_id', 'text', 'done', 'position'],
    patchColumns: ['text', 'done', 'position'],
    depth: 3,
  },
];

/** The sync contract version this app knows (public.sync_schema_version()). */
export const OUTPOST_SCHEMA_VERSION = 2;

/** Outpost's synced data as the sync library takes it. */
export const OUTPOST_SCHEMA: SyncSchema<OutpostDeviceRows> = {
  app: 'outpost',
  tables: OUTPOST_TABLES,
  version: OUTPOST_SCHEMA_VERSION,
  access: {
    scopes: 'lists',
    members: 'memberships',
    memberScope: 'list_id',
    memberUser: 'user_id',
    peers: 'profiles',
  },
  ownerColumns: ['created_by', 'author_id', 'user_id'],
  files: { table: 'attachments', path: 'object_path', bucket: 'attachments' },
  // Version 2 (issue 16): a list's task counts by index, without reading a task. Tombstones
  // are in the second index only (a null deleted_at is not a key), so they can be taken off.
  deviceVersions: [
    {
      version: 2,
      indexes: { tasks: ['[list_id+status]', '[list_id+status+deleted_at]'] },
    },
    // Version 3 (issue 39): My work's views read open tasks by due date and by assignee
    // across lists (a null due_on is not a key, so undated tasks are not in the first), and
    // checklists arrive.
    {
      version: 3,
      indexes: { tasks: ['[status+due_on]', '[assignee_id+status]'] },
      tables: ['checklist_items'],
    },
  ],
  // supabase/migrations/…_schema.sql's ON DELETE CASCADE, as the device mirrors it.
  cascades: {
    lists: [
      ['tasks', 'list_id'],
      ['comments', 'list_id'],
      ['attachments', 'list_id'],
      ['checklist_items', 'list_id'],
    ],
    tasks: [
      ['comments', 'task_id'],
      ['attachments', 'task_id'],
      ['checklist_items', 'task_id'],
    ],
  },
};
