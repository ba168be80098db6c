// Quick add's small language: "Call the engineer tomorrow !high @bob" becomes a task titled
// "Call the engineer", due tomorrow, high priority, assigned to Bob. Pure and synchronous (it
// runs on every keystroke); no date library, whose size our bundles can't carry.
//
// The rules, kept simple so what happens is predictable (quick-add-parse.test.ts holds them):
// - Words are runs of non-space characters, and only whole words match, exactly and in any
//   case: "12" or "911" alone is never a date, "bob@x.io" is no assignee, "tomorrow," is a word
//   of the title.
// - "!high" "!h" "!3", "!medium" "!med" "!m" "!2", "!low" "!l" "!1" set the priority. "p1"…"p3"
//   do not: other apps read p1 as the highest, ours would be the lowest.
// - "@bob" assigns the one member whose name, or a word of it, starts with "bob" (a name or
//   word that is exactly "bob" wins over longer ones). None, or several: it stays in the title.
// - Due dates (English words; the locale orders the numbers): today, tonight, tomorrow, tmr,
//   "next week" (next Monday), "next month" (the 1st), "next friday" (the Friday of next week),
//   "in 3 days", "in 2 weeks", "in a week", weekday names and their first letters from three
//   on ("fri", "thurs"; the day itself when it is today), "12/3" and "12/3/2027" (month first
//   in en-US, day first in en-GB, de…), "3.12." and "3.12.2027", "2026-12-24", "dec 24",
//   "24 dec", "december 24th", with an optional year after. A day and month with no year is
//   the next one to come (this year's, else next year's). A date that does not exist ("2/30")
//   stays in the title; "yesterday" is no due date (a new task due in the past would be
//   overdue at once), it stays in the title too. "on" or "by" may come first ("by friday").
// - A bare weekday, "daily", "weekly" and "monthly" count only as the text's last words (other
//   understood words may follow): "Call mom friday" is due Friday, "Friday review notes" and
//   "Weekly review" keep their words. "sat", "sun" and "wed" are words of their own and need
//   "on", "by", "next" or "every" before them.
// - Repeats: "every day"/"daily", "every monday", "every mon and thu" (or "mon, thu"),
//   "every weekday", "every weekend", "every week"/"weekly" (optionally "on monday"; else on
//   the due date's weekday, or today's), "every month"/"monthly" (optionally "on the 15th";
//   else on the due date's day, or today's), "every 15th", "every 3 days" and "every 2 weeks"
//   (that many days after it is done), "every other day/week". A repeat with no due date is
//   due on its first occurrence (today, or the first of its days from today on).
// - The first phrase of each kind counts; a later one stays in the title. The title is what is
//   left with its spaces collapsed, or the whole text when nothing is left (never empty).
// - Each understood phrase has a key (`due:next friday`); the keys in `ignore` are read as
//   words of the title, so a chip the user removed stays removed as the text is edited.
import type { Priority } from '@/data/schema';
import { addDays } from '@/utils/format';

/** What an understood phrase sets. */
export type QuickAddKind = 'due' | 'repeat' | 'priority' | 'assignee';

/** A phrase quick add understood, for its chip. */
export interface QuickAddToken {
  kind: QuickAddKind;
  /** Its first character in the text. */
  start: number;
  /** Just past its last character in the text. */
  end: number;
  /** The chip's text: "Tomorrow", "Fri 4 Dec", "Every Monday", "High priority", "@Bob Smith". */
  label: string;
  /** `kind:its words` in lower case: put it in `ignore` to keep the words in the title. */
  key: string;
}

/** A member of the list who can be assigned: the user id and their display name. */
export interface QuickAddMember {
  id: string;
  name: string;
}

export interface QuickAddOptions {
  /** Today, `YYYY-MM-DD`. */
  today: string;
  /** A BCP 47 tag; decides whether "12/3" is 12 March or 3 December. */
  locale: string;
  members: readonly QuickAddMember[];
  /** Keys of tokens the user removed. */
  ignore?: readonly string[];
}

/** A new task's fields, as the repositories take them, and what set them. */
export interface QuickAddResult {
  title: string;
  due_on: string | null;
  /** A stored repeat rule (`daily`, `weekly:1,4`, `monthly:15`, `after:3`). */
  repeat: string | null;
  priority: Priority;
  assignee_id: string | null;
  /** In the order of the text. */
  tokens: QuickAddToken[];
}

