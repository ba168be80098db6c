// Checklists' reads (issue 39): a task's items, and how far along a list's checklists are for
// its rows. Made over the device's reader through `queries.extend(checklistQueries)`: this
// module comes with the list's and the task's screens, not in the app shell.
import type { DeviceReader } from '@sync/index';

import type { ChecklistItem, OutpostDeviceRows } from './rows';

/** A task's checklist: items ticked, of how many (live ones). */
export interface ChecklistProgress {
  done: number;
  total: number;
}

/** Checklists' reads over one device's `reader`. */
export function checklistQueries(reader: DeviceReader<OutpostDeviceRows>) {
  const { table, minKey, maxKey } = reader;
  return {
    /**
     * A task's live checklist items in order: one range of `[task_id+position]` (equal
     * positions, made on two devices offline, in id order, the same on every device).
     */
    async checklist(taskId: string): Promise<ChecklistItem[]> {
      const items = await table('checklist_items')
        .where('[task_id+position]')
        .between([taskId, minKey], [taskId, maxKey])
        .toArray();
      return items.filter((item) => !item.deleted_at);
    },

    /**
     * How far along the checklists of a list's tasks are, for its rows: one read of the
     * list's items by the `list_id` index (only tasks with a checklist have items, so a list
     * of 10,000 tasks reads just those). Tasks without live items are not in the map.
     */
    async checklistProgress(listId: string): Promise<Map<string, ChecklistProgress>> {
      const byTask = new Map<string, ChecklistProgress>();
      for (const item of await table('checklist_items').where('list_id').equals(listId).toArray()) {
        if (item.deleted_at) continue;
        const progress = byTask.get(item.task_id) ?? { done: 0, total: 0 };
        progress.total += 1;
        if (item.done) progress.done += 1;
        byTask.set(item.task_id, progress);
      }
      return byTask;
    },
  };
}
