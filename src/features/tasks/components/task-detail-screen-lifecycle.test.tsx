// The task detail screen beyond its fields: deleting with Undo, a task that is gone or not on
// this device, loading before the first sync, who added it, a viewer's read-only view, and
// where the extras go.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { Route } from '@/lib/router';
import {
  atPath,
  createTestServices,
  devstackClient,
  findHeading,
  renderApp,
  renderWithServices,
  SEEDED_LIST,
  signInDemo,
  type TestServices,
} from '@/testing/app-harness';

import { localListDevice, putMembership, seedTasks, sharedList } from '../testing/fixtures';
import { TaskDetailScreen } from './task-detail-screen';
import {
  chip,
  menuItems,
  openTask,
  SEEDED_TASK,
  shortDate,
  stored,
} from '../testing/task-detail-screen';

let services: TestServices | undefined;

describe('task detail screen', () => {
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
    await userEvent.click(chip('Assignee'));
    // "You" is this device's own user (no profile without an account), only once.
    await waitFor(() => expect(menuItems('Assignee')).toEqual(['Unassigned', 'You', 'Member']));
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

  it('shows a viewer the values as plain text, and why they cannot change them', async () => {
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
    expect(screen.getByText('You can view this list but not edit it.')).toBeInTheDocument();
    const values = Object.fromEntries(
      screen
        .getAllByRole('term')
        .map((term) => [term.textContent, term.nextElementSibling?.textContent]),
    );
    expect(values).toEqual({
      Status: 'To do',
      Priority: 'Medium',
      'Due date': shortDate('2031-05-06', true),
      Assignee: 'Unassigned',
    });
    expect(screen.getByText('Check the roof')).toBeInTheDocument();
    // Nothing to press, type in or find dimmed (only the comment box: viewers may comment).
    expect(screen.queryByRole('textbox', { name: 'Notes' })).toBeNull();
    expect(screen.queryByRole('combobox')).toBeNull();
    const heading = screen.getByRole('heading', { level: 1 });
    expect(within(heading).queryByRole('button')).toBeNull();
    for (const property of ['Status', 'Priority', 'Due date', 'Assignee']) {
      expect(screen.queryByRole('button', { name: new RegExp(`^${property}`) })).toBeNull();
    }
    expect(screen.queryByRole('button', { name: 'Delete task' })).toBeNull();
  });

  it('renders the extras (files, comments) for this task after its fields, and Delete last', async () => {
    const device = await localListDevice();
    services = device.services;
    const taskId = await services.sync.repos.tasks.create(device.listId, { title: 'Fix the gate' });
    atPath(`/lists/${device.listId}/tasks/${taskId}`);
    renderWithServices(
      services,
      <Route path="/lists/:listId/tasks/:taskId">
        <TaskDetailScreen
          renderExtras={(task) => (
            <p>
              Extras of {task.taskId} in {task.listId}
            </p>
          )}
        />
      </Route>,
    );
    await findHeading('Fix the gate');
    const extras = screen.getByText(`Extras of ${taskId} in ${device.listId}`);
    const notes = screen.getByRole('textbox', { name: 'Notes' });
    expect(notes.compareDocumentPosition(extras) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    const remove = screen.getByRole('button', { name: 'Delete task' });
    expect(extras.compareDocumentPosition(remove) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });
});