type Value =
  | { kind: 'due'; date: string; label?: string }
  /** "weekly" and "monthly" without a day take theirs from the due date once it is known. */
  | { kind: 'repeat'; rule: string }
  | { kind: 'priority'; priority: Priority }
  | { kind: 'assignee'; member: QuickAddMember };

/** A phrase of `length` words; `tail`: it counts only when nothing but phrases follow it. */
type Match = Value & { length: number; tail?: boolean };

// Maps, not object literals: a word such as "constructor" must find nothing.
const PRIORITY_WORDS = new Map<string, Priority>([
  ['!high', 3],
  ['!h', 3],
  ['!3', 3],
  ['!medium', 2],
  ['!med', 2],
  ['!m', 2],
  ['!2', 2],
  ['!low', 1],
  ['!l', 1],
  ['!1', 1],
]);
const PRIORITY_LABELS = ['', 'Low priority', 'Medium priority', 'High priority'];

const RELATIVE_DAYS = new Map([
  ['today', 0],
  ['tonight', 0],
  ['tomorrow', 1],
  ['tmr', 1],
  ['tmrw', 1],
]);
const UNIT_DAYS = new Map([
  ['day', 1],
  ['days', 1],
  ['week', 7],
  ['weeks', 7],
]);
/** Weekday abbreviations that are English words too. */
const WORDLIKE = new Set(['sat', 'sun', 'wed']);
/** Longest "every N days" as the schema stores it (REPEAT_AFTER_DAYS_MAX). */
const AFTER_DAYS_MAX = 365;

const english = (options: Intl.DateTimeFormatOptions, dates: number[]) =>
  dates.map((date) => new Intl.DateTimeFormat('en', { ...options, timeZone: 'UTC' }).format(date));
// 1 January 2024 was a Monday: index 0 is ISO weekday 1.
const WEEKDAYS = english(
  { weekday: 'long' },
  [0, 1, 2, 3, 4, 5, 6].map((d) => Date.UTC(2024, 0, 1 + d)),
);
const MONTHS = english(
  { month: 'long' },
  [...Array(12).keys()].map((m) => Date.UTC(2024, m, 1)),
);

/** 1-based index of the name `word` is, or starts with three letters or more; else 0. */
function nameOf(names: readonly string[], word = ''): number {
  return word.length >= 3 ? names.findIndex((name) => name.toLowerCase().startsWith(word)) + 1 : 0;
}

// ---- Dates: ISO `YYYY-MM-DD`, counted in UTC so no daylight-saving change moves a day.

const iso = (time: number) => new Date(time).toISOString().slice(0, 10);
/** Monday 1 … Sunday 7. */
const weekdayOf = (date: string) => new Date(date).getUTCDay() || 7;
/** `weekday` today or the first one after. */
const nextWeekday = (today: string, weekday: number) =>
  addDays(today, (weekday - weekdayOf(today) + 7) % 7);
/** The Monday after today (a week on when today is Monday). */
const nextMonday = (today: string) => addDays(today, 8 - weekdayOf(today));

/** The date, if it exists. */
function dateOf(year: number, month: number, day: number): string | null {
  const date = new Date(Date.UTC(year, month - 1, day));
  return year > 999 && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
    ? iso(date.getTime())
    : null;
}

/** The next `month`/`day` from today on (a 29 February can be years away). */
function upcoming(today: string, month: number, day: number): string | null {
  for (let year = Number(today.slice(0, 4)), last = year + 4; year <= last; year++) {
    const date = dateOf(year, month, day);
    if (date && date >= today) return date;
  }
  return null;
}

/** `day` of the month `months` after today's, or that month's last day when shorter. */
function dayInMonth(today: string, months: number, day: number): string {
  const year = Number(today.slice(0, 4));
  const month = Number(today.slice(5, 7)) + months;
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return iso(Date.UTC(year, month - 1, Math.min(day, last)));
}

const dayFirstByLocale = new Map<string, boolean>();

/** Whether the locale writes the day before the month in numeric dates. */
function dayFirst(locale: string): boolean {
  let first = dayFirstByLocale.get(locale);
  if (first === undefined) {
    const parts = new Intl.DateTimeFormat(locale, { timeZone: 'UTC' }).formatToParts(0);
    const order = parts.map((part) => part.type);
    first = order.indexOf('day') < order.indexOf('month');
    dayFirstByLocale.set(locale, first);
  }
  return first;
}

