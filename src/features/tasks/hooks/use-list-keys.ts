// The task list's keyboard, on its rows: j/k (↓/↑ on a row itself) move the focus, Enter/o/→
// open the task, x selects, Shift+↓/↑ (or J/K) extend the selection, Ctrl/Cmd+A selects every
// row, Escape clears it, F2 edits the title, Alt+↑/↓ moves a task one place. Single keys open
// a property's menu (s status, p priority, a assignee, d due date) and Delete/Backspace
// deletes: on the focused row, or with a selection on all of it through the bulk bar (and m
// moves it to another list). From outside the list, j/k enter it.
import type { KeyboardEvent, RefObject } from 'react';

import { useShortcut } from '@/hooks/use-shortcut';
import { rowStep } from '@/utils/row-keys';
import { useNavigate } from '@/lib/router';

import { PROPERTY_KEYS } from '../components/property-chips';
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

/** The keys that open a menu: on a focused row, or the bulk bar's with a selection. */
const MENU_KEYS: ReadonlySet<string> = new Set(Object.values(PROPERTY_KEYS));
/** The key of the bulk bar's "Move to", only for a selection. */
export const MOVE_KEY = 'm';

/**
 * Opens the popover that `key` opens inside `scope` (a row, or the bulk bar), as a click on
 * its button; once a choice closes it and gives its button the focus, the focus goes on to
 * `back` (the row the key was pressed on). False when `scope` has no such popover.
 */
function openByKey(scope: ParentNode, key: string, back: HTMLElement): boolean {
  const button = scope.querySelector<HTMLElement>(`[data-shortcut="${key}"]`);
  if (!button) return false;
  button.click();
  const watch = new MutationObserver(() => {
    if (button.getAttribute('aria-expanded') === 'true') return;
    watch.disconnect();
    if (document.activeElement === button && back.isConnected) back.focus();
  });
  watch.observe(button, { attributes: true, attributeFilter: ['aria-expanded'] });
  return true;
}

/** The bulk bar on the page, while there is a selection. */
function bulkBar(): HTMLElement | null {
  return document.querySelector<HTMLElement>('[data-bulk-bar]');
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
    if (
      (event.ctrlKey || event.metaKey) &&
      !event.altKey &&
      !event.shiftKey &&
      event.key.toLowerCase() === 'a'
    ) {
      if (!canEdit) return;
      event.preventDefault();
      onSelectMany(ordered.map((each) => each.id));
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (canEdit && singleKey(event, row, task)) {
      event.preventDefault();
      return;
    }
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
    // Enter and → only on the row itself: on its controls they keep their own meaning. The
    // task open beside the list (its row is marked current) is not opened again, which would
    // add a history entry: list-route.tsx moves the focus into its panel instead.
    if (event.key === 'o' || (onRow && (event.key === 'Enter' || event.key === 'ArrowRight'))) {
      event.preventDefault();
      if (row.getAttribute('aria-current') !== 'true') {
        void navigate(`/lists/${listId}/tasks/${task.id}`);
      }
    } else if (event.key === 'x' && canEdit) {
      event.preventDefault();
      actions.toggleSelected(id);
    } else if (canEdit && event.key === 'F2') {
      event.preventDefault();
      actions.startEdit(task);
    }
  }

  /**
   * A property's key (s, p, a, d), m, or Delete/Backspace on a row, outside its open popups:
   * on the selection while there is one, else on the row. Whether it was one.
   */
  function singleKey(event: KeyboardEvent<HTMLUListElement>, row: HTMLElement, task: TaskRow) {
    const target = event.target as HTMLElement;
    if (target.closest('.popover__panel')) return false;
    const { key } = event;
    const deletes = key === 'Delete' || key === 'Backspace';
    if (!deletes && !MENU_KEYS.has(key) && key !== MOVE_KEY) return false;
    if (hasSelection) {
      const bar = bulkBar();
      if (!bar) return false;
      if (!deletes) return openByKey(bar, key, row);
      bar.querySelector<HTMLElement>('[data-bulk-delete]')?.click();
      return true;
    }
    if (deletes) {
      actions.remove(task);
      return true;
    }
    return key !== MOVE_KEY && openByKey(row, key, row);
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
