// A task's status, priority, due date, repeat and assignee as a row of small chips under its
// title, each opening a menu to change it (editors), or the same values as plain text (viewers).
import type { ReactNode } from 'react';

import { describeRepeat, readRepeat } from '@/data/recurrence';
import { PRIORITIES, STATUS_TRANSITIONS, type Priority, type TaskStatus } from '@/data/schema';
import { Avatar } from '@/components/ui/avatar';
import { Menu, Popover } from '@/components/ui/menu';
import { useAvatarUrl } from '@/hooks/use-avatar-url';
import type { Member } from '@/hooks/use-members';
import { todayIso } from '@/utils/format';

import { PRIORITY_LABELS, STATUS_LABELS, type TaskRow } from '../task-filter';
import { DateMenu, dueChipText } from './date-menu';
import { RepeatChip } from './repeat-menu';

/** Every change a chip can make, as the repositories take it. */
export type PropertyChange =
  | { status: TaskStatus }
  | { priority: Priority }
  | { due_on: string | null }
  | { repeat: string | null }
  | { assignee_id: string | null };

/** Highest first, as people scan for what matters; "No priority" first, as the default. */
const PRIORITY_ORDER: readonly Priority[] = [0, ...[...PRIORITIES].filter((p) => p > 0).reverse()];

export function priorityText(priority: Priority): string {
  return priority === 0 ? 'No priority' : PRIORITY_LABELS[priority];
}

export interface Assignee {
  id: string;
  name: string;
  avatarPath: string | null;
  /** Still a member of the list (a former member stays shown, but can't be picked). */
  member: boolean;
}

/** The assignee's name as the chip and the menu write it. */
function assigneeText(assignee: Assignee | null): string {
  if (!assignee) return 'Unassigned';
  return assignee.member ? assignee.name : `${assignee.name} (no longer a member)`;
}

export function PropertyChips({
  task,
  now,
  members,
  assignee,
  meId,
  onChange,
}: {
  task: TaskRow;
  now: number;
  members: readonly Member[];
  assignee: Assignee | null;
  /** The signed-in user, marked "(you)" in the assignee menu. */
  meId: string;
  onChange: (
    field: 'status' | 'priority' | 'due_on' | 'repeat' | 'assignee_id',
    change: PropertyChange,
  ) => void;
}) {
  const due = task.due_on ? dueChipText(task.due_on, now, task.status === 'done') : null;
  const statuses = [task.status, ...STATUS_TRANSITIONS[task.status]];
  return (
    <div className="property-chips">
      <Popover
        label={`Status: ${STATUS_LABELS[task.status]}`}
        popup="menu"
        popupLabel="Status"
        className="chip"
        trigger={
          <>
            <StatusIcon status={task.status} />
            {STATUS_LABELS[task.status]}
          </>
        }
      >
        {(close) => (
          <Menu
            label="Status"
            selected={task.status}
            items={statuses.map((status) => ({
              value: status,
              label: STATUS_LABELS[status],
              icon: <StatusIcon status={status} />,
            }))}
            onSelect={(value) => {
              close();
              if (value !== task.status) onChange('status', { status: value as TaskStatus });
            }}
          />
        )}
      </Popover>

      <Popover
        label={`Priority: ${priorityText(task.priority)}`}
        popup="menu"
        popupLabel="Priority"
        className={`chip${task.priority === 0 ? ' chip--empty' : ''}`}
        trigger={
          <>
            <PriorityIcon priority={task.priority} />
            {priorityText(task.priority)}
          </>
        }
      >
        {(close) => (
          <Menu
            label="Priority"
            selected={String(task.priority)}
            items={PRIORITY_ORDER.map((priority) => ({
              value: String(priority),
              label: priorityText(priority),
              icon: <PriorityIcon priority={priority} />,
            }))}
            onSelect={(value) => {
              close();
              const priority = Number(value) as Priority;
              if (priority !== task.priority) onChange('priority', { priority });
            }}
          />
        )}
      </Popover>

      <Popover
        label={`Due date: ${due ? due.text : 'None'}`}
        popup="dialog"
        popupLabel="Due date"
        className={['chip', due ? '' : 'chip--empty', due?.overdue ? 'chip--overdue' : '']
          .filter(Boolean)
          .join(' ')}
        trigger={
          <>
            <CalendarIcon />
            {due ? due.text : 'Due date'}
          </>
        }
      >
        {(close) => (
          <DateMenu
            value={task.due_on}
            today={todayIso(now)}
            onPick={(date) => {
              close();
              if (date !== task.due_on) onChange('due_on', { due_on: date });
            }}
          />
        )}
      </Popover>

      <RepeatChip task={task} now={now} onChange={(repeat) => onChange('repeat', { repeat })} />

      <Popover
        label={`Assignee: ${assigneeText(assignee)}`}
        popup="menu"
        popupLabel="Assignee"
        className={`chip${assignee ? '' : ' chip--empty'}`}
        trigger={
          <>
            {assignee ? <PersonAvatar person={assignee} /> : <PersonIcon />}
            {assigneeText(assignee)}
          </>
        }
      >
        {(close) => (
          <Menu
            label="Assignee"
            selected={task.assignee_id ?? ''}
            items={[
              { value: '', label: 'Unassigned', icon: <PersonIcon /> },
              ...members.map((member) => ({
                value: member.userId,
                label:
                  member.userId === meId && member.named ? `${member.name} (you)` : member.name,
                icon: (
                  <PersonAvatar
                    person={{ id: member.userId, name: member.name, avatarPath: member.avatarPath }}
                  />
                ),
              })),
              ...(assignee && !assignee.member
                ? [
                    {
                      value: assignee.id,
                      label: assigneeText(assignee),
                      icon: <PersonAvatar person={assignee} />,
                      disabled: true,
                    },
                  ]
                : []),
            ]}
            onSelect={(value) => {
              close();
              const id = value || null;
              if (id !== task.assignee_id) onChange('assignee_id', { assignee_id: id });
            }}
          />
        )}
      </Popover>
    </div>
  );
}

