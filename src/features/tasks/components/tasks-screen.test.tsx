// The tasks screen on a local-only device, against the real sync library on fake-indexeddb:
// what the user does on screen must land in the device database (and the outbox), and what
// the database holds must show. Selection, bulk actions and ordering are in
// tasks-screen-selection.test.tsx; export and members, with an account, in
// tasks-screen-account.test.tsx.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { patchStoredRow, queuedChanges } from '@sync/testing';
import { findHeading, renderApp, type TestServices } from '@/testing/app-harness';

import { dbTasks, localListDevice, seedTasks, sharedList } from '../testing/fixtures';
import { openList, shownTitles, taskList, titleOf } from '../testing/tasks-screen';

let services: TestServices | undefined;

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
    const row = (title: string) => screen.getByRole('listitem', { name: title });
    await waitFor(() => expect(row('Late')).toHaveTextContent(/Overdue · /));
    // The done one is in the Done section, after the open ones.
    await userEvent.click(await screen.findByRole('button', { name: 'Done (1)' }));
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
    // Done from the row, it stays there, ticked, and focus stays on the row; its chip (quiet
    // now: the tick says it) reopens it.
    expect(within(taskList()).getByRole('listitem', { name: 'Fix gate' })).toBe(row);
    expect(row).toHaveFocus();
    within(row).getByRole('button', { name: 'Status of Fix gate: Done' }).focus();
    await user.keyboard('{Enter}');
    expect(items()).toEqual(['To do', 'Done ✓']);
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

    // All: the open tasks, then the done ones in a section of their own, collapsed.
    await user.click(screen.getByRole('button', { name: 'All' }));
    expect(router.state.location.search).toBe('');
    await waitFor(() => expect(shownTitles()).toEqual(['Buy milk', 'Call plumber']));
    const doneToggle = screen.getByRole('button', { name: 'Done (1)' });
    expect(doneToggle).toHaveAttribute('aria-expanded', 'false');
    await user.click(doneToggle);
    expect(doneToggle).toHaveAttribute('aria-expanded', 'true');
    const doneList = await screen.findByRole('list', { name: 'Done tasks' });
    expect(within(doneList).getByRole('listitem')).toHaveAccessibleName('Fix the gate');

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
    await waitFor(() => expect(shownTitles()).toHaveLength(2));
    // The section stayed open (kept for the session).
    expect(
      within(screen.getByRole('list', { name: 'Done tasks' })).getAllByRole('listitem'),
    ).toHaveLength(1);
    expect(search).toHaveValue('');
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
