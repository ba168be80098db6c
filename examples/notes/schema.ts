// The notes app's synced data, as the sync library takes it: the one source of both the
// device's tables and the server's registry (migrations/0002_sync.sql is generated from it).
import type { SyncSchema } from '../../sync/index';

/** Folders hold notes; a folder's members (folder_members) see and write its notes. */
export const NOTES_SCHEMA: SyncSchema = {
  app: 'notes',
  tables: [
    {
      name: 'folders',
      // The container: a folder is its own scope.
      scope: { kind: 'list', column: 'id' },
      indexes: ['name'],
      insertColumns: ['name'],
      patchColumns: ['name'],
      depth: 1,
    },
    {
      name: 'folder_members',
      scope: { kind: 'list', column: 'folder_id' },
      // The library looks memberships up by user and by (container, user).
      indexes: ['folder_id', 'user_id', '[folder_id+user_id]'],
      // An owner shares a folder by adding a member (the creator's own row is the server's).
      insertColumns: ['folder_id', 'user_id', 'role'],
      patchColumns: ['role'],
      depth: 2,
    },
    {
      name: 'notes',
      scope: { kind: 'list', column: 'folder_id' },
      indexes: ['folder_id'],
      insertColumns: ['folder_id', 'title', 'body'],
      patchColumns: ['title', 'body'],
      depth: 2,
    },
  ],
  version: 1,
  access: {
    scopes: 'folders',
    members: 'folder_members',
    memberScope: 'folder_id',
    memberUser: 'user_id',
    memberRole: 'role',
  },
  ownerColumns: ['created_by'],
  // migrations/0001_notes.sql: deleting a folder deletes its notes.
  cascades: { folders: [['notes', 'folder_id']] },
};