/** The same values for someone who may not change them: words, not dimmed controls. */
export function PropertyText({
  task,
  now,
  assignee,
}: {
  task: TaskRow;
  now: number;
  assignee: Assignee | null;
}) {
  const due = task.due_on ? dueChipText(task.due_on, now, task.status === 'done') : null;
  const repeat = readRepeat(task.repeat);
  const rows: [string, ReactNode][] = [
    [
      'Status',
      <>
        <StatusIcon status={task.status} />
        {STATUS_LABELS[task.status]}
      </>,
    ],
    [
      'Priority',
      <>
        <PriorityIcon priority={task.priority} />
        {priorityText(task.priority)}
      </>,
    ],
    [
      'Due date',
      <span className={due?.overdue ? 'task-detail__overdue' : undefined}>
        {due ? due.text : 'None'}
      </span>,
    ],
    ...(repeat ? ([['Repeat', describeRepeat(repeat)]] as [string, ReactNode][]) : []),
    [
      'Assignee',
      <>
        {assignee ? <PersonAvatar person={assignee} /> : null}
        {assigneeText(assignee)}
      </>,
    ],
  ];
  return (
    <dl className="property-text">
      {rows.map(([term, value]) => (
        <div key={term} className="property-text__item">
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function PersonAvatar({
  person,
}: {
  person: { id: string; name: string; avatarPath: string | null };
}) {
  const src = useAvatarUrl(person.avatarPath);
  return <Avatar id={person.id} name={person.name} src={src} size={20} decorative />;
}

const icon = {
  width: 16,
  height: 16,
  viewBox: '0 0 16 16',
  fill: 'none',
  stroke: 'currentColor',
  strokeWidth: 1.6,
  strokeLinecap: 'round',
  strokeLinejoin: 'round',
  'aria-hidden': true,
  focusable: false,
  className: 'chip__icon',
} as const;

function StatusIcon({ status }: { status: TaskStatus }) {
  return (
    <svg {...icon} data-status={status}>
      <circle cx="8" cy="8" r="6" />
      {status === 'doing' ? <path d="M8 2a6 6 0 0 1 0 12z" fill="currentColor" /> : null}
      {status === 'done' ? <path d="M5 8.2l2 2 4-4.2" /> : null}
    </svg>
  );
}

function PriorityIcon({ priority }: { priority: Priority }) {
  if (priority === 0) {
    return (
      <svg {...icon}>
        <path d="M3 8h2M7 8h2M11 8h2" />
      </svg>
    );
  }
  return (
    <svg {...icon}>
      {[1, 2, 3].map((bar) => (
        <rect
          key={bar}
          x={bar * 4 - 2}
          y={13 - bar * 3.5}
          width="2.5"
          height={bar * 3.5}
          rx="0.5"
          fill={bar <= priority ? 'currentColor' : 'none'}
          strokeWidth={bar <= priority ? 0 : 1}
        />
      ))}
    </svg>
  );
}

function CalendarIcon() {
  return (
    <svg {...icon}>
      <rect x="2.5" y="3.5" width="11" height="10" rx="1.5" />
      <path d="M2.5 6.5h11M5.5 2v3M10.5 2v3" />
    </svg>
  );
}

function PersonIcon() {
  return (
    <svg {...icon}>
      <circle cx="8" cy="5.5" r="2.5" />
      <path d="M3 14c0-2.8 2.2-4.5 5-4.5s5 1.7 5 4.5" />
    </svg>
  );
}
