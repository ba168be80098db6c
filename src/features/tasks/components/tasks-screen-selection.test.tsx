// The tasks screen on a local-only device: selecting rows (click, keyboard, "Select" mode,
// Ctrl/Cmd+A), acting on the selection with Undo, a row's single keys (s, p, a, d open its
// menus, Delete deletes it), and ordering rows by keyboard and drag handle.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { storedRow, queuedChanges } from '@sync/testing';
import { findHeading, renderApp, type TestServices } from '@/testing/app-harness';

import { dbTasks, localListDevice, seedTasks, sharedList } from '../testing/fixtures';
import { openList, shownTitles, taskList, titleOf } from '../testing/tasks-screen';

let services: TestServices | undefined;

const row = (title: string) => within(taskList()).getByRole('listitem', { name: title });
const bar = () => screen.getByRole('region', { name: 'Selection' });
const menu = (name: string) => screen.getByRole('menu', { name });

/** The titles in the open Done section. */
function doneTitles(): string[] {
  return within(screen.getByRole('list', { name: 'Done tasks' }))
    .getAllByRole('listitem')
    .map((row) => row.getAttribute('aria-label') ?? '');
}

describe('tasks screen', () => {
  it('selects a range with Shift+click and one row with Ctrl/Cmd+click; Escape clears', async () => {
    const { user } = await openList(['One', 'Two', 'Three', 'Four', 'Five']);
    await waitFor(() => expect(shownTitles()).toHaveLength(5));
    const link = (title: string) => within(taskList()).getByRole('link', { name: title });
    const isSelected = (title: string) =>
      screen.getByRole<HTMLInputElement>('checkbox', { name: `Select ${title}` }).checked;
    const picked = () => ['One', 'Two', 'Three', 'Four', 'Five'].filter(isSelected);

    await user.keyboard('{Control>}');
    await user.click(link('Two'));
    await user.keyboard('{/Control}');
    expect(picked()).toEqual(['Two']);
    await user.keyboard('{Shift>}');
    await user.click(link('Four'));
    await user.keyboard('{/Shift}');
    expect(picked()).toEqual(['Two', 'Three', 'Four']);
    expect(screen.getByText('3 selected')).toBeInTheDocument();
    // Cmd+click takes one out again; none of these clicks opened the task.
    await user.keyboard('{Meta>}');
    await user.click(link('Three'));
    await user.keyboard('{/Meta}');
    expect(picked()).toEqual(['Two', 'Four']);
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Groceries');

    within(taskList()).getByRole('listitem', { name: 'Four' }).focus();
    await user.keyboard('{Escape}');
    expect(picked()).toEqual([]);
    expect(screen.queryByText(/selected/)).not.toBeInTheDocument();
  });

  it('extends the selection with Shift+↓/↑ as focus moves', async () => {
    const { user } = await openList(['One', 'Two', 'Three']);
    await waitFor(() => expect(shownTitles()).toHaveLength(3));
    const row = (title: string) => within(taskList()).getByRole('listitem', { name: title });
    row('One').focus();
    await user.keyboard('{Shift>}{ArrowDown}{ArrowDown}{/Shift}');
    expect(row('Three')).toHaveFocus();
    expect(screen.getByText('3 selected')).toBeInTheDocument();
    await user.keyboard('{Escape}');
    expect(screen.queryByText(/selected/)).not.toBeInTheDocument();
  });

  it('deletes a task and Undo brings it back', async () => {
    const { user, listId, services } = await openList(['Buy milk', 'Eggs']);
    await user.click(await screen.findByRole('button', { name: 'Delete Buy milk' }));
    await waitFor(() => expect(shownTitles()).toEqual(['Eggs']));
    expect(await dbTasks(services, listId)).toHaveLength(1);
    expect(screen.getByText('Deleted “Buy milk”')).toBeInTheDocument();
    // Focus moves to the next task rather than getting lost.
    await waitFor(() =>
      expect(within(taskList()).getByRole('listitem', { name: 'Eggs' })).toHaveFocus(),
    );

    await user.click(screen.getByRole('button', { name: 'Undo' }));
    await waitFor(() => expect(shownTitles()).toEqual(['Buy milk', 'Eggs']));
    const rows = await dbTasks(services, listId);
    expect(rows.map((row) => row.deleted_at)).toEqual([null, null]);
    const deletes = (await queuedChanges(services.sync)).filter(
      (entry) => entry.op === 'delete',
    ).length;
    expect(deletes).toBe(0);
  });

  it('selects tasks (click and x) and completes them together', async () => {
    const { user, listId, services } = await openList(['One', 'Two', 'Three']);
    await user.click(await screen.findByRole('checkbox', { name: 'Select One' }));
    within(taskList()).getByRole('listitem', { name: 'Three' }).focus();
    await user.keyboard('x');
    expect(screen.getByRole('checkbox', { name: 'Select Three' })).toBeChecked();
    expect(screen.getByText('2 selected')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Complete' }));
    await waitFor(async () =>
      expect((await dbTasks(services, listId)).map((t) => t.status)).toEqual([
        'done',
        'todo',
        'done',
      ]),
    );
    expect(screen.queryByText(/selected/)).not.toBeInTheDocument();

    // Clear empties the selection without writing anything.
    await user.click(screen.getByRole('checkbox', { name: 'Select Two' }));
    await user.click(screen.getByRole('button', { name: 'Clear' }));
    expect(screen.getByRole('checkbox', { name: 'Select Two' })).not.toBeChecked();
    expect((await dbTasks(services, listId))[1]?.status).toBe('todo');
  });

  it('completes only selected tasks still shown, counts those it completed, and undoes them', async () => {
    const device = await localListDevice();
    services = device.services;
    const { listId } = device;
    const repos = services.sync.repos.tasks;
    await repos.create(listId, { title: 'One' });
    await repos.create(listId, { title: 'Two', status: 'doing' });
    await repos.create(listId, { title: 'Three' });
    const four = await repos.create(listId, { title: 'Four', status: 'done' });
    const doneAt = (await storedRow(services.sync, 'tasks', four))?.completed_at;
    const user = userEvent.setup();
    renderApp(services, `/lists/${listId}`);
    await findHeading('Groceries');
    // Four is in the Done section, shown once opened.
    await user.click(await screen.findByRole('button', { name: 'Done (1)' }));
    const titles = () => [...shownTitles(), ...doneTitles()];
    await waitFor(() => expect(titles()).toEqual(['One', 'Two', 'Three', 'Four']));
    for (const title of ['One', 'Two', 'Four']) {
      await user.click(screen.getByRole('checkbox', { name: `Select ${title}` }));
    }
    expect(screen.getByText('3 selected')).toBeInTheDocument();

    // A filter hides Two and Four: they leave the selection, and stay out when shown again.
    await user.click(screen.getByRole('button', { name: 'To do' }));
    await waitFor(() => expect(shownTitles()).toEqual(['One', 'Three']));
    expect(screen.getByText('1 selected')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'All' }));
    await waitFor(() => expect(titles()).toHaveLength(4));
    expect(screen.getByRole('checkbox', { name: 'Select Two' })).not.toBeChecked();
    expect(screen.getByText('1 selected')).toBeInTheDocument();

    // So does a search.
    await user.click(screen.getByRole('checkbox', { name: 'Select Three' }));
    await user.type(screen.getByRole('searchbox', { name: 'Search tasks' }), 'one');
    await waitFor(() => expect(shownTitles()).toEqual(['One']));
    expect(screen.getByText('1 selected')).toBeInTheDocument();
    await user.clear(screen.getByRole('searchbox', { name: 'Search tasks' }));
    await waitFor(() => expect(titles()).toHaveLength(4));

    // Complete counts what it completed: Four was done already.
    await user.click(screen.getByRole('checkbox', { name: 'Select Two' }));
    await user.click(screen.getByRole('checkbox', { name: 'Select Four' }));
    expect(screen.getByText('3 selected')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Complete' }));
    expect(await screen.findByText('2 tasks completed')).toBeInTheDocument();
    const statuses = async (): Promise<Record<string, unknown>> =>
      Object.fromEntries(
        (await dbTasks(services!, listId)).map((t): [string, unknown] => [
          String(t.title),
          t.status,
        ]),
      );
    expect(await statuses()).toEqual({ One: 'done', Two: 'done', Three: 'todo', Four: 'done' });

    await user.click(screen.getByRole('button', { name: 'Undo' }));
    await waitFor(async () =>
      expect(await statuses()).toEqual({ One: 'todo', Two: 'doing', Three: 'todo', Four: 'done' }),
    );
    expect((await storedRow(services.sync, 'tasks', four))?.completed_at).toBe(doneAt);
    expect(await screen.findByText('3 open · 1 done')).toBeVisible();
  });

  it('says so when every selected task was already done', async () => {
    const { user, listId, services } = await openList(['One']);
    const id = (await dbTasks(services, listId))[0]!.id;
    await services.sync.repos.tasks.setStatus(id, 'done');
    await user.click(await screen.findByRole('button', { name: 'Done (1)' }));
    await user.click(await screen.findByRole('checkbox', { name: 'Select One' }));
    await user.click(screen.getByRole('button', { name: 'Complete' }));
    expect(await screen.findByText('That task was already done.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Undo' })).not.toBeInTheDocument();
  });

  it('shows tasks with the same position in id order, and drops a task between them', async () => {
    const device = await localListDevice();
    services = device.services;
    const { listId } = device;
    // Two devices added "Low id" and "High id" offline with the same key.
    const rows = [
      { id: '00000000-0000-4000-8000-000000000009', title: 'Low id', position: 'a0' },
      { id: '00000000-0000-4000-8000-00000000000a', title: 'High id', position: 'a0' },
      { id: '00000000-0000-4000-8000-000000000001', title: 'Next', position: 'a0V' },
      { id: '00000000-0000-4000-8000-000000000002', title: 'Moved', position: 'a2' },
    ];
    await seedTasks(services, listId, rows.length, (i) => rows[i] ?? {});
    const user = userEvent.setup();
    renderApp(services, `/lists/${listId}`);
    await findHeading('Groceries');
    await waitFor(() => expect(shownTitles()).toEqual(['Low id', 'High id', 'Next', 'Moved']));

    within(taskList()).getByRole('listitem', { name: 'Moved' }).focus();
    await user.keyboard('{Alt>}{ArrowUp}{/Alt}');
    await waitFor(() => expect(shownTitles()).toEqual(['Low id', 'High id', 'Moved', 'Next']));
    await user.keyboard('{Alt>}{ArrowUp}{/Alt}');
    const expected = ['Low id', 'Moved', 'High id', 'Next'];
    await waitFor(async () =>
      expect((await dbTasks(services!, listId)).map((t) => t.title)).toEqual(expected),
    );
    await waitFor(() => expect(shownTitles()).toEqual(expected));
    expect(screen.queryByText("Couldn't move the task.")).not.toBeInTheDocument();
  });

  it('moves focus with j/k and reorders with Alt+arrows', async () => {
    const { user, listId, services } = await openList(['One', 'Two', 'Three']);
    await waitFor(() => expect(shownTitles()).toEqual(['One', 'Two', 'Three']));
    await user.keyboard('j');
    const rows = () => within(taskList()).getAllByRole('listitem');
    expect(rows()[0]).toHaveFocus();
    await user.keyboard('j');
    expect(rows()[1]).toHaveFocus();
    await user.keyboard('k');
    expect(rows()[0]).toHaveFocus();

    await user.keyboard('{Alt>}{ArrowDown}{/Alt}');
    await waitFor(async () =>
      expect((await dbTasks(services, listId)).map((t) => t.title)).toEqual([
        'Two',
        'One',
        'Three',
      ]),
    );
    await waitFor(() => expect(shownTitles()).toEqual(['Two', 'One', 'Three']));
    await waitFor(() =>
      expect(within(taskList()).getByRole('listitem', { name: 'One' })).toHaveFocus(),
    );
    expect(screen.getByText('One moved to position 2 of 3.')).toBeInTheDocument();

    await user.keyboard('{Alt>}{ArrowDown}{/Alt}');
    await waitFor(async () =>
      expect((await dbTasks(services, listId)).map((t) => t.title)).toEqual([
        'Two',
        'Three',
        'One',
      ]),
    );
    await user.keyboard('{Alt>}{ArrowUp}{/Alt}{Alt>}{ArrowUp}{/Alt}');
    await waitFor(async () =>
      expect((await dbTasks(services, listId)).map((t) => t.title)).toEqual([
        'One',
        'Two',
        'Three',
      ]),
    );
    await waitFor(() => expect(shownTitles()).toEqual(['One', 'Two', 'Three']));
    // The new positions are queued for the server (folded into the unsent inserts).
    const queued = (await queuedChanges(services.sync)).filter((entry) => entry.table === 'tasks');
    const stored = await dbTasks(services, listId);
    for (const row of stored) {
      expect(queued.find((entry) => entry.rowId === row.id)?.data.position).toBe(row.position);
    }
  });

  it('"Select" turns on selection mode for every row, and off again clearing the selection', async () => {
    const { user } = await openList(['One', 'Two']);
    await waitFor(() => expect(shownTitles()).toEqual(['One', 'Two']));
    const toggle = screen.getByRole('button', { name: 'Select' });
    expect(toggle).toHaveAttribute('aria-pressed', 'false');
    expect(taskList()).not.toHaveClass('tasks-list--selecting');
    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-pressed', 'true');
    expect(taskList()).toHaveClass('tasks-list--selecting');
    await user.click(screen.getByRole('checkbox', { name: 'Select Two' }));
    expect(screen.getByText('1 selected')).toBeInTheDocument();
    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-pressed', 'false');
    expect(taskList()).not.toHaveClass('tasks-list--selecting');
    expect(screen.getByRole('checkbox', { name: 'Select Two' })).not.toBeChecked();
    expect(screen.queryByText(/selected/)).not.toBeInTheDocument();
  });

  it('carries a task by keyboard from its grip, one place per key, and drops or puts it back', async () => {
    const { user, listId, services } = await openList(['One', 'Two', 'Three', 'Four']);
    await waitFor(() => expect(shownTitles()).toEqual(['One', 'Two', 'Three', 'Four']));
    const grip = () => screen.getByRole('button', { name: 'Reorder One' });
    const said = (text: string) => expect(screen.getByText(text)).toBeInTheDocument();
    const stored = async () => (await dbTasks(services, listId)).map((t) => t.title);

    grip().focus();
    await user.keyboard(' ');
    said('Picked up One, position 1 of 4.');
    expect(grip()).toHaveAttribute('aria-pressed', 'true');
    expect(within(taskList()).getByRole('listitem', { name: 'One' })).toHaveClass(
      'tasks-row--dragging',
    );
    // Each arrow moves it as it is pressed; past the end it stays; j and x do nothing meanwhile.
    await user.keyboard('{ArrowDown}{ArrowDown}{ArrowDown}{ArrowDown}jx');
    expect(shownTitles()).toEqual(['Two', 'Three', 'Four', 'One']);
    said('One moved to position 4 of 4.');
    expect(grip()).toHaveFocus();
    expect(screen.queryByText(/selected/)).not.toBeInTheDocument();
    await user.keyboard('{ArrowUp}');
    expect(shownTitles()).toEqual(['Two', 'Three', 'One', 'Four']);
    expect(await stored()).toEqual(['One', 'Two', 'Three', 'Four']);
    await user.keyboard(' ');
    said('One dropped at position 3 of 4.');
    expect(grip()).not.toHaveAttribute('aria-pressed');
    await waitFor(async () => expect(await stored()).toEqual(['Two', 'Three', 'One', 'Four']));
    expect(shownTitles()).toEqual(['Two', 'Three', 'One', 'Four']);

    // Escape puts it back, and so does leaving the grip; Enter carries as Space does.
    await user.keyboard('{Enter}{ArrowUp}{ArrowUp}{Escape}');
    said('Moving cancelled. One dropped back in place.');
    expect(shownTitles()).toEqual(['Two', 'Three', 'One', 'Four']);
    expect(grip()).toHaveFocus();
    await user.keyboard('{Enter}{ArrowUp}');
    expect(shownTitles()).toEqual(['Two', 'One', 'Three', 'Four']);
    await user.click(screen.getByRole('checkbox', { name: 'Done: Four' }));
    expect(shownTitles()).toEqual(['Two', 'Three', 'One', 'Four']);
    // Tab drops it and moves on.
    grip().focus();
    await user.keyboard('{Enter}{ArrowUp}{ArrowUp}{Tab}');
    said('One dropped at position 1 of 4.');
    await waitFor(async () => expect(await stored()).toEqual(['One', 'Two', 'Three', 'Four']));
    expect(grip()).not.toHaveFocus();
  });

  it('has a labelled drag handle per row for reordering', async () => {
    await openList(['One', 'Two']);
    const handle = await screen.findByRole('button', { name: 'Reorder One' });
    expect(handle).toHaveAttribute('aria-roledescription', 'sortable');
  });
});

