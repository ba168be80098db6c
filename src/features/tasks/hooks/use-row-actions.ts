// The callbacks every row of the task list shares: status and the other properties, selection
// by click, the inline title editor, delete with undo, and the grip's keys. They are one object, made once, so the
// memoised rows stay put; they read the list's latest state through refs.
import { useRef, useState, type RefObject } from 'react';

import { taskPatch, type TaskStatus } from '@/data/schema';
import { attempt } from '@/data/writes';
import { useDeleteWithUndo } from '@/hooks/use-delete-with-undo';
import { useServices } from '@/lib/services';
import { showToast } from '@/lib/toasts';
import { validate } from '@sync/index';

import type { PropertyChange } from '../components/property-chips';
import type { RowActions, TitleEdit } from '../components/task-row';
import type { TaskRow } from '../task-filter';
import type { ShownRows } from './shown-rows';
import type { KeyboardCarry } from './use-keyboard-carry';
import type { RowFocus } from './use-row-focus';

/** What the list's screen keeps: its selection, and the tasks completed from its rows. */
export interface ListSelection {
  onToggleSelected: (id: string) => void;
  /** Adds these to the selection (a Shift+click range, Shift+arrow). */
  onSelectMany: (ids: readonly string[]) => void;
  /** A row is completing this task (its tick, its status menu, a swipe). */
  onCompleting?: ((id: string) => void) | undefined;
}

export interface TaskRowActions {
  actions: RowActions;
  /** The title being edited, if any. */
  edit: TitleEdit | null;
  /** Where a Shift+click range starts: the row last picked (ticked, x, clicked). */
  anchorRef: RefObject<string | null>;
}

export function useRowActions({
  latest,
  focus: { focusLater, keepFocusNear },
  carrying: { carryKey, carryBlur },
  onFocused,
}: {
  latest: RefObject<ShownRows & ListSelection>;
  focus: Pick<RowFocus, 'focusLater' | 'keepFocusNear'>;
  carrying: Pick<KeyboardCarry, 'carryKey' | 'carryBlur'>;
  /** A row got the focus. */
  onFocused: (id: string) => void;
}): TaskRowActions {
  const { sync } = useServices();
  const deleteWithUndo = useDeleteWithUndo();
  const [edit, setEdit] = useState<TitleEdit | null>(null);
  const editRef = useRef<TitleEdit | null>(null);
  const anchorRef = useRef<string | null>(null);

  function updateEdit(next: TitleEdit | null) {
    editRef.current = next;
    setEdit(next);
  }

  function finishEdit(id: string) {
    focusLater(id);
    updateEdit(null);
  }

  async function changeStatus(task: TaskRow, status: TaskStatus): Promise<boolean> {
    if (status === 'done') latest.current.onCompleting?.(task.id);
    keepFocusNear(task);
    const result = await attempt(() => sync.repos.tasks.setStatus(task.id, status));
    if (!result.ok) {
      keepFocusNear(null);
      showToast({
        message: result.errors.status ?? result.errors._ ?? "Couldn't change the status.",
        tone: 'error',
      });
    }
    return result.ok;
  }

  async function changeProperty(task: TaskRow, change: PropertyChange) {
    const result = await attempt(() => sync.repos.tasks.update(task.id, change));
    if (!result.ok) {
      const message = Object.values(result.errors).find(Boolean);
      showToast({ message: message ?? "Couldn't save the change.", tone: 'error' });
    }
  }

  const [actions] = useState<RowActions>(() => ({
    setStatus: (task, status) => changeStatus(task, status),
    update: (task, change) => void changeProperty(task, change),
    toggleSelected: (id) => {
      anchorRef.current = id;
      latest.current.onToggleSelected(id);
    },
    pick: (id, range) => {
      const { ordered: rows, onToggleSelected: toggle, onSelectMany: add } = latest.current;
      const to = rows.findIndex((t) => t.id === id);
      const from = rows.findIndex((t) => t.id === anchorRef.current);
      anchorRef.current = id;
      if (!range) toggle(id);
      else if (from < 0) add([id]);
      else add(rows.slice(Math.min(from, to), Math.max(from, to) + 1).map((t) => t.id));
    },
    startEdit: (task) => updateEdit({ id: task.id, draft: task.title }),
    changeDraft: (draft) => {
      if (editRef.current) updateEdit({ id: editRef.current.id, draft });
    },
    cancelEdit: () => {
      if (editRef.current) finishEdit(editRef.current.id);
    },
    saveEdit: () => {
      const current = editRef.current;
      if (!current) return;
      const task = latest.current.tasks.find((t) => t.id === current.id);
      if (!task || current.draft.trim() === task.title) {
        finishEdit(current.id);
        return;
      }
      const checked = validate(taskPatch, { title: current.draft });
      if (!checked.ok) {
        updateEdit({ ...current, error: checked.errors.title ?? checked.errors._ });
        return;
      }
      // Cleared before the write so the blur that follows Enter does not save twice.
      editRef.current = null;
      void attempt(() => sync.repos.tasks.update(current.id, { title: current.draft })).then(
        (result) => {
          if (result.ok) finishEdit(current.id);
          else updateEdit({ ...current, error: result.errors.title ?? result.errors._ });
        },
      );
    },
    remove: (task) => {
      const list = latest.current.ordered;
      const index = list.findIndex((t) => t.id === task.id);
      const next = list[index + 1] ?? list[index - 1];
      focusLater(next?.id ?? null);
      void deleteWithUndo('tasks', task.id, task.title).then((ok) => {
        if (!ok) focusLater(null);
      });
    },
    focused: onFocused,
    carryKey: (id, event) => carryKey(id, event),
    carryBlur: (id) => carryBlur(id),
  }));

  return { actions, edit, anchorRef };
}
