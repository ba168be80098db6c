// One task of a My work view, on one line as in a list: the round done tick, the title (a
// link to the task), its list (colour dot and name) and its properties on the right: the
// compact chips the route composes in (due date, assignee, priority, status) where the user
// may edit the list, else the same as quiet text. The title has the first claim on the line;
// the list's name and then the properties give way. A task done here stays, ticked and
// struck through, until the view is left.
import { memo, useId, useState, type ComponentType, type CSSProperties } from 'react';

import { ColorDot } from '@/components/ui/color-dot';
import { ROW_HEIGHTS, useDensity } from '@/hooks/use-density';
import type { MyWorkRow } from '@/data/my-work-queries';
import type { TaskStatus } from '@/data/schema';
import { Link } from '@/lib/router';
import { formatDue } from '@/utils/format';

/** Words for what a viewer sees of a task's priority. */
const PRIORITY_TEXT = ['', 'Low priority', 'Medium priority', 'High priority'] as const;

/** What the property chips of a row are given. */
export interface MyWorkPropertiesProps {
  row: MyWorkRow;
  now: number;
}

export interface MyWorkRowProps {
  row: MyWorkRow;
  canEdit: boolean;
  tabbable: boolean;
  now: number;
  /** The property chips, shown for a list the user may edit (composed in by the route). */
  Properties: ComponentType<MyWorkPropertiesProps>;
  /** Resolves with whether the change was written. */
  onStatus: (row: MyWorkRow, status: TaskStatus) => Promise<boolean>;
  onFocused: (id: string) => void;
}

export const MyWorkRowItem = memo(function MyWorkRowItem({
  row,
  canEdit,
  tabbable,
  now,
  Properties,
  onStatus,
  onFocused,
}: MyWorkRowProps) {
  const { task, list } = row;
  const metaId = useId();
  // The device's density, as a list's rows have it (my-work.css picks fine or touch).
  const heights = ROW_HEIGHTS[useDensity()];
  // The tick shows at once, before the write comes back through the live query; dropped as
  // soon as the stored status moves (so a refused change shows the server's status).
  const [override, setOverride] = useState<{ over: TaskStatus; to: TaskStatus } | null>(null);
  if (override && override.over !== task.status) setOverride(null);
  const status = override?.over === task.status ? override.to : task.status;
  const done = status === 'done';
  const due = task.due_on && !done ? formatDue(task.due_on, now) : null;

  const toggle = () => {
    const next: TaskStatus = done ? 'todo' : 'done';
    setOverride({ over: task.status, to: next });
    void onStatus(row, next).then((written) => {
      if (!written) setOverride(null);
    });
  };

  return (
    <li
      className={done ? 'my-work-row my-work-row--done' : 'my-work-row'}
      data-task-id={task.id}
      data-status={status}
      tabIndex={tabbable ? 0 : -1}
      aria-label={task.title}
      aria-describedby={`${metaId}-list ${metaId}-props`}
      style={
        {
          '--row-height-fine': `${heights.fine}px`,
          '--row-height-touch': `${heights.touch}px`,
        } as CSSProperties
      }
      onFocus={() => onFocused(task.id)}
    >
      <input
        type="checkbox"
        className="my-work-row__done"
        aria-label={`Done: ${task.title}`}
        checked={done}
        disabled={!canEdit}
        onChange={toggle}
      />
      <Link
        className="my-work-row__title"
        to={`/lists/${list.id}/tasks/${task.id}`}
        title={task.title}
      >
        {task.title}
      </Link>
      <span id={`${metaId}-list`} className="my-work-row__list" title={list.name}>
        <ColorDot color={list.color} size={10} />
        <span className="visually-hidden">In </span>
        <span className="my-work-row__list-name">{list.name}</span>
      </span>
      <div id={`${metaId}-props`} className="my-work-row__props row-props">
        {canEdit && !done ? (
          <Properties row={row} now={now} />
        ) : (
          <>
            {due ? (
              <span className={due.overdue ? 'my-work-row__overdue' : undefined}>
                <span className="visually-hidden">Due: </span>
                {due.text}
              </span>
            ) : null}
            {status === 'doing' ? <span>Doing</span> : null}
            {task.priority > 0 ? <span>{PRIORITY_TEXT[task.priority]}</span> : null}
          </>
        )}
      </div>
    </li>
  );
});
