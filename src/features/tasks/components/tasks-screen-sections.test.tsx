// The list's rows as issue 40 made them: done tasks in a "Done" section after the open ones
// (collapsed, kept open for the session once opened), a task ticked here staying in place
// until the filter changes, j/k from one section into the other, the row of the task open
// beside the list, what a viewer's row says of its properties, and a touch screen's swipes
// and long-press.
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { atPath, findHeading, renderApp, renderWithServices } from '@/testing/app-harness';
import { mockMediaQueries } from '@/testing/media-queries';
import { Route } from '@/lib/router';

import { LONG_PRESS_MS, SWIPE_COMMIT_PX } from '../hooks/use-row-swipe';
import { dbTasks, localListDevice, seedTasks, sharedList } from '../testing/fixtures';
import { openList, shownTitles, taskList, titleOf } from '../testing/tasks-screen';
import { TasksScreen } from './tasks-screen';

const doneList = () => screen.getByRole('list', { name: 'Done tasks' });
const doneTitles = () =>
  within(doneList())
    .getAllByRole('listitem')
    .map((row) => row.getAttribute('aria-label'));

afterEach(() => vi.restoreAllMocks());

describe('tasks screen sections', () => {
  it('puts done tasks in a collapsed Done section after the open ones, open for the session once opened', async () => {
    const { user, listId, services, router } = await openList(['Milk', 'Bread', 'Eggs']);
    const bread = await titleOf(services, listId, 'Bread');
    await services.sync.repos.tasks.setStatus(bread!.id, 'done');
    await waitFor(() => expect(shownTitles()).toEqual(['Milk', 'Eggs']));
    const toggle = screen.getByRole('button', { name: 'Done (1)' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(screen.queryByRole('list', { name: 'Done tasks' })).toBeNull();
    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    expect(doneTitles()).toEqual(['Bread']);
    expect(within(doneList()).getByRole('checkbox', { name: 'Done: Bread' })).toBeChecked();

    // Away and back: still open.
    act(() => router.navigate('/lists'));
    await findHeading('Lists');
    act(() => router.navigate(`/lists/${listId}`));
    await findHeading('Groceries');
    await waitFor(() => expect(doneTitles()).toEqual(['Bread']));

    // A search shows what it finds in one list, done or not.
    await user.type(screen.getByRole('searchbox', { name: 'Search tasks' }), 'e');
    await waitFor(() => expect(shownTitles()).toEqual(['Bread', 'Eggs']));
    expect(screen.queryByRole('button', { name: /^Done \(/ })).toBeNull();
  });

  it('keeps a task ticked here in its place, ticked, until the filter changes', async () => {
    const { user } = await openList(['Milk', 'Bread', 'Eggs']);
    await user.click(await screen.findByRole('checkbox', { name: 'Done: Bread' }));
    await waitFor(() => expect(screen.getByText('2 open · 1 done')).toBeInTheDocument());
    expect(shownTitles()).toEqual(['Milk', 'Bread', 'Eggs']);
    expect(screen.queryByRole('button', { name: /^Done \(/ })).toBeNull();
    expect(screen.getByRole('checkbox', { name: 'Done: Bread' })).toBeChecked();
    // Ticked again where it is, it is open again.
    await user.click(screen.getByRole('checkbox', { name: 'Done: Bread' }));
    await waitFor(() => expect(screen.getByText('3 open · 0 done')).toBeInTheDocument());
    await user.click(screen.getByRole('checkbox', { name: 'Done: Bread' }));
    await waitFor(() => expect(screen.getByText('2 open · 1 done')).toBeInTheDocument());

    await user.click(screen.getByRole('button', { name: 'To do' }));
    await waitFor(() => expect(shownTitles()).toEqual(['Milk', 'Eggs']));
    await user.click(screen.getByRole('button', { name: 'All' }));
    await waitFor(() => expect(shownTitles()).toEqual(['Milk', 'Eggs']));
    await user.click(screen.getByRole('button', { name: 'Done (1)' }));
    expect(doneTitles()).toEqual(['Bread']);
  });

  it('moves with j/k from the last open row into the first done one, and back', async () => {
    const { user, listId, services } = await openList(['One', 'Two', 'Three', 'Four']);
    for (const title of ['Three', 'Four']) {
      const task = await titleOf(services, listId, title);
      await services.sync.repos.tasks.setStatus(task!.id, 'done');
    }
    await waitFor(() => expect(shownTitles()).toEqual(['One', 'Two']));
    await user.click(screen.getByRole('button', { name: 'Done (2)' }));
    await waitFor(() => expect(doneTitles()).toEqual(['Three', 'Four']));

    within(taskList()).getByRole('listitem', { name: 'One' }).focus();
    await user.keyboard('j');
    expect(within(taskList()).getByRole('listitem', { name: 'Two' })).toHaveFocus();
    await user.keyboard('j');
    expect(within(doneList()).getByRole('listitem', { name: 'Three' })).toHaveFocus();
    await user.keyboard('{ArrowDown}');
    expect(within(doneList()).getByRole('listitem', { name: 'Four' })).toHaveFocus();
    // The end of the last list: nowhere further.
    await user.keyboard('j');
    expect(within(doneList()).getByRole('listitem', { name: 'Four' })).toHaveFocus();
    await user.keyboard('kk');
    expect(within(taskList()).getByRole('listitem', { name: 'Two' })).toHaveFocus();
  });

  it('marks the row of the task open beside the list, and says where the keys take the focus', async () => {
    const { services, listId } = await localListDevice();
    const [one, two, three] = await seedTasks(services, listId, 3);
    const onRowFocus = vi.fn<(taskId: string) => void>();
    const user = userEvent.setup();
    atPath(`/lists/${listId}`);
    renderWithServices(
      services,
      <Route path="/lists/:listId">
        <TasksScreen openTaskId={two} onRowFocus={onRowFocus} />
      </Route>,
    );
    await findHeading('Groceries');
    await waitFor(() => expect(shownTitles()).toEqual(['Task 1', 'Task 2', 'Task 3']));
    const row = (title: string) => within(taskList()).getByRole('listitem', { name: title });
    expect(row('Task 2')).toHaveAttribute('aria-current', 'true');
    expect(row('Task 1')).not.toHaveAttribute('aria-current');

    await user.keyboard('j');
    expect(row('Task 1')).toHaveFocus();
    await user.keyboard('jj');
    expect(row('Task 3')).toHaveFocus();
    await user.keyboard('k');
    expect(onRowFocus.mock.calls.map(([id]) => id)).toEqual([one, two, three, two]);
  });

  it('shows a viewer each property as text or a named icon, and no controls', async () => {
    const { services } = await localListDevice();
    const listId = await sharedList(services, 'viewer');
    await seedTasks(services, listId, 2, (i) =>
      i === 0 ? { status: 'doing', priority: 3, due_on: '2020-01-02' } : {},
    );
    renderApp(services, `/lists/${listId}`);
    await findHeading('Site visit');
    const row = await within(await screen.findByRole('list', { name: 'Tasks' })).findByRole(
      'listitem',
      { name: 'Task 1' },
    );
    expect(within(row).getByRole('img', { name: 'Status: Doing' })).toBeInTheDocument();
    expect(within(row).getByRole('img', { name: 'Priority: High' })).toBeInTheDocument();
    expect(row).toHaveTextContent(/Overdue: /);
    expect(within(row).queryAllByRole('button')).toEqual([]);
    expect(row).toHaveAccessibleDescription(/^Doing\. High priority\. Due: Overdue · /);
  });

  it('on a touch screen, swipes a row right to tick it, left to delete it, and long-presses to select', async () => {
    mockMediaQueries(['(pointer: coarse)']);
    const { listId, services } = await openList(['Milk', 'Bread', 'Eggs']);
    await waitFor(() => expect(shownTitles()).toEqual(['Milk', 'Bread', 'Eggs']));
    const row = (title: string) => within(taskList()).getByRole('listitem', { name: title });
    const finger = (x: number) => ({
      pointerId: 1,
      pointerType: 'touch',
      isPrimary: true,
      clientX: x,
      clientY: 20,
    });
    const swipe = (title: string, dx: number) => {
      const link = within(row(title)).getByRole('link', { name: title });
      fireEvent.pointerDown(link, finger(100));
      fireEvent.pointerMove(link, finger(100 + dx / 2));
      fireEvent.pointerMove(link, finger(100 + dx));
      fireEvent.pointerUp(link, finger(100 + dx));
    };
    const stored = async (title: string) =>
      (await dbTasks(services, listId)).find((task) => task.title === title);

    swipe('Milk', SWIPE_COMMIT_PX + 10);
    await waitFor(async () => expect((await stored('Milk'))?.status).toBe('done'));
    expect(within(row('Milk')).getByRole('checkbox', { name: 'Done: Milk' })).toBeChecked();

    swipe('Bread', -(SWIPE_COMMIT_PX + 10));
    await waitFor(() => expect(shownTitles()).toEqual(['Milk', 'Eggs']));
    expect(await screen.findByText('Deleted “Bread”')).toBeInTheDocument();

    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      fireEvent.pointerDown(within(row('Eggs')).getByRole('link'), finger(100));
      act(() => {
        vi.advanceTimersByTime(LONG_PRESS_MS);
      });
      fireEvent.pointerUp(within(row('Eggs')).getByRole('link'), finger(100));
    } finally {
      vi.useRealTimers();
    }
    expect(screen.getByRole('checkbox', { name: 'Select Eggs' })).toBeChecked();
    expect(screen.getByText('1 selected')).toBeInTheDocument();
  });
});
