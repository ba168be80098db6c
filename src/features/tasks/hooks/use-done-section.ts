// Under the "All" filter a list shows its open tasks, then its done ones in a "Done (7)"
// section after them, collapsed until opened (kept per list for the tab's session). A search
// shows what it finds in one list, done or not, as the other filters do. A task completed
// from this screen's own rows, or set to Done by its bulk bar's Status menu, stays where it
// was, ticked, until the filter changes or the list is left, as in My work: a row that jumps
// away under the pointer or the keys loses the user's place (and the bulk bar's selection
// its tasks; a second tick undoes the first where it was). Other filters show their tasks in
// one list, as before.
import { useMemo, useState } from 'react';

import type { StatusFilter, TaskRow } from '../task-filter';

/** sessionStorage key of whether a list's Done section is open. */
const storageKey = (listId: string) => `outpost:done-open:${listId}`;

function readOpen(listId: string): boolean {
  try {
    return sessionStorage.getItem(storageKey(listId)) === '1';
  } catch {
    // Storage refused: collapsed, the default.
    return false;
  }
}

export interface DoneSection {
  /** The tasks of the main list: all of them unless `grouped`. */
  open: TaskRow[];
  /** The done tasks of the section (empty unless `grouped`). */
  done: TaskRow[];
  /** Whether done tasks have a section of their own (the "All" filter, no search). */
  grouped: boolean;
  /** Whether the section is open. */
  expanded: boolean;
  toggle: () => void;
  /** The tasks a person can see: a collapsed section's are not among them. */
  visible: TaskRow[];
  /**
   * These tasks are being completed from the screen's rows (one id) or set to Done by its
   * bulk bar (many at once): they stay in place.
   */
  keep: (ids: string | readonly string[]) => void;
}

export function useDoneSection(
  listId: string,
  shown: TaskRow[],
  filter: StatusFilter,
  searching: boolean,
): DoneSection {
  const [expanded, setExpanded] = useState(() => readOpen(listId));
  // Completed here, under this filter (another filter starts afresh).
  const [kept, setKept] = useState<{ filter: StatusFilter; ids: ReadonlySet<string> }>({
    filter,
    ids: new Set(),
  });
  if (kept.filter !== filter) setKept({ filter, ids: new Set() });
  const grouped = filter === 'all' && !searching;

  const { open, done } = useMemo(() => {
    if (!grouped) return { open: shown, done: [] };
    const split: { open: TaskRow[]; done: TaskRow[] } = { open: [], done: [] };
    for (const task of shown) {
      (task.status === 'done' && !kept.ids.has(task.id) ? split.done : split.open).push(task);
    }
    return split;
  }, [grouped, shown, kept]);

  return {
    open,
    done,
    grouped,
    expanded,
    visible: expanded ? shown : open,
    toggle: () => {
      const next = !expanded;
      setExpanded(next);
      try {
        sessionStorage.setItem(storageKey(listId), next ? '1' : '0');
      } catch {
        // Not kept: this screen still shows it.
      }
    },
    keep: (ids) =>
      setKept((now) => {
        const fresh = (typeof ids === 'string' ? [ids] : ids).filter((id) => !now.ids.has(id));
        return fresh.length === 0 ? now : { ...now, ids: new Set([...now.ids, ...fresh]) };
      }),
  };
}
