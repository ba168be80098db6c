// The tasks of a list as a window-virtualised, sortable list: only the rows near the
// viewport are in the DOM (10,000 tasks stay smooth), a pointer reorders them with dnd-kit
// and a keyboard by carrying a task by its grip, and the keyboard works on rows (j/k, Enter,
// x, F2, Alt+↑/↓…). Shift+click selects a range and Ctrl/Cmd+click one row, in the screen's
// one selection. Rows are laid out in flow between two spacers, so dnd-kit's transforms apply
// to them as to any list. This puts the pieces together; each job has its own module:
// hooks/use-window-rows.ts (the virtualiser), use-optimistic-order.ts (a move shown before it
// is written), task-drag-context.tsx (pointer) and use-keyboard-carry.ts (keyboard)
// reordering, use-list-keys.ts (the list's keys), use-row-focus.ts (where the focus goes) and
// use-row-actions.ts (the callbacks the rows share). A screen may show two of these one after
// the other (its open tasks, then its done ones): j/k go on from one's last row into the
// next one's first, and back.
import { useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';

import type { Member } from '@/hooks/use-members';
import { useNow } from '@/hooks/use-now';
import { checklistQueries } from '@/data/checklist-queries';
import { useSharedLiveQuery } from '@/data/use-shared-live-query';
import { useServices } from '@/lib/services';
import { rowStep } from '@/utils/row-keys';

import type { ShownRows } from '../hooks/shown-rows';
import { useCarriedInSight, useKeyboardCarry } from '../hooks/use-keyboard-carry';
import { useListKeys } from '../hooks/use-list-keys';
import { useOptimisticOrder } from '../hooks/use-optimistic-order';
import { useRowActions, type ListSelection } from '../hooks/use-row-actions';
import { useRowFocus } from '../hooks/use-row-focus';
import { useRowSize, useWindowRows } from '../hooks/use-window-rows';
import type { TaskRow } from '../task-filter';
import type { Assignee } from './property-chips';
import { TaskDragContext } from './task-drag-context';
import { TaskRowItem } from './task-row';

/**
 * The row a step of j/k (or ↓/↑ on a row) leads to out of this list: the first row of the
 * next list on the screen, or the last of the one before. Null when the key is not such a
 * step, or the step stays inside the list.
 */
function rowBeyond(event: KeyboardEvent<HTMLElement>, list: HTMLElement): HTMLElement | null {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return null;
  const target = event.target as HTMLElement;
  // Typing in a field (the title editor) is not a step.
  if (target instanceof HTMLInputElement && target.type !== 'checkbox') return null;
  const row = target.closest<HTMLElement>('[data-task-id]');
  const step = row ? rowStep(event.key, target === row) : 0;
  if (!row || step === 0) return null;
  // Only from the list's ends: a step inside it is the list's own keys' (they know the rows
  // that are not rendered).
  const index = Number(row.getAttribute('aria-posinset')) - 1;
  const size = Number(row.getAttribute('aria-setsize'));
  if (step > 0 ? index < size - 1 : index > 0) return null;
  const screen = list.closest('section') ?? document.body;
  const all = Array.from(screen.querySelectorAll<HTMLElement>('[data-task-id]'));
  const next = all[all.indexOf(row) + step];
  return next && !list.contains(next) ? next : null;
}

export interface TaskListProps {
  listId: string;
  /** The list's accessible name: "Tasks", "Done tasks". */
  label?: string | undefined;
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
  /** The list's members, for the rows' assignee menus. */
  members: readonly Member[];
  /** The signed-in user. */
  meId: string;
  /** Selection mode: every row shows its select box (phones show them only then). */
  selecting: boolean;
  /** A task just added: highlighted, and scrolled to when it is off-screen. */
  highlightId: string | null;
  /**
   * How many tasks the list has, when `tasks` are only its first ones (the rest are being
   * read): rows say "of" that many, and the list keeps the height of all of them.
   */
  total?: number | undefined;
  /** The task open beside the list: its row is marked current. */
  openTaskId?: string | undefined;
  /** The keys move the focus to a task's row (the panel beside the list follows). */
  onRowFocus?: ((taskId: string) => void) | undefined;
  /** A row is completing this task (its tick, its status menu, a swipe). */
  onCompleting?: ((taskId: string) => void) | undefined;
}

export function TaskList({
  listId,
  label = 'Tasks',
  tasks,
  canEdit,
  selected,
  onToggleSelected,
  onSelectMany,
  onClearSelection,
  pending,
  assignees,
  members,
  meId,
  selecting,
  highlightId,
  total,
  openTaskId,
  onRowFocus,
  onCompleting,
}: TaskListProps) {
  const now = useNow(60_000);
  const { sync } = useServices();
  // The rows' checklist progress: one live read of the list's items, shared.
  const checklists = useSharedLiveQuery(sync.queries, `checklist-progress:${listId}`, () =>
    sync.queries.extend(checklistQueries).checklistProgress(listId),
  );
  const listRef = useRef<HTMLUListElement>(null);
  const [activeId, setActiveId] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const [announcement, setAnnouncement] = useState('');

  // The rows' callbacks stay the same object across renders (rows are memoised), so they
  // read the latest state through this ref. On the first render nothing is moved or carried
  // yet: the tasks as placed and as ordered are the tasks.
  const latest = useRef<ShownRows & ListSelection>({
    tasks,
    placed: tasks,
    ordered: tasks,
    onToggleSelected,
    onSelectMany,
    onCompleting,
  });
  const { placed, commitMove } = useOptimisticOrder(tasks, latest, setAnnouncement);
  const carrying = useKeyboardCarry({ placed, latest, announce: setAnnouncement, commitMove });
  const { carry, ordered } = carrying;
  const ids = useMemo(() => ordered.map((task) => task.id), [ordered]);
  useLayoutEffect(() => {
    latest.current = { tasks, placed, ordered, onToggleSelected, onSelectMany, onCompleting };
  });

  const { density, height, touch } = useRowSize();
  const virtualizer = useWindowRows(listRef, ordered, height);
  const focus = useRowFocus({ listRef, latest, tasks, ids, scroller: virtualizer, onRowFocus });
  useCarriedInSight(carrying, focus.rowElement, virtualizer);
  const { actions, edit, anchorRef } = useRowActions({
    latest,
    focus,
    carrying,
    onFocused: setActiveId,
  });

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
    const box = focus.rowElement(highlightId)?.getBoundingClientRect();
    if (box && box.top >= 0 && box.bottom <= window.innerHeight) return;
    // Centred: clear of the toasts in the bottom corner.
    virtualizer.scrollToIndex(index, { align: 'center' });
  });

  const listKeys = useListKeys({
    listId,
    ordered,
    canEdit,
    moving: dragging || carry !== null,
    hasSelection: selected.size > 0,
    onSelectMany,
    onClearSelection,
    tabbableId,
    actions,
    anchorRef,
    focus,
    commitMove,
  });
  const onKeyDown = (event: KeyboardEvent<HTMLUListElement>) => {
    const next = !dragging && !carry && rowBeyond(event, event.currentTarget);
    if (!next) {
      listKeys(event);
      return;
    }
    event.preventDefault();
    const id = next.dataset.taskId;
    if (id) onRowFocus?.(id);
    next.focus();
  };

  const items = virtualizer.getVirtualItems();
  const size = Math.max(total ?? 0, ordered.length);
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? -1;

  return (
    <>
      <TaskDragContext
        rows={ordered}
        ids={ids}
        onDragStart={() => {
          carrying.endCarry();
          setDragging(true);
        }}
        onDragStop={() => setDragging(false)}
        onMove={(from, to) => commitMove(from, to)}
      >
        {/* role="list": Safari drops list semantics from lists styled without bullets. */}
        <ul
          ref={listRef}
          role="list"
          className={selecting ? 'tasks-list tasks-list--selecting' : 'tasks-list'}
          aria-label={label}
          data-density={density}
          style={{
            paddingTop: first * height,
            paddingBottom: Math.max(0, size - 1 - last) * height,
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
                members={members}
                meId={meId}
                now={now}
                highlighted={task.id === highlightId}
                current={task.id === openTaskId}
                height={height}
                touch={touch}
                carried={task.id === carry?.id}
                actions={actions}
                checklist={checklists?.get(task.id)}
              />
            );
          })}
        </ul>
      </TaskDragContext>
      <p className="visually-hidden" role="status">
        {announcement}
      </p>
    </>
  );
}
