// The bulk bar (issue 40) on a local-only device: with tasks selected, its menus set a status,
// a priority, an assignee or a due date on all of them (keeping the selection), move them to
// another list or delete them (ending it), each in one write with one Undo toast; its menus
// open by their keys from the bar or from a selected row.
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { LOCAL_USER_ID } from '@sync/index';
import { queuedChanges } from '@sync/testing';
import { addDays, todayIso } from '@/utils/format';

import { dbTasks, sharedList } from '../testing/fixtures';
import { openList, shownTitles, taskList, titleOf } from '../testing/tasks-screen';

const row = (title: string) => within(taskList()).getByRole('listitem', { name: title });
const bar = () => screen.getByRole('region', { name: 'Selection' });
const menu = (name: string) => screen.getByRole('menu', { name });
const doneTitles = () =>
  within(screen.getByRole('list', { name: 'Done tasks' }))
    .getAllByRole('listitem')
    .map((item) => item.getAttribute('aria-label'));

/** A list of three tasks with `picked` selected by keyboard (x on each row). */
async function withSelection(picked: readonly string[] = ['One', 'Two']) {
  const opened = await openList(['One', 'Two', 'Three']);
  await waitFor(() => expect(shownTitles()).toEqual(['One', 'Two', 'Three']));
  for (const title of picked) {
    row(title).focus();
    await opened.user.keyboard('x');
  }
  expect(within(bar()).getByText(`${picked.length} selected`)).toBeInTheDocument();
  const field = async (title: string, name: string) =>
    (await titleOf(opened.services, opened.listId, title))?.[name];
  return { ...opened, field };
}

