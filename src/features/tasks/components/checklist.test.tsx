// The task screen's checklist on a local-only device: made and edited by keyboard alone (Enter
// adds after, Backspace in an empty item removes it, Alt+arrows move, Space ticks), its
// progress in the heading, limits shown inline, others' changes live, removal with Undo,
// and a viewer's read-only view.
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { LOCAL_USER_ID } from '@sync/index';
import { putStoredRows } from '@sync/testing';
import { checklistQueries } from '@/data/checklist-queries';
import { serverRow } from '@/data/testing/server-row';
import { useToasts } from '@/lib/toasts';
import { findHeading, renderApp, type TestServices } from '@/testing/app-harness';

import { localListDevice, seedTasks, sharedList } from '../testing/fixtures';
import { openTask } from '../testing/task-detail-screen';

/** The checklist's live items as stored, in order. */
async function storedItems(services: TestServices, taskId: string) {
  return (await services.sync.queries.extend(checklistQueries).checklist(taskId)).map((item) =>
    item.done ? `[x] ${item.text}` : item.text,
  );
}

const field = (text: string) => screen.getByRole('textbox', { name: `Item: ${text}` });
const shownItems = () =>
  within(screen.getByRole('region', { name: /Checklist/ }))
    .queryAllByRole('textbox', { name: /^Item: / })
    .map((input) => (input as HTMLInputElement).value);

