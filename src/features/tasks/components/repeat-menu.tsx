// How a task repeats, on the task screen (product.md §4 "Repeat"): a chip beside the due
// date opening a picker of the common rules (every day, every weekday, every week on the due
// date's weekday, monthly on its day) and Custom… (weekdays, a day of the month, or days
// after done), with "Stop repeating" once it repeats. Completing an occurrence makes the next
// (repositories.ts); the words here say what carries on to it and what does not.
import { useLiveQuery } from 'dexie-react-hooks';
import { useEffect, useId, useLayoutEffect, useRef, useState, type FormEvent } from 'react';

import {
  describeRepeat,
  isoWeekday,
  nextDue,
  readRepeat,
  successorId,
  writeRepeat,
  type Repeat,
} from '@/data/recurrence';
import { REPEAT_AFTER_DAYS_MAX } from '@/data/schema';
import { Button } from '@/components/ui/button';
import { TextField } from '@/components/ui/field';
import { Menu, Popover } from '@/components/ui/menu';
import { Link } from '@/lib/router';
import { useServices } from '@/lib/services';
import { todayIso } from '@/utils/format';

import type { TaskRow } from '../task-filter';
import { dueChipText } from './date-menu';
import './repeat-menu.css';

/** What carries on to the next occurrences, and what does not: said wherever a rule is set. */
export const SERIES_NOTE =
  'Changes to the title, notes, priority, assignee and repeat carry on to the next ones. The due date is this one’s own.';

/** The menu item that opens the custom form (no rule is stored as this). */
const CUSTOM = 'custom';

/** Monday first, as ISO weekdays count (2024-01-01 was a Monday). */
const WEEKDAYS = Array.from({ length: 7 }, (_, i) => {
  const date = new Date(Date.UTC(2024, 0, 1 + i));
  const name = (weekday: 'long' | 'short') =>
    date.toLocaleDateString(undefined, { weekday, timeZone: 'UTC' });
  return { day: i + 1, long: name('long'), short: name('short') };
});

function weekdayName(day: number): string {
  return WEEKDAYS[day - 1]?.long ?? '';
}

