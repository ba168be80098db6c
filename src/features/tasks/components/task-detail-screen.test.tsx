// The task detail screen on a local-only device: every field writes through the real
// repositories into fake-indexeddb, notes are never lost on the way out, and a task that is
// gone says so.
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { patchStoredRow, storedRows, storedRow } from '@sync/testing';
import { Route } from '@/lib/router';
import { useToasts } from '@/lib/toasts';
import {
  atPath,
  createTestServices,
  devstackClient,
  findHeading,
  markLocalOnly,
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

/** Friday 4 December 2026, 10:00 on this machine's clock: "today" for the date menu. */
const FRIDAY = new Date(2026, 11, 4, 10).getTime();

async function openTask(
  input: Parameters<TestServices['sync']['repos']['tasks']['create']>[1],
  options: { now?: number } = {},
) {
  let listId: string;
  if (options.now === undefined) {
    const device = await localListDevice();
    services = device.services;
    listId = device.listId;
  } else {
    // As localListDevice, with the app's clock set.
    const now = options.now;
    markLocalOnly();
    useToasts.setState({ toasts: [] });
    services = createTestServices({ now: () => now });
    listId = await services.sync.repos.lists.create({ name: 'Groceries', color: 'teal' });
  }
  const taskId = await services.sync.repos.tasks.create(listId, input);
  const user = userEvent.setup();
  const { router } = renderApp(services, `/lists/${listId}/tasks/${taskId}`);
  await findHeading(input.title);
  return { user, router, services, listId, taskId };
}

/** A chip, by the property it sets ("Status"), whatever its value. */
function chip(property: string) {
  return screen.getByRole('button', { name: new RegExp(`^${property}: `) });
}

/** The names of the open menu's items. */
function menuItems(name: string) {
  const menu = within(screen.getByRole('menu', { name }));
  const radios = menu.queryAllByRole('menuitemradio');
  // The label alone: not the tick, the initials of an avatar or a hint.
  return (radios.length ? radios : menu.getAllByRole('menuitem')).map(
    (item) => item.querySelector('.menu__label')?.textContent,
  );
}

/** "Mon 7 Dec" as the chips write a date (in the reader's locale). */
function shortDate(iso: string, withYear = false) {
  return new Date(`${iso}T00:00:00Z`).toLocaleDateString(undefined, {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    ...(withYear ? { year: 'numeric' } : {}),
    timeZone: 'UTC',
  });
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

  it('edits the title in place: click, Enter or F2 opens it; Enter saves, Escape cancels, empty is refused', async () => {
    const { user, services, taskId } = await openTask({ title: 'Fix the gate' });
    expect(screen.queryByRole('button', { name: 'Edit title' })).toBeNull();
    const title = () =>
      within(screen.getByRole('heading', { level: 1 })).getByRole('button', {
        name: /Fix the/,
      });
    expect(title()).toHaveAccessibleDescription('Edit title');
    await user.click(title());
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
    await waitFor(() => expect(title()).toHaveFocus());

    // By keyboard: Enter on the title, Escape leaves it as it was.
    await user.keyboard('{Enter}');
    await user.clear(screen.getByRole('textbox', { name: 'Title' }));
    await user.keyboard('Nope{Escape}');
    await findHeading('Fix the back gate');
    expect(screen.queryByRole('textbox', { name: 'Title' })).toBeNull();
    expect((await stored(services, taskId))?.title).toBe('Fix the back gate');
    await waitFor(() => expect(title()).toHaveFocus());

    // F2, as in a file manager; leaving the field saves.
    await user.keyboard('{F2}');
    expect(screen.getByRole('textbox', { name: 'Title' })).toHaveFocus();
    await user.keyboard('{Control>}a{/Control}Fix the side gate');
    await user.tab();
    await findHeading('Fix the side gate');
    expect((await stored(services, taskId))?.title).toBe('Fix the side gate');
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

  it('changes status by keyboard in a menu of the allowed transitions; Escape, a press outside or Tab close it', async () => {
    const { user, services, taskId } = await openTask({ title: 'Fix the gate' });
    const status = chip('Status');
    expect(status).toHaveAccessibleName('Status: To do');
    expect(status).toHaveAttribute('aria-haspopup', 'menu');
    expect(status).toHaveAttribute('aria-expanded', 'false');
    status.focus();
    await user.keyboard('{Enter}');
    expect(status).toHaveAttribute('aria-expanded', 'true');
    expect(menuItems('Status')).toEqual(['To do', 'Doing', 'Done']);
    // The current value is checked, and where focus starts.
    const current = screen.getByRole('menuitemradio', { name: 'To do' });
    expect(current).toHaveAttribute('aria-checked', 'true');
    expect(current).toHaveFocus();
    await user.keyboard('{End}');
    expect(screen.getByRole('menuitemradio', { name: 'Done' })).toHaveFocus();
    await user.keyboard('{Home}');
    expect(current).toHaveFocus();
    await user.keyboard('{ArrowUp}');
    expect(screen.getByRole('menuitemradio', { name: 'Done' })).toHaveFocus();

    // Escape closes without a change and gives focus back to the chip.
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('menu')).toBeNull();
    expect(status).toHaveFocus();
    expect(status).toHaveAttribute('aria-expanded', 'false');

    // So does a click anywhere else (focus stays where the click put it).
    await user.keyboard('{ArrowDown}');
    expect(screen.getByRole('menu', { name: 'Status' })).toBeInTheDocument();
    // (The press alone: a click would also move focus, which closes it as well.)
    fireEvent.pointerDown(screen.getByText(/Added by you/));
    expect(screen.queryByRole('menu')).toBeNull();
    // Focus moving on (Tab out of the menu) closes it.
    await user.click(status);
    await user.tab();
    expect(screen.queryByRole('menu')).toBeNull();

    await user.click(status);
    await user.keyboard('{ArrowDown}{ArrowDown}{Enter}');
    expect(screen.queryByRole('menu')).toBeNull();
    await waitFor(() => expect(chip('Status')).toHaveAccessibleName('Status: Done'));
    expect(chip('Status')).toHaveFocus();
    expect(screen.getByText(/Completed/)).toHaveTextContent('Completed just now');
    expect((await stored(services, taskId))?.status).toBe('done');
    expect((await stored(services, taskId))?.completed_at).toEqual(expect.any(String));

    // Done can only be reopened (SPEC §3).
    await user.keyboard('{Enter}');
    expect(menuItems('Status')).toEqual(['Done', 'To do']);
    await user.click(screen.getByRole('menuitemradio', { name: 'To do' }));
    await waitFor(async () => expect((await stored(services, taskId))?.status).toBe('todo'));
  });

  it('changes priority by keyboard, letters jumping to an item', async () => {
    const { user, services, taskId } = await openTask({ title: 'Fix the gate' });
    await waitFor(() => expect(chip('Priority')).toHaveAccessibleName('Priority: No priority'));
    chip('Priority').focus();
    await user.keyboard('{Enter}');
    expect(menuItems('Priority')).toEqual(['No priority', 'High', 'Medium', 'Low']);
    await user.keyboard('m');
    expect(screen.getByRole('menuitemradio', { name: 'Medium' })).toHaveFocus();
    // Letters typed together make one search; a move starts a new one.
    await user.keyboard('{ArrowDown}');
    expect(screen.getByRole('menuitemradio', { name: 'Low' })).toHaveFocus();
    await user.keyboard('no');
    expect(screen.getByRole('menuitemradio', { name: 'No priority' })).toHaveFocus();
    await user.keyboard('{ArrowDown}h{Enter}');
    await waitFor(async () => expect((await stored(services, taskId))?.priority).toBe(3));
    await waitFor(() => expect(chip('Priority')).toHaveAccessibleName('Priority: High'));
    expect(chip('Priority')).toHaveFocus();

    // Space picks too; Low is the last item.
    await user.keyboard('{ArrowDown}');
    expect(screen.getByRole('menuitemradio', { name: 'High' })).toHaveFocus();
    await user.keyboard('l ');
    await waitFor(async () => expect((await stored(services, taskId))?.priority).toBe(1));
    await waitFor(() => expect(chip('Priority')).toHaveAccessibleName('Priority: Low'));
  });

  it('sets the due date from Today, Tomorrow, Next week and No date, and says it in words', async () => {
    const { user, services, taskId } = await openTask({ title: 'Fix the gate' }, { now: FRIDAY });
    const due = () => chip('Due date');
    await waitFor(() => expect(due()).toHaveAccessibleName('Due date: None'));
    expect(due()).toHaveAttribute('aria-haspopup', 'dialog');
    due().focus();
    await user.keyboard('{Enter}');
    const dialog = screen.getByRole('dialog', { name: 'Due date' });
    // No "No date" while there is none to clear.
    expect(menuItems('Quick dates')).toEqual(['Today', 'Tomorrow', 'Next week']);
    expect(within(dialog).getByRole('menuitem', { name: /^Next week/ })).toHaveTextContent(
      shortDate('2026-12-07'),
    );
    expect(within(dialog).getByRole('menuitem', { name: /^Today/ })).toHaveFocus();
    await user.keyboard('{Enter}');
    await waitFor(async () => expect((await stored(services, taskId))?.due_on).toBe('2026-12-04'));
    await waitFor(() => expect(due()).toHaveAccessibleName('Due date: Today'));
    expect(due()).toHaveFocus();

    await user.keyboard('{Enter}{ArrowDown}{Enter}');
    await waitFor(async () => expect((await stored(services, taskId))?.due_on).toBe('2026-12-05'));
    await waitFor(() => expect(due()).toHaveAccessibleName('Due date: Tomorrow'));

    // Next week is the coming Monday.
    await user.keyboard('{Enter}n{Enter}');
    await waitFor(async () => expect((await stored(services, taskId))?.due_on).toBe('2026-12-07'));
    await waitFor(() => expect(due()).toHaveAccessibleName(`Due date: ${shortDate('2026-12-07')}`));

    await user.keyboard('{Enter}{End}');
    expect(screen.getByRole('menuitem', { name: 'No date' })).toHaveFocus();
    await user.keyboard('{Enter}');
    await waitFor(async () => expect((await stored(services, taskId))?.due_on).toBeNull());
    await waitFor(() => expect(due()).toHaveAccessibleName('Due date: None'));
  });

  it('picks a due date on the calendar by keyboard: arrows by day and week, PageUp/PageDown by month', async () => {
    const { user, services, taskId } = await openTask(
      { title: 'Fix the gate', due_on: '2026-12-10' },
      { now: FRIDAY },
    );
    chip('Due date').focus();
    await user.keyboard('{Enter}');
    // Tab from the quick dates: previous month, next month, then the grid.
    await user.tab();
    expect(screen.getByRole('button', { name: 'Previous month' })).toHaveFocus();
    await user.tab();
    await user.tab();
    const grid = screen.getByRole('grid', { name: /December 2026/ });
    const selected = within(grid).getByRole('gridcell', { selected: true });
    expect(selected).toHaveTextContent('10');
    expect(selected).toHaveFocus();
    expect(within(grid).getByText('4')).toHaveAttribute('aria-current', 'date');

    await user.keyboard('{ArrowRight}{ArrowDown}');
    expect(document.activeElement).toHaveTextContent('18');
    await user.keyboard('{ArrowLeft}{ArrowUp}{ArrowUp}');
    expect(document.activeElement).toHaveTextContent('3');
    await user.keyboard('{Home}');
    expect(document.activeElement).toHaveTextContent('30'); // Monday 30 November
    expect(screen.getByRole('grid', { name: /November 2026/ })).toBeInTheDocument();
    // The same day a month on: 30 November → 30 December → 30 January, a Saturday; End is
    // that week's Sunday.
    await user.keyboard('{PageDown}');
    expect(screen.getByRole('grid', { name: /December 2026/ })).toBeInTheDocument();
    expect(document.activeElement).toHaveTextContent('30');
    await user.keyboard('{PageDown}');
    expect(document.activeElement).toHaveTextContent('30');
    await user.keyboard('{End}');
    expect(screen.getByRole('grid', { name: /January 2027/ })).toBeInTheDocument();
    expect(document.activeElement).toHaveTextContent('31'); // Sunday 31 January
    await user.keyboard('{PageUp}');
    expect(screen.getByRole('grid', { name: /December 2026/ })).toBeInTheDocument();
    expect(document.activeElement).toHaveTextContent('31');
    await user.keyboard('{ArrowUp}{ArrowUp}{ArrowUp}{ArrowUp}');
    expect(document.activeElement).toHaveTextContent('3');
    await user.keyboard('{Enter}');
    await waitFor(async () => expect((await stored(services, taskId))?.due_on).toBe('2026-12-03'));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(chip('Due date')).toHaveFocus();
    // Past and still open: late.
    await waitFor(() =>
      expect(chip('Due date')).toHaveAccessibleName(
        `Due date: Overdue · ${shortDate('2026-12-03')}`,
      ),
    );

    // The month buttons, then a click on a day.
    await user.click(chip('Due date'));
    await user.click(screen.getByRole('button', { name: 'Next month' }));
    await user.click(
      within(screen.getByRole('grid', { name: /January 2027/ })).getByRole('gridcell', {
        name: new Date(2027, 0, 15).toLocaleDateString(undefined, {
          weekday: 'long',
          day: 'numeric',
          month: 'long',
          year: 'numeric',
        }),
      }),
    );
    await waitFor(async () => expect((await stored(services, taskId))?.due_on).toBe('2027-01-15'));
    await waitFor(() =>
      expect(chip('Due date')).toHaveAccessibleName(`Due date: ${shortDate('2027-01-15', true)}`),
    );
  });

  it('says a due date is overdue until the task is done', async () => {
    const { user } = await openTask({ title: 'Fix the gate', due_on: '2020-01-02' });
    await waitFor(() =>
      expect(chip('Due date')).toHaveAccessibleName(
        `Due date: Overdue · ${shortDate('2020-01-02', true)}`,
      ),
    );
    await user.click(chip('Status'));
    await user.click(screen.getByRole('menuitemradio', { name: 'Done' }));
    await waitFor(() =>
      expect(chip('Due date')).toHaveAccessibleName(`Due date: ${shortDate('2020-01-02', true)}`),
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

    await waitFor(() => expect(chip('Assignee')).toHaveAccessibleName('Assignee: Unassigned'));
    chip('Assignee').focus();
    await user.keyboard('{Enter}');
    await waitFor(() => expect(menuItems('Assignee')).toEqual(['Unassigned', 'You', 'Bob']));
    // Each with their avatar (the name is written beside it).
    const bobItem = screen.getByRole('menuitemradio', { name: 'Bob' });
    expect(bobItem.querySelector('.avatar')).toHaveTextContent('B');
    await user.keyboard('b{Enter}');
    await waitFor(async () => expect((await stored(services!, taskId))?.assignee_id).toBe(bob));
    await waitFor(() => expect(chip('Assignee')).toHaveAccessibleName('Assignee: Bob'));
    expect(chip('Assignee').querySelector('.avatar')).toHaveTextContent('B');
    await user.keyboard('{Enter}');
    // Opened on the current assignee.
    expect(screen.getByRole('menuitemradio', { name: 'Bob' })).toHaveAttribute(
      'aria-checked',
      'true',
    );
    expect(screen.getByRole('menuitemradio', { name: 'Bob' })).toHaveFocus();
    await user.keyboard('{Home}{Enter}');
    await waitFor(async () => expect((await stored(services!, taskId))?.assignee_id).toBeNull());
    await waitFor(() => expect(chip('Assignee')).toHaveAccessibleName('Assignee: Unassigned'));
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
