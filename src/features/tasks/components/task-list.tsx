// The tasks of a list as a window-virtualised, sortable list: only the rows near the
// viewport are in the DOM (10,000 tasks stay smooth), a pointer reorders them with dnd-kit
// and a keyboard by carrying a task by its grip, and the keyboard works on rows (j/k, Enter,
// x, F2, Alt+↑/↓…). Shift+click selects a range and Ctrl/Cmd+click one row, in the screen's
// one selection. Rows are laid out in flow between two spacers, so dnd-kit's transforms apply
// to them as to any list. This puts the pieces together; each job has its own module:
// hooks/use-window-rows.ts (the virtualiser), use-optimistic-order.ts (a move shown before it
// is written), task-drag-context.tsx (pointer) and use-keyboard-carry.ts (keyboard)
// reordering, use-list-keys.ts (the list's keys), use-row-focus.ts (where the focus goes) and
// use-row-actions.ts (the callbacks the rows share).
import { useLayoutEffect, useMemo, useRef, useState } from 'react';

import { useNow } from '@/hooks/use-now';
import { checklistQueries } from '@/data/checklist-queries';
import { useSharedLiveQuery } from '@/data/use-shared-live-query';
import { useServices } from '@/lib/services';

import type { ShownRows } from '../hooks/shown-rows';
import { useCarriedInSight, useKeyboardCarry } from '../hooks/use-keyboard-carry';
import { useListKeys } from '../hooks/use-list-keys';
import { useOptimisticOrder } from '../hooks/use-optimistic-order';
import { useRowActions, type ListSelection } from '../hooks/use-row-actions';
import { useRowFocus } from '../hooks/use-row-focus';
import { useWindowRows } from '../hooks/use-window-rows';
import type { TaskRow } from '../task-filter';
import { TaskDragContext } from './task-drag-context';
import { ROW_HEIGHT_PX, TaskRowItem, type Assignee } from './task-row';

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
  });
  const { placed, commitMove } = useOptimisticOrder(tasks, latest, setAnnouncement);
  const carrying = useKeyboardCarry({ placed, latest, announce: setAnnouncement, commitMove });
  const { carry, ordered } = carrying;
  const ids = useMemo(() => ordered.map((task) => task.id), [ordered]);
  useLayoutEffect(() => {
    latest.current = { tasks, placed, ordered, onToggleSelected, onSelectMany };
  });

  const virtualizer = useWindowRows(listRef, ordered);
  const focus = useRowFocus({ listRef, latest, tasks, ids, scroller: virtualizer });
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

  const onKeyDown = useListKeys({
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
