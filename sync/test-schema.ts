// A small synced app of the library's own, for its unit tests (apply, outbox, realtime, the
// engine, device versions), so they stand on no app's schema: boards hold cards, cards hold
// files, and people see each other through the boards they share. In the library's words a
// board is a list (scope kind 'list', realtime topic `list:<id>:<epoch>`) and a person's row
// is a profile (the `peers` table).
import type { SyncSchema } from './registry';
import { createStore } from './store';
import { memoryDatabase } from './testing';

/** Boards, their members, their cards and the cards' files; people as peers. */
export const BOARDS_SCHEMA: SyncSchema = {
  app: 'boards',
  tables: [
    {
      name: 'people',
      scope: { kind: 'peer' },
      indexes: [],
      insertColumns: [],
      patchColumns: ['display_name'],
      depth: 0,
    },
    {
      name: 'boards',
      scope: { kind: 'list', column: 'id' },
      indexes: ['name'],
      insertColumns: ['name'],
      patchColumns: ['name'],
      depth: 1,
    },
    {
      name: 'board_members',
      scope: { kind: 'list', column: 'board_id' },
      // The library looks memberships up by user and by (container, user).
      indexes: ['board_id', 'user_id', '[board_id+user_id]'],
      insertColumns: [],
      patchColumns: ['role'],
      depth: 2,
    },
    {
      name: 'cards',
      scope: { kind: 'list', column: 'board_id' },
      indexes: ['board_id', '[board_id+position]'],
      insertColumns: ['board_id', 'title', 'status', 'position'],
      patchColumns: ['title', 'status', 'position'],
      depth: 2,
    },
    {
      name: 'card_files',
      scope: { kind: 'list', column: 'board_id' },
      indexes: ['board_id', 'card_id'],
      insertColumns: ['card_id', 'board_id', 'object_path', 'file_name'],
      patchColumns: ['file_name'],
      depth: 3,
    },
  ],
  version: 1,
  access: {
    scopes: 'boards',
    members: 'board_members',
    memberScope: 'board_id',
    memberUser: 'user_id',
    peers: 'people',
  },
  ownerColumns: ['created_by'],
  files: { table: 'card_files', path: 'object_path', bucket: 'card-files' },
  // A later device version, so the upgrade from version 1 is tested (db.test.ts): a board's
  // cards by status, and a second index that holds tombstones only (null is not a key).
  deviceVersions: [
    { version: 2, indexes: { cards: ['[board_id+status]', '[board_id+status+deleted_at]'] } },
  ],
  cascades: {
    boards: [
      ['cards', 'board_id'],
      ['card_files', 'board_id'],
    ],
    cards: [['card_files', 'card_id']],
  },
};

/**
 * A fresh device database on BOARDS_SCHEMA (its own in-memory IndexedDB, no engine, no
 * server) with the library's store, and the few writes the library's tests make through it,
 * each queued as an app's write API would queue it. `name` prefixes the database's name;
 * rows are stamped as made by `userId`.
 */
export function boardsDevice(name: string, userId = 'user-1') {
  const db = memoryDatabase(name, BOARDS_SCHEMA);
  const store = createStore({ db, now: () => Date.now() });
  const newId = () => crypto.randomUUID();

  const boards = {
    /** A new board; its id. */
    async create(boardName: string): Promise<string> {
      const id = newId();
      await store.transaction(['boards'], () =>
        store.insert('boards', { id, name: boardName, created_by: userId }),
      );
      return id;
    },
  };

  const cards = {
    /** delete() with the card's files, and undoDelete() within the undo window. */
    ...store.deletable('cards'),
    /** A new card on a live board; its id. */
    async create(boardId: string, title: string): Promise<string> {
      const id = newId();
      await store.transaction(['boards', 'cards'], async () => {
        await store.live('boards', boardId);
        await store.insert('cards', {
          id,
          board_id: boardId,
          title,
          status: 'todo',
          created_by: userId,
        });
      });
      return id;
    },
    /** Renames a live card (NOT_FOUND once it is deleted). */
    rename(id: string, title: string): Promise<void> {
      return store.edit('cards', id, { title });
    },
    /** Attaches `file` to a live card: its bytes wait in `_files` to upload. Its id. */
    async attach(cardId: string, file: Blob, fileName: string): Promise<string> {
      const id = newId();
      await store.blobTransaction(['cards', 'card_files', '_files'], async () => {
        const card = await store.live('cards', cardId);
        const boardId = String(card.board_id);
        const objectPath = `${boardId}/${cardId}/${id}`;
        const queued = { state: 'queued', attempts: 0 } as const;
        await db._files.put({ id, blob: file, objectPath, listId: boardId, ...queued });
        await store.insert('card_files', {
          id,
          card_id: cardId,
          board_id: boardId,
          object_path: objectPath,
          file_name: fileName,
          created_by: userId,
        });
      });
      return id;
    },
  };

  return { db, store, boards, cards };
}
