// Dexie schema versions are append-only: each must open a database made by every earlier
// version with its data intact. Version 1 is the first; this seeds a database exactly as
// version 1 defined it (without the SyncDatabase class) and opens it with the current one.
import Dexie from 'dexie';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';

import { storesV1, SyncDatabase } from './db';
import { OUTPOST_SCHEMA, OUTPOST_TABLES } from './outpost';

describe('SyncDatabase schema versions', () => {
  it('opens a version-1 database with its rows, outbox and metadata intact', async () => {
    const deps = { indexedDB: new IDBFactory(), IDBKeyRange };
    const old = new Dexie('upgrade', deps);
    old.version(1).stores(storesV1(OUTPOST_TABLES));
    await old.table('tasks').put({ id: 't1', list_id: 'l1', position: 'a0', title: 'Kept', _v: 3 });
    await old
      .table('_outbox')
      .add({ table: 'tasks', rowId: 't1', op: 'patch', data: { title: 'Kept' }, sent: 0 });
    await old.table('_meta').put({ key: 'cursor', value: '42/tasks/42/t1' });
    old.close();

    const db = new SyncDatabase('upgrade', OUTPOST_SCHEMA, deps);
    expect(db.verno).toBe(1);
    expect(await db.rows('tasks').get('t1')).toMatchObject({ title: 'Kept', _v: 3 });
    expect(await db._outbox.where('[table+rowId]').equals(['tasks', 't1']).count()).toBe(1);
    expect(await db.getMeta('cursor')).toBe('42/tasks/42/t1');
    expect(
      await db
        .rows('tasks')
        .where('[list_id+position]')
        .between(['l1', ''], ['l1', '\uffff'])
        .count(),
    ).toBe(1);
    db.close();
  });
});
