// The tasks screen on a local-only device, against the real sync library on fake-indexeddb:
// what the user does on screen must land in the device database (and the outbox), and what
// the database holds must show.
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { patchStoredRow, storedRow, queuedChanges } from '@sync/testing';
import {
  createTestServices,
  devstackClient,
  findHeading,
  renderApp,
  SEEDED_LIST,
  SEEDED_LIST_NAME,
  signInDemo,
  type TestServices,
} from '@/testing/app-harness';

import { dbTasks, localListDevice, seedTasks, sharedList } from '../testing/fixtures';

let services: TestServices | undefined;

async function openList(titles: string[] = [], path?: (listId: string) => string) {
  const device = await localListDevice();
  services = device.services;
  for (const title of titles) await services.sync.repos.tasks.create(device.listId, { title });
  const user = userEvent.setup();
  const { router } = renderApp(services, path ? path(device.listId) : `/lists/${device.listId}`);
  await findHeading('Groceries');
  return { user, router, listId: device.listId, services };
}

function taskList() {
  return screen.getByRole('list', { name: 'Tasks' });
}

function shownTitles(): string[] {
  return within(taskList())
    .getAllByRole('listitem')
    .map((row) => row.getAttribute('aria-label') ?? '');
}

async function titleOf(services: TestServices, listId: string, title: string) {
  return (await dbTasks(services, listId)).find((row) => row.title === title);
}

