// Formatting shared by the screens: relative times, byte sizes, due dates, length counters.

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** "just now", "2 min ago", "3 h ago", "yesterday", "4 days ago", or a date. */
export function relativeTime(then: number, now: number): string {
  const ago = Math.max(0, now - then);
  if (ago < 45_000) return 'just now';
  if (ago < HOUR_MS) return `${Math.round(ago / MINUTE_MS)} min ago`;
  if (ago < DAY_MS) return `${Math.round(ago / HOUR_MS)} h ago`;
  if (ago < 2 * DAY_MS) return 'yesterday';
  if (ago < 7 * DAY_MS) return `${Math.floor(ago / DAY_MS)} days ago`;
  return new Date(then).toLocaleDateString();
}

/** Bytes in a KB as this app counts them (binary: the limits of product.md §9 are MiB). */
const BYTES_PER_UNIT = 1024;
/** Below this many of a unit a size keeps one decimal ("10.1 MB"); above, whole units. */
const ONE_DECIMAL_BELOW = 100;

/**
 * 1536 → "1.5 KB". Binary units (1 KB = 1,024 bytes, 1 MB = 1,048,576), the way the limits
 * are set (product.md §9: 10 MiB per file), so every size the app shows is comparable with every
 * limit it shows. `roundUp` for a size refused for being over a limit: rounded to the
 * nearest, 10 MiB + 1 byte would read "10 MB" next to "at most 10 MB"; rounded up it reads
 * "10.1 MB".
 */
export function formatBytes(bytes: number, options: { roundUp?: boolean } = {}): string {
  if (bytes < BYTES_PER_UNIT) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  const round = options.roundUp ? Math.ceil : Math.round;
  let value = bytes / BYTES_PER_UNIT;
  let unit = 0;
  // On the rounded value, so 1,048,575 bytes reads "1 MB", not "1024 KB".
  while (round(value) >= BYTES_PER_UNIT && unit < units.length - 1) {
    value /= BYTES_PER_UNIT;
    unit += 1;
  }
  const scale = value < ONE_DECIMAL_BELOW ? 10 : 1;
  // Exact: value is bytes over a power of two. 2.0 → "2": a whole number needs no decimal.
  return `${round(value * scale) / scale} ${units[unit]}`;
}

/**
 * A length counter for a field with a limit: how many characters are left, or, past the
 * limit, by how much it is over ("3 characters too many"), never "0 left" beside an error.
 */
export function charactersLeft(length: number, max: number): string {
  const left = max - length;
  const count = Math.abs(left);
  const noun = count === 1 ? 'character' : 'characters';
  return left >= 0
    ? `${count.toLocaleString('en-US')} ${noun} left`
    : `${count.toLocaleString('en-US')} ${noun} too many`;
}

/** The ISO date (`YYYY-MM-DD`) `days` after `iso`, counted in UTC calendar days (no DST shift). */
export function addDays(iso: string, days: number): string {
  const date = new Date(`${iso}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

/** Today's date as YYYY-MM-DD in local time. */
export function todayIso(now: number): string {
  const date = new Date(now);
  const month = String(date.getMonth() + 1).padStart(2, '0');
  const day = String(date.getDate()).padStart(2, '0');
  return `${date.getFullYear()}-${month}-${day}`;
}

let dayAndMonth: Intl.DateTimeFormat | undefined;

/**
 * "3 Mar" (in the device's language) for a YYYY-MM-DD date. One formatter for every row: a
 * `toLocaleDateString` with options builds a new one on each call, ~0.4 ms apiece, which a
 * list's first screen of rows paid dozens of times.
 */
export function shortDate(iso: string): string {
  dayAndMonth ??= new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short' });
  return dayAndMonth.format(new Date(`${iso}T00:00:00`));
}

/** A due date for display, relative where it helps: "Today", "Tomorrow", "Overdue · 3 Mar". */
export function formatDue(dueOn: string, now: number): { text: string; overdue: boolean } {
  const today = todayIso(now);
  const tomorrow = todayIso(now + DAY_MS);
  if (dueOn === today) return { text: 'Today', overdue: false };
  if (dueOn === tomorrow) return { text: 'Tomorrow', overdue: false };
  if (dueOn < today) return { text: `Overdue · ${shortDate(dueOn)}`, overdue: true };
  return { text: shortDate(dueOn), overdue: false };
}
