// Where the focus goes in the virtualised task list: to a row by its task's id, even a row not
// rendered (the list scrolls to it, and it is focused once it is); after a render that has to
// come first (a save, a move, a delete); and, when a status change takes the focused row out
// of a filtered view, to the row that took its place instead of being lost. A row the keys
// move the focus to is told to whoever follows it (the task panel beside the list).
import { useLayoutEffect, useRef, type RefObject } from 'react';

import type { TaskRow } from '../task-filter';
import type { ShownRows } from './shown-rows';
import type { RowScroller } from './use-window-rows';

export interface RowFocus {
  /** The rendered row of a task, if it is rendered. */
  rowElement: (id: string) => HTMLElement | null;
  /** Focuses a task's row, scrolling it into the DOM first when it is not rendered. */
  focusRow: (id: string) => void;
  /** Focuses a task's row after the next render that has it (null: forget any). */
  focusLater: (id: string | null) => void;
  /**
   * A change is about to be written to this task: if it takes the row away, focus moves on
   * (null: the write was refused, stop watching).
   */
  keepFocusNear: (task: TaskRow | null) => void;
}

export function useRowFocus({
  listRef,
  latest,
  tasks,
  ids,
  scroller,
  onRowFocus,
}: {
  listRef: RefObject<HTMLElement | null>;
  latest: RefObject<ShownRows>;
  tasks: TaskRow[];
  /** The ids of the tasks as shown. */
  ids: readonly string[];
  scroller: RowScroller;
  /** Focus is being moved to this task's row (by j/k, the arrows, or after it moved away). */
  onRowFocus?: ((id: string) => void) | undefined;
}): RowFocus {
  const pendingFocus = useRef<string | null>(null);
  const rescue = useRef<{ id: string; index: number; status: TaskRow['status'] } | null>(null);

  function rowElement(id: string): HTMLElement | null {
    return listRef.current?.querySelector<HTMLElement>(`[data-task-id="${id}"]`) ?? null;
  }

  function focusRow(id: string) {
    onRowFocus?.(id);
    const element = rowElement(id);
    if (element) {
      element.focus();
      return;
    }
    const index = latest.current.ordered.findIndex((task) => task.id === id);
    if (index < 0) return;
    pendingFocus.current = id;
    scroller.scrollToIndex(index, { align: 'auto' });
  }

  // The focused row's task left the view (the live query's new tasks do not have it). An
  // answer that still shows the task as it was (one read before the write's, on a busy
  // device) keeps the watch; one that shows the change (the view keeps the row, or the write
  // was refused and reverted) ends it.
  useLayoutEffect(() => {
    const pending = rescue.current;
    if (!pending) return;
    const shown = tasks.find((task) => task.id === pending.id);
    if (shown && shown.status === pending.status) return;
    rescue.current = null;
    if (ids.includes(pending.id)) return;
    const focusLost = !document.activeElement || document.activeElement === document.body;
    const id = ids[Math.min(pending.index, ids.length - 1)];
    if (focusLost && id) focusRow(id);
  });

  // Focus that had to wait for a render (after a save, a move, a delete, a scroll).
  useLayoutEffect(() => {
    const id = pendingFocus.current;
    if (!id) return;
    const element = rowElement(id);
    if (element) {
      pendingFocus.current = null;
      if (!element.contains(document.activeElement)) element.focus();
    }
  });

  return {
    rowElement,
    focusRow,
    focusLater: (id) => {
      pendingFocus.current = id;
    },
    keepFocusNear: (task) => {
      rescue.current = task && {
        id: task.id,
        index: latest.current.ordered.findIndex((t) => t.id === task.id),
        status: task.status,
      };
    },
  };
}
