import { describe, expect, it } from 'vitest';

import {
  buildSearchIndex,
  filterTasks,
  neighboursAfterMove,
  parseStatusFilter,
  type TaskRow,
} from './task-filter';

function task(id: string, title: string, extra: Partial<TaskRow> = {}): TaskRow {
  return {
    id,
    list_id: 'l',
    title,
    notes: '',
    status: 'todo',
    priority: 0,
    due_on: null,
    assignee_id: null,
    repeat: null,
    follows_id: null,
    position: id,
    completed_at: null,
    created_by: 'u',
    created_at: '',
    updated_at: '',
    ...extra,
  };
}

const tasks = [
  task('a', 'Buy milk', { notes: 'Oat, not dairy' }),
  task('b', 'Call the plumber', { status: 'doing' }),
  task('c', 'Fix the gate', { status: 'done', notes: 'Hinge is BROKEN' }),
];

describe('filterTasks', () => {
  const index = buildSearchIndex(tasks);

  it('returns every task for "all" with no search', () => {
    expect(filterTasks(tasks, index, 'all', '  ')).toHaveLength(3);
  });

  it('filters by status', () => {
    expect(filterTasks(tasks, index, 'doing', '').map((t) => t.id)).toEqual(['b']);
    expect(filterTasks(tasks, index, 'done', '').map((t) => t.id)).toEqual(['c']);
  });

  it('searches titles and notes, case-insensitively, every word in any order', () => {
    expect(filterTasks(tasks, index, 'all', 'MILK').map((t) => t.id)).toEqual(['a']);
    expect(filterTasks(tasks, index, 'all', 'broken').map((t) => t.id)).toEqual(['c']);
    expect(filterTasks(tasks, index, 'all', 'gate hinge').map((t) => t.id)).toEqual(['c']);
    expect(filterTasks(tasks, index, 'all', 'gate milk')).toEqual([]);
    expect(filterTasks(tasks, index, 'todo', 'gate')).toEqual([]);
  });
});

describe('helpers', () => {
  it('parses the status param', () => {
    expect(parseStatusFilter('done')).toBe('done');
    expect(parseStatusFilter(null)).toBe('all');
    expect(parseStatusFilter('nope')).toBe('all');
  });

  it('finds the neighbours of a moved task', () => {
    const ids = ['a', 'b', 'c', 'd'];
    expect(neighboursAfterMove(ids, 0, 1)).toEqual({ afterId: 'b', beforeId: 'c' });
    expect(neighboursAfterMove(ids, 3, 0)).toEqual({ afterId: null, beforeId: 'a' });
    expect(neighboursAfterMove(ids, 1, 3)).toEqual({ afterId: 'd', beforeId: null });
    expect(neighboursAfterMove(ids, 2, 1)).toEqual({ afterId: 'a', beforeId: 'b' });
  });
});
