// The app-wide keyboard shortcuts of the layout: `?` opens the list of shortcuts, `g` then
// `l` goes to the lists and `g` then `s` to settings. A lone `l` or `s` does nothing and is
// left to whoever else listens (a row's `s`), one `g` leads to one place only, and keys typed
// into a field are text, not shortcuts.
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import {
  findHeading,
  localOnlyServices,
  renderApp,
  type TestServices,
} from '@/testing/app-harness';

let services: TestServices | undefined;

async function openApp(path: string) {
  services = localOnlyServices();
  const view = renderApp(services, path);
  await findHeading(path === '/settings' ? 'Settings' : 'Lists');
  return { ...view, user: userEvent.setup() };
}

/** A list's screen, whose quick-add field takes text. */
async function openList() {
  services = localOnlyServices();
  const listId = await services.sync.repos.lists.create({ name: 'Errands', color: 'green' });
  const view = renderApp(services, `/lists/${listId}`);
  await findHeading('Errands');
  return { ...view, user: userEvent.setup(), field: screen.getByLabelText('Add a task') };
}

describe('keyboard shortcuts', () => {
  it('? shows the shortcuts in a dialog, and not while typing in a field', async () => {
    const { user, field } = await openList();
    await user.type(field, 'Why?');
    expect(field).toHaveValue('Why?');
    expect(screen.queryByRole('dialog', { name: 'Keyboard shortcuts' })).toBeNull();

    act(() => (document.activeElement as HTMLElement | null)?.blur());
    await user.keyboard('?');
    const dialog = await screen.findByRole('dialog', { name: 'Keyboard shortcuts' });
    for (const [keys, action] of [
      ['g then l', 'Go to lists'],
      ['g then s', 'Go to settings'],
      ['?', 'Show these shortcuts'],
      ['n', 'New task (in a list) or new list'],
      ['Ctrl / ⌘ + Z', 'Undo the last change'],
      ['Shift + Ctrl / ⌘ + Z, Ctrl + Y', 'Redo'],
    ] as const) {
      expect(within(dialog).getByText(keys, { selector: 'kbd' })).toBeInTheDocument();
      expect(within(dialog).getByText(action)).toBeInTheDocument();
    }
    await user.click(within(dialog).getByRole('button', { name: 'Close' }));
    await waitFor(() =>
      expect(screen.queryByRole('dialog', { name: 'Keyboard shortcuts' })).toBeNull(),
    );
  });

  it('g then s goes to settings and g then l back to the lists', async () => {
    const { router, user } = await openApp('/lists');
    await user.keyboard('s');
    expect(router.state.location.pathname).toBe('/lists');

    await user.keyboard('gs');
    await findHeading('Settings');
    expect(router.state.location.pathname).toBe('/settings');

    act(() => (document.activeElement as HTMLElement | null)?.blur());
    await user.keyboard('l');
    expect(router.state.location.pathname).toBe('/settings');
    await user.keyboard('gl');
    await findHeading('Lists');
    expect(router.state.location.pathname).toBe('/lists');
  });

  it('a lone s or l is left to others (a row’s s is its status); after g it is taken', async () => {
    const { router, user } = await openApp('/lists');
    // Heard after the app's own listeners, as a window listener added later is.
    const taken: [string, boolean][] = [];
    const listener = (event: KeyboardEvent) => taken.push([event.key, event.defaultPrevented]);
    window.addEventListener('keydown', listener);
    try {
      await user.keyboard('sl');
      expect(taken).toEqual([
        ['s', false],
        ['l', false],
      ]);
      expect(router.state.location.pathname).toBe('/lists');

      taken.length = 0;
      await user.keyboard('gs');
      await findHeading('Settings');
      expect(taken).toEqual([
        ['g', true],
        ['s', true],
      ]);
    } finally {
      window.removeEventListener('keydown', listener);
    }
  });

  it('one g leads to one place: a later s stays put', async () => {
    const { router, user } = await openApp('/settings');
    await user.keyboard('gl');
    await findHeading('Lists');
    act(() => (document.activeElement as HTMLElement | null)?.blur());
    await user.keyboard('s');
    // Give a navigation the chance to happen before saying it did not.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(router.state.location.pathname).toBe('/lists');
  });

  it('g and s typed into a field stay text', async () => {
    const { router, user, field } = await openList();
    const listPath = router.state.location.pathname;
    await user.type(field, 'gs');
    expect(field).toHaveValue('gs');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(router.state.location.pathname).toBe(listPath);
  });
});
