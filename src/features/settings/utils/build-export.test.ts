// The export's shape: lists → members and tasks → checklist, comments and attachments, tombstones left
// out at every level, and the device's own fields (`_v`, `_standIn`) dropped.
import { describe, expect, it } from 'vitest';

import { buildExport, countExportedTasks, exportFileName, type ExportSource } from './build-export';

const T0 = '2026-01-01T10:00:00.000Z';
const T1 = '2026-01-02T10:00:00.000Z';
const GONE = '2026-01-03T10:00:00.000Z';

function source(): ExportSource {
  return {
    lists: [
      { id: 'l-b', name: 'Shed', color: 'green', deleted_at: null, _v: 4 },
      { id: 'l-a', name: 'Attic', color: 'blue', deleted_at: null, _v: 2 },
      { id: 'l-gone', name: 'Old', color: 'red', deleted_at: GONE, _v: 9 },
    ],
    memberships: [
      { id: 'm-1', list_id: 'l-a', user_id: 'u-1', role: 'owner', created_at: T0, _v: 1 },
      { id: 'm-2', list_id: 'l-a', user_id: 'u-2', role: 'editor', created_at: T1, _v: 1 },
      {
        id: 'm-3',
        list_id: 'l-a',
        user_id: 'u-3',
        role: 'viewer',
        created_at: T1,
        deleted_at: GONE,
        _v: 1,
      },
      { id: 'm-4', list_id: 'l-b', user_id: 'u-1', role: 'owner', created_at: T0, _standIn: 1 },
    ],
    tasks: [
      { id: 't-2', list_id: 'l-a', title: 'Second', position: 'a1', deleted_at: null, _v: 1 },
      { id: 't-1', list_id: 'l-a', title: 'First', position: 'a0', deleted_at: null, _v: 3 },
      { id: 't-x', list_id: 'l-a', title: 'Deleted', position: 'a2', deleted_at: GONE, _v: 1 },
      { id: 't-old', list_id: 'l-gone', title: 'In a deleted list', position: 'a0', _v: 1 },
    ],
    comments: [
      { id: 'c-2', task_id: 't-1', list_id: 'l-a', body: 'later', created_at: T1, _v: 1 },
      { id: 'c-1', task_id: 't-1', list_id: 'l-a', body: 'first', created_at: T0, _v: 1 },
      { id: 'c-x', task_id: 't-1', list_id: 'l-a', body: 'gone', created_at: T0, deleted_at: GONE },
      { id: 'c-on-deleted', task_id: 't-x', list_id: 'l-a', body: 'x', created_at: T0 },
    ],
    attachments: [
      {
        id: 'a-1',
        task_id: 't-2',
        list_id: 'l-a',
        file_name: 'door.jpg',
        mime_type: 'image/jpeg',
        size_bytes: 1234,
        object_path: 'l-a/t-2/a-1.jpg',
        created_at: T0,
        _v: 1,
      },
      { id: 'a-x', task_id: 't-2', list_id: 'l-a', file_name: 'old.pdf', deleted_at: GONE },
    ],
    checklist_items: [
      {
        id: 'i-2',
        task_id: 't-1',
        list_id: 'l-a',
        text: 'Then',
        done: false,
        position: 'a1',
        _v: 1,
      },
      {
        id: 'i-1',
        task_id: 't-1',
        list_id: 'l-a',
        text: 'First',
        done: true,
        position: 'a0',
        _v: 1,
      },
      { id: 'i-x', task_id: 't-1', list_id: 'l-a', text: 'Gone', position: 'a2', deleted_at: GONE },
    ],
    profiles: [
      { id: 'u-1', display_name: 'Alice', _v: 1 },
      { id: 'u-2', display_name: 'Bob', _v: 1 },
    ],
  };
}

describe('buildExport', () => {
  const doc = buildExport(source(), { exportedAt: T1, appVersion: '1.2.3' });

  it('stamps the export and nests members and tasks under each live list, by name', () => {
    expect(doc.exported_at).toBe(T1);
    expect(doc.app_version).toBe('1.2.3');
    expect(doc.lists.map((list) => list.name)).toEqual(['Attic', 'Shed']);
    const attic = doc.lists[0];
    expect(attic?.members.map((m) => [m.user_id, m.role, m.display_name])).toEqual([
      ['u-1', 'owner', 'Alice'],
      ['u-2', 'editor', 'Bob'],
    ]);
    expect(attic?.tasks.map((t) => t.title)).toEqual(['First', 'Second']);
    expect(doc.lists[1]?.tasks).toEqual([]);
  });

  it('puts comments (oldest first) and attachment metadata under their task', () => {
    const [first, second] = doc.lists[0]?.tasks ?? [];
    expect(first?.comments.map((c) => c.body)).toEqual(['first', 'later']);
    expect(first?.attachments).toEqual([]);
    expect(second?.comments).toEqual([]);
    expect(second?.attachments).toEqual([
      {
        id: 'a-1',
        task_id: 't-2',
        list_id: 'l-a',
        file_name: 'door.jpg',
        mime_type: 'image/jpeg',
        size_bytes: 1234,
        object_path: 'l-a/t-2/a-1.jpg',
        created_at: T0,
      },
    ]);
  });

  it('puts the checklist under its task, in order', () => {
    const [first, second] = doc.lists[0]?.tasks ?? [];
    expect(first?.checklist.map((item) => [item.text, item.done])).toEqual([
      ['First', true],
      ['Then', false],
    ]);
    expect(second?.checklist).toEqual([]);
  });

  it('leaves out tombstones at every level', () => {
    const json = JSON.stringify(doc);
    for (const id of ['l-gone', 'm-3', 't-x', 't-old', 'c-x', 'c-on-deleted', 'a-x', 'i-x']) {
      expect(json).not.toContain(`"${id}"`);
    }
  });

  it("drops the device's own fields", () => {
    expect(JSON.stringify(doc)).not.toMatch(/"_[a-zA-Z]+":/);
    expect(doc.lists[1]?.members[0]).toEqual({
      id: 'm-4',
      list_id: 'l-b',
      user_id: 'u-1',
      role: 'owner',
      created_at: T0,
      display_name: 'Alice',
    });
    expect(doc.lists[0]).not.toHaveProperty('_v');
  });
});

describe('export helpers', () => {
  it('counts the tasks an export holds and names the file by date', () => {
    expect(countExportedTasks(source())).toBe(2);
    expect(exportFileName('2026-01-31')).toBe('outpost-export-2026-01-31.json');
  });
});
