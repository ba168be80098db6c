// The task screen's notes (issue 40), on a local-only device: shown with their web addresses
// as links, edited by a real control (Edit) or a click on the text, saved when left, Escape
// back to the text; empty notes are the field itself; viewers see the links too.
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { findHeading, renderApp } from '@/testing/app-harness';

import { localListDevice, seedTasks, sharedList } from '../testing/fixtures';
import { openTask, stored } from '../testing/task-detail-screen';

const NOTES = 'Quote: https://example.com/quote?id=4.\nCall before noon.';

/** The notes as shown (not editing). */
function shownNotes(): HTMLElement {
  const shown = document.querySelector<HTMLElement>('.task-notes__text');
  if (!shown) throw new Error('the notes are not shown as text');
  return shown;
}

describe('task notes', () => {
  it('shows web addresses as links that open in a new tab, and nothing else as one', async () => {
    await openTask({ title: 'Fix the gate', notes: NOTES });
    const link = within(shownNotes()).getByRole('link');
    expect(link).toHaveTextContent('https://example.com/quote?id=4');
    expect(link).toHaveAttribute('href', 'https://example.com/quote?id=4');
    expect(link).toHaveAttribute('target', '_blank');
    expect(link).toHaveAttribute('rel', 'noopener noreferrer');
    // As written, line break and full stop included.
    expect(shownNotes().textContent).toBe(NOTES);
    expect(screen.queryByRole('textbox', { name: 'Notes' })).toBeNull();
  });

  it('edits by the Edit button: the field has the text, leaving it saves, Escape goes back', async () => {
    const { user, services, taskId } = await openTask({ title: 'Fix the gate', notes: NOTES });
    const edit = screen.getByRole('button', { name: 'Edit notes' });
    edit.focus();
    await user.keyboard('{Enter}');
    const field = screen.getByRole('textbox', { name: 'Notes' });
    expect(field).toHaveFocus();
    expect(field).toHaveValue(NOTES);
    // The caret at the end, to carry on writing.
    expect((field as HTMLTextAreaElement).selectionStart).toBe(NOTES.length);
    await user.keyboard(' Ring twice.');
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('textbox', { name: 'Notes' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Edit notes' })).toHaveFocus();
    expect(shownNotes()).toHaveTextContent(/Call before noon\. Ring twice\.$/);
    await waitFor(async () =>
      expect((await stored(services, taskId))?.notes).toBe(`${NOTES} Ring twice.`),
    );

    // A click on the text edits it too; leaving the field (Tab) saves and shows the text.
    await user.click(shownNotes());
    expect(screen.getByRole('textbox', { name: 'Notes' })).toHaveFocus();
    await user.keyboard('{Control>}a{/Control}See http://shop.test/hinge');
    await user.tab();
    expect(within(shownNotes()).getByRole('link')).toHaveAttribute(
      'href',
      'http://shop.test/hinge',
    );
    await waitFor(async () =>
      expect((await stored(services, taskId))?.notes).toBe('See http://shop.test/hinge'),
    );
  });

  it('follows a link rather than editing when the link is clicked', async () => {
    const { user } = await openTask({ title: 'Fix the gate', notes: NOTES });
    await user.click(within(shownNotes()).getByRole('link'));
    expect(screen.queryByRole('textbox', { name: 'Notes' })).toBeNull();
  });

  it('is the field itself while empty, and keeps over-long notes in it', async () => {
    const { user } = await openTask({ title: 'Fix the gate' });
    const field = screen.getByRole('textbox', { name: 'Notes' });
    expect(screen.queryByRole('button', { name: 'Edit notes' })).toBeNull();
    await user.click(field);
    await user.paste('y'.repeat(10_001));
    await user.tab();
    expect(screen.getByRole('textbox', { name: 'Notes' })).toHaveAccessibleDescription(
      /Notes can be at most 10,000 characters\./,
    );
  });

  it("shows a viewer the notes' links, with nothing to edit them with", async () => {
    const device = await localListDevice();
    const listId = await sharedList(device.services, 'viewer');
    const [taskId] = await seedTasks(device.services, listId, 1, () => ({ notes: NOTES }));
    renderApp(device.services, `/lists/${listId}/tasks/${taskId}`);
    await findHeading('Task 1');
    expect(within(shownNotes()).getByRole('link')).toHaveAttribute(
      'href',
      'https://example.com/quote?id=4',
    );
    expect(screen.queryByRole('button', { name: 'Edit notes' })).toBeNull();
    expect(screen.queryByRole('textbox', { name: 'Notes' })).toBeNull();
  });
});
