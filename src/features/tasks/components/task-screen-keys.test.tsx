// The open task's single keys (issue 40), on its full page on a local-only device: s, p, d
// and a open their chips, Delete and Backspace delete the task with Undo; never from a field,
// a menu, or for a viewer.
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { findHeading, renderApp } from '@/testing/app-harness';

import { localListDevice, seedTasks, sharedList } from '../testing/fixtures';
import { chip, openTask, stored } from '../testing/task-detail-screen';

describe('task screen keys', () => {
  it('opens each chip by its key, from the screen and from the page, not from a field', async () => {
    const { user, services, taskId } = await openTask({ title: 'Fix the gate' });
    // Where a navigation puts focus: the screen's heading.
    screen.getByRole('heading', { level: 1 }).focus();
    for (const [key, property, popup] of [
      ['s', 'Status', () => screen.getByRole('menu', { name: 'Status' })],
      ['p', 'Priority', () => screen.getByRole('menu', { name: 'Priority' })],
      ['d', 'Due date', () => screen.getByRole('dialog', { name: 'Due date' })],
      ['a', 'Assignee', () => screen.getByRole('menu', { name: 'Assignee' })],
    ] as const) {
      await user.keyboard(key);
      expect(popup()).toBeInTheDocument();
      expect(chip(property)).toHaveAttribute('aria-keyshortcuts', key.toUpperCase());
      await user.keyboard('{Escape}');
      expect(chip(property)).toHaveFocus();
    }
    // With nothing focused, the page's keys are the task's.
    (document.activeElement as HTMLElement).blur();
    await user.keyboard('p');
    expect(screen.getByRole('menu', { name: 'Priority' })).toBeInTheDocument();
    await user.keyboard('{Escape}');

    // In a field the letters are text.
    const notes = screen.getByRole('textbox', { name: 'Notes' });
    await user.click(notes);
    await user.keyboard('sad');
    expect(notes).toHaveValue('sad');
    expect(screen.queryByRole('menu')).toBeNull();
    expect(screen.queryByRole('dialog')).toBeNull();
    await waitFor(async () => expect((await stored(services, taskId))?.notes).toBe('sad'));
  });

  it('deletes the task with Delete, with Undo; a Backspace in a field or a menu does not', async () => {
    const { user, services, taskId, router, listId } = await openTask({ title: 'Fix the gate' });
    const notes = screen.getByRole('textbox', { name: 'Notes' });
    await user.click(notes);
    await user.keyboard('ab{Backspace}');
    expect(notes).toHaveValue('a');
    chip('Status').focus();
    await user.keyboard('{Enter}');
    expect(screen.getByRole('menu', { name: 'Status' })).toBeInTheDocument();
    await user.keyboard('{Backspace}');
    await user.keyboard('{Escape}');
    expect(chip('Status')).toHaveFocus();
    expect((await stored(services, taskId))?.deleted_at).toBeNull();

    await user.keyboard('{Delete}');
    await findHeading('Groceries');
    expect(router.state.location.pathname).toBe(`/lists/${listId}`);
    expect((await stored(services, taskId))?.deleted_at).toEqual(expect.any(String));
    await user.click(screen.getByRole('button', { name: 'Undo' }));
    await waitFor(async () => expect((await stored(services, taskId))?.deleted_at).toBeNull());
  });

  it('deletes with Backspace too', async () => {
    const { user, services, taskId } = await openTask({ title: 'Fix the gate' });
    chip('Priority').focus();
    await user.keyboard('{Backspace}');
    await findHeading('Groceries');
    expect((await stored(services, taskId))?.deleted_at).toEqual(expect.any(String));
  });

  it('gives a viewer no keys that change the task', async () => {
    const device = await localListDevice();
    const listId = await sharedList(device.services, 'viewer');
    const [taskId = ''] = await seedTasks(device.services, listId, 1);
    renderApp(device.services, `/lists/${listId}/tasks/${taskId}`);
    const heading = await findHeading('Task 1');
    heading.focus();
    const user = userEvent.setup();
    await user.keyboard('s{Delete}');
    expect(screen.queryByRole('menu')).toBeNull();
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Task 1');
    expect((await stored(device.services, taskId))?.deleted_at).toBeNull();
  });
});
