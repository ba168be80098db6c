// Quick add on the tasks screen, against the real sync library on fake-indexeddb: what it
// understood shows as chips, Enter writes the task with those fields, and a removed chip's
// words stay in the title. The day is Wednesday 2 December 2026 on the app's clock; the
// device's language is British English (12/3 is 12 March).
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { createTestServices, findHeading, markLocalOnly, renderApp } from '@/testing/app-harness';

import { addMember, dbTasks, sharedList } from '../testing/fixtures';

const NOW = new Date(2026, 11, 2, 9, 30).getTime();
const BOB = 'b0b00000-0000-4000-8000-000000000002';

async function openQuickAdd() {
  markLocalOnly();
  const services = createTestServices({ now: () => NOW });
  const listId = await sharedList(services, 'editor');
  await addMember(services, listId, BOB, 'editor', 'Bob Smith');
  const user = userEvent.setup();
  renderApp(services, `/lists/${listId}`);
  await findHeading('Site visit');
  const input = await screen.findByRole('textbox', { name: 'Add a task' });
  await user.click(input);
  return { services, listId, user, input };
}

/** The chips' text (label and ×), or none when no list shows. */
function chips(): string[] {
  const list = screen.queryByRole('list', { name: 'Understood' });
  return list
    ? within(list)
        .getAllByRole('button')
        .map((chip) => chip.textContent ?? '')
    : [];
}

describe('quick add', () => {
  beforeEach(() => {
    vi.spyOn(navigator, 'language', 'get').mockReturnValue('en-GB');
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('shows what it understood as chips and adds the task with those fields', async () => {
    const { services, listId, user, input } = await openQuickAdd();
    await user.type(input, 'Call the engineer tomorrow !high @bob');
    const understood = screen.getByRole('list', { name: 'Understood' });
    expect(
      within(understood)
        .getAllByRole('button')
        .map((chip) => chip.getAttribute('aria-label')),
    ).toEqual(['Remove Tomorrow', 'Remove High priority', 'Remove @Bob Smith']);

    await user.keyboard('{Enter}');
    await waitFor(async () => expect(await dbTasks(services, listId)).toHaveLength(1));
    const [task] = await dbTasks(services, listId);
    expect(task).toMatchObject({
      title: 'Call the engineer',
      due_on: '2026-12-03',
      priority: 3,
      assignee_id: BOB,
      repeat: null,
    });
    expect(input).toHaveValue('');
    expect(input).toHaveFocus();
    expect(chips()).toEqual([]);
    expect(
      await screen.findByText('Added “Call the engineer” · Tomorrow · High priority · @Bob Smith'),
    ).toHaveAttribute('role', 'status');
  });

  it('reads dates in the device language and saves repeats', async () => {
    const { services, listId, user, input } = await openQuickAdd();
    await user.type(input, 'Dentist 12/3');
    expect(chips()).toEqual(['Fri, 12 Mar 2027×']);
    await user.clear(input);
    await user.type(input, 'Water plants every 3 days{Enter}');
    await waitFor(async () => expect(await dbTasks(services, listId)).toHaveLength(1));
    expect((await dbTasks(services, listId))[0]).toMatchObject({
      title: 'Water plants',
      due_on: '2026-12-02',
      repeat: 'after:3',
    });
  });

  it('keeps a removed chip’s words in the title, from the keyboard, moving focus along', async () => {
    const { services, listId, user, input } = await openQuickAdd();
    await user.type(input, 'Call mom friday !low');
    expect(chips()).toEqual(['Fri 4 Dec×', 'Low priority×']);
    await user.tab(); // Add
    await user.tab();
    expect(screen.getByRole('button', { name: 'Remove Fri 4 Dec' })).toHaveFocus();
    await user.keyboard('{Enter}');
    // The next chip takes the removed one's place, and focus.
    expect(screen.getByRole('button', { name: 'Remove Low priority' })).toHaveFocus();
    expect(chips()).toEqual(['Low priority×']);
    await user.keyboard(' ');
    // None left: back to the field, its text as typed.
    expect(chips()).toEqual([]);
    expect(input).toHaveFocus();
    expect(input).toHaveValue('Call mom friday !low');

    // Still removed while the text is edited.
    await user.type(input, ' soon');
    expect(chips()).toEqual([]);
    await user.keyboard('{Enter}');
    await waitFor(async () => expect(await dbTasks(services, listId)).toHaveLength(1));
    expect((await dbTasks(services, listId))[0]).toMatchObject({
      title: 'Call mom friday !low soon',
      due_on: null,
      priority: 0,
    });
    // A new task starts afresh.
    await user.type(input, 'Call mom friday');
    expect(chips()).toEqual(['Fri 4 Dec×']);
  });

  it('leaves unknown names, lone numbers and e-mail addresses in the title', async () => {
    const { services, listId, user, input } = await openQuickAdd();
    await user.type(input, 'Email carol@x.io about door 12 @carol');
    expect(chips()).toEqual([]);
    await user.keyboard('{Enter}');
    await waitFor(async () =>
      expect((await dbTasks(services, listId)).map((task) => task.title)).toEqual([
        'Email carol@x.io about door 12 @carol',
      ]),
    );
  });

  it('refuses a title too long once the understood words are taken out', async () => {
    const { services, listId, user, input } = await openQuickAdd();
    await user.paste(`${'x'.repeat(201)} tomorrow`);
    await user.keyboard('{Enter}');
    expect(await screen.findByText('Title can be at most 200 characters.')).toBeInTheDocument();
    expect(input).toHaveValue(`${'x'.repeat(201)} tomorrow`);
    expect(chips()).toEqual(['Tomorrow×']);
    expect(await dbTasks(services, listId)).toHaveLength(0);
  });
});
