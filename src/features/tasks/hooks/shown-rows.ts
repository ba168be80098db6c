// What the task list shows, as of its last render. The rows' callbacks are made once (rows are
// memoised on them), so they read the list through a ref to this rather than a render's values.
import type { TaskRow } from '../task-filter';

export interface ShownRows {
  /** The tasks as given, in position order. */
  tasks: TaskRow[];
  /** The tasks in the order shown, a move not yet back from the live query included. */
  placed: TaskRow[];
  /** As `placed`, with a task carried by keyboard where it is carried to. */
  ordered: TaskRow[];
}

/** `items` with the one at `from` taken out and put back at `to`. */
export function moved<T>(items: readonly T[], from: number, to: number): T[] {
  const next = items.filter((_, i) => i !== from);
  const item = items[from];
  if (item !== undefined) next.splice(to, 0, item);
  return next;
}
