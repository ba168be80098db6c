// The library's write layer (store.ts) over an app that is not Outpost: folders holding notes.
// An insert queues only the registry's insert columns, an edit queues a patch, a delete hides
// the children the schema's cascades name and Undo shows them again, and a write that fails
// writes and queues nothing.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';

import { SyncDatabase } from './db';
import { isSyncError } from './errors';
import type { SyncSchema } from './registry';
import { createStore, parse, ValidationError } from './store';
import { freezeQueueOf, syncedRow } from './testing';

/** Folders and their notes; a note's delete goes with its folder's (ON DELETE CASCADE). */
const NOTES_APP: SyncSchema = {
  tables: [
    {
      name: 'folders',
      scope: { kind: 'list', column: 'id' },
      indexes: [],
      insertColumns: ['name'],
      patchColumns: ['name'],
      depth: 0,
    },
    {
      name: 'notes',
      scope: { kind: 'list', column: 'folder_id' },
      indexes: ['folder_id'],
      insertColumns: ['folder_id', 'body'],
      patchColumns: ['body'],
      depth: 1,
    },
  ],
  version: 1,
  // Read by the engine's pull and purges, never by the store.
  access: {
    scopes: 'folders',
    members: 'folder_members',
    memberScope: 'folder_id',
    memberUser: 'user_id',
  },
  ownerColumns: ['created_by'],
  cascades: { folders: [['notes', 'folder_id']] },
};

/** A store over a fresh in-memory device database, counting its onQueued calls. */
function notesDevice(now = () => Date.now()) {
  const db = new SyncDatabase(`store-${crypto.randomUUID()}`, NOTES_APP, {
    indexedDB: new IDBFactory(),
    IDBKeyRange,
  });
  const calls = { queued: 0 };
  const store = createStore({ db, now, onQueued: () => (calls.queued += 1) });
  return { db, store, calls };
}

/** Rows as the server sent them (version 1, nothing queued), put straight on the device. */
async function seed(
  db: SyncDatabase,
  table: string,
  rows: (Record<string, unknown> & { id: string })[],
) {
  await db.rows(table).bulkPut(rows.map((row) => syncedRow(NOTES_APP, table, row)));
}