describe('the bulk bar', () => {
  it('sets the status of every selected task, keeps the selection, and Undo puts each back', async () => {
    const { user, services, listId, field } = await withSelection();
    const two = (await titleOf(services, listId, 'Two'))!.id;
    await services.sync.repos.tasks.setStatus(two, 'doing');

    await user.click(within(bar()).getByRole('button', { name: 'Status' }));
    await user.click(within(menu('Status')).getByRole('menuitem', { name: 'Doing' }));
    // Two was doing already: one task changed.
    expect(await screen.findByText('1 task set to Doing')).toBeInTheDocument();
    expect(await field('One', 'status')).toBe('doing');
    expect(within(bar()).getByText('2 selected')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Undo' }));
    await waitFor(async () => expect(await field('One', 'status')).toBe('todo'));
    expect(await field('Two', 'status')).toBe('doing');
  });

  it('opens its menus by key from a selected row, and gives the focus back to the row', async () => {
    const { user, field } = await withSelection();
    expect(row('Two')).toHaveFocus();

    await user.keyboard('p');
    // Both have no priority: it is checked and focused; High is next.
    expect(
      within(menu('Priority')).getByRole('menuitemradio', { name: 'No priority' }),
    ).toHaveFocus();
    await user.keyboard('{ArrowDown}{Enter}');
    expect(await screen.findByText('2 tasks set to High')).toBeInTheDocument();
    expect([await field('One', 'priority'), await field('Two', 'priority')]).toEqual([3, 3]);
    expect(await field('Three', 'priority')).toBe(0);
    await waitFor(() => expect(row('Two')).toHaveFocus());

    await user.keyboard('a');
    await user.keyboard('{ArrowDown}{Enter}');
    expect(await screen.findByText('2 tasks assigned to You')).toBeInTheDocument();
    expect(await field('One', 'assignee_id')).toBe(LOCAL_USER_ID);
    await waitFor(() => expect(row('Two')).toHaveFocus());
  });

  it('sets and clears a due date with the date menu', async () => {
    const { user, services, field } = await withSelection();
    const tomorrow = addDays(todayIso(services.now()), 1);
    await user.keyboard('d');
    const dates = screen.getByRole('dialog', { name: 'Due date' });
    expect(within(dates).queryByRole('menuitem', { name: 'No date' })).toBeNull();
    await user.click(within(dates).getByRole('menuitem', { name: /^Tomorrow/ }));
    expect(await screen.findByText('2 tasks due Tomorrow')).toBeInTheDocument();
    expect([await field('One', 'due_on'), await field('Two', 'due_on')]).toEqual([
      tomorrow,
      tomorrow,
    ]);

    // The keys work in the bar too.
    within(bar()).getByRole('button', { name: 'Status' }).focus();
    await user.keyboard('d');
    await user.click(screen.getByRole('menuitem', { name: 'No date' }));
    expect(await screen.findByText('2 tasks with no due date')).toBeInTheDocument();
    expect(await field('One', 'due_on')).toBeNull();
    await waitFor(() =>
      expect(within(bar()).getByRole('button', { name: 'Due date' })).toHaveFocus(),
    );
  });

  it('moves the selection to another list the user can edit, ends it, and Undo brings it back', async () => {
    const { user, services, listId } = await withSelection();
    const hardware = await sharedList(services, 'owner', 'Hardware');
    await sharedList(services, 'viewer', 'Read only');
    await sharedList(services, 'editor', 'Depot');

    await user.keyboard('m');
    // The lists are read as it opens.
    expect(
      within(await screen.findByRole('menu', { name: 'Move to' }))
        .getAllByRole('menuitem')
        .map((item) => item.textContent),
    ).toEqual(['Depot', 'Hardware']);
    await user.click(within(menu('Move to')).getByRole('menuitem', { name: 'Hardware' }));
    expect(await screen.findByText('Moved 2 tasks to “Hardware”')).toBeInTheDocument();
    await waitFor(() => expect(shownTitles()).toEqual(['Three']));
    expect((await dbTasks(services, hardware)).map((t) => t.title)).toEqual(['One', 'Two']);
    expect(screen.queryByRole('region', { name: 'Selection' })).toBeNull();
    expect(screen.getByRole('heading', { level: 1 })).toHaveFocus();

    await user.click(screen.getByRole('button', { name: 'Undo' }));
    await waitFor(() => expect(shownTitles()).toEqual(['One', 'Two', 'Three']));
    expect(await dbTasks(services, hardware)).toEqual([]);
    expect((await dbTasks(services, listId)).map((t) => t.title)).toEqual(['One', 'Two', 'Three']);
  });

  it('says which tasks stayed: those with comments or files', async () => {
    const { user, services, listId } = await withSelection();
    await services.sync.repos.lists.create({ name: 'Hardware', color: 'red' });
    await services.sync.repos.comments.create((await titleOf(services, listId, 'One'))!.id, 'Hi');
    await user.keyboard('m');
    await user.click(await screen.findByRole('menuitem', { name: 'Hardware' }));
    expect(
      await screen.findByText('Moved 1 task to “Hardware” · 1 task with comments or files stayed'),
    ).toBeInTheDocument();
    await waitFor(() => expect(shownTitles()).toEqual(['One', 'Three']));
  });

  it('deletes the selection with Delete on a row, in one toast whose Undo brings all back', async () => {
    const { user, services, listId } = await withSelection();
    await user.keyboard('{Delete}');
    expect(await screen.findByText('Deleted 2 tasks')).toBeInTheDocument();
    await waitFor(() => expect(shownTitles()).toEqual(['Three']));
    expect(screen.queryByRole('region', { name: 'Selection' })).toBeNull();

    await user.click(screen.getByRole('button', { name: 'Undo' }));
    await waitFor(() => expect(shownTitles()).toEqual(['One', 'Two', 'Three']));
    expect((await dbTasks(services, listId)).map((t) => t.title)).toEqual(['One', 'Two', 'Three']);
    const deletes = (await queuedChanges(services.sync)).filter((entry) => entry.op === 'delete');
    expect(deletes).toEqual([]);
  });

  it('Complete marks the selection done and ends it; Escape in the bar ends it too', async () => {
    const { user, field } = await withSelection();
    await user.click(within(bar()).getByRole('button', { name: 'Complete' }));
    expect(await screen.findByText('2 tasks completed')).toBeInTheDocument();
    expect(await field('One', 'status')).toBe('done');
    expect(screen.queryByRole('region', { name: 'Selection' })).toBeNull();

    row('Three').focus();
    await user.keyboard('x');
    within(bar()).getByRole('button', { name: 'Priority' }).focus();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('region', { name: 'Selection' })).toBeNull();
    expect(screen.getByRole('heading', { level: 1 })).toHaveFocus();
  });

  it('keeps the tasks it sets to Done in their place, selected, until the filter changes', async () => {
    const { user } = await withSelection();
    await user.click(within(bar()).getByRole('button', { name: 'Status' }));
    await user.click(within(menu('Status')).getByRole('menuitemradio', { name: 'Done' }));
    expect(await screen.findByText('2 tasks set to Done')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByText('1 open · 2 done')).toBeInTheDocument());
    // Not into the Done section: the rows, and so the selection, stay.
    expect(shownTitles()).toEqual(['One', 'Two', 'Three']);
    expect(within(row('Two')).getByRole('checkbox', { name: 'Done: Two' })).toBeChecked();
    expect(within(bar()).getByText('2 selected')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Done \(/ })).toBeNull();

    await user.click(screen.getByRole('button', { name: 'To do' }));
    await waitFor(() => expect(shownTitles()).toEqual(['Three']));
    await user.click(screen.getByRole('button', { name: 'All' }));
    await user.click(await screen.findByRole('button', { name: 'Done (2)' }));
    expect(doneTitles()).toEqual(['One', 'Two']);
  });

  it('leaves a task of the open Done section there when the selection is set to Done', async () => {
    const { user, services, listId } = await openList(['One', 'Two']);
    await services.sync.repos.tasks.setStatus((await titleOf(services, listId, 'Two'))!.id, 'done');
    await user.click(await screen.findByRole('button', { name: 'Done (1)' }));
    row('One').focus();
    await user.keyboard('x');
    within(screen.getByRole('list', { name: 'Done tasks' }))
      .getByRole('listitem', { name: 'Two' })
      .focus();
    await user.keyboard('x');
    expect(within(bar()).getByText('2 selected')).toBeInTheDocument();

    await user.keyboard('s');
    await user.click(within(menu('Status')).getByRole('menuitem', { name: 'Done' }));
    expect(await screen.findByText('1 task set to Done')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByText('0 open · 2 done')).toBeInTheDocument());
    expect(shownTitles()).toEqual(['One']);
    expect(doneTitles()).toEqual(['Two']);
  });
});
