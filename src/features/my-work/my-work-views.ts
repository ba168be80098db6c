// My work's three views (issue 39) as the screens name and group them: Today (overdue, then
// today's), Upcoming (a heading per day) and Assigned to me (a heading per list). Pure, so
// the grouping is tested without rendering.
import type { MyWorkRow } from '@/data/my-work-queries';
import type { List } from '@/data/rows';
import { addDays } from '@/utils/format';

import type { MyWorkView } from '@/hooks/use-my-work-view';

export type { MyWorkView };
/** The views, in the order the app shows them. */
export const MY_WORK_VIEWS: readonly MyWorkView[] = ['today', 'upcoming', 'assigned'];

/** Each view's route and heading. */
export const VIEW_INFO: Readonly<Record<MyWorkView, { path: string; title: string }>> = {
  today: { path: '/today', title: 'Today' },
  upcoming: { path: '/upcoming', title: 'Upcoming' },
  assigned: { path: '/assigned', title: 'Assigned to me' },
};

/** The view at `pathname` (Today for any other). */
export function viewAt(pathname: string): MyWorkView {
  return MY_WORK_VIEWS.find((view) => pathname.startsWith(VIEW_INFO[view].path)) ?? 'today';
}

/** Rows under one heading; `list` for Assigned to me's groups, shown with its colour. */
export interface RowGroup {
  key: string;
  heading: string;
  list?: List;
  rows: MyWorkRow[];
}

let dayFormat: Intl.DateTimeFormat | undefined;

/** "Tomorrow", else the day in the device's language: "Thu 10 Dec" (en-GB). */
export function dayHeading(iso: string, today: string): string {
  if (iso === addDays(today, 1)) return 'Tomorrow';
  dayFormat ??= new Intl.DateTimeFormat(undefined, {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
  });
  return dayFormat.format(new Date(`${iso}T00:00:00`));
}

/** What a row's group is, and its heading. */
function groupOf(
  view: MyWorkView,
  row: MyWorkRow,
  today: string,
): Omit<RowGroup, 'rows'> & { key: string } {
  const due = row.task.due_on ?? '';
  if (view === 'assigned') return { key: row.list.id, heading: row.list.name, list: row.list };
  if (view === 'today') {
    return due < today
      ? { key: 'overdue', heading: 'Overdue' }
      : { key: 'today', heading: 'Today' };
  }
  return { key: due, heading: dayHeading(due, today) };
}

/** `rows` (in the view's order, so each group's rows are together) under their headings. */
export function groupRows(view: MyWorkView, rows: readonly MyWorkRow[], today: string): RowGroup[] {
  const groups: RowGroup[] = [];
  for (const row of rows) {
    const group = groupOf(view, row, today);
    const last = groups[groups.length - 1];
    if (last?.key === group.key) last.rows.push(row);
    else groups.push({ ...group, rows: [row] });
  }
  return groups;
}
