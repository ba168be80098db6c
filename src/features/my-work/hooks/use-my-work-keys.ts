// My work's keyboard, as the list screen's: j/k (↓/↑ on a row itself) move the focus through
// every group's rows, Enter/o/→ open the task, x or Space tick it. From outside the rows
// (nothing focused), j/k enter them. One row is in the Tab order: the last focused.
import { useState, type KeyboardEvent, type RefObject } from 'react';

import type { MyWorkRow } from '@/data/my-work-queries';
import { useShortcut } from '@/hooks/use-shortcut';
import { rowStep } from '@/utils/row-keys';
import { useNavigate } from '@/lib/router';

export interface MyWorkKeys {
  onKeyDown: (event: KeyboardEvent<HTMLElement>) => void;
  /** The row Tab lands on. */
  tabbableId: string | null;
  /** A row got the focus. */
  onFocused: (id: string) => void;
}

export function useMyWorkKeys({
  rows,
  container,
  tick,
}: {
  /** The rows as shown, top to bottom. */
  rows: readonly MyWorkRow[];
  container: RefObject<HTMLElement | null>;
  tick: (row: MyWorkRow) => void;
}): MyWorkKeys {
  const navigate = useNavigate();
  const [activeId, setActiveId] = useState<string | null>(null);
  const tabbableId =
    rows.find((row) => row.task.id === activeId)?.task.id ?? rows[0]?.task.id ?? null;

  const focusRow = (id: string) =>
    container.current?.querySelector<HTMLElement>(`[data-task-id="${CSS.escape(id)}"]`)?.focus();

  function onKeyDown(event: KeyboardEvent<HTMLElement>) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    const element = (event.target as HTMLElement).closest<HTMLElement>('[data-task-id]');
    const index = rows.findIndex((row) => row.task.id === element?.dataset.taskId);
    const row = rows[index];
    if (!element || !row) return;
    // On the row's own controls (tick, link, chips) only j/k: the rest keep their meaning.
    const onRow = event.target === element;
    const step = rowStep(event.key, onRow);
    if (step) {
      event.preventDefault();
      const next = rows[index + step];
      if (next) focusRow(next.task.id);
    } else if (
      event.key === 'o' ||
      (onRow && (event.key === 'Enter' || event.key === 'ArrowRight'))
    ) {
      event.preventDefault();
      void navigate(`/lists/${row.list.id}/tasks/${row.task.id}`);
    } else if (onRow && (event.key === 'x' || event.key === ' ')) {
      event.preventDefault();
      tick(row);
    }
  }

  const enter = () => {
    if (tabbableId) focusRow(tabbableId);
  };
  useShortcut('j', enter);
  useShortcut('k', enter);

  return { onKeyDown, tabbableId, onFocused: setActiveId };
}
