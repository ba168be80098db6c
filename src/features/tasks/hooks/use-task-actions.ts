// What both task screens share of the done toggle.
import type { TaskStatus } from '@/data/schema';

/** The status the done checkbox leads to: done reopens to "to do"; anything else completes. */
export function toggledStatus(status: TaskStatus): TaskStatus {
  return status === 'done' ? 'todo' : 'done';
}
