// A task's status, priority, due date, repeat and assignee as chips, each opening a menu to
// change it (editors), or the same values as plain text (viewers). Two forms: chips with words
// under the task screen's title, and a compact, icon-only one for the rows of a list (and of
// My work), whose empty values stay in place but unseen until the row is hovered or focused,
// so that their single keys (s, p, d, a) still open them.
import type { ReactNode } from 'react';

import { describeRepeat, readRepeat } from '@/data/recurrence';
import { PRIORITIES, STATUSES, canTransition, type Priority, type TaskStatus } from '@/data/schema';
import { Avatar } from '@/components/ui/avatar';
import { Menu, Popover } from '@/components/ui/menu';
import { useAvatarUrl } from '@/hooks/use-avatar-url';
import type { Member } from '@/hooks/use-members';
import { todayIso } from '@/utils/format';

import { PRIORITY_LABELS, STATUS_LABELS, type TaskRow } from '../task-filter';
import { DateMenu, dueChipText } from './date-menu';
import { dueText } from './due-text';
import './property-chips.css';
import { RepeatChip } from './repeat-menu';

/** Every change a chip can make, as the repositories take it. */
export type PropertyChange =
  | { status: TaskStatus }
  | { priority: Priority }
  | { due_on: string | null }
  | { repeat: string | null }
  | { assignee_id: string | null };

/** The single key that opens each chip, on a focused row or the open task. */
export const PROPERTY_KEYS = { status: 's', priority: 'p', due_on: 'd', assignee_id: 'a' } as const;

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

/** How a chip looks and is named: with words, or compact in a row of many. */
interface ChipForm {
  /** Icon-only (the due date stays short text), for a row. */
  compact?: boolean | undefined;
  /**
   * The task's title, named in the button ("Status of Fix gate: To do") where many rows
   * each have one.
   */
  of?: string | undefined;
}

/** "Status: To do", or "Status of Fix gate: To do" in a row. */
function chipLabel(property: string, form: ChipForm, value: string): string {
  return form.of === undefined ? `${property}: ${value}` : `${property} of ${form.of}: ${value}`;
}

/**
 * The chip's classes. `empty`: the property has no value (a compact chip is then unseen
 * until its row is hovered or focused); `tone`: how its value is coloured.
 */
