// The `?` dialog's list of shortcuts (issue 40): the open task's keys have a group of their
// own, and the single keys each group lists are exactly those its screen carries (each menu a
// key opens has it as `data-shortcut`: a row's, the bulk bar's, the open task's), so the list
// written out in the dialog cannot drift from the handlers unseen.
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { localListDevice } from '@/features/tasks/testing/fixtures';
import { openTask } from '@/features/tasks/testing/task-detail-screen';
import { renderApp } from '@/testing/app-harness';

import { SHORTCUTS, ShortcutsDialog } from './shortcuts-dialog';

/** The keys and actions of a group, as the dialog shows them. */
function shownGroup(title: string): [string | null, string | null][] {
  const heading = screen.getByRole('heading', { level: 3, name: title });
  const group = heading.closest('section');
  if (!group) throw new Error(`no section for ${title}`);
  return within(group)
    .getAllByRole('definition')
    .map((action) => [action.previousElementSibling?.textContent ?? null, action.textContent]);
}

/** A group's single-letter keys (those a menu's button carries), sorted. */
function letterKeys(title: string): string[] {
  const group = SHORTCUTS.find((each) => each.title === title);
  if (!group) throw new Error(`no group ${title}`);
  return group.keys
    .map(([keys]) => keys)
    .filter((keys) => /^[a-z]$/.test(keys))
    .sort();
}

/** The keys the menus inside `scope` open by (their `data-shortcut`), sorted. */
function carriedKeys(scope: ParentNode): string[] {
  return Array.from(scope.querySelectorAll<HTMLElement>('[data-shortcut]'))
    .map((element) => element.dataset.shortcut ?? '')
    .sort();
}

describe('the shortcuts dialog', () => {
  it("lists the open task's keys, and Esc to close the task beside the list", () => {
    render(<ShortcutsDialog open onClose={() => undefined} />);
    expect(shownGroup('On the open task')).toEqual([
      ['s', 'Status'],
      ['p', 'Priority'],
      ['a', 'Assignee'],
      ['d', 'Due date'],
      ['Delete / Backspace', 'Delete (with Undo)'],
      ['Esc', 'Close the task beside the list'],
    ]);
    expect(shownGroup('On the focused task or a selection')).toContainEqual([
      'Delete / Backspace',
      'Delete (with Undo)',
    ]);
  });

  it('lists exactly the single keys of a row and of the bulk bar', async () => {
    const { services, listId } = await localListDevice();
    await services.sync.repos.tasks.create(listId, { title: 'Fix the gate' });
    renderApp(services, `/lists/${listId}`);
    const link = await screen.findByRole('link', { name: 'Fix the gate' });
    const row = link.closest<HTMLElement>('[data-task-id]');
    if (!row) throw new Error('no row');
    const onRow = carriedKeys(row);
    row.focus();
    await userEvent.setup().keyboard('x');
    const bar = await screen.findByRole('region', { name: 'Selection' });
    expect([...new Set([...onRow, ...carriedKeys(bar)])].sort()).toEqual(
      letterKeys('On the focused task or a selection'),
    );
  });

  it("lists exactly the single keys of the open task's menus", async () => {
    await openTask({ title: 'Fix the gate' });
    const task = screen.getByRole('heading', { level: 1 }).closest('section');
    if (!task) throw new Error('no task screen');
    expect(carriedKeys(task)).toEqual(letterKeys('On the open task'));
  });
});
