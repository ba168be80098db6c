// The command palette on the real app and device database (offline, no server): Ctrl+K opens
// it (and so does the phone's bottom bar), typing finds lists, tasks and actions (each
// labelled, a task with its list, what matched marked), ↑/↓ move the active option, Enter or a
// click runs it, Escape closes it and focus goes back.
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';

import { setDeviceOwner } from '@sync/testing';
import {
  ALICE_ID,
  createTestServices,
  findHeading,
  localOnlyServices,
  renderApp,
  storeAliceSession,
  type TestServices,
} from '@/testing/app-harness';

import {
  actionCommands,
  matchedRanges,
  matchScore,
  rankCommands,
  type ActionContext,
} from './command-palette';

/** A device used without an account, with two lists and a few tasks. */
async function localDevice(): Promise<{ services: TestServices; roof: string; yard: string }> {
  const services = localOnlyServices();
  const { repos } = services.sync;
  const roof = await repos.lists.create({ name: 'Roof crew', color: 'teal' });
  const yard = await repos.lists.create({ name: 'Yard', color: 'red' });
  await repos.tasks.create(roof, { title: 'Check the gutters' });
  await repos.tasks.create(roof, { title: 'Order roof tiles' });
  await repos.tasks.create(yard, { title: 'Sweep the yard' });
  return { services, roof, yard };
}

async function openApp(services: TestServices, path: string, heading: string | RegExp) {
  const view = renderApp(services, path);
  await findHeading(heading);
  return { ...view, user: userEvent.setup() };
}

function combobox() {
  return screen.getByRole('combobox', { name: 'Search lists, tasks and actions' });
}

/** The options' accessible names, top to bottom. */
function optionNames(): string[] {
  return within(screen.getByRole('listbox', { name: 'Results' }))
    .queryAllByRole('option')
    .map((option) => option.textContent ?? '');
}

/** The option the combobox points at. */
function activeOption(): HTMLElement | null {
  const id = combobox().getAttribute('aria-activedescendant');
  return id ? document.getElementById(id) : null;
}

async function openPalette(user: ReturnType<typeof userEvent.setup>) {
  await user.keyboard('{Control>}k{/Control}');
  await screen.findByRole('dialog', { name: 'Command palette' });
  await waitFor(() => expect(combobox()).toHaveFocus());
}