/** "2026-12-24", "12/3", "12/3/2027", "3.12.", "3.12.2027". */
function numericDate(word: string, today: string, locale: string): string | null {
  const parts = (pattern: RegExp) => pattern.exec(word)?.slice(1).map(Number);
  const isoParts = parts(/^(\d{4})-(\d\d)-(\d\d)$/);
  if (isoParts) return dateOf(isoParts[0] ?? 0, isoParts[1] ?? 0, isoParts[2] ?? 0);
  const slash = parts(/^(\d{1,2})\/(\d{1,2})(?:\/(\d{4}))?$/);
  const dot = parts(/^(\d{1,2})\.(\d{1,2})\.(\d{4})?$/);
  const [a = 0, b = 0, year = NaN] = slash ?? dot ?? [];
  if (!slash && !dot) return null;
  const [day, month] = dot || dayFirst(locale) ? [a, b] : [b, a];
  return year ? dateOf(year, month, day) : upcoming(today, month, day);
}

/** "24", "24th". */
function dayNumber(word = '', suffix: 'optional' | 'required' = 'optional'): number {
  const match = /^([1-9]|[12]\d|3[01])(st|nd|rd|th)?$/.exec(word);
  return match && (match[2] || suffix === 'optional') ? Number(match[1]) : 0;
}

/** A positive whole number of up to three digits ("3", "12"), else 0. */
const count = (word = '') => (/^[1-9]\d{0,2}$/.test(word) ? Number(word) : 0);

function dueAt(words: readonly string[], i: number, today: string, locale: string): Match | null {
  const prefixed = words[i] === 'on' || words[i] === 'by';
  const at = prefixed ? i + 1 : i;
  const word = words[at] ?? '';
  const due = (date: string | null, length: number, tail = false, label?: string): Match | null =>
    date ? { kind: 'due', date, length: at - i + length, tail, ...(label ? { label } : {}) } : null;

  const weekday = nameOf(WEEKDAYS, word);
  if (weekday) {
    return prefixed || !WORDLIKE.has(word) ? due(nextWeekday(today, weekday), 1, !prefixed) : null;
  }
  const days = RELATIVE_DAYS.get(word);
  if (days !== undefined) {
    return due(addDays(today, days), 1, false, word === 'tonight' ? 'Tonight' : undefined);
  }
  const next = words[at + 1];
  if (word === 'next') {
    if (next === 'week') return due(nextMonday(today), 2);
    if (next === 'month') return due(dayInMonth(today, 1, 1), 2);
    const day = nameOf(WEEKDAYS, next);
    return day ? due(addDays(nextMonday(today), day - 1), 2) : null;
  }
  if (word === 'in') {
    const n = next === 'a' ? 1 : count(next);
    const unit = UNIT_DAYS.get(words[at + 2] ?? '');
    return n && unit ? due(addDays(today, n * unit), 3) : null;
  }
  const numeric = numericDate(word, today, locale);
  if (numeric) return due(numeric, 1);
  // "dec 24" or "24 dec", then perhaps a year.
  const [month, day] = nameOf(MONTHS, word)
    ? [nameOf(MONTHS, word), dayNumber(next)]
    : [nameOf(MONTHS, next), dayNumber(word)];
  if (!month || !day) return null;
  const year = words[at + 2] ?? '';
  return /^\d{4}$/.test(year)
    ? due(dateOf(Number(year), month, day), 3)
    : due(upcoming(today, month, day), 2);
}

/** "mon", "mon and thu", "mon, thu", "mon,thu" from `at`: the ISO weekdays and word count. */
function weekdayList(words: readonly string[], at: number): { days: number[]; length: number } {
  const days: number[] = [];
  let length = 0;
  for (let j = at; j < words.length; j++) {
    const word = words[j] ?? '';
    if (word === 'and' && days.length) continue;
    const named = word
      .replace(/,$/, '')
      .split(',')
      .map((part) => nameOf(WEEKDAYS, part));
    if (!named.every(Boolean)) break;
    days.push(...named);
    length = j - at + 1;
  }
  return { days, length };
}

