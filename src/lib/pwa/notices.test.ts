// What becomes a notification among others' changes: a task newly assigned to the user, a new
// comment by someone else on a task of theirs; never their own edits, deletions, done tasks,
// or comments on others' tasks.
import { describe, expect, it } from 'vitest';

import { createQueries } from '@/data/queries';
import { memoryDevice } from '@/data/testing/memory-device';
import type { RemoteChange } from '@sync/index';

import { noticesFor } from './notices';

const ME = '00000000-0000-4000-8000-00000000000a';
const BEN = '00000000-0000-4000-8000-00000000000b';

async function device() {
  const { repos, reader } = memoryDevice('notices', ME);
  const queries = createQueries(reader, () => Promise.resolve(ME));
  const listId = await repos.lists.create({ name: 'Boiler room', color: 'blue' });
  const mine = await repos.tasks.create(listId, { title: 'Bleed the radiators' });
  const task = await queries.row('tasks', mine);
  if (!task) throw new Error('no task');
  return { queries, listId, task, repos };
}

/** A change of `table`'s row `row` (a version above the device's copy `before`). */
function change(table: string, row: Record<string, unknown>, before?: Record<string, unknown>) {
  return {
    table,
    row: { version: 2, deleted_at: null, ...row },
    before: before ? { _v: 1, ...before } : undefined,
  } as unknown as RemoteChange;
}

describe('notices', () => {
  it('tells of a task newly assigned to the user, with its list, opening the task', async () => {
    const { queries, listId, task } = await device();
    const notices = await noticesFor(
      [change('tasks', { ...task, assignee_id: ME }, { ...task, assignee_id: BEN })],
      ME,
      queries,
    );
    expect(notices).toEqual([
      {
        tag: `assigned:${task.id}`,
        title: 'Assigned to you',
        body: 'Bleed the radiators · Boiler room',
        url: `/lists/${listId}/tasks/${task.id}`,
      },
    ]);
  });

  it('stays quiet for a task already the user’s, assigned to someone else, done or deleted', async () => {
    const { queries, task } = await device();
    const mineAlready = change(
      'tasks',
      { ...task, assignee_id: ME, title: 'Renamed' },
      {
        ...task,
        assignee_id: ME,
      },
    );
    const others = change('tasks', { ...task, assignee_id: BEN });
    const done = change('tasks', { ...task, assignee_id: ME, status: 'done' }, task);
    const deleted = change('tasks', {
      ...task,
      assignee_id: ME,
      deleted_at: '2026-12-02T00:00:00Z',
    });
    expect(await noticesFor([mineAlready, others, done, deleted], ME, queries)).toEqual([]);
  });

  it('stays quiet for the next occurrence of a repeating task already the user’s, not for one newly theirs', async () => {
    const { queries, task, repos } = await device();
    const next = { ...task, id: '00000000-0000-4000-8000-0000000000c1', follows_id: task.id };
    const arrives = () => noticesFor([change('tasks', { ...next, assignee_id: ME })], ME, queries);
    // The occurrence it follows was no one's: the next one, assigned to the user, is news.
    expect(await arrives()).toHaveLength(1);
    await repos.tasks.update(task.id, { assignee_id: ME });
    expect(await arrives()).toEqual([]);
  });

  it("tells of someone else's new comment on the user's task, and only that", async () => {
    const { queries, listId, task } = await device();
    const comment = (id: string, author: string, taskId = task.id) =>
      change('comments', {
        id,
        task_id: taskId,
        list_id: listId,
        author_id: author,
        body: 'Done at 9',
      });
    const notices = await noticesFor(
      [
        comment('c-1', BEN),
        // Their own comment, heard back from the server.
        comment('c-2', ME),
        // A comment on a task this device does not hold.
        comment('c-3', BEN, 'not-here'),
        // An edit of an older comment is no news.
        { ...comment('c-4', BEN), before: { _v: 1 } } as unknown as RemoteChange,
      ],
      ME,
      queries,
    );
    expect(notices).toEqual([
      {
        tag: 'comment:c-1',
        title: 'Someone commented on Bleed the radiators',
        body: 'Done at 9',
        url: `/lists/${listId}/tasks/${task.id}`,
      },
    ]);
  });

  it('does not tell of comments on a task assigned to someone else', async () => {
    const { queries, listId, task } = await device();
    const reads = {
      ...queries,
      row: (() => Promise.resolve({ ...task, assignee_id: BEN })) as typeof queries.row,
    };
    const comment = change('comments', {
      id: 'c-9',
      task_id: task.id,
      list_id: listId,
      author_id: BEN,
      body: 'hi',
    });
    expect(await noticesFor([comment], ME, reads)).toEqual([]);
    // The same comment on her own task would tell her.
    expect(await noticesFor([comment], ME, queries)).toHaveLength(1);
  });

  it('shortens a long title and keeps a path that cannot leave the app', async () => {
    const { queries, task } = await device();
    const long = 'x'.repeat(300);
    const [notice] = await noticesFor(
      [change('tasks', { ...task, title: long, assignee_id: ME, list_id: '../../evil' }, task)],
      ME,
      queries,
    );
    expect(notice?.body).toHaveLength(120);
    expect(notice?.body.endsWith('…')).toBe(true);
    expect(notice?.url).toBe(`/lists/..%2F..%2Fevil/tasks/${task.id}`);
  });
});