describe('command palette', () => {
  it('opens on Ctrl+K or Cmd+K, even from a field, and Escape puts focus back', async () => {
    const { services, roof } = await localDevice();
    const { user } = await openApp(services, `/lists/${roof}`, 'Roof crew');
    const field = screen.getByLabelText('Add a task');
    await user.click(field);
    await openPalette(user);
    expect(field).toHaveValue('');

    await user.keyboard('{Escape}');
    await waitFor(() =>
      expect(screen.queryByRole('dialog', { name: 'Command palette' })).toBeNull(),
    );
    expect(field).toHaveFocus();

    await user.keyboard('{Meta>}k{/Meta}');
    await waitFor(() => expect(combobox()).toHaveFocus());
  });

  it('finds lists and tasks by part of their name and actions by their words, labelled', async () => {
    const { services } = await localDevice();
    const { user } = await openApp(services, '/lists', 'Lists');
    await openPalette(user);
    // No text: the actions, then every list.
    await waitFor(() => expect(optionNames()).toContain('Roof crewList'));
    expect(optionNames()).toEqual([
      'New taskIn the list you used lastAction',
      'New listAction',
      'Go to listsAction',
      'Go to TodayAction',
      'Go to UpcomingAction',
      'Go to Assigned to meAction',
      'SettingsAction',
      'Keyboard shortcutsAction',
      'Roof crewList',
      'YardList',
    ]);

    await user.type(combobox(), 'roof');
    // Lists and tasks from the device, each task with its list; nothing else.
    await waitFor(() =>
      expect(optionNames()).toEqual(['Roof crewList', 'Order roof tilesRoof crewTask']),
    );

    await user.clear(combobox());
    await user.type(combobox(), 'keys');
    await waitFor(() => expect(optionNames()).toEqual(['Keyboard shortcutsAction']));

    await user.clear(combobox());
    await user.type(combobox(), 'zebra');
    await waitFor(() =>
      expect(
        within(screen.getByRole('dialog', { name: 'Command palette' })).getByRole('status'),
      ).toHaveTextContent('Nothing matches “zebra”.'),
    );
    expect(optionNames()).toEqual([]);
  });

  it('opens from the bottom bar’s Search, and gives focus back to it', async () => {
    const { services } = await localDevice();
    const { user } = await openApp(services, '/lists', 'Lists');
    // The bottom bar is the navigation with Search in it (the sidebar has none).
    const search = await screen.findByRole('button', { name: 'Search' });
    expect(search.closest('nav')).toHaveAccessibleName('Main');
    await user.click(search);
    await waitFor(() => expect(combobox()).toHaveFocus());
    await user.keyboard('{Escape}');
    await waitFor(() =>
      expect(screen.queryByRole('dialog', { name: 'Command palette' })).toBeNull(),
    );
    expect(search).toHaveFocus();
  });

  it('marks what matched in each title, and reads the title whole', async () => {
    const { services } = await localDevice();
    const { user } = await openApp(services, '/lists', 'Lists');
    await openPalette(user);
    await user.type(combobox(), 'roof');
    // The name is the plain text (the marks are inside it, not around extra words).
    const task = await screen.findByRole('option', { name: 'Order roof tilesRoof crewTask' });
    expect(Array.from(task.querySelectorAll('mark'), (mark) => mark.textContent)).toEqual(['roof']);
    const list = screen.getByRole('option', { name: 'Roof crewList' });
    expect(Array.from(list.querySelectorAll('mark'), (mark) => mark.textContent)).toEqual(['Roof']);
  });

  it('moves with ↑/↓ (wrapping), and Enter opens the active task', async () => {
    const { services, yard } = await localDevice();
    const { user, router } = await openApp(services, '/lists', 'Lists');
    await openPalette(user);
    await user.type(combobox(), 'the');
    await waitFor(() => expect(optionNames()).toHaveLength(2));
    const [first, second] = optionNames();
    expect(activeOption()).toHaveTextContent(first!);
    expect(activeOption()).toHaveAttribute('aria-selected', 'true');

    await user.keyboard('{ArrowDown}');
    expect(activeOption()).toHaveTextContent(second!);
    await user.keyboard('{ArrowDown}');
    expect(activeOption()).toHaveTextContent(first!);
    await user.keyboard('{ArrowUp}');
    expect(activeOption()).toHaveTextContent(second!);
    expect(screen.getAllByRole('option', { selected: true })).toHaveLength(1);

    // Go to the yard's task, whichever of the two it is (the device's order).
    if (!second!.startsWith('Sweep')) await user.keyboard('{ArrowUp}');
    expect(activeOption()).toHaveTextContent('Sweep the yardYardTask');
    await user.keyboard('{Enter}');
    await findHeading('Sweep the yard');
    expect(router.state.location.pathname).toMatch(new RegExp(`^/lists/${yard}/tasks/`));
    expect(screen.queryByRole('dialog', { name: 'Command palette' })).toBeNull();
  });

  it('runs with the mouse too: hovering makes an option active, a click runs it', async () => {
    const { services, roof } = await localDevice();
    const { user, router } = await openApp(services, '/settings', 'Settings');
    await openPalette(user);
    await user.type(combobox(), 'roof crew');
    const list = await screen.findByRole('option', { name: /^Roof crew\s*List$/ });
    await user.hover(list);
    expect(activeOption()).toBe(list);
    await user.click(list);
    await findHeading('Roof crew');
    expect(router.state.location.pathname).toBe(`/lists/${roof}`);
  });

  it('New task focuses the current list’s quick add; New list the name field', async () => {
    const { services, roof } = await localDevice();
    const { user, router } = await openApp(services, `/lists/${roof}`, 'Roof crew');
    await openPalette(user);
    await user.type(combobox(), 'new task');
    expect(activeOption()).toHaveTextContent('New taskIn Roof crewAction');
    await user.keyboard('{Enter}');
    await waitFor(() => expect(screen.getByLabelText('Add a task')).toHaveFocus());
    expect(router.state.location.pathname).toBe(`/lists/${roof}`);

    await openPalette(user);
    await user.type(combobox(), 'new list');
    await user.keyboard('{Enter}');
    await findHeading('Lists');
    await waitFor(() => expect(screen.getByLabelText('List name')).toHaveFocus());
    expect(router.state.location.search).toBe('');
  });

  it('Keyboard shortcuts opens their list, which names Ctrl+K', async () => {
    const { services } = await localDevice();
    const { user } = await openApp(services, '/lists', 'Lists');
    await openPalette(user);
    await user.type(combobox(), 'shortcuts');
    await user.keyboard('{Enter}');
    const dialog = await screen.findByRole('dialog', { name: 'Keyboard shortcuts' });
    expect(within(dialog).getByText('Ctrl / ⌘ + K', { selector: 'kbd' })).toBeInTheDocument();
  });

  it('signed in: Sync now asks the engine (not offline), Sign out goes through Settings', async () => {
    storeAliceSession();
    const services = createTestServices({ online: false });
    await setDeviceOwner(services.sync, ALICE_ID);
    const requestSync = vi.spyOn(services.sync.engine, 'requestSync');
    const { user, router } = await openApp(services, '/lists', 'Lists');
    await openPalette(user);
    await user.type(combobox(), 'sync');
    const option = await screen.findByRole('option', { name: /Sync now/ });
    expect(option).toHaveAttribute('aria-disabled', 'true');
    expect(option).toHaveTextContent('Needs a connection');
    await user.keyboard('{Enter}');
    expect(requestSync).not.toHaveBeenCalled();

    act(() => services.online.set(true));
    await waitFor(() => expect(option).not.toHaveAttribute('aria-disabled'));
    await user.keyboard('{Enter}');
    expect(requestSync).toHaveBeenCalledTimes(1);

    await openPalette(user);
    await user.type(combobox(), 'log out');
    expect(activeOption()).toHaveTextContent('Sign outAction');
    await user.keyboard('{Enter}');
    await findHeading('Welcome to Outpost');
    expect(router.state.location.pathname).toBe('/welcome');
  });

  it('is not there before anyone uses the app (the welcome screen)', async () => {
    const services = createTestServices();
    await openApp(services, '/welcome', 'Welcome to Outpost');
    // The browser keeps its own Ctrl+K: the layout does not take the key.
    expect(fireEvent.keyDown(window, { key: 'k', ctrlKey: true })).toBe(true);
    expect(screen.queryByRole('dialog', { name: 'Command palette' })).toBeNull();
  });
});

