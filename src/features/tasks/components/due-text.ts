// A task's due date as both task screens show it. A done task is not late any more: it
// shows its plain date, never "Overdue".
import { formatDue, shortDate } from '@/utils/format';

export interface DueText {
  /** "Today", "Tomorrow", "3 Mar". */
  date: string;
  /** Still open and past its date. */
  overdue: boolean;
  /** The whole text: "Overdue · 3 Mar" when overdue, else `date`. */
  text: string;
}

export function dueText(dueOn: string, now: number, done: boolean): DueText {
  const due = formatDue(dueOn, now);
  if (!due.overdue) return { date: due.text, overdue: false, text: due.text };
  const date = shortDate(dueOn);
  return done ? { date, overdue: false, text: date } : { date, overdue: true, text: due.text };
}
