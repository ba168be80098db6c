// The task detail screen on a local-only device: every field writes through the real
// repositories into fake-indexeddb, notes are never lost on the way out, and a task that is
// gone says so.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { MemoryRouter, Route, Routes } from 'react-router';

import { patchStoredRow, storedRows, storedRow } from '@sync/testing';
import {
  createTestServices,
  devstackClient,
  findHeading,
  renderApp,
  renderWithServices,
  SEEDED_LIST,
  signInDemo,
  type TestServices,
} from '@/testing/app-harness';

import {
  addMember,
  localListDevice,
  putMembership,
  seedTasks,
  sharedList,
} from '../testing/fixtures';

/** A task of the seeded shared list (supabase/seed.sql, i = 1). */
const SEEDED_TASK = '7a5c0000-0000-4000-8000-000000000001';
import { TaskDetailScreen } from './task-detail-screen';

let services: TestServices | undefined;

async function openTask(input: Parameters<TestServices['sync']['repos']['tasks']['create']>[1]) {
  const device = await localListDevice();
  services = device.services;
  const taskId = await services.sync.repos.tasks.create(device.listId, input);
  const user = userEvent.setup();
  const { router } = renderApp(services, `/lists/${device.listId}/tasks/${taskId}`);
  await findHeading(input.title);
  return { user, router, services, listId: device.listId, taskId };
}

async function stored(services: TestServices, taskId: string) {
  return storedRow(services.sync, 'tasks', taskId);
}

