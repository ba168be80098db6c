// The due-date picker of the task screen: Today, Tomorrow, Next week, No date, and a month
// calendar (WAI-ARIA date grid: arrows move by day and week, PageUp/PageDown by month,
// Home/End to the week's ends, Enter picks). Dates are ISO `YYYY-MM-DD` strings, counted in
// UTC so a daylight-saving change never skips or repeats a day.
import { useId, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';

import { Menu } from '@/components/ui/menu';
import { addDays, todayIso } from '@/utils/format';

import { dueText } from './due-text';

const DAY_MS = 86_400_000;

function toUtc(iso: string): Date {
  const [year = 1970, month = 1, day = 1] = iso.split('-').map(Number);
  return new Date(Date.UTC(year, month - 1, day));
}

function fromUtc(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** The same day `months` later, or that month's last day when it is shorter (31 Jan → 28 Feb). */
export function addMonths(iso: string, months: number): string {
  const date = toUtc(iso);
  const first = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1));
  const lastDay = new Date(
    Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0),
  ).getUTCDate();
  first.setUTCDate(Math.min(date.getUTCDate(), lastDay));
  return fromUtc(first);
}

/** 0 for Monday … 6 for Sunday: weeks start on Monday, as "Next week" does. */
function weekdayFromMonday(iso: string): number {
  return (toUtc(iso).getUTCDay() + 6) % 7;
}

/** The Monday after `today` (a week on when today is Monday). */
export function nextMonday(today: string): string {
  return addDays(today, 7 - weekdayFromMonday(today));
}

/**
 * The formatters made so far, by their options: making one starts up the locale's data (about
 * 0.3 ms each), and a screen of rows formats a date per row.
 */
const FORMATTERS = new Map<string, Intl.DateTimeFormat>();

function format(iso: string, options: Intl.DateTimeFormatOptions): string {
  const key = JSON.stringify(options);
  let formatter = FORMATTERS.get(key);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat(undefined, { ...options, timeZone: 'UTC' });
    FORMATTERS.set(key, formatter);
  }
  return formatter.format(toUtc(iso));
}

/** "Fri 4 Dec" (in the reader's locale), with the year when it is not this year's. */
function shortDate(iso: string, today: string): string {
  return format(iso, {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    ...(iso.slice(0, 4) === today.slice(0, 4) ? {} : { year: 'numeric' }),
  });
}

/** A due date on its chip: "Today", "Tomorrow", "Fri 4 Dec", "Overdue · Thu 2 Jan 2020". */
export function dueChipText(
  dueOn: string,
  now: number,
  done: boolean,
): { text: string; overdue: boolean } {
  const due = dueText(dueOn, now, done);
  const today = todayIso(now);
  const relative = dueOn === today || dueOn === addDays(today, 1);
  const date = relative ? due.date : shortDate(dueOn, today);
  return { text: due.overdue ? `Overdue · ${date}` : date, overdue: due.overdue };
}

export function DateMenu({
  value,
  today,
  clearable = value !== null,
  onPick,
}: {
  /** The task's due date, or null. */
  value: string | null;
  /** Today on this device, `YYYY-MM-DD`. */
  today: string;
  /** Offers "No date" (by default when there is a date; the bulk bar's tasks may differ). */
  clearable?: boolean;
  onPick: (date: string | null) => void;
}) {
  const tomorrow = addDays(today, 1);
  const monday = nextMonday(today);
  const quick = [
    { value: today, label: 'Today', hint: format(today, { weekday: 'short' }) },
    { value: tomorrow, label: 'Tomorrow', hint: format(tomorrow, { weekday: 'short' }) },
    { value: monday, label: 'Next week', hint: shortDate(monday, today) },
    ...(clearable ? [{ value: '', label: 'No date' }] : []),
  ];
  return (
    <div className="date-menu">
      <Menu label="Quick dates" items={quick} onSelect={(date) => onPick(date || null)} />
      <Calendar value={value} today={today} onPick={onPick} />
    </div>
  );
}

