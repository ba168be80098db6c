// A task's status, priority, due date, repeat and assignee as chips, each opening a menu to
// change it (editors), or the same values as plain text (viewers). Two forms: chips with words
// under the task screen's title, and a compact, icon-only one for the rows of a list (and of
// My work), whose empty values stay in place but unseen until the row is hovered or focused,
// so that their single keys (s, p, d, a) still open them. The menus are the ones the bulk bar
// opens too (property-menus.tsx).
import type { ReactNode } from 'react';

import { describeRepeat, readRepeat } from '@/data/recurrence';
import type { Priority, TaskStatus } from '@/data/schema';
import { Popover } from '@/components/ui/menu';
import type { Member } from '@/hooks/use-members';
import { todayIso } from '@/utils/format';

import { STATUS_LABELS, type TaskRow } from '../task-filter';
import { DateMenu, dueChipText } from './date-menu';
import { dueText } from './due-text';
import './property-chips.css';
import {
  CalendarIcon,
  PersonAvatar,
  PersonIcon,
  PriorityIcon,
  StatusIcon,
  type Person,
} from './property-icons';
import {
  AssigneeMenu,
  formerMemberText,
  PriorityMenu,
  priorityText,
  StatusMenu,
} from './property-menus';
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

/** Each chip's name (its button's and its popup's), what it opens, and its column in a row. */
const CHIPS = {
  status: { name: 'Status', popup: 'menu', column: 'status' },
  priority: { name: 'Priority', popup: 'menu', column: 'priority' },
  due_on: { name: 'Due date', popup: 'dialog', column: 'due' },
  assignee_id: { name: 'Assignee', popup: 'menu', column: 'assignee' },
} as const;

export interface Assignee extends Person {
  /** Still a member of the list (a former member stays shown, but can't be picked). */
  member: boolean;
}

/** The assignee's name as the chip and the menu write it. */
function assigneeText(assignee: Assignee | null): string {
  if (!assignee) return 'Unassigned';
  return assignee.member ? assignee.name : formerMemberText(assignee.name);
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

/**
 * One chip: a button named after its property and value ("Status: To do", or "Status of Fix
 * gate: To do" in a row), opened by the property's key too; what its popup picks is written
 * when it differs from `current`.
 */
function Chip<V>({
  field,
  form,
  value,
  words = value,
  icon,
  empty,
  tone,
  current,
  onChange,
  children,
}: {
  field: keyof typeof CHIPS;
  form: ChipForm;
  /** The value in words, as the button's name says it. */
  value: string;
  /** What a chip with words shows after its icon, when not `value`. */
  words?: string;
  /** What the chip shows first: all that a compact one shows. */
  icon: ReactNode;
  /** No value: a compact chip is then unseen until its row is hovered or focused. */
  empty: boolean;
  /** How its value is coloured. */
  tone?: 'overdue' | `priority-${number}` | undefined;
  /** The task's value: picked again, nothing is written. */
  current: V;
  onChange: (value: V) => void;
  /** The popup's content, given what to call with the value picked. */
  children: (pick: (value: V) => void) => ReactNode;
}) {
  const { name, popup, column } = CHIPS[field];
  const base = form.compact ? 'row-prop' : 'chip';
  const className = [
    base,
    form.compact ? `row-prop--${column}` : '',
    empty ? `${base}--empty` : '',
    tone ? `${base}--${tone}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return (
    <Popover
      label={form.of === undefined ? `${name}: ${value}` : `${name} of ${form.of}: ${value}`}
      popup={popup}
      popupLabel={name}
      className={className}
      shortcut={PROPERTY_KEYS[field]}
      trigger={
        form.compact ? (
          icon
        ) : (
          <>
            {icon}
            {words}
          </>
        )
      }
    >
      {(close) =>
        children((picked) => {
          close();
          if (picked !== current) onChange(picked);
        })
      }
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
  const done = task.status === 'done';
  const due = task.due_on ? dueChipText(task.due_on, now, done) : null;
  // A row has room for "Today", "3 Mar": its colour (and its name) say it is overdue.
  const short = task.due_on && form.compact ? dueText(task.due_on, now, done).date : null;
  const status = (
    <Chip
      field="status"
      form={form}
      value={STATUS_LABELS[task.status]}
      icon={<StatusIcon status={task.status} />}
      // In a row, "To do" is what every task starts as, and a done one has its tick.
      empty={Boolean(form.compact) && task.status !== 'doing'}
      current={task.status}
      onChange={(value) => onChange('status', { status: value })}
    >
      {(pick) => <StatusMenu selected={task.status} from={task.status} onPick={pick} />}
    </Chip>
  );
  const priority = (
    <Chip
      field="priority"
      form={form}
      value={priorityText(task.priority)}
      icon={<PriorityIcon priority={task.priority} />}
      empty={task.priority === 0}
      tone={`priority-${task.priority}`}
      current={task.priority}
      onChange={(value) => onChange('priority', { priority: value })}
    >
      {(pick) => <PriorityMenu selected={task.priority} onPick={pick} />}
    </Chip>
  );
  const dueDate = (
    <Chip
      field="due_on"
      form={form}
      value={due ? due.text : 'None'}
      words={due ? due.text : 'Due date'}
      icon={short ?? <CalendarIcon />}
      empty={!due}
      tone={due?.overdue ? 'overdue' : undefined}
      current={task.due_on}
      onChange={(value) => onChange('due_on', { due_on: value })}
    >
      {(pick) => <DateMenu value={task.due_on} today={todayIso(now)} onPick={pick} />}
    </Chip>
  );
  const person = (
    <Chip
      field="assignee_id"
      form={form}
      value={assigneeText(assignee)}
      icon={assignee ? <PersonAvatar person={assignee} /> : <PersonIcon />}
      empty={!assignee}
      current={task.assignee_id}
      onChange={(value) => onChange('assignee_id', { assignee_id: value })}
    >
      {(pick) => (
        <AssigneeMenu
          selected={task.assignee_id}
          members={members}
          meId={meId}
          former={assignee && !assignee.member ? assignee : null}
          onPick={pick}
        />
      )}
    </Chip>
  );
  if (form.compact) {
    return (
      <div className="property-chips property-chips--compact">
        {dueDate}
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
      {dueDate}
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