describe('checklist', () => {
  it('is made by keyboard: Add item, Enter after an item, Backspace in an empty one', async () => {
    const { user, services, taskId } = await openTask({ title: 'Pack for the trip' });
    const add = await screen.findByRole('textbox', { name: 'Add item' });
    await user.click(add);
    await user.keyboard('Tent{Enter}Stove{Enter}Map{Enter}');
    await waitFor(async () =>
      expect(await storedItems(services, taskId)).toEqual(['Tent', 'Stove', 'Map']),
    );
    // Add item stays for the next one.
    expect(add).toHaveFocus();
    expect(add).toHaveValue('');
    expect(
      await screen.findByRole('heading', { name: /^Checklist\s*, 0 of 3 done$/ }),
    ).toBeInTheDocument();

    // Enter in an item opens a new one right after it.
    await user.click(field('Tent'));
    await user.keyboard('{Enter}');
    expect(screen.getByRole('textbox', { name: 'New item' })).toHaveFocus();
    await user.keyboard('Pegs{Enter}Mallet{Enter}');
    await waitFor(async () =>
      expect(await storedItems(services, taskId)).toEqual([
        'Tent',
        'Pegs',
        'Mallet',
        'Stove',
        'Map',
      ]),
    );
    // Still on a new line after the last one added; Backspace there goes back to it.
    expect(screen.getByRole('textbox', { name: 'New item' })).toHaveFocus();
    await user.keyboard('{Backspace}');
    expect(screen.queryByRole('textbox', { name: 'New item' })).toBeNull();
    await waitFor(() => expect(field('Mallet')).toHaveFocus());

    // Emptied, Backspace once more removes it and goes to the one before.
    await user.keyboard('{Backspace>6/}');
    expect(field('Mallet')).toHaveValue('');
    await user.keyboard('{Backspace}');
    await waitFor(async () =>
      expect(await storedItems(services, taskId)).toEqual(['Tent', 'Pegs', 'Stove', 'Map']),
    );
    await waitFor(() => expect(field('Pegs')).toHaveFocus());

    // Enter in the last item goes to Add item.
    await user.click(field('Map'));
    await user.keyboard('{Enter}');
    expect(add).toHaveFocus();
    expect(shownItems()).toEqual(['Tent', 'Pegs', 'Stove', 'Map']);
  });

  it('moves items with Alt+↑/↓ (focus stays on the item) and ticks them with Space', async () => {
    const { user, services, taskId } = await openTask({ title: 'Pack for the trip' });
    for (const text of ['Tent', 'Stove', 'Map'])
      await services.sync.repos.checklist.add(taskId, text);
    await waitFor(() => expect(shownItems()).toEqual(['Tent', 'Stove', 'Map']));

    await user.click(field('Map'));
    await user.keyboard('{Alt>}{ArrowUp}{/Alt}');
    await waitFor(() => expect(shownItems()).toEqual(['Tent', 'Map', 'Stove']));
    await waitFor(() => expect(field('Map')).toHaveFocus());
    await user.keyboard('{Alt>}{ArrowUp}{/Alt}');
    await waitFor(() => expect(shownItems()).toEqual(['Map', 'Tent', 'Stove']));
    await waitFor(() => expect(field('Map')).toHaveFocus());
    await user.keyboard('{Alt>}{ArrowDown}{/Alt}');
    await waitFor(() => expect(shownItems()).toEqual(['Tent', 'Map', 'Stove']));
    await waitFor(() => expect(field('Map')).toHaveFocus());
    expect(await storedItems(services, taskId)).toEqual(['Tent', 'Map', 'Stove']);
    expect(screen.getByText('Map: 2 of 3')).toBeInTheDocument();

    // ↑/↓ go from item to item.
    await user.keyboard('{ArrowDown}');
    expect(field('Stove')).toHaveFocus();

    const tick = screen.getByRole('checkbox', { name: 'Done: Stove' });
    tick.focus();
    await user.keyboard(' ');
    await waitFor(async () =>
      expect(await storedItems(services, taskId)).toEqual(['Tent', 'Map', '[x] Stove']),
    );
    await waitFor(() =>
      expect(
        screen.getByRole('heading', { name: /^Checklist\s*, 1 of 3 done$/ }),
      ).toBeInTheDocument(),
    );
  });

  it('edits an item in place, shows the limits inline, and removes an item with Undo', async () => {
    const { user, services, taskId } = await openTask({ title: 'Pack for the trip' });
    await services.sync.repos.checklist.add(taskId, 'Tent');
    await user.click(await screen.findByRole('textbox', { name: 'Item: Tent' }));
    await user.keyboard('{End} and poles');
    await user.tab();
    await waitFor(async () =>
      expect(await storedItems(services, taskId)).toEqual(['Tent and poles']),
    );

    const add = screen.getByRole('textbox', { name: 'Add item' });
    await user.click(add);
    await user.paste('x'.repeat(501));
    expect(screen.getByText('Item can be at most 500 characters.')).toBeInTheDocument();
    expect(add).toHaveAttribute('aria-invalid', 'true');
    await user.keyboard('{Enter}');
    expect(await storedItems(services, taskId)).toEqual(['Tent and poles']);

    await user.click(screen.getByRole('button', { name: 'Remove Tent and poles' }));
    await waitFor(async () => expect(await storedItems(services, taskId)).toEqual([]));
    const toast = useToasts.getState().toasts.find((t) => t.message === 'Removed “Tent and poles”');
    expect(toast?.action?.label).toBe('Undo');
    await toast?.action?.run?.();
    await waitFor(async () =>
      expect(await storedItems(services, taskId)).toEqual(['Tent and poles']),
    );
  });

  it('shows others’ changes as they arrive', async () => {
    const { services, taskId, listId } = await openTask({ title: 'Pack for the trip' });
    await putStoredRows(services.sync, 'checklist_items', [
      serverRow('checklist_items', {
        id: crypto.randomUUID(),
        task_id: taskId,
        list_id: listId,
        text: 'Rope',
        done: true,
        position: 'a0',
        created_by: crypto.randomUUID(),
      }),
    ]);
    await waitFor(() => expect(shownItems()).toEqual(['Rope']));
    expect(screen.getByRole('checkbox', { name: 'Done: Rope' })).toBeChecked();
  });

  it('shows a viewer the items and ticks, and nothing to change', async () => {
    const device = await localListDevice();
    const { services } = device;
    const listId = await sharedList(services, 'viewer');
    const [taskId = ''] = await seedTasks(services, listId, 1);
    await putStoredRows(
      services.sync,
      'checklist_items',
      ['Tent', 'Stove'].map((text, i) =>
        serverRow('checklist_items', {
          id: crypto.randomUUID(),
          task_id: taskId,
          list_id: listId,
          text,
          done: i === 0,
          position: `a${i}`,
          created_by: LOCAL_USER_ID,
        }),
      ),
    );
    renderApp(services, `/lists/${listId}/tasks/${taskId}`);
    await findHeading('Task 1');
    const region = await screen.findByRole('region', { name: /Checklist/ });
    expect(within(region).getByText('Tent')).toBeInTheDocument();
    expect(within(region).getByRole('checkbox', { name: 'Done: Tent' })).toBeDisabled();
    expect(within(region).getByRole('checkbox', { name: 'Done: Stove' })).not.toBeChecked();
    expect(within(region).queryByRole('textbox')).toBeNull();
    expect(within(region).queryByRole('button')).toBeNull();
  });
});