describe('createStore', () => {
  it('writes a new row whole and queues its insert with the insert columns only', async () => {
    const { db, store, calls } = notesDevice();
    await store.transaction(['notes'], () =>
      store.insert('notes', {
        id: 'n1',
        folder_id: 'f1',
        body: 'Buy rope',
        created_by: 'user-1',
        pinned: true,
      }),
    );

    expect(await db.rows('notes').get('n1')).toMatchObject({
      folder_id: 'f1',
      body: 'Buy rope',
      created_by: 'user-1',
      pinned: true,
      deleted_at: null,
      _v: 0,
    });
    const [entry] = await db._outbox.toArray();
    expect(entry).toMatchObject({ table: 'notes', rowId: 'n1', op: 'insert', listId: 'f1' });
    expect(entry?.data).toEqual({ id: 'n1', folder_id: 'f1', body: 'Buy rope' });
    expect(calls.queued).toBe(1);
  });

  it('queues an edit of a live row as a patch, and refuses one of a deleted row', async () => {
    const { db, store } = notesDevice();
    await seed(db, 'notes', [
      { id: 'n1', folder_id: 'f1', body: 'Buy rope' },
      { id: 'gone', folder_id: 'f1', body: 'Old', deleted_at: '2026-01-01T00:00:00.000Z' },
    ]);

    await store.edit('notes', 'n1', { body: 'Buy more rope' });
    await store.transaction(['notes'], () =>
      store.patch('notes', 'n1', { body: 'Buy all the rope' }, 'f1', { preview: 'Buy all…' }),
    );

    expect(await db.rows('notes').get('n1')).toMatchObject({
      body: 'Buy all the rope',
      preview: 'Buy all…',
    });
    const entries = await db._outbox.toArray();
    expect(entries).toHaveLength(1); // the second patch joined the first, not yet sent
    expect(entries[0]).toMatchObject({ table: 'notes', rowId: 'n1', op: 'patch', listId: 'f1' });
    expect(entries[0]?.data).toEqual({ body: 'Buy all the rope' });

    const refused = await store.edit('notes', 'gone', { body: 'New' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as ValidationError).code).toBe('NOT_FOUND');
    expect(await db._outbox.count()).toBe(1);
  });

  it("hides a deleted row's children per the cascades, and Undo shows them again", async () => {
    const { db, store } = notesDevice();
    const before = '2026-01-01T00:00:00.000Z';
    await seed(db, 'folders', [{ id: 'f1', name: 'Trip' }]);
    await seed(db, 'notes', [
      { id: 'n1', folder_id: 'f1', body: 'Buy rope' },
      { id: 'n2', folder_id: 'f1', body: 'Old', deleted_at: before },
      { id: 'other', folder_id: 'f2', body: 'Elsewhere' },
    ]);
    const folders = store.deletable('folders');

    await folders.delete('f1');
    const at = (await db.rows('folders').get('f1'))?.deleted_at;
    expect(typeof at).toBe('string');
    expect((await db.rows('notes').get('n1'))?.deleted_at).toBe(at);
    expect((await db.rows('notes').get('n2'))?.deleted_at).toBe(before);
    expect((await db.rows('notes').get('other'))?.deleted_at).toBeNull();
    const queued = await db._outbox.toArray();
    expect(queued).toHaveLength(1);
    expect(queued[0]).toMatchObject({ table: 'folders', rowId: 'f1', op: 'delete', listId: 'f1' });

    expect(await folders.undoDelete('f1')).toBe(true);
    expect((await db.rows('folders').get('f1'))?.deleted_at).toBeNull();
    expect((await db.rows('notes').get('n1'))?.deleted_at).toBeNull();
    expect((await db.rows('notes').get('n2'))?.deleted_at).toBe(before);
    expect(await db._outbox.count()).toBe(0);

    // Once the delete is on the wire, it is final.
    await folders.delete('f1');
    await freezeQueueOf(db);
    expect(await folders.undoDelete('f1')).toBe(false);
    expect((await db.rows('notes').get('n1'))?.deleted_at).toBe(
      (await db.rows('folders').get('f1'))?.deleted_at,
    );
  });

  it('writes and queues nothing of a write that fails, and does not call onQueued', async () => {
    const { db, store, calls } = notesDevice();
    const failed = store.transaction(['folders', 'notes'], async () => {
      await store.insert('folders', { id: 'f1', name: 'Trip' });
      await store.insert('notes', { id: 'n1', folder_id: 'f1', body: 'Buy rope' });
      throw new Error('the write breaks halfway');
    });

    await expect(failed).rejects.toThrow('the write breaks halfway');
    expect(await db.rows('folders').count()).toBe(0);
    expect(await db.rows('notes').count()).toBe(0);
    expect(await db._outbox.count()).toBe(0);
    expect(calls.queued).toBe(0);
  });

  it('refuses input its schema refuses, with the message per field', () => {
    const folderInput = v.object({
      name: v.pipe(v.string(), v.minLength(1, 'A folder needs a name.')),
    });
    expect(parse(folderInput, { name: 'Trip' })).toEqual({ name: 'Trip' });
    const refused = (() => {
      try {
        return parse(folderInput, { name: '' });
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(ValidationError);
    expect(refused).toMatchObject({
      code: 'VALIDATION_FAILED',
      fields: { name: 'A folder needs a name.' },
    });
  });

  it('says QUOTA_EXCEEDED when a blob write finds the device full', async () => {
    const { store } = notesDevice();
    const full = () =>
      Promise.reject(new DOMException('The quota has been exceeded.', 'QuotaExceededError'));

    const blob = await store.blobTransaction(['notes'], full).catch((e: unknown) => e);
    expect(isSyncError(blob) && blob.code).toBe('QUOTA_EXCEEDED');
    // A write without files passes the failure on as it came.
    const plain = await store.transaction(['notes'], full).catch((e: unknown) => e);
    expect(isSyncError(plain)).toBe(false);
  });

  it('stamps rows with strictly increasing times, even within one millisecond', async () => {
    const { db, store } = notesDevice(() => Date.parse('2026-11-27T10:00:00.000Z'));
    await store.transaction(['notes'], async () => {
      await store.insert('notes', { id: 'a', folder_id: 'f1', body: 'First' });
      await store.insert('notes', { id: 'b', folder_id: 'f1', body: 'Second' });
    });
    const stamps = (await db.rows('notes').bulkGet(['a', 'b'])).map((row) => row?.created_at);
    expect(stamps).toEqual(['2026-11-27T10:00:00.000Z', '2026-11-27T10:00:00.001Z']);
  });
});