describe('task detail screen', () => {
  it('shows the task with a way back, who added it and that it is not synced yet', async () => {
    const { listId } = await openTask({ title: 'Fix the gate' });
    expect(screen.getByRole('link', { name: 'Groceries' })).toHaveAttribute(
      'href',
      `/lists/${listId}`,
    );
    expect(screen.getByText(/Added by you · just now/)).toBeInTheDocument();
    expect(await screen.findByText('Not synced yet')).toBeInTheDocument();
  });

  it('edits the title: Enter saves, Escape cancels, empty is refused', async () => {
    const { user, services, taskId } = await openTask({ title: 'Fix the gate' });
    await user.click(screen.getByRole('button', { name: 'Edit title' }));
    const field = screen.getByRole('textbox', { name: 'Title' });
    expect(field).toHaveFocus();
    expect(field).toHaveAccessibleDescription('Enter to save · Esc to cancel');
    // Long titles wrap as they do in the heading, rather than scrolling out of sight.
    expect(field.tagName).toBe('TEXTAREA');
    await user.clear(field);
    await user.keyboard('{Enter}');
    expect(await screen.findByText("Title can't be empty.")).toBeInTheDocument();
    await user.type(field, 'Fix the back gate{Enter}');
    await findHeading('Fix the back gate');
    expect((await stored(services, taskId))?.title).toBe('Fix the back gate');
    await waitFor(() => expect(screen.getByRole('button', { name: 'Edit title' })).toHaveFocus());

    await user.click(screen.getByRole('button', { name: 'Edit title' }));
    await user.clear(screen.getByRole('textbox', { name: 'Title' }));
    await user.keyboard('Nope{Escape}');
    await findHeading('Fix the back gate');
    expect(screen.queryByRole('textbox', { name: 'Title' })).toBeNull();
    expect((await stored(services, taskId))?.title).toBe('Fix the back gate');
  });

  it('saves notes after a pause, counts them near the limit, and refuses more than 10,000 characters', async () => {
    const { user, services, taskId } = await openTask({ title: 'Fix the gate' });
    const notes = screen.getByRole('textbox', { name: 'Notes' });
    await user.click(notes);
    await user.keyboard('Hinge is broken');
    // Far from the limit, a counter is only noise.
    expect(screen.queryByText(/\/ 10,000/)).not.toBeInTheDocument();
    // Saved while the field still has focus, once typing pauses.
    await waitFor(async () =>
      expect((await stored(services, taskId))?.notes).toBe('Hinge is broken'),
    );
    expect(notes).toHaveFocus();

    // One change (paste over everything), so no idle save of an empty field slips in between.
    (notes as HTMLTextAreaElement).select();
    await user.paste('y'.repeat(10_001));
    expect(await screen.findByText('Notes can be at most 10,000 characters.')).toBeInTheDocument();
    expect(screen.getByText('10,001 / 10,000')).toBeInTheDocument();
    await user.tab();
    expect((notes as HTMLTextAreaElement).value.length).toBe(10_001);
    expect((await stored(services, taskId))?.notes).toBe('Hinge is broken');
  });

  it('never loses notes typed just before leaving the screen', async () => {
    const { user, services, taskId } = await openTask({ title: 'Fix the gate' });
    await user.click(screen.getByRole('textbox', { name: 'Notes' }));
    await user.keyboard('Bring a drill');
    // Straight to the list, well inside the idle delay.
    await user.click(screen.getByRole('link', { name: 'Groceries' }));
    await findHeading('Groceries');
    await waitFor(async () =>
      expect((await stored(services, taskId))?.notes).toBe('Bring a drill'),
    );
  });

  it('changes status (allowed transitions only), priority and clears the due date', async () => {
    const { user, services, taskId } = await openTask({
      title: 'Fix the gate',
      due_on: '2020-01-02',
    });
    const status = screen.getByRole('combobox', { name: 'Status' });
    expect(screen.getByText(/Overdue · /)).toBeInTheDocument();
    const options = () =>
      within(status)
        .getAllByRole('option')
        .map((option) => option.textContent);
    expect(options()).toEqual(['To do', 'Doing', 'Done']);
    await user.selectOptions(status, 'Done');
    await waitFor(() => expect(options()).toEqual(['Done', 'To do']));
    expect(screen.getByText(/Completed/)).toHaveTextContent('Completed just now');
    expect((await stored(services, taskId))?.completed_at).toEqual(expect.any(String));

    await user.selectOptions(screen.getByRole('combobox', { name: 'Priority' }), 'High');
    await waitFor(async () => expect((await stored(services, taskId))?.priority).toBe(3));

    const due = screen.getByLabelText('Due date');
    expect(due).toHaveValue('2020-01-02');
    // Done, it is not late any more: the plain date.
    expect(screen.queryByText(/Overdue/)).not.toBeInTheDocument();
    expect(due).toHaveAccessibleDescription(
      new Date('2020-01-02T00:00:00').toLocaleDateString(undefined, {
        day: 'numeric',
        month: 'short',
      }),
    );
    await user.click(screen.getByRole('button', { name: 'Clear due date' }));
    await waitFor(async () => expect((await stored(services, taskId))?.due_on).toBeNull());
    expect(due).toHaveValue('');
    await waitFor(() =>
      expect(screen.queryByRole('button', { name: 'Clear due date' })).toBeNull(),
    );
  });

  it('offers only live members as assignees', async () => {
    const device = await localListDevice();
    services = device.services;
    const bob = await addMember(services, device.listId, crypto.randomUUID(), 'editor', 'Bob');
    const gone = await addMember(services, device.listId, crypto.randomUUID(), 'editor', 'Gina');
    const ginaMembership = (await storedRows(services.sync, 'memberships')).find(
      (row) => row.list_id === device.listId && row.user_id === gone,
    );
    await patchStoredRow(services.sync, 'memberships', ginaMembership!.id, {
      deleted_at: new Date().toISOString(),
    });
    // Someone from another list: known on this device, but not a member here.
    const otherList = await sharedList(services, 'editor', 'Elsewhere');
    await addMember(services, otherList, crypto.randomUUID(), 'editor', 'Carol');
    const taskId = await services.sync.repos.tasks.create(device.listId, { title: 'Fix the gate' });
    const user = userEvent.setup();
    renderApp(services, `/lists/${device.listId}/tasks/${taskId}`);
    await findHeading('Fix the gate');

    const assignee = screen.getByRole('combobox', { name: 'Assignee' });
    await waitFor(() =>
      expect(
        within(assignee)
          .getAllByRole('option')
          .map((o) => o.textContent),
      ).toEqual(['Unassigned', 'You', 'Bob']),
    );
    await user.selectOptions(assignee, 'Bob');
    await waitFor(async () => expect((await stored(services!, taskId))?.assignee_id).toBe(bob));
    await user.selectOptions(assignee, 'Unassigned');
    await waitFor(async () => expect((await stored(services!, taskId))?.assignee_id).toBeNull());
  });

  it('deletes the task, goes back to the list, and Undo restores it', async () => {
    const { user, services, taskId, router, listId } = await openTask({ title: 'Fix the gate' });
    await user.click(screen.getByRole('button', { name: 'Delete task' }));
    await findHeading('Groceries');
    expect(router.state.location.pathname).toBe(`/lists/${listId}`);
    expect((await stored(services, taskId))?.deleted_at).toEqual(expect.any(String));
    await user.click(screen.getByRole('button', { name: 'Undo' }));
    expect(await screen.findByRole('link', { name: 'Fix the gate' })).toBeInTheDocument();
    expect((await stored(services, taskId))?.deleted_at).toBeNull();
  });

  it('says when the task was deleted by someone else or is not on this device', async () => {
    const device = await localListDevice();
    services = device.services;
    const [taskId] = await seedTasks(services, device.listId, 1, () => ({
      deleted_at: new Date().toISOString(),
    }));
    renderApp(services, `/lists/${device.listId}/tasks/${taskId}`);
    await findHeading('This task was deleted by someone else');
    expect(screen.getByRole('link', { name: 'Back to Groceries' })).toHaveAttribute(
      'href',
      `/lists/${device.listId}`,
    );
  });

  it('names a member whose profile is not on this device yet "Member", never "You"', async () => {
    const device = await localListDevice();
    services = device.services;
    await putMembership(services, device.listId, 'editor', crypto.randomUUID());
    const taskId = await services.sync.repos.tasks.create(device.listId, { title: 'Fix the gate' });
    renderApp(services, `/lists/${device.listId}/tasks/${taskId}`);
    await findHeading('Fix the gate');
    const assignee = screen.getByRole('combobox', { name: 'Assignee' });
    // "You" is this device's own user (no profile without an account), only once.
    await waitFor(() =>
      expect(
        within(assignee)
          .getAllByRole('option')
          .map((o) => o.textContent),
      ).toEqual(['Unassigned', 'You', 'Member']),
    );
  });

  it('says Loading, not "isn\'t on this device", until the first sync is done', async () => {
    const supabase = await signInDemo(devstackClient(), 'bob');
    services = createTestServices({ supabase, online: true });
    renderApp(services, `/lists/${SEEDED_LIST}/tasks/${SEEDED_TASK}`);
    await findHeading('Loading…');
    expect(screen.queryByText(/isn.t on this device/)).not.toBeInTheDocument();
    services.sync.start();
    await screen.findByRole(
      'heading',
      { level: 1, name: /^Photograph cracked render/ },
      { timeout: 15_000 },
    );
  });

  it('says when the task is not on this device', async () => {
    const device = await localListDevice();
    services = device.services;
    renderApp(services, `/lists/${device.listId}/tasks/${crypto.randomUUID()}`);
    await findHeading('This task isn’t on this device');
  });

  it('shows everything read-only to a viewer', async () => {
    const device = await localListDevice();
    services = device.services;
    const listId = await sharedList(services, 'viewer');
    const [taskId] = await seedTasks(services, listId, 1, () => ({
      notes: 'Check the roof',
      due_on: '2031-05-06',
      priority: 2,
    }));
    renderApp(services, `/lists/${listId}/tasks/${taskId}`);
    await findHeading('Task 1');
    await waitFor(() => expect(screen.getByText('View only')).toBeInTheDocument());
    expect(screen.getByRole('combobox', { name: 'Status' })).toBeDisabled();
    expect(screen.getByRole('combobox', { name: 'Priority' })).toBeDisabled();
    expect(screen.getByRole('combobox', { name: 'Priority' })).toHaveValue('2');
    expect(screen.getByRole('combobox', { name: 'Assignee' })).toBeDisabled();
    expect(screen.getByRole('textbox', { name: 'Notes' })).toHaveAttribute('readonly');
    expect(screen.getByRole('textbox', { name: 'Notes' })).toHaveValue('Check the roof');
    expect(screen.getByLabelText('Due date')).toHaveAttribute('readonly');
    expect(screen.queryByRole('button', { name: 'Edit title' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Delete task' })).toBeNull();
    await waitFor(() =>
      expect(screen.queryByRole('button', { name: 'Clear due date' })).toBeNull(),
    );
  });

  it('renders the extras (files, comments) for this task after its fields, and Delete last', async () => {
    const device = await localListDevice();
    services = device.services;
    const taskId = await services.sync.repos.tasks.create(device.listId, { title: 'Fix the gate' });
    renderWithServices(
      services,
      <MemoryRouter initialEntries={[`/lists/${device.listId}/tasks/${taskId}`]}>
        <Routes>
          <Route
            path="/lists/:listId/tasks/:taskId"
            element={
              <TaskDetailScreen
                renderExtras={(task) => (
                  <p>
                    Extras of {task.taskId} in {task.listId}
                  </p>
                )}
              />
            }
          />
        </Routes>
      </MemoryRouter>,
    );
    await findHeading('Fix the gate');
    const extras = screen.getByText(`Extras of ${taskId} in ${device.listId}`);
    const notes = screen.getByRole('textbox', { name: 'Notes' });
    expect(notes.compareDocumentPosition(extras) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    const remove = screen.getByRole('button', { name: 'Delete task' });
    expect(extras.compareDocumentPosition(remove) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });
});
