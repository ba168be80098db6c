// The notes app on the sync library: its read API (named queries over the device database)
// and its write API (built on the library's store: validate, write and queue in one
// transaction), wired by createSync with NOTES_SCHEMA. Only sync/index.ts, the public entry.
import {
  createStore,
  ValidationError,
  type AnyRows,
  type AppDefinition,
  type DeviceReader,
  type LocalRow,
  type WriteContext,
} from '../../sync/index';
import { NOTES_SCHEMA } from './schema';

/** A folder as the device keeps it. */
export interface Folder extends LocalRow {
  name: string;
  created_by: string;
}

/** A note as the device keeps it. */
export interface Note extends LocalRow {
  folder_id: string;
  title: string;
  body: string;
  created_by: string;
}

/** Who may see a folder. */
export interface FolderMember extends LocalRow {
  folder_id: string;
  user_id: string;
  role: 'owner' | 'editor';
}

const alive = <T extends LocalRow>(rows: T[]) => rows.filter((r) => !r.deleted_at);

/** The read API: what the screens ask of the device (run them in liveQuery). */
export function notesQueries(reader: DeviceReader<AnyRows>) {
  return {
    /** The folders this device holds, by name. */
    async folders(): Promise<Folder[]> {
      const rows = alive((await reader.table('folders').toArray()) as Folder[]);
      return rows.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
    },
    /** A folder's notes, oldest first. */
    async notesOf(folderId: string): Promise<Note[]> {
      const rows = (await reader
        .table('notes')
        .where('folder_id')
        .equals(folderId)
        .toArray()) as Note[];
      return alive(rows).sort(
        (a, b) =>
          String(a.created_at).localeCompare(String(b.created_at)) || a.id.localeCompare(b.id),
      );
    },
    /** Who a folder is shared with (its owner included). */
    async membersOf(folderId: string): Promise<FolderMember[]> {
      const rows = await reader
        .table('folder_members')
        .where('folder_id')
        .equals(folderId)
        .toArray();
      return alive(rows as FolderMember[]);
    },
  };
}

function text(field: string, value: string, max: number): string {
  const trimmed = value.trim();
  if (trimmed.length < 1 || trimmed.length > max) {
    throw new ValidationError({ [field]: `${field} takes 1 to ${String(max)} characters` });
  }
  return trimmed;
}

/** The write API: each method validates, writes the row and queues the change at once. */
export function notesWrites(ctx: WriteContext) {
  const { transaction, insert, edit, deletable, live } = createStore(ctx);
  return {
    folders: {
      /** delete(): the folder with its notes; undoDelete() within the undo window. */
      ...deletable('folders'),
      /** Creates a folder (the server makes its creator the owner); returns its id. */
      async create(name: string): Promise<string> {
        const id = ctx.newId();
        const row = { id, name: text('name', name, 80), created_by: ctx.userId() };
        await transaction(['folders'], () => insert('folders', row));
        return id;
      },
      /** Renames a folder (owners). */
      rename: (id: string, name: string) => edit('folders', id, { name: text('name', name, 80) }),
      /** Shares a folder with another user: they see and write its notes (owners). */
      async share(folderId: string, userId: string): Promise<string> {
        const id = ctx.newId();
        await transaction(['folders', 'folder_members'], async () => {
          await live('folders', folderId);
          await insert('folder_members', {
            id,
            folder_id: folderId,
            user_id: userId,
            role: 'editor',
          });
        });
        return id;
      },
    },
    notes: {
      /** delete() and undoDelete() of a note. */
      ...deletable('notes'),
      /** Writes a new note in a folder; returns its id. */
      async create(folderId: string, input: { title: string; body?: string }): Promise<string> {
        const id = ctx.newId();
        const body = input.body ?? '';
        if (body.length > 10_000) throw new ValidationError({ body: 'body is too long' });
        const row = {
          id,
          folder_id: folderId,
          title: text('title', input.title, 200),
          body,
          created_by: ctx.userId(),
        };
        await transaction(['folders', 'notes'], async () => {
          await live('folders', folderId);
          await insert('notes', row);
        });
        return id;
      },
      /** Changes a note's title or body. */
      edit(id: string, changes: { title?: string; body?: string }): Promise<void> {
        const patch: Record<string, unknown> = {};
        if (changes.title !== undefined) patch.title = text('title', changes.title, 200);
        if (changes.body !== undefined) patch.body = changes.body;
        return edit('notes', id, patch);
      },
    },
  };
}

export type NotesQueries = ReturnType<typeof notesQueries>;
export type NotesWrites = ReturnType<typeof notesWrites>;

/** The notes app as createSync (and the sync kit) take it. */
export const NOTES_APP: AppDefinition<NotesQueries, NotesWrites> = {
  schema: NOTES_SCHEMA,
  queries: notesQueries,
  writes: notesWrites,
};
