// One row of the virtualised task list: select, drag handle, done tick, title (a link, or an
// inline editor), a quiet meta line (priority, due date, repeat mark, checklist progress,
// assignee, sync mark), and on the
// right a status chip and the row's actions. The round tick is done / not done; the chip
// opens a menu of the allowed transitions: it shows "Doing" always, "To do" only with the
// actions (on hover and focus), and not at all on a done task (the tick reopens it).
// Shift+click selects a range, Ctrl/Cmd+click toggles one row.
// Rows have a fixed height so the virtualiser never has to measure them: the meta line never
// wraps; the due date gives way first, the assignee and the sync mark never do.
import { useSortable } from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import { memo, useId, useRef, useState, type KeyboardEvent, type MouseEvent } from 'react';

import { Avatar } from '@/components/ui/avatar';
import { Menu, Popover } from '@/components/ui/menu';
import { useAvatarUrl } from '@/hooks/use-avatar-url';
import { Link } from '@/lib/router';
import type { ChecklistProgress } from '@/data/checklist-queries';
import { canTransition, STATUSES, type TaskStatus } from '@/data/schema';

import { toggledStatus } from '../hooks/use-task-actions';
import { PRIORITY_LABELS, STATUS_LABELS, type TaskRow } from '../task-filter';
import { dueText } from './due-text';
import { CloudUpIcon, GripIcon, PencilIcon, TrashIcon } from './icons';
import { RepeatIcon, repeatLabel } from './repeat-menu';
import './task-row-marks.css';

/** Height of a row (px); the CSS row box uses the same number through a style. */
export const ROW_HEIGHT_PX = 64;

export interface TitleEdit {
  id: string;
  draft: string;
  error?: string | undefined;
}

export interface Assignee {
  id: string;
  name: string;
  avatarPath: string | null;
}

/** Callbacks shared by every row (one stable object, so memoised rows stay put). */
export interface RowActions {
  /** Resolves with whether the change was written. */
  setStatus(task: TaskRow, status: TaskStatus): Promise<boolean>;
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
  now: number;
  /** Just added: shown with a brief highlight. */
  highlighted: boolean;
  actions: RowActions;
  /** Carried by keyboard. */
  carried: boolean;
  /** How far along its checklist is; absent when it has none. */
  checklist?: ChecklistProgress | undefined;
}

function AssigneeAvatar({ assignee }: { assignee: Assignee }) {
  const src = useAvatarUrl(assignee.avatarPath);
  return (
    <span className="tasks-row__assignee">
      <span className="visually-hidden">Assigned to </span>
      <Avatar id={assignee.id} name={assignee.name} src={src} size={22} />
    </span>
  );
}

/** Whether a click landed on one of the row's own controls (they keep their meaning). */
function onControl(event: MouseEvent): boolean {
  const target = event.target as HTMLElement;
  return target.closest('button, input, .popover__panel') !== null;
}

function StatusChip({
  title,
  status,
  onChoose,
}: {
  title: string;
  status: TaskStatus;
  onChoose: (status: TaskStatus) => void;
}) {
  const items = STATUSES.filter((to) => canTransition(status, to)).map((to) => ({
    value: to,
    label: STATUS_LABELS[to],
  }));
  return (
    <Popover
      className={`tasks-row__status tasks-row__status--${status}`}
      label={`Status of ${title}: ${STATUS_LABELS[status]}`}
      trigger={STATUS_LABELS[status]}
      popup="menu"
      popupLabel="Status"
    >
      {(close) => (
        <Menu
          label="Status"
          items={items}
          selected={status}
          onSelect={(value) => {
            close();
            onChoose(value as TaskStatus);
          }}
        />
      )}
    </Popover>
  );
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
  now,
  highlighted,
  actions,
  carried,
  checklist,
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
  const due = task.due_on ? dueText(task.due_on, now, done) : null;
  const chooseStatus = (next: TaskStatus) => {
    if (next === status) return;
    setOverride({ over: task.status, to: next });
    void actions.setStatus(task, next).then((written) => {
      if (!written) setOverride(null);
    });
  };
  const row = useRef<HTMLLIElement | null>(null);
  const metaId = `${ids}-meta`;
  const repeats = repeatLabel(task.repeat);
  const errorId = `${ids}-error`;

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
        isDragging || carried ? 'tasks-row--dragging' : '',
        highlighted ? 'tasks-row--new' : '',
      ]
        .filter(Boolean)
        .join(' ')}
      style={{
        height: ROW_HEIGHT_PX,
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
      aria-describedby={edit?.error ? undefined : metaId}
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
            title={task.title}
          >
            {task.title}
          </Link>
        )}
        {edit?.error ? (
          <div id={errorId} className="tasks-row__error field__error">
            {edit.error}
          </div>
        ) : (
          <div id={metaId} className="tasks-row__meta">
            {status === 'doing' && !canEdit ? (
              <span className="tasks-row__status-text">{STATUS_LABELS[status]}</span>
            ) : null}
            {task.priority > 0 ? (
              <span className={`tasks-row__priority tasks-row__priority--${task.priority}`}>
                <span className="visually-hidden">Priority: </span>
                {PRIORITY_LABELS[task.priority]}
              </span>
            ) : null}
            {due ? (
              <span
                className={`tasks-row__due${due.overdue ? ' tasks-row__due--overdue' : ''}`}
                title={`Due: ${due.text}`}
              >
                <span className="visually-hidden">Due: </span>
                {due.overdue ? <span className="tasks-row__due-prefix">Overdue · </span> : null}
                {due.date}
              </span>
            ) : null}
            {repeats ? (
              <span className="tasks-row__repeat" title={repeats}>
                <RepeatIcon />
                <span className="visually-hidden">{`${repeats}.`}</span>
              </span>
            ) : null}
            {checklist ? (
              <span
                className="tasks-row__checklist"
                title={`${checklist.done} of ${checklist.total} checklist items done`}
              >
                <span aria-hidden="true">
                  {checklist.done}/{checklist.total}
                </span>
                <span className="visually-hidden">
                  {`${checklist.done} of ${checklist.total} checklist items done.`}
                </span>
              </span>
            ) : null}
            {assignee ? <AssigneeAvatar assignee={assignee} /> : null}
            {pending ? (
              <span className="badge badge--pending tasks-row__pending" title="Not synced yet">
                <CloudUpIcon />
                <span className="tasks-row__pending-text">Not synced yet</span>
              </span>
            ) : null}
          </div>
        )}
      </div>

      {canEdit ? (
        <div className="tasks-row__actions">
          {/* One place for both, so the chip keeps focus from To do to Doing and back. */}
          {status !== 'done' && !edit ? (
            <StatusChip
              title={task.title}
              status={status}
              onChoose={(next) => {
                chooseStatus(next);
                // The chip goes with "Done": focus stays on the row, not lost.
                if (next === 'done') row.current?.focus();
              }}
            />
          ) : null}
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
    </li>
  );
});
