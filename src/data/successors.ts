// The next occurrence of a repeating task (product.md §4 "Repeat"; sync-design.md "Derived rows:
// one next occurrence"), made by the write that completes an occurrence. Loaded by the
// repositories only when such a write comes, with recurrence.ts: most writes, and the app's
// first screen, never need either.
import type { Stored, Store, TypedRows } from '@sync/index';

import { copiedItemId, nextDue, readRepeat, successorId } from './recurrence';
import type { OutpostDeviceRows, Task } from './rows';

/** The ids a repeating task's next occurrence and its checklist's copies get. */
export interface SuccessorPlan {
  id: string;
  /** The copy's id of each live checklist item, by the item's id. */
  items: Map<string, string>;
}

/** What making a next occurrence writes with: the repositories' own. */
export interface SuccessorWrites {
  rows: TypedRows<OutpostDeviceRows>;
  insert: Store<OutpostDeviceRows>['insert'];
  /** The position after the last task of a list, jittered by the new task's id. */
  endPosition(listId: string, taskId: string): Promise<string>;
  userId(): string;
  /** Today, the completing device's local 'YYYY-MM-DD'. */
  today(): string;
}

/**
 * The ids each of `tasks` that repeats would give its next occurrence and that one's checklist
 * items: hashed before the write's transaction opens (hashing is asynchronous, and an
 * IndexedDB transaction ends at an await on anything else).
 */
export async function planSuccessors(
  rows: TypedRows<OutpostDeviceRows>,
  tasks: readonly (Stored<Task> | undefined)[],
): Promise<Map<string, SuccessorPlan>> {
  const plans = new Map<string, SuccessorPlan>();
  for (const task of tasks) {
    if (!task || task.deleted_at || !readRepeat(task.repeat)) continue;
    const id = await successorId(task.id);
    const items = await rows('checklist_items')
      .where('[task_id+position]')
      .between([task.id, ''], [task.id, '\uffff'])
      .toArray();
    const copies = new Map<string, string>();
    for (const item of items) {
      if (!item.deleted_at) copies.set(item.id, await copiedItemId(id, item.id));
    }
    plans.set(task.id, { id, items: copies });
  }
  return plans;
}

/**
 * Makes the occurrence after `task` (just completed), inside the completing transaction:
 * the same title, notes, priority, assignee (while still a member), rule and list, due on
 * the rule's next date, its checklist copied unticked; all with the ids derived from the
 * occurrence, so another device completing it makes the same rows. Nothing if this device
 * has that occurrence already (made before, even if since deleted: exactly once).
 */
export async function makeSuccessor(
  writes: SuccessorWrites,
  task: Stored<Task>,
  plan: SuccessorPlan | undefined,
): Promise<void> {
  const { rows, insert } = writes;
  const repeat = readRepeat(task.repeat);
  if (!plan || !repeat || (await rows('tasks').get(plan.id))) return;
  const assignee = task.assignee_id
    ? (
        await rows('memberships')
          .where('[list_id+user_id]')
          .equals([task.list_id, task.assignee_id])
          .toArray()
      ).some((m) => !m.deleted_at)
    : false;
  await insert('tasks', {
    id: plan.id,
    list_id: task.list_id,
    title: task.title,
    notes: task.notes,
    status: 'todo',
    priority: task.priority,
    due_on: nextDue(repeat, task.due_on, writes.today()),
    assignee_id: assignee ? task.assignee_id : null,
    repeat: task.repeat,
    follows_id: task.id,
    position: await writes.endPosition(task.list_id, plan.id),
    completed_at: null,
    created_by: writes.userId(),
  });
  for (const [itemId, copyId] of plan.items) {
    const item = await rows('checklist_items').get(itemId);
    if (!item || item.deleted_at || (await rows('checklist_items').get(copyId))) continue;
    await insert('checklist_items', {
      id: copyId,
      task_id: plan.id,
      list_id: task.list_id,
      text: item.text,
      done: false,
      position: item.position,
      created_by: writes.userId(),
    });
  }
}