/** `weekly:` with the days ascending, each once. */
const weeklyRule = (days: readonly number[]) =>
  `weekly:${[...new Set(days)].sort((a, b) => a - b).join(',')}`;

function repeatAt(words: readonly string[], i: number): Match | null {
  const word = words[i];
  const repeat = (rule: string, length: number, tail = false): Match => ({
    kind: 'repeat',
    rule,
    length,
    tail,
  });
  // "weekly"/"every week", then perhaps "on mon"; "monthly"/"every month", "on the 15th".
  const onDays = (rule: 'weekly' | 'monthly', length: number, tail: boolean): Match => {
    const on = i + length;
    if (words[on] !== 'on') return repeat(rule, length, tail);
    const list = weekdayList(words, on + 1);
    if (rule === 'weekly' && list.length) {
      return repeat(weeklyRule(list.days), length + 1 + list.length);
    }
    const day = words[on + 1] === 'the' ? dayNumber(words[on + 2]) : 0;
    return rule === 'monthly' && day
      ? repeat(`monthly:${day}`, length + 3)
      : repeat(rule, length, tail);
  };

  if (word === 'daily') return repeat('daily', 1, true);
  if (word === 'weekly' || word === 'monthly') return onDays(word, 1, true);
  if (word !== 'every') return null;
  const next = words[i + 1] ?? '';
  if (next === 'day') return repeat('daily', 2);
  if (next === 'weekday') return repeat('weekly:1,2,3,4,5', 2);
  if (next === 'weekend') return repeat('weekly:6,7', 2);
  if (next === 'week') return onDays('weekly', 2, false);
  if (next === 'month') return onDays('monthly', 2, false);
  const n = next === 'other' ? 2 : count(next);
  const days = n * (UNIT_DAYS.get(words[i + 2] ?? '') ?? 0);
  if (days) return days <= AFTER_DAYS_MAX ? repeat(`after:${days}`, 3) : null;
  const day = dayNumber(next, 'required');
  if (day) return repeat(`monthly:${day}`, 2);
  const list = weekdayList(words, i + 1);
  return list.length ? repeat(weeklyRule(list.days), 1 + list.length) : null;
}

function assigneeAt(word: string, members: readonly QuickAddMember[]): Match | null {
  const query = /^@(\S+)$/.exec(word)?.[1];
  if (!query) return null;
  const names = (member: QuickAddMember) => {
    const name = member.name.toLowerCase();
    return [...name.split(/\s+/), name.replace(/\s+/g, '')];
  };
  const matching = members.filter((m) => names(m).some((name) => name.startsWith(query)));
  const exact = matching.filter((m) => names(m).includes(query));
  const [member, other] = matching.length > 1 && exact.length ? exact : matching;
  return member && !other ? { kind: 'assignee', member, length: 1 } : null;
}

function matchAt(words: readonly string[], i: number, options: QuickAddOptions): Match | null {
  const word = words[i] ?? '';
  const priority = PRIORITY_WORDS.get(word);
  if (priority) return { kind: 'priority', priority, length: 1 };
  return (
    assigneeAt(word, options.members) ??
    repeatAt(words, i) ??
    dueAt(words, i, options.today, options.locale)
  );
}

// ---- Labels

function ordinal(n: number): string {
  const suffix = n % 10 === 1 && n !== 11 ? 'st' : n % 10 === 2 && n !== 12 ? 'nd' : 'th';
  return `${n}${n % 10 === 3 && n !== 13 ? 'rd' : suffix}`;
}

/** "Every Monday", "Every Mon and Thu", "Every month on the 15th", "3 days after done". */
function repeatLabel(rule: string): string {
  const [kind, arg = ''] = rule.split(':');
  const n = Number(arg);
  if (kind === 'daily') return 'Every day';
  if (kind === 'monthly') return `Every month on the ${ordinal(n)}`;
  if (kind === 'after') {
    const [amount, unit] = n % 7 ? [n, 'day'] : [n / 7, 'week'];
    return `${amount} ${unit}${amount === 1 ? '' : 's'} after done`;
  }
  if (arg === '1,2,3,4,5') return 'Every weekday';
  if (arg === '6,7') return 'Every weekend';
  const days = arg.split(',').map((day) => WEEKDAYS[Number(day) - 1] ?? '');
  if (days.length === 1) return `Every ${days.join('')}`;
  const short = days.map((day) => day.slice(0, 3));
  return `Every ${short.slice(0, -1).join(', ')} and ${short.at(-1) ?? ''}`;
}

