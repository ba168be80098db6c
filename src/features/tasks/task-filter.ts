// Pure pieces of the tasks screens: the typed task row, status filter and search (run in
// memory over a whole list, so they must stay cheap at 10,000 tasks), counts, labels, and
// the neighbours a moved task lands between.
import type { Priority, TaskStatus } from '@/data/schema';
import type { Task } from '@/data/rows';

/** A task as the screens use it: the device's typed row (`queries.tasks`). */
export type TaskRow = Omit<Task, 'version' | 'deleted_at'>;

export const STATUS_FILTERS = ['all', 'todo', 'doing', 'done'] as const;
export type StatusFilter = (typeof STATUS_FILTERS)[number];

/** The `status` search param, anything unknown meaning "all". */
export function parseStatusFilter(value: string | null): StatusFilter {
  return (STATUS_FILTERS as readonly (string | null)[]).includes(value)
    ? (value as StatusFilter)
    : 'all';
}

export const STATUS_LABELS: Readonly<Record<TaskStatus, string>> = {
  todo: 'To do',
  doing: 'Doing',
  done: 'Done',
};

export const FILTER_LABELS: Readonly<Record<StatusFilter, string>> = {
  all: 'All',
  ...STATUS_LABELS,
};

export const PRIORITY_LABELS: Readonly<Record<Priority, string>> = {
  0: 'None',
  1: 'Low',
  2: 'Medium',
  3: 'High',
};

/**
 * Lower-cased "title\nnotes" per task, made once per change of the list (not per keystroke),
 * so searching 10,000 tasks is one `includes` each.
 */
export function buildSearchIndex(tasks: readonly TaskRow[]): Map<string, string> {
  const index = new Map<string, string>();
  for (const task of tasks) index.set(task.id, `${task.title}\n${task.notes}`.toLowerCase());
  return index;
}

/** The words of a search: every one must appear (in the title or the notes), in any order. */
export function searchTerms(query: string): string[] {
  return query.toLowerCase().split(/\s+/).filter(Boolean);
}

export function filterTasks(
  tasks: readonly TaskRow[],
  index: ReadonlyMap<string, string>,
  status: StatusFilter,
  query: string,
): TaskRow[] {
  const terms = searchTerms(query);
  if (status === 'all' && terms.length === 0) return tasks as TaskRow[];
  return tasks.filter((task) => {
    if (status !== 'all' && task.status !== status) return false;
    if (terms.length === 0) return true;
    const haystack = index.get(task.id) ?? `${task.title}\n${task.notes}`.toLowerCase();
    return terms.every((term) => haystack.includes(term));
  });
}

/**
 * Where a task moved from `from` to `to` in the shown order lands: between the ids that
 * will then be before and after it (null at either end). The shown order is a subsequence
 * of the list's position order, so these neighbours' positions are in order too.
 */
export function neighboursAfterMove(
  ids: readonly string[],
  from: number,
  to: number,
): { afterId: string | null; beforeId: string | null } {
  const moved = ids.filter((_, i) => i !== from);
  const id = ids[from];
  if (id === undefined) return { afterId: null, beforeId: null };
  moved.splice(to, 0, id);
  return { afterId: moved[to - 1] ?? null, beforeId: moved[to + 1] ?? null };
}
