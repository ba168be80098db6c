// The task detail screen on a local-only device: every field writes through the real
// repositories into fake-indexeddb, notes are never lost on the way out, and a task that is
// gone says so. Deleting, absence, loading, a viewer's read-only
// view and the extras are in task-detail-screen-lifecycle.test.tsx.
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { patchStoredRow, storedRows } from '@sync/testing';
import { findHeading, renderApp, type TestServices } from '@/testing/app-harness';

import { addMember, localListDevice, sharedList } from '../testing/fixtures';
import {
  chip,
  FRIDAY,
  menuItems,
  openTask,
  shortDate,
  stored,
} from '../testing/task-detail-screen';

let services: TestServices | undefined;

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
    expect(menuItems('Status')).toEqual(['To do', 'Done']);
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
});
