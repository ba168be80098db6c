// My work's reads (issue 39) against a device on fake-indexeddb: Today, Upcoming and Assigned
// to me across every list the user holds, in their orders, leaving out what is done, deleted,
// undated or of a list the user has left; capped; and the sidebar's counts.
import { describe, expect, it } from 'vitest';

import { memoryDevice } from './testing/memory-device';
import { serverRow } from './testing/server-row';
import { addDays } from '@/utils/format';

import { myWorkQueries, type MyWorkRows } from './my-work-queries';
import { createQueries } from './queries';

const ME = '0e000000-0000-4000-8000-000000000001';
const OTHER = '0e000000-0000-4000-8000-000000000002';
const TODAY = '2026-12-02';

function device() {
  const { db, repos, reader } = memoryDevice('my-work', ME);
  return {
    db,
    repos,
    queries: createQueries(reader, () => Promise.resolve(ME)).extend(myWorkQueries),
  };
}

const titles = (view: MyWorkRows) => view.rows.map((row) => row.task.title);

/** Two lists (named so that "Alpha" sorts first) with tasks that every view picks from. */
async function seeded() {
  const { db, repos, queries } = device();
  const beta = await repos.lists.create({ name: 'beta', color: 'teal' });
  const alpha = await repos.lists.create({ name: 'Alpha', color: 'red' });
  const task = (
    listId: string,
    title: string,
    fields: { due_on?: string; assignee_id?: string } = {},
  ) => repos.tasks.create(listId, { title, ...fields });
  await task(beta, 'Beta today', { due_on: TODAY, assignee_id: ME });
  await task(alpha, 'Alpha today', { due_on: TODAY });
  await task(beta, 'Overdue a week', { due_on: '2026-11-25', assignee_id: ME });
  const doing = await task(alpha, 'Overdue, doing', { due_on: '2026-12-01' });
  await repos.tasks.update(doing, { status: 'doing' });
  await task(alpha, 'Tomorrow', { due_on: '2026-12-03', assignee_id: ME });
  await task(beta, 'In four weeks', { due_on: addDays(TODAY, 28) });
  await task(beta, 'Too far', { due_on: addDays(TODAY, 29), assignee_id: ME });
  await task(alpha, 'Some day', { assignee_id: ME });
  await task(alpha, 'Theirs', { due_on: TODAY, assignee_id: OTHER });
  const done = await task(alpha, 'Done', { due_on: TODAY, assignee_id: ME });
  await repos.tasks.update(done, { status: 'done' });
  const gone = await task(beta, 'Deleted', { due_on: TODAY, assignee_id: ME });
  await repos.tasks.delete(gone);
  return { db, repos, queries, alpha, beta };
}

describe('my work queries', () => {
  it('read Today: overdue oldest first, then today’s, by list; open, live and dated only', async () => {
    const { queries, alpha } = await seeded();
    const view = await queries.dueToday(ME, TODAY);
    expect(titles(view)).toEqual([
      'Overdue a week',
      'Overdue, doing',
      'Alpha today',
      'Theirs',
      'Beta today',
    ]);
    expect(view.capped).toBe(false);
    // Each row comes with its list and the user's role there (the list's maker: owner).
    expect(view.rows[1]?.list.id).toBe(alpha);
    expect(view.rows[1]?.role).toBe('owner');
  });

  it('read Upcoming: tomorrow through four weeks on, by date', async () => {
    const { queries } = await seeded();
    expect(titles(await queries.upcoming(ME, TODAY))).toEqual(['Tomorrow', 'In four weeks']);
    // A day later, tomorrow's task is today's, and the day after four weeks comes in.
    expect(titles(await queries.upcoming(ME, '2026-12-03'))).toEqual(['In four weeks', 'Too far']);
  });

  it('read Assigned to me: by list in sidebar order, then due date, undated last', async () => {
    const { queries } = await seeded();
    expect(titles(await queries.assignedToMe(ME))).toEqual([
      'Tomorrow',
      'Some day',
      'Overdue a week',
      'Beta today',
      'Too far',
    ]);
    expect(titles(await queries.assignedToMe(OTHER))).toEqual(['Theirs']);
  });

  it('leave out the tasks of a list the user has left or that was deleted', async () => {
    const { db, repos, queries, alpha, beta } = await seeded();
    // ME leaves beta: the server's tombstone of the membership replaces the stand-in.
    await db
      .rows('memberships')
      .filter((row) => row.list_id === beta)
      .delete();
    const at = '2026-11-27T10:00:00.000Z';
    await db.rows('memberships').put(
      serverRow('memberships', {
        id: `m-${beta}`,
        list_id: beta,
        user_id: ME,
        role: 'editor',
        version: 2,
        created_at: at,
        updated_at: at,
        deleted_at: at,
      }),
    );
    expect(titles(await queries.dueToday(ME, TODAY))).toEqual([
      'Overdue, doing',
      'Alpha today',
      'Theirs',
    ]);
    await repos.lists.delete(alpha);
    expect(titles(await queries.dueToday(ME, TODAY))).toEqual([]);
    expect((await queries.assignedToMe(ME)).rows).toEqual([]);
  });

  it('cap a view at its limit, the first by its order, and say so', async () => {
    const { queries } = await seeded();
    const view = await queries.dueToday(ME, TODAY, 3);
    expect(titles(view)).toEqual(['Overdue a week', 'Overdue, doing', 'Alpha today']);
    expect(view.capped).toBe(true);
    const assigned = await queries.assignedToMe(ME, 2);
    expect([titles(assigned), assigned.capped]).toEqual([['Tomorrow', 'Some day'], true]);
  });

  it('say a view is capped when a range had more than its limit, tombstones among them', async () => {
    const { queries, repos, beta } = await seeded();
    // Five open tasks due by today; with a limit of 5 and one more deleted, none is left out.
    const extra = await repos.tasks.create(beta, { title: 'Extra', due_on: TODAY });
    await repos.tasks.delete(extra);
    expect((await queries.dueToday(ME, TODAY, 5)).rows).toHaveLength(5);
    expect((await queries.dueToday(ME, TODAY, 4)).capped).toBe(true);
    // Tombstones in the index's window do not push live tasks out of the first page.
    for (let i = 0; i < 8; i += 1) {
      await repos.tasks.delete(
        await repos.tasks.create(beta, { title: `Gone ${i}`, due_on: TODAY }),
      );
    }
    const capped = await queries.dueToday(ME, TODAY, 3);
    expect([titles(capped), capped.capped]).toEqual([
      ['Overdue a week', 'Overdue, doing', 'Alpha today'],
      true,
    ]);
    // Only the user's own assigned tasks: OTHER has one.
    expect((await queries.assignedToMe(OTHER)).rows.map((row) => row.task.title)).toEqual([
      'Theirs',
    ]);
  });

  it('count days across a month’s and a year’s end', () => {
    expect(addDays('2026-12-30', 3)).toBe('2027-01-02');
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
  });
});
