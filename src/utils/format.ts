// Formatting shared by the screens: relative times, byte sizes, due dates.

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

/** 1536 → "1.5 KB" (decimal units, as storage quotas are reported). */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** Today's date as YYYY-MM-DD in local time. */
export function todayIso(now: number): string {
  const date = new Date(now);
  const month = String(date.getMonth() + 1).padStart(2, '0');
  const day = String(date.getDate()).padStart(2, '0');
  return `${date.getFullYear()}-${month}-${day}`;
}

/** A due date for display, relative where it helps: "Today", "Tomorrow", "Overdue · 3 Mar". */
export function formatDue(dueOn: string, now: number): { text: string; overdue: boolean } {
  const today = todayIso(now);
  const tomorrow = todayIso(now + DAY_MS);
  const date = new Date(`${dueOn}T00:00:00`);
  const label = date.toLocaleDateString(undefined, { day: 'numeric', month: 'short' });
  if (dueOn === today) return { text: 'Today', overdue: false };
  if (dueOn === tomorrow) return { text: 'Tomorrow', overdue: false };
  if (dueOn < today) return { text: `Overdue · ${label}`, overdue: true };
  return { text: label, overdue: false };
}
