// The task list's keyboard, on its rows: j/k (↓/↑ on a row itself) move the focus, Enter/o/→
// open the task, x selects, Shift+↓/↑ (or J/K) extend the selection, Escape clears it, F2 edits
// the title, Alt+↑/↓ moves a task one place. From outside the list, j/k enter it.
import type { KeyboardEvent, RefObject } from 'react';

import { useShortcut } from '@/hooks/use-shortcut';
import { rowStep } from '@/utils/row-keys';
import { useNavigate } from '@/lib/router';

import type { RowActions } from '../components/task-row';
import type { TaskRow } from '../task-filter';
import type { OptimisticOrder } from './use-optimistic-order';
import type { RowFocus } from './use-row-focus';

/** Keys typed into these belong to the field, not to the list's shortcuts. */
function isFieldTarget(target: EventTarget): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target instanceof HTMLInputElement) return target.type !== 'checkbox';
  return (
    target instanceof HTMLTextAreaElement ||
    target instanceof HTMLSelectElement ||
    target.isContentEditable
  );
}

export interface ListKeysOptions {
  listId: string;
  /** The tasks as shown. */
  ordered: readonly TaskRow[];
  canEdit: boolean;
  /** A task is being dragged or carried: the list's keys wait. */
  moving: boolean;
  hasSelection: boolean;
  onSelectMany: (ids: readonly string[]) => void;
  onClearSelection: () => void;
  /** The row Tab lands on, where j/k enter the list. */
  tabbableId: string | null;
  actions: RowActions;
  /** Where a Shift+click range starts (a Shift+arrow moves it). */
  anchorRef: RefObject<string | null>;
  focus: Pick<RowFocus, 'focusRow' | 'focusLater'>;
  commitMove: OptimisticOrder['commitMove'];
}

/** The list's keydown handler; also listens for j/k on the page. */
export function useListKeys({
  listId,
  ordered,
  canEdit,
  moving,
  hasSelection,
  onSelectMany,
  onClearSelection,
  tabbableId,
  actions,
  anchorRef,
  focus: { focusRow, focusLater },
  commitMove,
}: ListKeysOptions): (event: KeyboardEvent<HTMLUListElement>) => void {
  const navigate = useNavigate();

  function onKeyDown(event: KeyboardEvent<HTMLUListElement>) {
    if (moving || event.defaultPrevented || isFieldTarget(event.target)) return;
    const row = (event.target as HTMLElement).closest<HTMLElement>('[data-task-id]');
    const id = row?.dataset.taskId;
    if (!row || !id) return;
    const index = ordered.findIndex((task) => task.id === id);
    const task = ordered[index];
    if (!task) return;
    const onRow = event.target === row;

    if (event.altKey && (event.key === 'ArrowUp' || event.key === 'ArrowDown')) {
      event.preventDefault();
      if (!canEdit) return;
      const movedId = commitMove(index, index + (event.key === 'ArrowUp' ? -1 : 1));
      if (movedId) focusLater(movedId);
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const extend =
      event.key === 'J' || (onRow && event.shiftKey && event.key === 'ArrowDown')
        ? 1
        : event.key === 'K' || (onRow && event.shiftKey && event.key === 'ArrowUp')
          ? -1
          : 0;
    if (extend && canEdit) {
      event.preventDefault();
      const target = ordered[index + extend];
      if (!target) return;
      anchorRef.current = target.id;
      onSelectMany([id, target.id]);
      focusRow(target.id);
      return;
    }
    if (event.key === 'Escape' && hasSelection) {
      event.preventDefault();
      onClearSelection();
      return;
    }
    const step = rowStep(event.key, onRow);
    if (step) {
      event.preventDefault();
      const target = ordered[index + step];
      if (target) focusRow(target.id);
      return;
    }
    // Enter and → only on the row itself: on its controls they keep their own meaning.
    if (event.key === 'o' || (onRow && (event.key === 'Enter' || event.key === 'ArrowRight'))) {
      event.preventDefault();
      void navigate(`/lists/${listId}/tasks/${task.id}`);
    } else if (event.key === 'x' && canEdit) {
      event.preventDefault();
      actions.toggleSelected(id);
    } else if (canEdit && event.key === 'F2') {
      event.preventDefault();
      actions.startEdit(task);
    }
  }

  // From outside the list (nothing focused, or a button above it), j/k enter the list.
  const enterList = () => {
    const id = tabbableId;
    if (id) focusRow(id);
  };
  useShortcut('j', enterList);
  useShortcut('k', enterList);

  return onKeyDown;
}
