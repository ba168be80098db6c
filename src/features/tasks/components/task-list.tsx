// The tasks of a list as a window-virtualised, sortable list: only the rows near the
// viewport are in the DOM (10,000 tasks stay smooth), dnd-kit reorders them by pointer or
// keyboard, and the keyboard works on rows: j/k move focus, Enter/o/→ open the task, x
// selects, Shift+↓/↑ (or J/K) extend the selection, Escape clears it, F2 edits, Alt+↑/↓
// moves a task one place. Shift+click selects a range and Ctrl/Cmd+click one row, in the
// screen's one selection. Rows are laid out in flow between two spacers, so
// dnd-kit's transforms apply to them as to any list.
//
// A pointer drags with dnd-kit; a keyboard carries a task by its grip without it (Space or
// Enter picks it up, arrows move it one place, Space or Enter drops it, Escape puts it back).
// dnd-kit's keyboard sensor moved the task by geometry (the rows' measured boxes, a smooth
// scroll, the row "over" found in a later render), so a key that came before those settled
// was lost or dropped the task where it had been; a carry moves by index, in the key's own
// handler, and shows the new order at once.
import {
  closestCenter,
  DndContext,
  PointerSensor,
  useSensor,
  useSensors,
  type Announcements,
  type DragEndEvent,
  type UniqueIdentifier,
} from '@dnd-kit/core';
import { SortableContext, verticalListSortingStrategy } from '@dnd-kit/sortable';
import { useWindowVirtualizer, windowScroll } from '@tanstack/react-virtual';
import { useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';

import { taskPatch, type TaskStatus } from '@/data/schema';
import { validate } from '@sync/index';
import { useNow } from '@/hooks/use-now';
import { useShortcut } from '@/hooks/use-shortcut';
import { useDeleteWithUndo } from '@/hooks/use-delete-with-undo';
import { useNavigate } from '@/lib/router';
import { useServices } from '@/lib/services';
import { showToast } from '@/lib/toasts';
import { attempt } from '@/data/writes';

import { neighboursAfterMove, type TaskRow } from '../task-filter';
import {
  ROW_HEIGHT_PX,
  TaskRowItem,
  type Assignee,
  type RowActions,
  type TitleEdit,
} from './task-row';

/** Rows rendered beyond each edge of the viewport (keeps j/k and Tab on rendered rows). */
const OVERSCAN_ROWS = 8;

/** The list's distance from the top of the page when last measured (TaskList). */
let lastScrollMargin = 0;

/**
 * The virtualiser's window scroll, less the one to where the window already is: it makes that
 * one as it mounts, and a scroll makes the browser lay out the page first, within React's
 * commit (20–33 ms in a new tab, the page's first layout, which then came before its rows were
 * in the DOM for the browser's own). Its idea of where the window is follows every scroll event.
 */
const scrollWindowUnlessThere: typeof windowScroll = (offset, options, instance) => {
  const there = offset === instance.scrollOffset && !options.adjustments;
  if (there && options.behavior !== 'smooth') return;
  windowScroll(offset, options, instance);
};

/** Pointer travel before a drag starts (px), so clicks on the handle stay clicks. */
const DRAG_ACTIVATION_PX = 6;

export interface TaskListProps {
  listId: string;
  /** The tasks to show, in position order (already filtered). */
  tasks: TaskRow[];
  canEdit: boolean;
  selected: ReadonlySet<string>;
  onToggleSelected: (id: string) => void;
  /** Adds these to the selection (a Shift+click range, Shift+arrow). */
  onSelectMany: (ids: readonly string[]) => void;
  onClearSelection: () => void;
  pending: ReadonlySet<string>;
  assignees: ReadonlyMap<string, Assignee>;
  /** Selection mode: every row shows its select box (phones show them only then). */
  selecting: boolean;
  /** A task just added: highlighted, and scrolled to when it is off-screen. */
  highlightId: string | null;
  /**
   * How many tasks the list has, when `tasks` are only its first ones (the rest are being
   * read): rows say "of" that many, and the list keeps the height of all of them.
   */
  total?: number | undefined;
}

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

/** A task carried by keyboard: where it is shown until it is dropped. */
interface Carry {
  id: string;
  to: number;
}

function moved<T>(items: readonly T[], from: number, to: number): T[] {
  const next = items.filter((_, i) => i !== from);
  const item = items[from];
  if (item !== undefined) next.splice(to, 0, item);
  return next;
}

export function TaskList({
  listId,
  tasks,
  canEdit,
  selected,
  onToggleSelected,
  onSelectMany,
  onClearSelection,
  pending,
  assignees,
  selecting,
  highlightId,
  total,
}: TaskListProps) {
  const { sync } = useServices();
  const navigate = useNavigate();
  const now = useNow(60_000);
  const deleteWithUndo = useDeleteWithUndo();
  const listRef = useRef<HTMLUListElement>(null);
  const [scrollMargin, setScrollMargin] = useState(() => lastScrollMargin);
  const [edit, setEdit] = useState<TitleEdit | null>(null);
  const [activeId, setActiveId] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const [announcement, setAnnouncement] = useState('');
  // A move shows at once; the live query's next result (the moved row) replaces it.
  const [optimistic, setOptimistic] = useState<{ basedOn: TaskRow[]; order: string[] } | null>(
    null,
  );

  const placed = useMemo(() => {
    if (optimistic?.basedOn !== tasks || optimistic.order.length !== tasks.length) return tasks;
    const byId = new Map(tasks.map((task) => [task.id, task]));
    return optimistic.order.flatMap((id) => byId.get(id) ?? []);
  }, [optimistic, tasks]);
  // A task carried by keyboard, shown at `to` until it is dropped. Its list can change under
  // it (another device's edit): it stays at `to` among whatever rows there are.
  const [carry, setCarry] = useState<Carry | null>(null);
  const carryRef = useRef<Carry | null>(null);
  const ordered = useMemo(() => {
    const from = carry ? placed.findIndex((task) => task.id === carry.id) : -1;
    return carry && from >= 0 ? moved(placed, from, Math.min(carry.to, placed.length - 1)) : placed;
  }, [placed, carry]);
  const ids = useMemo(() => ordered.map((task) => task.id), [ordered]);

  // The rows' callbacks stay the same object across renders (rows are memoised), so they
  // read the latest state through refs.
  const latest = useRef({ tasks, placed, ordered, onToggleSelected, onSelectMany });
  // Where a Shift+click range starts: the row last picked (ticked, x, clicked).
  const anchor = useRef<string | null>(null);
  const editRef = useRef<TitleEdit | null>(null);
  const pendingFocus = useRef<string | null>(null);
  useLayoutEffect(() => {
    latest.current = { tasks, placed, ordered, onToggleSelected, onSelectMany };
  });

  // The list's distance from the top of the page, for the window virtualiser. What is above
  // it (a validation message, the "Added" line, a wrapped header) can change it, and any such
  // change resizes the screen, so the screen's size is watched. Read in the observer's
  // callbacks, which come once the browser has laid the page out (the first one before the
  // first paint), not in the layout effect: a read there made the browser lay out the whole
  // page an extra time, within React's commit (11–32 ms in a new tab), and the new margin
  // then rendered the rows again. Until the first reading, the last list's margin stands: a
  // margin off by less than the overscan (8 rows) renders a few more or fewer rows out of
  // sight, never a gap.
  useLayoutEffect(() => {
    const list = listRef.current;
    if (!list) return;
    const observer = new ResizeObserver(() => {
      lastScrollMargin = Math.round(list.getBoundingClientRect().top + window.scrollY);
      setScrollMargin(lastScrollMargin);
    });
    observer.observe(list.closest('section') ?? document.body);
    return () => observer.disconnect();
  }, []);

  const virtualizer = useWindowVirtualizer({
    count: ordered.length,
    estimateSize: () => ROW_HEIGHT_PX,
    overscan: OVERSCAN_ROWS,
    scrollMargin,
    getItemKey: (index) => ordered[index]?.id ?? index,
    // The window's size from the first render, so that it has its rows: the virtualiser
    // measures the window in an effect, and until then it rendered none.
    initialRect: { width: window.innerWidth, height: window.innerHeight },
    scrollToFn: scrollWindowUnlessThere,
  });

  function rowElement(id: string): HTMLElement | null {
    return listRef.current?.querySelector<HTMLElement>(`[data-task-id="${id}"]`) ?? null;
  }

  function focusRow(id: string) {
    const element = rowElement(id);
    if (element) {
      element.focus();
      return;
    }
    const index = latest.current.ordered.findIndex((task) => task.id === id);
    if (index < 0) return;
    pendingFocus.current = id;
    virtualizer.scrollToIndex(index, { align: 'auto' });
  }

  // A status change can take the focused row out of a filtered view; focus then goes to the
  // row that took its place instead of being lost.
  const rescue = useRef<{ id: string; index: number; basedOn: TaskRow[] } | null>(null);
  useLayoutEffect(() => {
    const pending = rescue.current;
    if (!pending || pending.basedOn === tasks) return;
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

  function updateEdit(next: TitleEdit | null) {
    editRef.current = next;
    setEdit(next);
  }

  function finishEdit(id: string) {
    pendingFocus.current = id;
    updateEdit(null);
  }

  /** Moves the task at `from` to `to`, in the order shown when no task is carried. */
  function commitMove(from: number, to: number, focusAfter: boolean, said?: string) {
    const current = latest.current.placed;
    const task = current[from];
    if (!task || to < 0 || to >= current.length || from === to) return;
    const currentIds = current.map((t) => t.id);
    const { afterId, beforeId } = neighboursAfterMove(currentIds, from, to);
    setOptimistic({ basedOn: latest.current.tasks, order: moved(currentIds, from, to) });
    if (focusAfter) pendingFocus.current = task.id;
    setAnnouncement(said ?? `${task.title} moved to position ${to + 1} of ${current.length}.`);
    void attempt(() => sync.repos.tasks.move(task.id, afterId, beforeId)).then((result) => {
      if (!result.ok) {
        setOptimistic(null);
        showToast({ message: result.errors._ ?? "Couldn't move the task.", tone: 'error' });
      }
    });
  }

  function updateCarry(next: Carry | null) {
    carryRef.current = next;
    setCarry(next);
  }

  // A carried row that the new order moves in the DOM loses the focus (its grip is taken
  // out and put back): that blur is not the user leaving, and the focus is put back on the
  // grip of the task named here, once the row is in its new place.
  const carryFocus = useRef<string | null>(null);

  function carryKey(id: string, event: KeyboardEvent<HTMLElement>) {
    const rows = latest.current.placed;
    const from = rows.findIndex((task) => task.id === id);
    const task = rows[from];
    if (!task) return;
    const count = rows.length;
    const current = carryRef.current?.id === id ? carryRef.current : null;
    // While a task is carried, no other key acts (a shortcut would take the focus away).
    if (current && event.key !== 'Tab') event.preventDefault();
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const drop = event.key === ' ' || event.key === 'Enter';
    if (!current) {
      if (!drop) return;
      event.preventDefault();
      updateCarry({ id, to: from });
      setAnnouncement(`Picked up ${task.title}, position ${from + 1} of ${count}.`);
      return;
    }
    const to = Math.min(current.to, count - 1);
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      const next = Math.min(count - 1, Math.max(0, to + (event.key === 'ArrowUp' ? -1 : 1)));
      if (next === to) return;
      carryFocus.current = id;
      updateCarry({ id, to: next });
      setAnnouncement(`${task.title} moved to position ${next + 1} of ${count}.`);
    } else if (drop || event.key === 'Tab') {
      // Tab drops it and goes on to the next control.
      updateCarry(null);
      const said = `${task.title} dropped at position ${to + 1} of ${count}.`;
      if (to === from) setAnnouncement(said);
      else commitMove(from, to, false, said);
    } else if (event.key === 'Escape') {
      carryFocus.current = id;
      cancelCarry(task);
    }
  }

  function cancelCarry(task: TaskRow) {
    updateCarry(null);
    setAnnouncement(`Moving cancelled. ${task.title} dropped back in place.`);
  }

  // The carried task's grip keeps the focus as it moves and when it is put back, and its row
  // stays in sight.
  useLayoutEffect(() => {
    const refocus = carryFocus.current;
    carryFocus.current = null;
    const grip = refocus
      ? rowElement(refocus)?.querySelector<HTMLElement>('.tasks-row__handle')
      : null;
    if (grip && document.activeElement !== grip) grip.focus({ preventScroll: true });
    if (!carry) return;
    const row = rowElement(carry.id);
    if (!row) return;
    const box = row.getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) {
      virtualizer.scrollToIndex(Math.min(carry.to, ordered.length - 1), { align: 'auto' });
    }
  });

  async function changeStatus(task: TaskRow, status: TaskStatus): Promise<boolean> {
    rescue.current = {
      id: task.id,
      index: latest.current.ordered.findIndex((t) => t.id === task.id),
      basedOn: latest.current.tasks,
    };
    const result = await attempt(() => sync.repos.tasks.setStatus(task.id, status));
    if (!result.ok) {
      showToast({
        message: result.errors.status ?? result.errors._ ?? "Couldn't change the status.",
        tone: 'error',
      });
    }
    return result.ok;
  }

  const [actions] = useState<RowActions>(() => ({
    setStatus: (task, status) => changeStatus(task, status),
    toggleSelected: (id) => {
      anchor.current = id;
      latest.current.onToggleSelected(id);
    },
    pick: (id, range) => {
      const { ordered: rows, onToggleSelected: toggle, onSelectMany: add } = latest.current;
      const to = rows.findIndex((t) => t.id === id);
      const from = rows.findIndex((t) => t.id === anchor.current);
      anchor.current = id;
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
      pendingFocus.current = next?.id ?? null;
      void deleteWithUndo('tasks', task.id, task.title).then((ok) => {
        if (!ok) pendingFocus.current = null;
      });
    },
    focused: (id) => setActiveId(id),
    carryKey: (id, event) => carryKey(id, event),
    carryBlur: (id) => {
      // Leaving the grip (a click elsewhere, another window) puts the task back.
      if (carryRef.current?.id !== id || carryFocus.current === id) return;
      const task = latest.current.placed.find((t) => t.id === id);
      if (task) cancelCarry(task);
    },
  }));

  const tabbableId = activeId && ids.includes(activeId) ? activeId : (ids[0] ?? null);

  // A task just added lands at the end, often below the fold: bring it into view (by index:
  // its row may not be rendered yet), where it shows its highlight. Quick add stays in sight
  // while typing the next one (it is sticky), so the page does not jump back to it.
  const revealed = useRef<string | null>(null);
  useLayoutEffect(() => {
    // Once per added task, as soon as the live query has brought its row.
    if (!highlightId || revealed.current === highlightId) return;
    const index = ordered.findIndex((task) => task.id === highlightId);
    if (index < 0) return;
    revealed.current = highlightId;
    const box = rowElement(highlightId)?.getBoundingClientRect();
    if (box && box.top >= 0 && box.bottom <= window.innerHeight) return;
    // Centred: clear of the toasts in the bottom corner.
    virtualizer.scrollToIndex(index, { align: 'center' });
  });

  function onKeyDown(event: KeyboardEvent<HTMLUListElement>) {
    if (dragging || carry || event.defaultPrevented || isFieldTarget(event.target)) return;
    const row = (event.target as HTMLElement).closest<HTMLElement>('[data-task-id]');
    const id = row?.dataset.taskId;
    if (!row || !id) return;
    const index = ordered.findIndex((task) => task.id === id);
    const task = ordered[index];
    if (!task) return;
    const onRow = event.target === row;

    if (event.altKey && (event.key === 'ArrowUp' || event.key === 'ArrowDown')) {
      event.preventDefault();
      if (canEdit) commitMove(index, index + (event.key === 'ArrowUp' ? -1 : 1), true);
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
      anchor.current = target.id;
      onSelectMany([id, target.id]);
      focusRow(target.id);
      return;
    }
    if (event.key === 'Escape' && selected.size > 0) {
      event.preventDefault();
      onClearSelection();
      return;
    }
    const step =
      event.key === 'j' || (onRow && event.key === 'ArrowDown')
        ? 1
        : event.key === 'k' || (onRow && event.key === 'ArrowUp')
          ? -1
          : 0;
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

  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: DRAG_ACTIVATION_PX } }),
  );

  const titleOf = (id: UniqueIdentifier) => ordered.find((task) => task.id === id)?.title ?? 'Task';
  const positionOf = (id: UniqueIdentifier | undefined) =>
    id === undefined ? -1 : ids.indexOf(String(id));
  const announcements: Announcements = {
    onDragStart: ({ active }) =>
      `Picked up ${titleOf(active.id)}, position ${positionOf(active.id) + 1} of ${ids.length}.`,
    onDragOver: ({ active, over }) =>
      over
        ? `${titleOf(active.id)} moved to position ${positionOf(over.id) + 1} of ${ids.length}.`
        : `${titleOf(active.id)} is no longer over the list.`,
    onDragEnd: ({ active, over }) =>
      over
        ? `${titleOf(active.id)} dropped at position ${positionOf(over.id) + 1} of ${ids.length}.`
        : `${titleOf(active.id)} dropped back in place.`,
    onDragCancel: ({ active }) => `Moving cancelled. ${titleOf(active.id)} dropped back in place.`,
  };

  function onDragEnd({ active, over }: DragEndEvent) {
    setDragging(false);
    if (!over || active.id === over.id) return;
    commitMove(positionOf(active.id), positionOf(over.id), false);
  }

  const items = virtualizer.getVirtualItems();
  const size = Math.max(total ?? 0, ordered.length);
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? -1;

  return (
    <>
      <DndContext
        sensors={sensors}
        collisionDetection={closestCenter}
        onDragStart={() => {
          updateCarry(null);
          setDragging(true);
        }}
        onDragEnd={onDragEnd}
        onDragCancel={() => setDragging(false)}
        accessibility={{
          announcements,
          screenReaderInstructions: {
            draggable:
              'To reorder, press Space or Enter, move with the arrow keys, then press Space or Enter again to drop, or Escape to cancel. Alt with the up or down arrow moves the focused task one place.',
          },
        }}
      >
        <SortableContext items={ids} strategy={verticalListSortingStrategy}>
          {/* role="list": Safari drops list semantics from lists styled without bullets. */}
          <ul
            ref={listRef}
            role="list"
            className={selecting ? 'tasks-list tasks-list--selecting' : 'tasks-list'}
            aria-label="Tasks"
            style={{
              paddingTop: first * ROW_HEIGHT_PX,
              paddingBottom: Math.max(0, size - 1 - last) * ROW_HEIGHT_PX,
            }}
            onKeyDown={onKeyDown}
          >
            {items.map((item) => {
              const task = ordered[item.index];
              if (!task) return null;
              return (
                <TaskRowItem
                  key={task.id}
                  task={task}
                  index={item.index}
                  count={size}
                  listId={listId}
                  canEdit={canEdit}
                  selected={selected.has(task.id)}
                  pending={pending.has(task.id)}
                  tabbable={task.id === tabbableId}
                  edit={edit?.id === task.id ? edit : null}
                  assignee={task.assignee_id ? (assignees.get(task.assignee_id) ?? null) : null}
                  now={now}
                  highlighted={task.id === highlightId}
                  carried={task.id === carry?.id}
                  actions={actions}
                />
              );
            })}
          </ul>
        </SortableContext>
      </DndContext>
      <p className="visually-hidden" role="status">
        {announcement}
      </p>
    </>
  );
}