function Calendar({
  value,
  today,
  onPick,
}: {
  value: string | null;
  today: string;
  onPick: (date: string) => void;
}) {
  const [focused, setFocused] = useState(value ?? today);
  // Set by a key that moved the focused day, so the new day's cell takes focus once drawn.
  const moved = useRef(false);
  const grid = useRef<HTMLTableElement>(null);
  const titleId = useId();

  useLayoutEffect(() => {
    if (!moved.current) return;
    moved.current = false;
    grid.current?.querySelector<HTMLElement>(`[data-date="${focused}"]`)?.focus();
  }, [focused]);

  const first = `${focused.slice(0, 7)}-01`;
  const lead = weekdayFromMonday(first);
  const daysInMonth = toUtc(addMonths(first, 1)).getTime() - toUtc(first).getTime();
  const cells: (string | null)[] = [
    ...Array.from({ length: lead }, () => null),
    ...Array.from({ length: Math.round(daysInMonth / DAY_MS) }, (_, day) => addDays(first, day)),
  ];
  while (cells.length % 7) cells.push(null);
  const weeks = Array.from({ length: cells.length / 7 }, (_, week) =>
    cells.slice(week * 7, week * 7 + 7),
  );
  // Monday … Sunday of any week: 2024-01-01 was a Monday.
  const weekdays = Array.from({ length: 7 }, (_, day) => addDays('2024-01-01', day));

  function onKeyDown(event: KeyboardEvent<HTMLTableElement>) {
    const moves: Record<string, () => string> = {
      ArrowLeft: () => addDays(focused, -1),
      ArrowRight: () => addDays(focused, 1),
      ArrowUp: () => addDays(focused, -7),
      ArrowDown: () => addDays(focused, 7),
      Home: () => addDays(focused, -weekdayFromMonday(focused)),
      End: () => addDays(focused, 6 - weekdayFromMonday(focused)),
      PageUp: () => addMonths(focused, event.shiftKey ? -12 : -1),
      PageDown: () => addMonths(focused, event.shiftKey ? 12 : 1),
    };
    const move = moves[event.key];
    if (move) {
      event.preventDefault();
      moved.current = true;
      setFocused(move());
    } else if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      onPick(focused);
    }
  }

  return (
    <div className="calendar">
      <div className="calendar__header">
        <button
          type="button"
          className="calendar__nav"
          aria-label="Previous month"
          onClick={() => setFocused(addMonths(focused, -1))}
        >
          <span aria-hidden="true">‹</span>
        </button>
        <div id={titleId} className="calendar__title" aria-live="polite">
          {format(first, { month: 'long', year: 'numeric' })}
        </div>
        <button
          type="button"
          className="calendar__nav"
          aria-label="Next month"
          onClick={() => setFocused(addMonths(focused, 1))}
        >
          <span aria-hidden="true">›</span>
        </button>
      </div>
      <table ref={grid} role="grid" aria-labelledby={titleId} onKeyDown={onKeyDown}>
        <thead>
          <tr>
            {weekdays.map((day) => (
              <th key={day} scope="col" abbr={format(day, { weekday: 'long' })}>
                {format(day, { weekday: 'narrow' })}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {weeks.map((week) => (
            <tr key={week.find(Boolean)}>
              {week.map((date, index) =>
                date ? (
                  <td
                    key={date}
                    role="gridcell"
                    data-date={date}
                    tabIndex={date === focused ? 0 : -1}
                    aria-selected={date === value}
                    aria-current={date === today ? 'date' : undefined}
                    aria-label={format(date, {
                      weekday: 'long',
                      day: 'numeric',
                      month: 'long',
                      year: 'numeric',
                    })}
                    className="calendar__day"
                    onClick={() => onPick(date)}
                  >
                    {Number(date.slice(8))}
                  </td>
                ) : (
                  <td key={`empty-${index}`} />
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
