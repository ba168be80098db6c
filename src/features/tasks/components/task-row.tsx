// One row of the virtualised task list, on one line: the round done tick (with the select box
// and the drag grip before it, shown on hover, focus or while selecting), the title (a link,
// or an inline editor), then the properties in aligned columns on the right: checklist
// progress, repeat mark, due date, assignee, priority and status. Editors get each property as
// a compact chip opening its menu (s, p, d, a open them from the row's keys); viewers see the
// same as named icons and short text. What a screen reader hears of the row is its title and
// one sentence of its properties (its description).
// Shift+click selects a range, Ctrl/Cmd+click toggles one row. On touch screens an editor
// swipes a row right to tick it, left to delete it, and long-presses to select it.
// Rows have a fixed height (the density's) so the virtualiser never has to measure them.
import { useSortable } from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import { memo, useId, useRef, useState, type KeyboardEvent, type MouseEvent } from 'react';

import type { ChecklistProgress } from '@/data/checklist-queries';
import type { TaskStatus } from '@/data/schema';
import type { Member } from '@/hooks/use-members';
import { Link } from '@/lib/router';

import { toggledStatus } from '../hooks/use-task-actions';
import { useRowSwipe } from '../hooks/use-row-swipe';
import { PRIORITY_LABELS, STATUS_LABELS, type TaskRow } from '../task-filter';
import { dueText } from './due-text';
import { CloudUpIcon, GripIcon, PencilIcon, TrashIcon } from './icons';
import { PropertyChips, PropertyMarks, type Assignee, type PropertyChange } from './property-chips';
import { RepeatIcon, repeatLabel } from './repeat-menu';
import '../row-swipe.css';
import './task-row-marks.css';

export interface TitleEdit {
  id: string;
  draft: string;
  error?: string | undefined;
}

/** Callbacks shared by every row (one stable object, so memoised rows stay put). */
export interface RowActions {
  /** Resolves with whether the change was written. */
  setStatus(task: TaskRow, status: TaskStatus): Promise<boolean>;
  /** A change of priority, due date or assignee from the row's chips. */
  update(task: TaskRow, change: PropertyChange): void;
  toggleSelected(id: string): void;
  /** A click with Shift (a range from the last picked row) or Ctrl/Cmd (one row). */
  pick(id: string, range: boolean): void;
  startEdit(task: TaskRow): void;
  changeDraft(draft: string): void;
  saveEdit(): void;
  cancelEdit(): void;
  remove(task: TaskRow): void;
  focused(id: string): void;
  /** A key on a task's grip: Space or Enter picks it up or drops it, arrows carry it. */
  carryKey(id: string, event: KeyboardEvent<HTMLElement>): void;
  /** The grip lost the focus: a carried task goes back. */
  carryBlur(id: string): void;
}

export interface TaskRowProps {
  task: TaskRow;
  index: number;
  count: number;
  listId: string;
  canEdit: boolean;
  selected: boolean;
  pending: boolean;
  tabbable: boolean;
  edit: TitleEdit | null;
  assignee: Assignee | null;
  /** The list's members, for the assignee menu. */
  members: readonly Member[];
  /** The signed-in user ("(you)" in the assignee menu). */
  meId: string;
  now: number;
  /** Just added: shown with a brief highlight. */
  highlighted: boolean;
  /** The task open beside the list: marked as the current one. */
  current: boolean;
  actions: RowActions;
  /** Carried by keyboard. */
  carried: boolean;
  /** How far along its checklist is; absent when it has none. */
  checklist?: ChecklistProgress | undefined;
  /** The row's height (px), the density's. */
  height: number;
  /** A touch screen: an editor swipes and long-presses rows. */
  touch: boolean;
}

/** Whether a click landed on one of the row's own controls (they keep their meaning). */
function onControl(event: MouseEvent): boolean {
  const target = event.target as HTMLElement;
  return target.closest('button, input, .popover__panel') !== null;
}

/** The row's properties as one sentence, for screen readers: "Doing. High priority. Due: Today." */
function describeRow({
  status,
  task,
  now,
  checklist,
  assignee,
  pending,
}: {
  status: TaskStatus;
  task: TaskRow;
  now: number;
  checklist: ChecklistProgress | undefined;
  assignee: Assignee | null;
  pending: boolean;
}): string {
  const repeats = repeatLabel(task.repeat);
  return [
    status === 'doing' ? `${STATUS_LABELS.doing}.` : '',
    task.priority > 0 ? `${PRIORITY_LABELS[task.priority]} priority.` : '',
    task.due_on ? `Due: ${dueText(task.due_on, now, status === 'done').text}.` : '',
    repeats ? `${repeats}.` : '',
    checklist ? `${checklist.done} of ${checklist.total} checklist items done.` : '',
    assignee ? `Assigned to ${assignee.name}.` : '',
    pending ? 'Not synced yet.' : '',
  ]
    .filter(Boolean)
    .join(' ');
}

