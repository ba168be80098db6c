// Dexie schema versions are append-only: each must open a database made by every earlier
// version with its data intact. Version 1 is the first; this seeds a database exactly as
// version 1 defined it (without the SyncDatabase class) and opens it with the current one, on
// the library's fixture (test-schema.ts), whose version 2 adds indexes to its cards.
import Dexie from 'dexie';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';

import { laterStores, storesV1, SyncDatabase } from './db';
import type { DeviceVersion } from './registry';
import { BOARDS_SCHEMA } from './test-schema';

describe('SyncDatabase schema versions', () => {
  it('opens a version-1 database with its rows, outbox and metadata intact', async () => {
    const deps = { indexedDB: new IDBFactory(), IDBKeyRange };
    const old = new Dexie('upgrade', deps);
    old.version(1).stores(storesV1(BOARDS_SCHEMA.tables));
    await old
      .table('cards')
      .put({ id: 'c1', board_id: 'b1', position: 'a0', title: 'Kept', _v: 3 });
    await old
      .table('_outbox')
      .add({ table: 'cards', rowId: 'c1', op: 'patch', data: { title: 'Kept' }, sent: 0 });
    await old.table('_meta').put({ key: 'cursor', value: '42/cards/42/c1' });
    old.close();

    const db = new SyncDatabase('upgrade', BOARDS_SCHEMA, deps);
    expect(db.verno).toBe(2);
    expect(await db.rows('cards').get('c1')).toMatchObject({ title: 'Kept', _v: 3 });
    expect(await db._outbox.where('[table+rowId]').equals(['cards', 'c1']).count()).toBe(1);
    expect(await db.getMeta('cursor')).toBe('42/cards/42/c1');
    expect(
      await db
        .rows('cards')
        .where('[board_id+position]')
        .between(['b1', ''], ['b1', '\uffff'])
        .count(),
    ).toBe(1);
    db.close();
  });

  it('upgrades a version-1 database to version 2, indexing the cards it already has', async () => {
    const deps = { indexedDB: new IDBFactory(), IDBKeyRange };
    const old = new Dexie('upgrade-2', deps);
    old.version(1).stores(storesV1(BOARDS_SCHEMA.tables));
    await old.table('cards').bulkPut([
      { id: 'c1', board_id: 'b1', position: 'a0', status: 'done', deleted_at: null, _v: 1 },
      { id: 'c2', board_id: 'b1', position: 'a1', status: 'todo', deleted_at: null, _v: 1 },
      { id: 'c3', board_id: 'b1', position: 'a2', status: 'done', deleted_at: '2026-11-27', _v: 1 },
    ]);
    old.close();

    const db = new SyncDatabase('upgrade-2', BOARDS_SCHEMA, deps);
    expect(db.verno).toBe(2);
    const cards = db.rows('cards');
    expect(await cards.where('[board_id+status]').equals(['b1', 'done']).count()).toBe(2);
    // Only tombstones are in the index with deleted_at (null is not a key).
    expect(
      await cards
        .where('[board_id+status+deleted_at]')
        .between(['b1', Dexie.minKey, Dexie.minKey], ['b1', Dexie.maxKey, Dexie.maxKey])
        .primaryKeys(),
    ).toEqual(['c3']);
    expect(await cards.get('c2')).toMatchObject({ status: 'todo', _v: 1 });
    db.close();
  });

  it('creates the table a later version brings on a device upgraded to it, and only then', async () => {
    // The fixture with a third version that brings a new table, `labels`, and an index.
    const labels = {
      name: 'labels',
      scope: { kind: 'list', column: 'board_id' },
      indexes: ['board_id'],
      insertColumns: ['board_id', 'name'],
      patchColumns: ['name'],
      depth: 3,
    } as const;
    const withLabels = {
      ...BOARDS_SCHEMA,
      tables: [...BOARDS_SCHEMA.tables, labels],
      deviceVersions: [
        ...(BOARDS_SCHEMA.deviceVersions ?? []),
        { version: 3, indexes: { cards: ['title'] }, tables: ['labels'] },
      ],
    };
    const [v2, v3] = laterStores(withLabels).map(([, stores]) => stores);
    expect(v2?.labels).toBeUndefined();
    expect(v3?.labels).toBe('id, board_id');

    const deps = { indexedDB: new IDBFactory(), IDBKeyRange };
    const before = new SyncDatabase('upgrade-3', BOARDS_SCHEMA, deps);
    await before
      .rows('cards')
      .put({ id: 'c1', board_id: 'b1', position: 'a0', title: 'Kept', _v: 1 });
    expect(before.tables.map((t) => t.name)).not.toContain('labels');
    before.close();

    const db = new SyncDatabase('upgrade-3', withLabels, deps);
    expect(db.verno).toBe(3);
    await db.rows('labels').put({ id: 'l1', board_id: 'b1', name: 'Urgent', _v: 1 });
    expect(await db.rows('labels').where('board_id').equals('b1').count()).toBe(1);
    expect(await db.rows('cards').where('title').equals('Kept').count()).toBe(1);
    db.close();
  });

  it('refuses device versions out of order or naming an unknown table', () => {
    const bad = (deviceVersions: readonly DeviceVersion[]) => () =>
      laterStores({ ...BOARDS_SCHEMA, deviceVersions });
    expect(bad([{ version: 1, indexes: {} }])).toThrow(/above 1/);
    expect(
      bad([
        { version: 3, indexes: {} },
        { version: 2, indexes: {} },
      ]),
    ).toThrow(/above 3/);
    expect(bad([{ version: 2, indexes: { nope: ['x'] } }])).toThrow(/unknown table nope/);
    expect(bad([{ version: 2, indexes: {}, tables: ['nope'] }])).toThrow(/adds unknown table nope/);
  });
});