function chipClass(
  form: ChipForm,
  property: string,
  empty: boolean,
  tone?: 'overdue' | `priority-${number}`,
): string {
  const base = form.compact ? 'row-prop' : 'chip';
  return [
    base,
    form.compact ? `row-prop--${property}` : '',
    empty ? `${base}--empty` : '',
    tone ? `${base}--${tone}` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

/** Status: the allowed transitions, in their natural order, the current one checked. */
export function StatusChip({
  status,
  onChange,
  shortcut,
  ...form
}: ChipForm & {
  status: TaskStatus;
  onChange: (status: TaskStatus) => void;
  shortcut?: string | undefined;
}) {
  const label = STATUS_LABELS[status];
  return (
    <Popover
      label={chipLabel('Status', form, label)}
      popup="menu"
      popupLabel="Status"
      // In a row, "To do" is what every task starts as, and a done one has its tick.
      className={chipClass(form, 'status', Boolean(form.compact) && status !== 'doing')}
      shortcut={shortcut}
      trigger={
        <>
          <StatusIcon status={status} />
          {form.compact ? null : label}
        </>
      }
    >
      {(close) => (
        <Menu
          label="Status"
          selected={status}
          items={STATUSES.filter((to) => canTransition(status, to)).map((to) => ({
            value: to,
            label: STATUS_LABELS[to],
            icon: <StatusIcon status={to} />,
          }))}
          onSelect={(value) => {
            close();
            if (value !== status) onChange(value as TaskStatus);
          }}
        />
      )}
    </Popover>
  );
}

export function PriorityChip({
  priority,
  onChange,
  shortcut,
  ...form
}: ChipForm & {
  priority: Priority;
  onChange: (priority: Priority) => void;
  shortcut?: string | undefined;
}) {
  return (
    <Popover
      label={chipLabel('Priority', form, priorityText(priority))}
      popup="menu"
      popupLabel="Priority"
      className={chipClass(form, 'priority', priority === 0, `priority-${priority}`)}
      shortcut={shortcut}
      trigger={
        <>
          <PriorityIcon priority={priority} />
          {form.compact ? null : priorityText(priority)}
        </>
      }
    >
      {(close) => (
        <Menu
          label="Priority"
          selected={String(priority)}
          items={PRIORITY_ORDER.map((each) => ({
            value: String(each),
            label: priorityText(each),
            icon: <PriorityIcon priority={each} />,
          }))}
          onSelect={(value) => {
            close();
            const picked = Number(value) as Priority;
            if (picked !== priority) onChange(picked);
          }}
        />
      )}
    </Popover>
  );
}

export function DueChip({
  task,
  now,
  onChange,
  shortcut,
  ...form
}: ChipForm & {
  task: Pick<TaskRow, 'due_on' | 'status'>;
  now: number;
  onChange: (dueOn: string | null) => void;
  shortcut?: string | undefined;
}) {
  const done = task.status === 'done';
  const due = task.due_on ? dueChipText(task.due_on, now, done) : null;
  // A row has room for "Today", "3 Mar": its colour (and its name) say it is overdue.
  const short = task.due_on && form.compact ? dueText(task.due_on, now, done).date : null;
  return (
    <Popover
      label={chipLabel('Due date', form, due ? due.text : 'None')}
      popup="dialog"
      popupLabel="Due date"
      className={chipClass(form, 'due', !due, due?.overdue ? 'overdue' : undefined)}
      shortcut={shortcut}
      trigger={
        short ?? (
          <>
            <CalendarIcon />
            {form.compact ? null : due ? due.text : 'Due date'}
          </>
        )
      }
    >
      {(close) => (
        <DateMenu
          value={task.due_on}
          today={todayIso(now)}
          onPick={(date) => {
            close();
            if (date !== task.due_on) onChange(date);
          }}
        />
      )}
    </Popover>
  );
}

export function AssigneeChip({
  assigneeId,
  assignee,
  members,
  meId,
  onChange,
  shortcut,
  ...form
}: ChipForm & {
  assigneeId: string | null;
  assignee: Assignee | null;
  members: readonly Member[];
  /** The signed-in user, marked "(you)" in the menu. */
  meId: string;
  onChange: (assigneeId: string | null) => void;
  shortcut?: string | undefined;
}) {
  return (
    <Popover
      label={chipLabel('Assignee', form, assigneeText(assignee))}
      popup="menu"
      popupLabel="Assignee"
      className={chipClass(form, 'assignee', !assignee)}
      shortcut={shortcut}
      trigger={
        <>
          {assignee ? <PersonAvatar person={assignee} /> : <PersonIcon />}
          {form.compact ? null : assigneeText(assignee)}
        </>
      }
    >
      {(close) => (
        <Menu
          label="Assignee"
          selected={assigneeId ?? ''}
          items={[
            { value: '', label: 'Unassigned', icon: <PersonIcon /> },
            ...members.map((member) => ({
              value: member.userId,
              label: member.userId === meId && member.named ? `${member.name} (you)` : member.name,
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
            if (id !== assigneeId) onChange(id);
          }}
        />
      )}
    </Popover>
  );
}

export interface PropertyChipsProps extends ChipForm {
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
}

/**
 * Every chip of a task, each opened by its key too. With words: status, priority, due date,
 * repeat, assignee. Compact, in a row's aligned columns: due date, assignee, priority, status
 * (the row marks a repeat itself).
 */
export function PropertyChips({
  task,
  now,
  members,
  assignee,
  meId,
  onChange,
  ...form
}: PropertyChipsProps) {
  const status = (
    <StatusChip
      {...form}
      status={task.status}
      shortcut={PROPERTY_KEYS.status}
      onChange={(value) => onChange('status', { status: value })}
    />
  );
  const priority = (
    <PriorityChip
      {...form}
      priority={task.priority}
      shortcut={PROPERTY_KEYS.priority}
      onChange={(value) => onChange('priority', { priority: value })}
    />
  );
  const due = (
    <DueChip
      {...form}
      task={task}
      now={now}
      shortcut={PROPERTY_KEYS.due_on}
      onChange={(value) => onChange('due_on', { due_on: value })}
    />
  );
  const person = (
    <AssigneeChip
      {...form}
      assigneeId={task.assignee_id}
      assignee={assignee}
      members={members}
      meId={meId}
      shortcut={PROPERTY_KEYS.assignee_id}
      onChange={(value) => onChange('assignee_id', { assignee_id: value })}
    />
  );
  if (form.compact) {
    return (
      <div className="property-chips property-chips--compact">
        {due}
        {person}
        {priority}
        {status}
      </div>
    );
  }
  return (
    <div className="property-chips">
      {status}
      {priority}
      {due}
      <RepeatChip task={task} now={now} onChange={(repeat) => onChange('repeat', { repeat })} />
      {person}
    </div>
  );
}

/**
 * A row's properties for someone who may not change them, in the same columns as the
 * compact chips: short text and named icons. "To do" is not said (every task starts so).
 */
export function PropertyMarks({
  task,
  now,
  assignee,
}: {
  task: TaskRow;
  now: number;
  assignee: Assignee | null;
}) {
  const due = task.due_on ? dueText(task.due_on, now, task.status === 'done') : null;
  return (
    <div className="property-chips property-chips--compact">
      <span className={`row-prop row-prop--due${due?.overdue ? ' row-prop--overdue' : ''}`}>
        {due ? (
          <>
            <span className="visually-hidden">{due.overdue ? 'Overdue: ' : 'Due: '}</span>
            {due.date}
          </>
        ) : null}
      </span>
      <span className="row-prop row-prop--assignee">
        {assignee ? <PersonAvatar person={assignee} named /> : null}
      </span>
      <span className={`row-prop row-prop--priority row-prop--priority-${task.priority}`}>
        {task.priority > 0 ? (
          <span role="img" aria-label={`Priority: ${priorityText(task.priority)}`}>
            <PriorityIcon priority={task.priority} />
          </span>
        ) : null}
      </span>
      <span className="row-prop row-prop--status">
        {task.status === 'doing' ? (
          <span role="img" aria-label={`Status: ${STATUS_LABELS[task.status]}`}>
            <StatusIcon status={task.status} />
          </span>
        ) : null}
      </span>
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

/** `named`: the avatar alone says who it is ("Assigned to Bob"), with no name beside it. */
function PersonAvatar({
  person,
  named = false,
}: {
  person: { id: string; name: string; avatarPath: string | null };
  named?: boolean;
}) {
  const src = useAvatarUrl(person.avatarPath);
  return (
    <Avatar
      id={person.id}
      name={named ? `Assigned to ${person.name}` : person.name}
      src={src}
      size={20}
      decorative={!named}
    />
  );
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

/** A circle: empty for "To do", half filled for "Doing", ticked for "Done". */
export function StatusIcon({ status }: { status: TaskStatus }) {
  return (
    <svg {...icon} data-status={status}>
      <circle cx="8" cy="8" r="6" />
      {status === 'doing' ? <path d="M8 2a6 6 0 0 1 0 12z" fill="currentColor" /> : null}
      {status === 'done' ? <path d="M5 8.2l2 2 4-4.2" /> : null}
    </svg>
  );
}

/** Three bars, as many filled as the priority is high; dashes for none. */
export function PriorityIcon({ priority }: { priority: Priority }) {
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
