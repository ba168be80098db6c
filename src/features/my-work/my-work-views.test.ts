// My work's headings: Today's two groups, a heading per day for Upcoming ("Tomorrow", then
// the day in the device's language), one per list for Assigned to me.
import { describe, expect, it } from 'vitest';

import type { MyWorkRow } from '@/data/my-work-queries';
import { serverRow } from '@/testing/fixtures';

import { dayHeading, groupRows, viewAt } from './my-work-views';

const TODAY = '2026-12-02';

function row(title: string, listName: string, due_on: string | null): MyWorkRow {
  const list = serverRow('lists', {
    id: `list-${listName}`,
    name: listName,
    color: 'teal',
    created_by: 'u',
  });
  const task = serverRow('tasks', {
    id: `task-${title}`,
    list_id: list.id,
    title,
    notes: '',
    status: 'todo',
    priority: 0,
    due_on,
    assignee_id: null,
    position: 'a0',
    completed_at: null,
    created_by: 'u',
    repeat: null,
    follows_id: null,
  });
  return { task, list, role: 'editor' };
}

const headings = (groups: ReturnType<typeof groupRows>) =>
  groups.map((group) => [group.heading, group.rows.map((each) => each.task.title)]);

describe('my work views', () => {
  it('group Today into overdue and today’s', () => {
    const rows = [row('Old', 'A', '2026-11-01'), row('Now', 'A', TODAY), row('Also', 'B', TODAY)];
    expect(headings(groupRows('today', rows, TODAY))).toEqual([
      ['Overdue', ['Old']],
      ['Today', ['Now', 'Also']],
    ]);
    expect(headings(groupRows('today', rows.slice(1), TODAY))).toEqual([
      ['Today', ['Now', 'Also']],
    ]);
  });

  it('head Upcoming’s days "Tomorrow", then by weekday and date', () => {
    const rows = [row('Next', 'A', '2026-12-03'), row('Later', 'A', '2026-12-10')];
    const later = dayHeading('2026-12-10', TODAY);
    expect(later).toBe(
      new Intl.DateTimeFormat(undefined, {
        weekday: 'short',
        day: 'numeric',
        month: 'short',
      }).format(new Date(2026, 11, 10)),
    );
    expect(headings(groupRows('upcoming', rows, TODAY))).toEqual([
      ['Tomorrow', ['Next']],
      [later, ['Later']],
    ]);
  });

  it('group Assigned to me by list, with the list', () => {
    const rows = [row('One', 'A', null), row('Two', 'A', TODAY), row('Three', 'B', null)];
    const groups = groupRows('assigned', rows, TODAY);
    expect(headings(groups)).toEqual([
      ['A', ['One', 'Two']],
      ['B', ['Three']],
    ]);
    expect(groups[1]?.list?.id).toBe('list-B');
  });

  it('name the view of a path', () => {
    expect(viewAt('/upcoming')).toBe('upcoming');
    expect(viewAt('/assigned/')).toBe('assigned');
    expect(viewAt('/today')).toBe('today');
  });
});
