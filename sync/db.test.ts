// Dexie schema versions are append-only: each must open a database made by every earlier
// version with its data intact. Version 1 is the first; this seeds a database exactly as
// version 1 defined it (without the SyncDatabase class) and opens it with the current one.
import Dexie from 'dexie';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';

import { laterStores, storesV1, SyncDatabase } from './db';
import { OUTPOST_SCHEMA, OUTPOST_TABLES } from '../src/data/tables';
import type { DeviceVersion } from './registry';

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
    expect(db.verno).toBe(2);
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

  it('upgrades a version-1 database to version 2, indexing the tasks it already has', async () => {
    const deps = { indexedDB: new IDBFactory(), IDBKeyRange };
    const old = new Dexie('upgrade-2', deps);
    old.version(1).stores(storesV1(OUTPOST_TABLES));
    await old.table('tasks').bulkPut([
      { id: 't1', list_id: 'l1', position: 'a0', status: 'done', deleted_at: null, _v: 1 },
      { id: 't2', list_id: 'l1', position: 'a1', status: 'todo', deleted_at: null, _v: 1 },
      { id: 't3', list_id: 'l1', position: 'a2', status: 'done', deleted_at: '2026-11-27', _v: 1 },
    ]);
    old.close();

    const db = new SyncDatabase('upgrade-2', OUTPOST_SCHEMA, deps);
    expect(db.verno).toBe(2);
    const tasks = db.rows('tasks');
    expect(await tasks.where('[list_id+status]').equals(['l1', 'done']).count()).toBe(2);
    // Only tombstones are in the index with deleted_at (null is not a key).
    expect(
      await tasks
        .where('[list_id+status+deleted_at]')
        .between(['l1', Dexie.minKey, Dexie.minKey], ['l1', Dexie.maxKey, Dexie.maxKey])
        .primaryKeys(),
    ).toEqual(['t3']);
    expect(await tasks.get('t2')).toMatchObject({ status: 'todo', _v: 1 });
    db.close();
  });

  it('refuses device versions out of order or naming an unknown table', () => {
    const bad = (deviceVersions: readonly DeviceVersion[]) => () =>
      laterStores({ ...OUTPOST_SCHEMA, deviceVersions });
    expect(bad([{ version: 1, indexes: {} }])).toThrow(/above 1/);
    expect(
      bad([
        { version: 3, indexes: {} },
        { version: 2, indexes: {} },
      ]),
    ).toThrow(/above 3/);
    expect(bad([{ version: 2, indexes: { nope: ['x'] } }])).toThrow(/unknown table nope/);
  });
});