export const TaskRowItem = memo(function TaskRowItem({
  task,
  index,
  count,
  listId,
  canEdit,
  selected,
  pending,
  tabbable,
  edit,
  assignee,
  members,
  meId,
  now,
  highlighted,
  current,
  actions,
  carried,
  checklist,
  height,
  touch,
}: TaskRowProps) {
  const ids = useId();
  const {
    attributes,
    listeners,
    setNodeRef,
    setActivatorNodeRef,
    transform,
    transition,
    isDragging,
  } = useSortable({ id: task.id, disabled: !canEdit, data: { title: task.title } });
  // The status shows the user's choice at once, before the write comes back through the
  // live query (a checkbox that snaps back for a frame looks broken). The override only
  // applies while the stored status is still the one it was chosen over.
  // Once the stored status moves, the override has done its job and is dropped, so a later
  // revert (a change the server refused) shows the server's status, not the stale choice.
  const [override, setOverride] = useState<{ over: TaskStatus; to: TaskStatus } | null>(null);
  if (override && override.over !== task.status) setOverride(null);
  const status = override?.over === task.status ? override.to : task.status;
  const done = status === 'done';
  const chooseStatus = (next: TaskStatus) => {
    if (next === status) return;
    setOverride({ over: task.status, to: next });
    void actions.setStatus(task, next).then((written) => {
      if (!written) setOverride(null);
    });
  };
  const swipes = touch && canEdit && !edit;
  const swipe = useRowSwipe({
    enabled: swipes,
    onSwipeRight: () => chooseStatus(toggledStatus(status)),
    onSwipeLeft: () => actions.remove(task),
    onLongPress: () => actions.toggleSelected(task.id),
  });
  const row = useRef<HTMLLIElement | null>(null);
  const descriptionId = `${ids}-description`;
  const errorId = `${ids}-error`;
  const repeats = repeatLabel(task.repeat);
  const shownTask = status === task.status ? task : { ...task, status };

  return (
    <li
      ref={(element) => {
        row.current = element;
        setNodeRef(element);
      }}
      className={[
        'tasks-row',
        done ? 'tasks-row--done' : '',
        selected ? 'tasks-row--selected' : '',
        current ? 'tasks-row--current' : '',
        isDragging || carried ? 'tasks-row--dragging' : '',
        highlighted ? 'tasks-row--new' : '',
        swipes ? 'row-swipe' : '',
        swipe.side ? 'row-swipe--swiping' : '',
      ]
        .filter(Boolean)
        .join(' ')}
      style={{
        height,
        transform: CSS.Translate.toString(transform),
        transition,
      }}
      data-task-id={task.id}
      data-status={task.status}
      data-index={index}
      tabIndex={tabbable ? 0 : -1}
      aria-setsize={count}
      aria-posinset={index + 1}
      aria-label={task.title}
      aria-describedby={edit?.error ? undefined : descriptionId}
      aria-current={current ? 'true' : undefined}
      {...swipe.bind}
      onFocus={() => actions.focused(task.id)}
      onMouseDown={(event) => {
        // Shift+click picks a range: no text selection from it.
        if (canEdit && event.shiftKey && !onControl(event)) event.preventDefault();
      }}
      onClick={(event) => {
        const toggle = event.metaKey || event.ctrlKey;
        if (!canEdit || !(event.shiftKey || toggle) || onControl(event)) return;
        // Not the link's new tab or window: the click selects.
        event.preventDefault();
        actions.pick(task.id, event.shiftKey);
      }}
    >
      {swipe.side ? (
        // What lifting the finger now would do, uncovered as the row slides.
        <span className={`row-swipe__action row-swipe__action--${swipe.side}`} aria-hidden="true">
          {swipe.side === 'left' ? 'Delete' : done ? 'Reopen' : 'Done'}
        </span>
      ) : null}
      <div
        className={swipes ? 'tasks-row__body row-swipe__content' : 'tasks-row__body'}
        style={swipe.offset ? { transform: `translateX(${swipe.offset}px)` } : undefined}
      >
        <div className="tasks-row__lead">
          {canEdit ? (
            <input
              type="checkbox"
              className="tasks-row__select"
              aria-label={`Select ${task.title}`}
              checked={selected}
              onChange={() => actions.toggleSelected(task.id)}
            />
          ) : null}
          {canEdit ? (
            <button
              type="button"
              ref={setActivatorNodeRef}
              className="tasks-row__handle"
              {...attributes}
              {...listeners}
              // A drag from the grip is not a swipe of the row.
              onPointerDown={(event) => {
                event.stopPropagation();
                listeners?.onPointerDown?.(event);
              }}
              aria-pressed={isDragging || carried || undefined}
              onKeyDown={(event) => actions.carryKey(task.id, event)}
              onBlur={() => actions.carryBlur(task.id)}
              aria-label={`Reorder ${task.title}`}
              title="Drag to reorder (or Alt + ↑ / ↓)"
            >
              <GripIcon />
            </button>
          ) : null}
          <input
            type="checkbox"
            className="tasks-row__done"
            aria-label={`Done: ${task.title}`}
            checked={done}
            disabled={!canEdit}
            onChange={() => chooseStatus(toggledStatus(status))}
          />
        </div>

        <div className="tasks-row__main">
          {edit ? (
            <input
              className="tasks-row__title-input field__control"
              aria-label={`Title of ${task.title}`}
              aria-invalid={edit.error ? true : undefined}
              aria-describedby={edit.error ? errorId : undefined}
              value={edit.draft}
              maxLength={400}
              // Opened by the user's own action (Edit, F2), so taking focus is expected.
              autoFocus
              onFocus={(event) => event.currentTarget.select()}
              onChange={(event) => actions.changeDraft(event.currentTarget.value)}
              onKeyDown={(event) => {
                if (event.key === 'Enter') {
                  event.preventDefault();
                  actions.saveEdit();
                } else if (event.key === 'Escape') {
                  event.preventDefault();
                  event.stopPropagation();
                  actions.cancelEdit();
                }
              }}
              onBlur={() => actions.saveEdit()}
            />
          ) : (
            <Link
              className="tasks-row__title"
              to={`/lists/${listId}/tasks/${task.id}`}
              // The task open beside the list: no second history entry for it.
              replace={current}
              title={task.title}
            >
              {task.title}
            </Link>
          )}
        </div>

        {edit?.error ? (
          <div id={errorId} className="tasks-row__error field__error">
            {edit.error}
          </div>
        ) : (
          <div className="tasks-row__props row-props">
            <span
              className="tasks-row__checklist"
              title={
                checklist
                  ? `${checklist.done} of ${checklist.total} checklist items done`
                  : undefined
              }
            >
              {checklist ? (
                <>
                  <span aria-hidden="true">
                    {checklist.done}/{checklist.total}
                  </span>
                  <span className="visually-hidden">
                    {`${checklist.done} of ${checklist.total} checklist items done.`}
                  </span>
                </>
              ) : null}
            </span>
            <span className="tasks-row__repeat" title={repeats ?? undefined}>
              {repeats ? (
                <span role="img" aria-label={repeats}>
                  <RepeatIcon />
                </span>
              ) : null}
            </span>
            {canEdit ? (
              <PropertyChips
                compact
                of={task.title}
                task={shownTask}
                now={now}
                members={members}
                assignee={assignee}
                meId={meId}
                onChange={(field, change) => {
                  if ('status' in change) {
                    chooseStatus(change.status);
                    // Gone with "Done" (it hides with the row's quiet chips): focus stays on
                    // the row.
                    if (change.status === 'done') row.current?.focus();
                  } else actions.update(task, change);
                }}
              />
            ) : (
              <PropertyMarks task={shownTask} now={now} assignee={assignee} />
            )}
          </div>
        )}

        {pending ? (
          <span className="badge badge--pending tasks-row__pending" title="Not synced yet">
            <CloudUpIcon />
            <span className="visually-hidden">Not synced yet</span>
          </span>
        ) : null}

        {canEdit ? (
          <div className="tasks-row__actions">
            <button
              type="button"
              className="tasks-row__icon-btn tasks-row__icon-btn--edit"
              aria-label={`Edit ${task.title}`}
              title="Edit title (F2)"
              onClick={() => actions.startEdit(task)}
            >
              <PencilIcon />
            </button>
            <button
              type="button"
              className="tasks-row__icon-btn tasks-row__icon-btn--danger"
              aria-label={`Delete ${task.title}`}
              title="Delete"
              onClick={() => actions.remove(task)}
            >
              <TrashIcon />
            </button>
          </div>
        ) : null}
      </div>
      <span id={descriptionId} hidden>
        {describeRow({ status, task, now, checklist, assignee, pending })}
      </span>
    </li>
  );
});