describe('tasks screen', () => {
  it('shows the list and its counts; without an account, no members link', async () => {
    const { listId, services } = await openList(['Milk', 'Bread']);
    const bread = await titleOf(services, listId, 'Bread');
    await services.sync.repos.tasks.setStatus(bread!.id, 'done');
    expect(await screen.findByText('1 open · 1 done')).toBeInTheDocument();
    // Local-only: there is no one to see or invite, and no server to export from.
    expect(screen.queryByRole('link', { name: /Members/ })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Export' })).not.toBeInTheDocument();
  });

  it('draws quick add in the same frame as the list heading: no late field shifting the page', async () => {
    const device = await localListDevice();
    services = device.services;
    // At each DOM change: is the heading there, and is quick add?
    const frames: { heading: boolean; quickAdd: boolean }[] = [];
    const observer = new MutationObserver(() => {
      frames.push({
        heading: document.querySelector('h1')?.textContent?.includes('Groceries') ?? false,
        quickAdd: document.querySelector('input[placeholder="Add a task…"]') !== null,
      });
    });
    observer.observe(document.body, { childList: true, subtree: true });
    renderApp(services, `/lists/${device.listId}`);
    await findHeading('Groceries');
    observer.disconnect();
    const withHeading = frames.filter((frame) => frame.heading);
    expect(withHeading.length).toBeGreaterThan(0);
    expect(withHeading.every((frame) => frame.quickAdd)).toBe(true);
  });

  it("shows a done task's due date plainly, an open one's as overdue", async () => {
    const { listId, services } = await openList(['Late', 'Finished']);
    for (const title of ['Late', 'Finished']) {
      const task = await titleOf(services, listId, title);
      await services.sync.repos.tasks.update(task!.id, { due_on: '2020-01-02' });
    }
    const finished = await titleOf(services, listId, 'Finished');
    await services.sync.repos.tasks.setStatus(finished!.id, 'done');
    const row = (title: string) => within(taskList()).getByRole('listitem', { name: title });
    await waitFor(() => expect(row('Late')).toHaveTextContent(/Overdue · /));
    // One wait for both: "Due: Overdue · …" also reads as a due date, before the tick lands.
    await waitFor(() => {
      expect(row('Finished')).toHaveTextContent(/Due: \S/);
      expect(row('Finished')).not.toHaveTextContent(/Overdue/);
    });
  });

  it('says so when the list is not on this device', async () => {
    const device = await localListDevice();
    services = device.services;
    renderApp(services, `/lists/${crypto.randomUUID()}`);
    await findHeading("This list isn't on this device");
    expect(screen.getByRole('link', { name: 'Back to your lists' })).toHaveAttribute(
      'href',
      '/lists',
    );
  });

  it('adds tasks with Enter, clears the field and keeps focus; refuses empty and long titles', async () => {
    const { user, listId, services } = await openList();
    const input = await screen.findByRole('textbox', { name: 'Add a task' });
    await user.click(input);
    await user.type(input, 'Buy milk{Enter}');
    expect(await screen.findByRole('link', { name: 'Buy milk' })).toBeInTheDocument();
    expect(input).toHaveValue('');
    expect(input).toHaveFocus();
    await user.type(input, 'Eggs{Enter}');
    await waitFor(async () =>
      expect((await dbTasks(services, listId)).map((t) => t.title)).toEqual(['Buy milk', 'Eggs']),
    );
    const outbox = await queuedChanges(services.sync);
    expect(outbox.filter((entry) => entry.table === 'tasks' && entry.op === 'insert')).toHaveLength(
      2,
    );

    await user.type(input, '   {Enter}');
    expect(await screen.findByText("Title can't be empty.")).toBeInTheDocument();
    expect(input).toHaveAttribute('aria-invalid', 'true');
    expect(input).toHaveFocus();

    await user.clear(input);
    await user.paste('x'.repeat(201));
    await user.keyboard('{Enter}');
    expect(await screen.findByText('Title can be at most 200 characters.')).toBeInTheDocument();
    expect(input).toHaveValue('x'.repeat(201));
    expect(await dbTasks(services, listId)).toHaveLength(2);
  });

  it('focuses quick add with n, and on load with ?new=1', async () => {
    const { user, router } = await openList([], (id) => `/lists/${id}?new=1`);
    const input = await screen.findByRole('textbox', { name: 'Add a task' });
    await waitFor(() => expect(input).toHaveFocus());
    await waitFor(() => expect(router.state.location.search).toBe(''));
    await user.click(screen.getByRole('heading', { level: 1 }));
    input.blur();
    await user.keyboard('n');
    expect(input).toHaveFocus();
    expect(input).toHaveValue('');
  });

  it('edits a title in place: Enter saves, Escape cancels, empty is refused', async () => {
    const { user, listId, services } = await openList(['Buy milk']);
    await user.click(await screen.findByRole('button', { name: 'Edit Buy milk' }));
    const field = screen.getByRole('textbox', { name: 'Title of Buy milk' });
    expect(field).toHaveFocus();
    await user.clear(field);
    await user.type(field, 'Buy oat milk{Enter}');
    expect(await screen.findByRole('link', { name: 'Buy oat milk' })).toBeInTheDocument();
    expect((await dbTasks(services, listId))[0]?.title).toBe('Buy oat milk');
    // Focus returns to the row.
    await waitFor(() =>
      expect(within(taskList()).getByRole('listitem', { name: 'Buy oat milk' })).toHaveFocus(),
    );

    await user.click(screen.getByRole('button', { name: 'Edit Buy oat milk' }));
    const again = screen.getByRole('textbox', { name: 'Title of Buy oat milk' });
    await user.clear(again);
    await user.type(again, 'Something else{Escape}');
    expect(await screen.findByRole('link', { name: 'Buy oat milk' })).toBeInTheDocument();
    expect((await dbTasks(services, listId))[0]?.title).toBe('Buy oat milk');

    // F2 on the focused row opens the editor too.
    within(taskList()).getByRole('listitem', { name: 'Buy oat milk' }).focus();
    await user.keyboard('{F2}');
    const third = screen.getByRole('textbox', { name: 'Title of Buy oat milk' });
    await user.clear(third);
    await user.keyboard('{Enter}');
    expect(await screen.findByText("Title can't be empty.")).toBeInTheDocument();
    expect(third).toHaveAttribute('aria-invalid', 'true');
    expect((await dbTasks(services, listId))[0]?.title).toBe('Buy oat milk');
  });

  it('ticks a task done and reopens it', async () => {
    const { user, listId, services } = await openList(['Buy milk']);
    const done = await screen.findByRole('checkbox', { name: 'Done: Buy milk' });
    await user.click(done);
    await waitFor(async () => {
      const row = (await dbTasks(services, listId))[0];
      expect(row?.status).toBe('done');
      expect(row?.completed_at).toEqual(expect.any(String));
    });
    await waitFor(() => expect(done).toBeChecked());
    expect(screen.getByText('0 open · 1 done')).toBeInTheDocument();
    await user.click(done);
    await waitFor(async () => {
      const row = (await dbTasks(services, listId))[0];
      expect(row?.status).toBe('todo');
      expect(row?.completed_at).toBeNull();
    });
    await waitFor(() => expect(done).not.toBeChecked());
  });

  it("shows a tick at once, and the server's status when a tick is refused later", async () => {
    const { user, listId, services } = await openList(['Buy milk']);
    const done = await screen.findByRole('checkbox', { name: 'Done: Buy milk' });
    await user.click(done);
    expect(done).toBeChecked();
    await waitFor(async () => expect((await dbTasks(services, listId))[0]?.status).toBe('done'));
    // The server refuses it and the device goes back to the server's row (as sync does).
    const id = (await dbTasks(services, listId))[0]?.id ?? '';
    await patchStoredRow(services.sync, 'tasks', id, { status: 'todo', completed_at: null });
    await waitFor(() => expect(done).not.toBeChecked());
    expect(screen.getByRole('button', { name: 'Status of Buy milk: To do' })).toBeInTheDocument();
  });

  it('keeps focus in the list when a ticked task leaves the "To do" view', async () => {
    const { user } = await openList(['One', 'Two', 'Three'], (id) => `/lists/${id}?status=todo`);
    await waitFor(() => expect(shownTitles()).toEqual(['One', 'Two', 'Three']));
    await user.click(screen.getByRole('checkbox', { name: 'Done: Two' }));
    await waitFor(() => expect(shownTitles()).toEqual(['One', 'Three']));
    await waitFor(() =>
      expect(within(taskList()).getByRole('listitem', { name: 'Three' })).toHaveFocus(),
    );
  });

  it('has no select on a row: a status chip opens a menu of the allowed changes, by keyboard', async () => {
    const { user, listId, services } = await openList(['Fix gate']);
    await waitFor(() => expect(shownTitles()).toEqual(['Fix gate']));
    const row = within(taskList()).getByRole('listitem', { name: 'Fix gate' });
    expect(within(row).queryByRole('combobox')).toBeNull();
    const items = () =>
      within(screen.getByRole('menu', { name: 'Status' }))
        .getAllByRole('menuitemradio')
        .map(
          (item) =>
            `${item.textContent?.replace('✓', '')}${item.getAttribute('aria-checked') === 'true' ? ' ✓' : ''}`,
        );
    const chip = within(row).getByRole('button', { name: 'Status of Fix gate: To do' });
    expect(chip).toHaveAttribute('aria-haspopup', 'menu');
    chip.focus();
    await user.keyboard('{ArrowDown}');
    expect(items()).toEqual(['To do ✓', 'Doing', 'Done']);
    // Escape closes it and gives focus back to the chip, writing nothing.
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('menu')).toBeNull();
    expect(chip).toHaveFocus();
    await user.keyboard('{Enter}');
    await user.keyboard('{ArrowDown}{Enter}');
    await waitFor(async () => expect((await dbTasks(services, listId))[0]?.status).toBe('doing'));
    const doing = within(row).getByRole('button', { name: 'Status of Fix gate: Doing' });
    expect(doing).toHaveFocus();
    await user.keyboard('{Enter}');
    expect(items()).toEqual(['To do', 'Doing ✓', 'Done']);
    await user.keyboard('{End}{Enter}');
    await waitFor(async () => expect((await dbTasks(services, listId))[0]?.status).toBe('done'));
    // A done task has no chip (its tick reopens it); focus stays on the row.
    expect(within(row).queryByRole('button', { name: /^Status of / })).toBeNull();
    expect(row).toHaveFocus();
  });

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

  it('filters by status in the URL and searches titles and notes', async () => {
    const device = await localListDevice();
    services = device.services;
    const { listId } = device;
    const repos = services.sync.repos.tasks;
    await repos.create(listId, { title: 'Buy milk', notes: 'Oat, not dairy' });
    await repos.create(listId, { title: 'Call plumber', status: 'doing' });
    await repos.create(listId, { title: 'Fix the gate', status: 'done', notes: 'Hinge BROKEN' });
    const user = userEvent.setup();
    const { router } = renderApp(services, `/lists/${listId}?status=doing`);
    await findHeading('Groceries');
    expect(screen.getByRole('button', { name: 'Doing' })).toHaveAttribute('aria-pressed', 'true');
    await waitFor(() => expect(shownTitles()).toEqual(['Call plumber']));

    await user.click(screen.getByRole('button', { name: 'Done' }));
    expect(router.state.location.search).toBe('?status=done');
    await waitFor(() => expect(shownTitles()).toEqual(['Fix the gate']));

    await user.click(screen.getByRole('button', { name: 'All' }));
    expect(router.state.location.search).toBe('');
    await waitFor(() => expect(shownTitles()).toHaveLength(3));

    // "/" jumps to search; notes match too, case-insensitively.
    await user.keyboard('/');
    const search = screen.getByRole('searchbox', { name: 'Search tasks' });
    expect(search).toHaveFocus();
    await user.keyboard('broken');
    await waitFor(() => expect(shownTitles()).toEqual(['Fix the gate']));
    expect(router.state.location.search).toBe('?q=broken');
    await user.clear(search);
    await user.type(search, 'MILK');
    await waitFor(() => expect(shownTitles()).toEqual(['Buy milk']));

    await user.click(screen.getByRole('button', { name: 'Doing' }));
    expect(await screen.findByText('No tasks match')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Show all tasks' }));
    await waitFor(() => expect(shownTitles()).toHaveLength(3));
    expect(search).toHaveValue('');
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
    await waitFor(() => expect(shownTitles()).toEqual(['One', 'Two', 'Three', 'Four']));
    for (const title of ['One', 'Two', 'Four']) {
      await user.click(screen.getByRole('checkbox', { name: `Select ${title}` }));
    }
    expect(screen.getByText('3 selected')).toBeInTheDocument();

    // A filter hides Two and Four: they leave the selection, and stay out when shown again.
    await user.click(screen.getByRole('button', { name: 'To do' }));
    await waitFor(() => expect(shownTitles()).toEqual(['One', 'Three']));
    expect(screen.getByText('1 selected')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'All' }));
    await waitFor(() => expect(shownTitles()).toHaveLength(4));
    expect(screen.getByRole('checkbox', { name: 'Select Two' })).not.toBeChecked();
    expect(screen.getByText('1 selected')).toBeInTheDocument();

    // So does a search.
    await user.click(screen.getByRole('checkbox', { name: 'Select Three' }));
    await user.type(screen.getByRole('searchbox', { name: 'Search tasks' }), 'one');
    await waitFor(() => expect(shownTitles()).toEqual(['One']));
    expect(screen.getByText('1 selected')).toBeInTheDocument();
    await user.clear(screen.getByRole('searchbox', { name: 'Search tasks' }));
    await waitFor(() => expect(shownTitles()).toHaveLength(4));

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

  it('says what was added, highlights the new row, and drops "Added" when the next is refused', async () => {
    const { user } = await openList(['First']);
    const input = await screen.findByRole('textbox', { name: 'Add a task' });
    await user.type(input, 'Second{Enter}');
    const status = await screen.findByText('Added “Second”');
    const row = await within(taskList()).findByRole('listitem', { name: 'Second' });
    expect(row).toHaveClass('tasks-row--new');
    expect(within(taskList()).getByRole('listitem', { name: 'First' })).not.toHaveClass(
      'tasks-row--new',
    );
    await user.type(input, '   {Enter}');
    expect(await screen.findByText("Title can't be empty.")).toBeInTheDocument();
    expect(status).toBeEmptyDOMElement();
  });

  it('hides filter and search for a list with no tasks, and shows them once there is one', async () => {
    const { user } = await openList();
    await screen.findByText('No tasks yet');
    expect(screen.queryByRole('searchbox', { name: 'Search tasks' })).not.toBeInTheDocument();
    expect(screen.queryByRole('group', { name: 'Show tasks' })).not.toBeInTheDocument();
    await user.type(screen.getByRole('textbox', { name: 'Add a task' }), 'Milk{Enter}');
    expect(await screen.findByRole('searchbox', { name: 'Search tasks' })).toHaveAttribute(
      'placeholder',
      'Search tasks',
    );
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

  it('shows a list shared as viewer read-only', async () => {
    const device = await localListDevice();
    services = device.services;
    const listId = await sharedList(services, 'viewer');
    await seedTasks(services, listId, 2);
    const user = userEvent.setup();
    renderApp(services, `/lists/${listId}`);
    await findHeading('Site visit');
    await waitFor(() => expect(shownTitles()).toEqual(['Task 1', 'Task 2']));
    expect(screen.getByText('View only')).toBeInTheDocument();
    expect(screen.queryByRole('textbox', { name: 'Add a task' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^(Edit|Delete|Reorder) / })).toBeNull();
    expect(screen.queryByRole('checkbox', { name: /^Select / })).toBeNull();
    expect(screen.queryByRole('button', { name: /^Status of / })).toBeNull();
    expect(screen.queryByRole('combobox')).toBeNull();
    const done = screen.getByRole('checkbox', { name: 'Done: Task 1' });
    expect(done).toBeDisabled();
    // Keyboard editing is off too.
    within(taskList()).getByRole('listitem', { name: 'Task 1' }).focus();
    await user.keyboard('{F2}{Alt>}{ArrowDown}{/Alt}x');
    expect(screen.queryByRole('textbox')).toBeNull();
    expect((await dbTasks(services, listId)).map((t) => t.title)).toEqual(['Task 1', 'Task 2']);
    expect(await services.sync.queries.pendingCount()).toBe(1); // only the list made by localListDevice
  });

  it('keeps 10,000 tasks smooth: only a window of rows is in the DOM', async () => {
    const device = await localListDevice();
    services = device.services;
    await seedTasks(services, device.listId, 10_000);
    // Every text the counts line shows, from the first frame: never a made-up "0 open".
    const shownCounts: string[] = [];
    const observer = new MutationObserver(() => {
      const text = document.querySelector('.tasks-screen__counts')?.textContent;
      if (text !== undefined && text !== shownCounts.at(-1)) shownCounts.push(text);
    });
    observer.observe(document.body, { childList: true, subtree: true, characterData: true });
    renderApp(services, `/lists/${device.listId}`);
    await findHeading('Groceries');
    expect(await screen.findByText('10,000 open · 0 done')).toBeVisible();
    observer.disconnect();
    expect(shownCounts.filter((text) => text.trim() !== '')).toEqual(['10,000 open · 0 done']);
    const rows = within(await screen.findByRole('list', { name: 'Tasks' })).getAllByRole(
      'listitem',
    );
    expect(rows.length).toBeGreaterThan(5);
    expect(rows.length).toBeLessThan(100);
    expect(rows[0]).toHaveAttribute('aria-label', 'Task 1');
    expect(rows[0]).toHaveAttribute('aria-setsize', '10000');
    expect(screen.getByRole('link', { name: 'Task 2' })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Task 9999' })).toBeNull();
  });
});

/** A list's export as the browser would receive it: the file and its name, per download. */
function captureDownloads(): { name: string; blob: Blob }[] {
  const downloads: { name: string; blob: Blob }[] = [];
  let last: Blob | undefined;
  vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => {
    last = blob as Blob;
    return 'blob:test/export';
  });
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
    this: HTMLAnchorElement,
  ) {
    if (last) downloads.push({ name: this.download, blob: last });
  });
  return downloads;
}

describe('tasks screen with an account', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('says Loading, not "isn\'t on this device", until the first sync is done', async () => {
    const supabase = await signInDemo(devstackClient(), 'bob');
    services = createTestServices({ supabase, online: true });
    const { router } = renderApp(services, `/lists/${SEEDED_LIST}`);
    await findHeading('Loading…');
    expect(screen.queryByText(/isn.t on this device/)).not.toBeInTheDocument();
    // The first pull brings the list.
    services.sync.start();
    await screen.findByRole('heading', { level: 1, name: SEEDED_LIST_NAME }, { timeout: 15_000 });
    // After it, a list that is not here is really not here.
    act(() => void router.navigate(`/lists/${crypto.randomUUID()}`));
    await findHeading("This list isn't on this device");
  });

  it('exports the list as CSV or JSON from the server', async () => {
    const supabase = await signInDemo(devstackClient(), 'bob');
    // The file's date comes from the app's clock.
    const now = new Date(2031, 2, 4, 9, 0).getTime();
    services = createTestServices({ supabase, online: true, startEngine: true, now: () => now });
    const downloads = captureDownloads();
    const user = userEvent.setup();
    renderApp(services, `/lists/${SEEDED_LIST}`);
    await findHeading(SEEDED_LIST_NAME);
    await user.click(await screen.findByRole('button', { name: 'Export' }));
    let dialog = screen.getByRole('dialog', { name: `Export “${SEEDED_LIST_NAME}”` });
    expect(within(dialog).getByRole('combobox', { name: 'Format' })).toHaveValue('csv');
    await user.click(within(dialog).getByRole('button', { name: 'Download' }));
    await waitFor(() => expect(downloads).toHaveLength(1), { timeout: 15_000 });
    expect(downloads[0]?.name).toBe(`${SEEDED_LIST_NAME} 2031-03-04.csv`);
    const csv = await downloads[0]!.blob.text();
    expect(csv.split('\r\n')[0]).toMatch(/^id,title,status,/);
    // One line per task of the seeded list, and the header.
    expect(csv.trim().split('\r\n')).toHaveLength(31);
    expect(await screen.findByText(`Downloaded ${downloads[0]?.name}`)).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());

    await user.click(screen.getByRole('button', { name: 'Export' }));
    dialog = screen.getByRole('dialog', { name: `Export “${SEEDED_LIST_NAME}”` });
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Format' }), 'json');
    await user.click(within(dialog).getByRole('button', { name: 'Download' }));
    await waitFor(() => expect(downloads).toHaveLength(2), { timeout: 15_000 });
    expect(downloads[1]?.name).toBe(`${SEEDED_LIST_NAME} 2031-03-04.json`);
    const doc = JSON.parse(await downloads[1]!.blob.text()) as {
      list: { name: string };
      tasks: unknown[];
    };
    expect(doc.list.name).toBe(SEEDED_LIST_NAME);
    expect(doc.tasks).toHaveLength(30);
  });

  it('says export needs a connection while offline, and why a refused export failed', async () => {
    const supabase = await signInDemo(devstackClient(), 'bob');
    services = createTestServices({ supabase, online: false });
    // Made on this device and not synced: the server has no such list.
    const listId = await services.sync.repos.lists.create({ name: 'Not sent yet', color: 'teal' });
    const downloads = captureDownloads();
    const user = userEvent.setup();
    renderApp(services, `/lists/${listId}`);
    await findHeading('Not sent yet');
    await user.click(screen.getByRole('button', { name: 'Export' }));
    const dialog = screen.getByRole('dialog', { name: 'Export “Not sent yet”' });
    const download = within(dialog).getByRole('button', { name: 'Download' });
    expect(download).toBeDisabled();
    expect(download).toHaveAccessibleDescription('Exporting needs a connection.');
    expect(dialog).toHaveTextContent("Changes on this device that haven't synced yet");

    act(() => services!.online.set(true));
    await waitFor(() => expect(download).toBeEnabled());
    await user.click(download);
    expect(
      await within(dialog).findByText(/The server doesn't have this list for you/, undefined, {
        timeout: 15_000,
      }),
    ).toBeInTheDocument();
    expect(downloads).toHaveLength(0);
  });

  it('links to the members of a shared list', async () => {
    const supabase = await signInDemo(devstackClient(), 'bob');
    services = createTestServices({ supabase, online: true, startEngine: true });
    renderApp(services, `/lists/${SEEDED_LIST}`);
    await findHeading(SEEDED_LIST_NAME);
    const link = await screen.findByRole('link', { name: /^Members/ }, { timeout: 15_000 });
    expect(link).toHaveAttribute('href', `/lists/${SEEDED_LIST}/members`);
  });
});
