// Outpost's device versions are append-only (src/data/README.md "The tables and their rules"):
// a device made by the version before opens with its rows kept and gains what the new one
// brings. Version 3 (issue 39): the My work indexes on tasks and the checklist_items table.
import Dexie from 'dexie';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';

import { firstStores, laterStores, SyncDatabase } from '../../sync/db';

import { serverRow } from '../../src/data/testing/server-row';
import { OUTPOST_SCHEMA } from '../../src/data/tables';

const LIST = '11570000-0000-4000-8000-000000000001';

function task(id: string, status: 'todo' | 'done', due_on: string | null) {
  return serverRow('tasks', {
    id,
    list_id: LIST,
    title: id,
    notes: '',
    status,
    priority: 0,
    due_on,
    assignee_id: 'user-1',
    position: `a${id}`,
    completed_at: status === 'done' ? '2026-12-01T00:00:00Z' : null,
    created_by: 'user-1',
    repeat: null,
    follows_id: null,
  });
}

describe("Outpost's device versions", () => {
  it('upgrades a version-2 device to version 3: its tasks indexed by due date and assignee, checklists added', async () => {
    const deps = { indexedDB: new IDBFactory(), IDBKeyRange };
    const old = new Dexie('outpost-v2', deps);
    old.version(1).stores(firstStores(OUTPOST_SCHEMA));
    for (const [version, stores] of laterStores(OUTPOST_SCHEMA).filter(([v]) => v <= 2)) {
      old.version(version).stores(stores);
    }
    expect(old.tables.map((t) => t.name)).not.toContain('checklist_items');
    await old.open();
    await old
      .table('tasks')
      .bulkPut([
        task('1', 'todo', '2026-12-02'),
        task('2', 'done', '2026-12-01'),
        task('3', 'todo', null),
      ]);
    old.close();

    const db = new SyncDatabase('outpost-v2', OUTPOST_SCHEMA, deps);
    expect(db.verno).toBe(3);
    const tasks = db.rows('tasks');
    expect(
      await tasks
        .where('[status+due_on]')
        .between(['todo', Dexie.minKey], ['todo', '2026-12-02'], true, true)
        .primaryKeys(),
    ).toEqual(['1']);
    expect(await tasks.where('[assignee_id+status]').equals(['user-1', 'todo']).count()).toBe(2);
    await db.rows('checklist_items').put(
      serverRow('checklist_items', {
        id: 'i1',
        task_id: '1',
        list_id: LIST,
        text: 'Check',
        done: false,
        position: 'a0',
        created_by: 'user-1',
      }),
    );
    expect(
      await db
        .rows('checklist_items')
        .where('[task_id+position]')
        .between(['1', ''], ['1', '\uffff'])
        .count(),
    ).toBe(1);
    db.close();
  });
});