/** "Today", "Tomorrow", else the date in the locale: "Fri 4 Dec" (with the year if not this one). */
function dueLabel(date: string, today: string, locale: string): string {
  if (date === today) return 'Today';
  if (date === addDays(today, 1)) return 'Tomorrow';
  return new Intl.DateTimeFormat(locale, {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    timeZone: 'UTC',
    ...(date.slice(0, 4) === today.slice(0, 4) ? {} : { year: 'numeric' }),
  }).format(Date.parse(date));
}

/** Reads a quick add's text: the task's fields and the phrases that set them. */
export function parseQuickAdd(text: string, options: QuickAddOptions): QuickAddResult {
  const { today, locale, ignore = [] } = options;
  const spans = [...text.matchAll(/\S+/g)].map((m) => ({
    start: m.index,
    end: m.index + m[0].length,
  }));
  const words = spans.map(({ start, end }) => text.slice(start, end).toLowerCase());

  const found: (Match & { at: number; key: string })[] = [];
  for (let i = 0; i < words.length;) {
    const match = matchAt(words, i, options);
    if (!match) {
      i += 1;
      continue;
    }
    found.push({
      ...match,
      at: i,
      key: `${match.kind}:${words.slice(i, i + match.length).join(' ')}`,
    });
    i += match.length;
  }

  // From the end: a phrase that must be last, with words of the title after it, is words too.
  const kept = new Set<(typeof found)[number]>();
  let onlyPhrasesAfter = true;
  let after = words.length;
  for (const match of [...found].reverse()) {
    if (match.at + match.length < after) onlyPhrasesAfter = false;
    if (ignore.includes(match.key) || (match.tail && !onlyPhrasesAfter)) onlyPhrasesAfter = false;
    else kept.add(match);
    after = match.at;
  }
  const kinds = new Set<QuickAddKind>();
  const chosen = found.filter((match) => {
    if (!kept.has(match) || kinds.has(match.kind)) return false;
    kinds.add(match.kind);
    return true;
  });

  const result: QuickAddResult = {
    title: '',
    due_on: null,
    repeat: null,
    priority: 0,
    assignee_id: null,
    tokens: [],
  };
  for (const match of chosen) {
    if (match.kind === 'due') result.due_on = match.date;
    if (match.kind === 'repeat') result.repeat = match.rule;
    if (match.kind === 'priority') result.priority = match.priority;
    if (match.kind === 'assignee') result.assignee_id = match.member.id;
  }
  const from = result.due_on ?? today;
  if (result.repeat === 'weekly') result.repeat = `weekly:${weekdayOf(from)}`;
  if (result.repeat === 'monthly') result.repeat = `monthly:${Number(from.slice(8))}`;
  if (result.repeat && !result.due_on) result.due_on = firstOccurrence(result.repeat, today);

  let title = '';
  let rest = 0;
  for (const match of chosen) {
    const start = spans[match.at]?.start ?? 0;
    const end = spans[match.at + match.length - 1]?.end ?? 0;
    title += `${text.slice(rest, start)} `;
    rest = end;
    const label =
      match.kind === 'due'
        ? (match.label ?? dueLabel(match.date, today, locale))
        : match.kind === 'repeat'
          ? repeatLabel(result.repeat ?? '')
          : match.kind === 'priority'
            ? (PRIORITY_LABELS[match.priority] ?? '')
            : `@${match.member.name}`;
    result.tokens.push({ kind: match.kind, start, end, label, key: match.key });
  }
  const collapse = (value: string) => value.replace(/\s+/g, ' ').trim();
  result.title = collapse(title + text.slice(rest)) || collapse(text);
  return result;
}

/** The first day a rule falls on from today on. */
function firstOccurrence(rule: string, today: string): string {
  const [kind, arg = ''] = rule.split(':');
  if (kind === 'weekly') {
    const days = arg.split(',').map((day) => nextWeekday(today, Number(day)));
    return days.sort()[0] ?? today;
  }
  if (kind === 'monthly') {
    const thisMonth = dayInMonth(today, 0, Number(arg));
    return thisMonth >= today ? thisMonth : dayInMonth(today, 1, Number(arg));
  }
  return today;
}
