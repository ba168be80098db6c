// What is worth a notification among the rows others changed (the library's RemoteChange, from
// a background pull in the worker or realtime in a hidden tab): a task newly assigned to the
// user (not the next occurrence of a repeating task that was already theirs), and a new comment by someone else on a task that is the user's (assigned to them, or
// made by them and assigned to no one else). Each notice opens its task. One's own edits made
// on this device never show here: the device's copy already had them, so nothing changed.
import type { RemoteChange } from '@sync/index';

import type { Queries } from '@/data/queries';

/** A notification to show: `tag` replaces an earlier one about the same thing. */
export interface Notice {
  tag: string;
  title: string;
  body: string;
  /** The app's path that opens the task. */
  url: string;
}

/** The reads a notice needs: list names, tasks of new comments, people's names. */
export type NoticeReads = Pick<Queries, 'row' | 'profile'>;

/** The longest text a notice quotes (a title or a comment) before an ellipsis. */
const QUOTE_MAX = 120;

/** The notices `changes` make for `userId`, in the order the changes came. */
export async function noticesFor(
  changes: readonly RemoteChange[],
  userId: string,
  reads: NoticeReads,
): Promise<Notice[]> {
  const notices: Notice[] = [];
  for (const { table, row, before } of changes) {
    if (row.deleted_at) continue;
    if (table === 'tasks') {
      if (row.assignee_id !== userId || before?.assignee_id === userId) continue;
      if (row.status === 'done') continue;
      // The next occurrence of a repeating task the user already had is no news.
      if (before === undefined && (await followsTheirs(reads, row.follows_id, userId))) continue;
      const listName = await nameOfList(reads, row.list_id);
      notices.push({
        tag: `assigned:${row.id}`,
        title: 'Assigned to you',
        body: `${quote(row.title)}${listName ? ` · ${listName}` : ''}`,
        url: taskPath(row.list_id, row.id),
      });
    } else if (table === 'comments' && before === undefined && row.author_id !== userId) {
      const task = await reads.row('tasks', String(row.task_id));
      if (!task || task.deleted_at || !isTheirs(task, userId)) continue;
      const author = await reads.profile(String(row.author_id));
      notices.push({
        tag: `comment:${row.id}`,
        title: `${author?.display_name || 'Someone'} commented on ${quote(task.title)}`,
        body: quote(row.body),
        url: taskPath(task.list_id, task.id),
      });
    }
  }
  return notices;
}

/** A task is the user's when it is assigned to them, or theirs and assigned to no one else. */
function isTheirs(task: { assignee_id: string | null; created_by: string }, userId: string) {
  return task.assignee_id === userId || (task.assignee_id === null && task.created_by === userId);
}

/** Whether `occurrence` (a task's follows_id) is a task assigned to the user. */
async function followsTheirs(reads: NoticeReads, occurrence: unknown, userId: string) {
  if (typeof occurrence !== 'string') return false;
  return (await reads.row('tasks', occurrence))?.assignee_id === userId;
}

async function nameOfList(reads: NoticeReads, listId: unknown): Promise<string | undefined> {
  const list = typeof listId === 'string' ? await reads.row('lists', listId) : undefined;
  return list && !list.deleted_at ? list.name : undefined;
}

function taskPath(listId: unknown, taskId: unknown): string {
  return `/lists/${encodeURIComponent(String(listId))}/tasks/${encodeURIComponent(String(taskId))}`;
}

function quote(text: unknown): string {
  const value = typeof text === 'string' ? text.trim() : '';
  return value.length > QUOTE_MAX ? `${value.slice(0, QUOTE_MAX - 1)}…` : value;
}