describe('palette ranking', () => {
  const context: ActionContext = {
    mode: 'signed-in',
    online: true,
    currentList: null,
    navigate: () => undefined,
    showShortcuts: () => undefined,
    syncNow: () => undefined,
  };

  it('ranks a title that starts with the text first, then a word, then words anywhere', () => {
    const actions = actionCommands(context);
    const titles = (text: string) => rankCommands(actions, text).map((command) => command.title);
    expect(titles('s')).toEqual(['Settings', 'Sync now', 'Sign out', 'Keyboard shortcuts']);
    expect(titles('logout')).toEqual(['Sign out']);
    expect(titles('lists go')).toEqual(['Go to lists']);
    expect(titles('today')).toEqual(['Go to Today']);
    expect(titles('my work')).toEqual(['Go to Today', 'Go to Upcoming', 'Go to Assigned to me']);
    expect(matchScore(actions[0]!, 'nothing')).toBeNull();
  });

  it('offers Sync now to an account only, and Sign out to an ended session too', () => {
    const titles = (mode: ActionContext['mode']) =>
      actionCommands({ ...context, mode }).map((command) => command.title);
    expect(titles('local')).not.toContain('Sync now');
    expect(titles('local')).not.toContain('Sign out');
    expect(titles('expired')).toContain('Sign out');
    expect(titles('expired')).not.toContain('Sync now');
    expect(titles('signed-in')).toEqual(expect.arrayContaining(['Sync now', 'Sign out']));
  });

  it('marks the start typed, else each word where it starts a word, else anywhere', () => {
    expect(matchedRanges('Roof crew', 'roof c')).toEqual([[0, 6]]);
    expect(matchedRanges('Order roof tiles', 'tiles roof')).toEqual([
      [6, 10],
      [11, 16],
    ]);
    // The "of" that starts a word, not the one inside "Roof"; else the first, in a word.
    expect(matchedRanges('Roof of the shed', 'of')).toEqual([[5, 7]]);
    expect(matchedRanges('Proofread', 'oof')).toEqual([[2, 5]]);
    // Touching or overlapping words make one mark; keywords mark nothing in the title.
    expect(matchedRanges('Sign out', 'sign si')).toEqual([[0, 4]]);
    expect(matchedRanges('Sign out', 'logout')).toEqual([]);
    expect(matchedRanges('Sign out', '  ')).toEqual([]);
  });

  it('offers New task in the list on screen, unless the user only views it', () => {
    const newTask = (currentList: ActionContext['currentList']) =>
      actionCommands({ ...context, currentList }).find((command) => command.title === 'New task');
    expect(newTask({ id: 'l1', name: 'Roof', canAddTasks: true })?.detail).toBe('In Roof');
    expect(newTask({ id: 'l1', name: 'Roof', canAddTasks: false })).toBeUndefined();
    expect(newTask(null)?.detail).toBe('In the list you used last');
  });
});