/** "Every Mon" → "every Mon": a rule inside a sentence. */
function inSentence(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/** A rule's words for screen readers on a row or a chip: "Repeats every Mon, Thu". */
export function repeatLabel(rule: string | null): string | null {
  const repeat = readRepeat(rule);
  return repeat ? `Repeats ${inSentence(describeRepeat(repeat))}` : null;
}

/**
 * When the next occurrence would be due if this one were done today: "Next: Mon 7 Dec"
 * ("…, if done today" for a rule counted from completion).
 */
export function nextText(repeat: Repeat, dueOn: string | null, now: number): string {
  const next = dueChipText(nextDue(repeat, dueOn, todayIso(now)), now, false).text;
  return repeat.kind === 'after' ? `Next: ${next}, if done today` : `Next: ${next}`;
}

/**
 * Under the chips of a repeating task: its rule and when the next one would be due, with what
 * carries on to it; once done, a link to the next one (made when this one was completed).
 */
export function RepeatSummary({ task, now }: { task: TaskRow; now: number }) {
  const repeat = readRepeat(task.repeat);
  const done = task.status === 'done';
  const next = useNextOccurrence(done && repeat ? task : null);
  if (!repeat) return null;
  return (
    <p className="task-repeat">
      {repeatLabel(task.repeat)}
      {done ? (
        next ? (
          <>
            {' · '}
            <Link to={`/lists/${next.list_id}/tasks/${next.id}`}>
              Next one
              {next.due_on ? `, due ${dueChipText(next.due_on, now, false).text}` : ''}
            </Link>
          </>
        ) : null
      ) : (
        <>
          {' · '}
          {nextText(repeat, task.due_on, now)}. {SERIES_NOTE}
        </>
      )}
    </p>
  );
}

/** The live occurrence that follows `task` (its id is derived from the task's); null if none. */
function useNextOccurrence(task: TaskRow | null) {
  const { sync } = useServices();
  const [nextId, setNextId] = useState<{ of: string; id: string } | null>(null);
  const taskId = task?.id ?? null;
  useEffect(() => {
    if (!taskId) return;
    let current = true;
    void successorId(taskId).then((id) => {
      if (current) setNextId({ of: taskId, id });
    });
    return () => {
      current = false;
    };
  }, [taskId]);
  const id = task && nextId?.of === task.id ? nextId.id : null;
  const listId = task?.list_id ?? '';
  const lookup = useLiveQuery(
    async () => (id ? sync.queries.task(listId, id) : null),
    [sync, listId, id],
  );
  return lookup?.state === 'live' ? lookup.task : null;
}

export function RepeatChip({
  task,
  now,
  onChange,
}: {
  task: TaskRow;
  now: number;
  /** The new rule as stored, or null to stop repeating. */
  onChange: (rule: string | null) => void;
}) {
  const repeat = readRepeat(task.repeat);
  const text = repeat ? describeRepeat(repeat) : null;
  return (
    <Popover
      label={`Repeat: ${text ?? 'Never'}`}
      popup="dialog"
      popupLabel="Repeat"
      className={`chip${repeat ? '' : ' chip--empty'}`}
      trigger={
        <>
          <RepeatIcon className="chip__icon" />
          {text ?? 'Repeat'}
        </>
      }
    >
      {(close) => (
        <RepeatMenu
          value={task.repeat}
          dueOn={task.due_on}
          now={now}
          onPick={(rule) => {
            close();
            if (rule !== task.repeat) onChange(rule);
          }}
        />
      )}
    </Popover>
  );
}

function RepeatMenu({
  value,
  dueOn,
  now,
  onPick,
}: {
  value: string | null;
  dueOn: string | null;
  now: number;
  onPick: (rule: string | null) => void;
}) {
  const [custom, setCustom] = useState(false);
  const repeat = readRepeat(value);
  // The rules that follow the task's own date (today's for an undated task).
  const anchor = dueOn ?? todayIso(now);
  const weekday = isoWeekday(anchor);
  const monthDay = Number(anchor.slice(8));
  const items = [
    value
      ? { value: '', label: 'Stop repeating', hint: 'This one stays' }
      : { value: '', label: 'Never' },
    { value: 'daily', label: 'Every day' },
    { value: 'weekly:1,2,3,4,5', label: 'Every weekday', hint: 'Mon–Fri' },
    { value: `weekly:${weekday}`, label: `Every week on ${weekdayName(weekday)}` },
    {
      value: `monthly:${monthDay}`,
      label: describeRepeat({ kind: 'monthly', day: monthDay }),
    },
    { value: CUSTOM, label: 'Custom…' },
  ];
  const selected = items.some((item) => item.value === (value ?? '')) ? (value ?? '') : CUSTOM;

  return (
    <div className="repeat-menu">
      {repeat ? (
        <p className="repeat-menu__now">
          {describeRepeat(repeat)} · {nextText(repeat, dueOn, now)}
        </p>
      ) : null}
      {custom ? (
        <CustomRepeat
          initial={repeat}
          weekday={weekday}
          monthDay={monthDay}
          onSave={(rule) => onPick(writeRepeat(rule))}
          onCancel={() => setCustom(false)}
        />
      ) : (
        <Menu
          label="Repeat options"
          items={items}
          selected={selected}
          onSelect={(picked) => {
            if (picked === CUSTOM) setCustom(true);
            else onPick(picked || null);
          }}
        />
      )}
      <p className="repeat-menu__note">{SERIES_NOTE}</p>
    </div>
  );
}

type CustomKind = 'weekly' | 'monthly' | 'after';

const KINDS: readonly { kind: CustomKind; label: string }[] = [
  { kind: 'weekly', label: 'On days of the week' },
  { kind: 'monthly', label: 'On a day of the month' },
  { kind: 'after', label: 'Some days after done' },
];

/** A whole number typed in a field, or NaN. */
function wholeNumber(text: string): number {
  return /^\d+$/u.test(text.trim()) ? Number(text.trim()) : NaN;
}

/** Weekday toggles, a day of the month, or days after done: checked here before saving. */
function CustomRepeat({
  initial,
  weekday,
  monthDay,
  onSave,
  onCancel,
}: {
  initial: Repeat | null;
  weekday: number;
  monthDay: number;
  onSave: (repeat: Repeat) => void;
  onCancel: () => void;
}) {
  const [kind, setKind] = useState<CustomKind>(
    initial && initial.kind !== 'daily' ? initial.kind : 'weekly',
  );
  const [days, setDays] = useState<readonly number[]>(
    initial?.kind === 'weekly'
      ? initial.days
      : initial?.kind === 'daily'
        ? [1, 2, 3, 4, 5, 6, 7]
        : [weekday],
  );
  const [day, setDay] = useState(String(initial?.kind === 'monthly' ? initial.day : monthDay));
  const [after, setAfter] = useState(String(initial?.kind === 'after' ? initial.days : 1));
  const [error, setError] = useState<string | undefined>();
  const form = useRef<HTMLFormElement>(null);
  const ids = useId();

  // Opened from the menu, whose item is gone now: focus goes to the first choice.
  useLayoutEffect(() => {
    form.current?.querySelector<HTMLInputElement>('input:checked')?.focus();
  }, []);

  function submit(event: FormEvent) {
    event.preventDefault();
    if (kind === 'weekly') {
      if (days.length === 0) return setError('Pick at least one day.');
      return onSave({ kind, days });
    }
    if (kind === 'monthly') {
      const value = wholeNumber(day);
      if (!(value >= 1 && value <= 31)) return setError('Pick a day from 1 to 31.');
      return onSave({ kind, day: value });
    }
    const value = wholeNumber(after);
    if (!(value >= 1 && value <= REPEAT_AFTER_DAYS_MAX))
      return setError(`Pick 1 to ${REPEAT_AFTER_DAYS_MAX} days.`);
    onSave({ kind, days: value });
  }

  return (
    <form
      ref={form}
      className="repeat-form"
      aria-label="Custom repeat"
      noValidate
      onSubmit={submit}
    >
      <fieldset className="repeat-form__kinds">
        <legend className="field__label">Repeat</legend>
        {KINDS.map((option) => (
          <label key={option.kind} className="repeat-form__kind">
            <input
              type="radio"
              name={`${ids}-kind`}
              checked={kind === option.kind}
              onChange={() => {
                setKind(option.kind);
                setError(undefined);
              }}
            />
            {option.label}
          </label>
        ))}
      </fieldset>

      {kind === 'weekly' ? (
        <fieldset className="repeat-form__days">
          <legend className="visually-hidden">Days</legend>
          {WEEKDAYS.map(({ day: value, long, short }) => (
            <button
              key={value}
              type="button"
              className="repeat-form__day"
              aria-pressed={days.includes(value)}
              aria-label={long}
              onClick={() => {
                setDays(
                  days.includes(value)
                    ? days.filter((d) => d !== value)
                    : [...days, value].sort((a, b) => a - b),
                );
                setError(undefined);
              }}
            >
              {short.slice(0, 2)}
            </button>
          ))}
        </fieldset>
      ) : kind === 'monthly' ? (
        <TextField
          label="Day of the month (1–31)"
          inputMode="numeric"
          value={day}
          error={error}
          onChange={(event) => {
            setDay(event.currentTarget.value);
            setError(undefined);
          }}
        />
      ) : (
        <TextField
          label={`Days after done (1–${REPEAT_AFTER_DAYS_MAX})`}
          inputMode="numeric"
          value={after}
          error={error}
          onChange={(event) => {
            setAfter(event.currentTarget.value);
            setError(undefined);
          }}
        />
      )}
      {kind === 'weekly' && error ? (
        <p className="field__error" role="alert">
          {error}
        </p>
      ) : null}

      <div className="repeat-form__actions">
        <Button type="submit" variant="primary" size="sm">
          Save
        </Button>
        <Button size="sm" onClick={onCancel}>
          Back
        </Button>
      </div>
    </form>
  );
}

/** Two arrows in a loop: the row's and the chip's mark of a repeating task. */
export function RepeatIcon({ className }: { className?: string }) {
  return (
    <svg
      width={16}
      height={16}
      viewBox="0 0 16 16"
      fill="none"
      stroke="currentColor"
      strokeWidth={1.6}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
      className={className}
    >
      <path d="M2.5 7V6a2.5 2.5 0 0 1 2.5-2.5h8" />
      <path d="M11 1.5l2 2-2 2" />
      <path d="M13.5 9v1a2.5 2.5 0 0 1-2.5 2.5H3" />
      <path d="M5 14.5l-2-2 2-2" />
    </svg>
  );
}