describe('single keys on a focused row', () => {
  it('open that row’s own menus, and the focus comes back to the row after a choice', async () => {
    const { user, services, listId } = await openList(['One', 'Two']);
    await waitFor(() => expect(shownTitles()).toEqual(['One', 'Two']));
    row('Two').focus();
    await user.keyboard('s');
    expect(within(menu('Status')).getByRole('menuitemradio', { name: 'To do' })).toHaveFocus();
    await user.keyboard('{ArrowDown}{Enter}');
    await waitFor(async () =>
      expect((await titleOf(services, listId, 'Two'))?.status).toBe('doing'),
    );
    await waitFor(() => expect(row('Two')).toHaveFocus());
    expect((await titleOf(services, listId, 'One'))?.status).toBe('todo');

    await user.keyboard('d');
    expect(screen.getByRole('dialog', { name: 'Due date' })).toBeInTheDocument();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog', { name: 'Due date' })).toBeNull();
  });

  it('Delete and Backspace delete the focused task, with Undo', async () => {
    const { user } = await openList(['One', 'Two', 'Three']);
    await waitFor(() => expect(shownTitles()).toHaveLength(3));
    row('Two').focus();
    await user.keyboard('{Backspace}');
    expect(await screen.findByText('Deleted “Two”')).toBeInTheDocument();
    await waitFor(() => expect(shownTitles()).toEqual(['One', 'Three']));
    await waitFor(() => expect(row('Three')).toHaveFocus());
    await user.keyboard('{Delete}');
    await waitFor(() => expect(shownTitles()).toEqual(['One']));
  });

  it('Ctrl/Cmd+A selects every task shown', async () => {
    const { user } = await openList(['One', 'Two', 'Three']);
    await waitFor(() => expect(shownTitles()).toHaveLength(3));
    row('One').focus();
    await user.keyboard('{Control>}a{/Control}');
    expect(within(bar()).getByText('3 selected')).toBeInTheDocument();
    await user.keyboard('{Escape}');
    await user.keyboard('{Meta>}a{/Meta}');
    expect(within(bar()).getByText('3 selected')).toBeInTheDocument();
  });

  it('never fire with a modifier or in a field', async () => {
    const { user } = await openList(['One']);
    await waitFor(() => expect(shownTitles()).toEqual(['One']));
    row('One').focus();
    await user.keyboard('{Alt>}s{/Alt}{Control>}p{/Control}');
    expect(screen.queryByRole('menu')).toBeNull();
    await user.type(screen.getByRole('searchbox', { name: 'Search tasks' }), 'sp');
    expect(screen.queryByRole('menu')).toBeNull();
  });

  it('never fire for a viewer', async () => {
    const { services } = await localListDevice();
    const listId = await sharedList(services, 'viewer', 'Read only');
    await seedTasks(services, listId, 1);
    const user = userEvent.setup();
    renderApp(services, `/lists/${listId}`);
    await findHeading('Read only');
    await waitFor(() => expect(shownTitles()).toEqual(['Task 1']));
    row('Task 1').focus();
    await user.keyboard('spad{Delete}{Control>}a{/Control}');
    expect(screen.queryByRole('menu')).toBeNull();
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(screen.queryByRole('region', { name: 'Selection' })).toBeNull();
    expect(shownTitles()).toEqual(['Task 1']);
  });
});
