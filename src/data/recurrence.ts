// Repeating tasks (product.md §4 "Repeat"; sync-design.md I7): what a repeat rule says, the
// date of the next occurrence, and the ids that make the next occurrence exactly once.
//
// Completing an occurrence makes the next one on the device that completes it. Its id is
// derived from the occurrence's (successorId), and its checklist's from both (copiedItemId), so
// every device that completes the same occurrence, offline or not, makes the same rows: the
// server keeps the first and answers the others as replays, and its rules refuse any other
// successor (supabase/migrations/…_my_work.sql, private.task_successor_id computes the same).
import { addDays } from '@/utils/format';

import { isRepeatRule } from './schema';

/** A repeat rule, read. */
export type Repeat =
  | { kind: 'daily' }
  /** ISO weekdays, Monday 1 to Sunday 7, ascending. */
  | { kind: 'weekly'; days: readonly number[] }
  /** The day of the month; a shorter month takes its last day. */
  | { kind: 'monthly'; day: number }
  /** Days after the occurrence is completed. */
  | { kind: 'after'; days: number };

/** Reads a stored rule (`daily`, `weekly:1,4`, `monthly:15`, `after:3`); null if it is none. */
export function readRepeat(rule: string | null | undefined): Repeat | null {
  if (!rule || !isRepeatRule(rule)) return null;
  const [kind, arg = ''] = rule.split(':');
  if (kind === 'daily') return { kind };
  if (kind === 'weekly') return { kind, days: arg.split(',').map(Number) };
  if (kind === 'monthly') return { kind, day: Number(arg) };
  return { kind: 'after', days: Number(arg) };
}

/** The stored form of a rule (weekdays sorted, each once); throws on a day out of range. */
export function writeRepeat(repeat: Repeat): string {
  const rule =
    repeat.kind === 'daily'
      ? 'daily'
      : repeat.kind === 'weekly'
        ? `weekly:${[...new Set(repeat.days)].sort((a, b) => a - b).join(',')}`
        : repeat.kind === 'monthly'
          ? `monthly:${repeat.day}`
          : `after:${repeat.days}`;
  if (!isRepeatRule(rule)) throw new RangeError(`not a repeat rule: ${rule}`);
  return rule;
}

const WEEKDAY_NAMES = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** A rule in a few words: "Every day", "Every Mon, Thu", "Every weekday", "Monthly on the 15th". */
export function describeRepeat(repeat: Repeat): string {
  switch (repeat.kind) {
    case 'daily':
      return 'Every day';
    case 'weekly': {
      const days = repeat.days.join(',');
      if (days === '1,2,3,4,5') return 'Every weekday';
      if (days === '1,2,3,4,5,6,7') return 'Every day of the week';
      return `Every ${repeat.days.map((day) => WEEKDAY_NAMES[day - 1]).join(', ')}`;
    }
    case 'monthly':
      return `Monthly on the ${ordinal(repeat.day)}`;
    case 'after':
      return repeat.days === 1 ? '1 day after done' : `${repeat.days} days after done`;
  }
}

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/** ISO weekday of an ISO date: Monday 1 to Sunday 7. */
export function isoWeekday(date: string): number {
  return new Date(`${date}T00:00:00Z`).getUTCDay() || 7;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * The due date of the occurrence after one due `dueOn` (null: undated) and completed on
 * `today`. `after:N` counts from the completion. The others keep their schedule: the first
 * day the rule names after the occurrence's due date, and not before today (a daily task
 * ticked a week late comes back today, not seven times).
 */
export function nextDue(repeat: Repeat, dueOn: string | null, today: string): string {
  if (repeat.kind === 'after') return addDays(today, repeat.days);
  const afterDue = dueOn ? addDays(dueOn, 1) : addDays(today, 1);
  let from = afterDue > today ? afterDue : today;
  if (repeat.kind === 'daily') return from;
  if (repeat.kind === 'weekly') {
    while (!repeat.days.includes(isoWeekday(from))) from = addDays(from, 1);
    return from;
  }
  // Monthly: this month's day (or its last) if not passed, else next month's.
  const [year = 0, month = 0] = from.split('-').map(Number);
  for (let step = 0; step < 2; step += 1) {
    const y = year + Math.floor((month - 1 + step) / 12);
    const m = ((month - 1 + step) % 12) + 1;
    const day = Math.min(repeat.day, daysInMonth(y, m));
    const candidate = `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
    if (candidate >= from) return candidate;
  }
  throw new Error('unreachable: next month always has the day');
}

/** The first 16 bytes of SHA-256(text) as a version-8 UUID (RFC 9562). */
async function derivedUuid(text: string): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)),
  );
  const hex = Array.from(digest.subarray(0, 16), (byte) => byte.toString(16).padStart(2, '0'));
  const h = hex.join('');
  const variant = '89ab'[parseInt(h.charAt(16), 16) & 3] ?? '8';
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The id of the occurrence that follows `occurrenceId`: the server derives the same. */
export function successorId(occurrenceId: string): Promise<string> {
  return derivedUuid(`outpost:next:${occurrenceId.toLowerCase()}`);
}

/** The id of the copy of checklist item `itemId` on the occurrence `successor`. */
export function copiedItemId(successor: string, itemId: string): Promise<string> {
  return derivedUuid(`outpost:item:${successor.toLowerCase()}:${itemId.toLowerCase()}`);
}
