// A task beside its list (issue 40), through the app's real routes on a local-only device: on
// a wide window the task opens in a panel (a landmark named by its title) beside the list,
// focus goes to its heading, Close and Escape go back to the list with focus on the task's
// row, Enter on the open task's row goes into the panel without opening the task again, and
// the list is never mounted again on the way; on a narrow window the same address is the
// task's own page, and resizing switches between the two.
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { localListDevice } from '@/features/tasks/testing/fixtures';
import { findHeading, renderApp } from '@/testing/app-harness';

import { TASK_BESIDE_LIST_QUERY } from './use-media-query';

/** A window as wide as `wide` says (for the panel's query), which can be resized. */
function windowWidth(wide: boolean) {
  const listeners = new Set<() => void>();
  let matches = wide;
  vi.spyOn(window, 'matchMedia').mockImplementation(
    (query: string) =>
      ({
        get matches() {
          return query === TASK_BESIDE_LIST_QUERY ? matches : false;
        },
        media: query,
        addEventListener: (_: string, listener: () => void) => listeners.add(listener),
        removeEventListener: (_: string, listener: () => void) => listeners.delete(listener),
      }) as unknown as MediaQueryList,
  );
  return {
    resize(next: boolean) {
      matches = next;
      act(() => listeners.forEach((listener) => listener()));
    },
  };
}

async function listWithTasks() {
  const { services, listId } = await localListDevice();
  const gate = await services.sync.repos.tasks.create(listId, { title: 'Fix the gate' });
  const hedge = await services.sync.repos.tasks.create(listId, { title: 'Trim the hedge' });
  return { services, listId, gate, hedge };
}

/** The task's row in the list. */
function row(id: string): HTMLElement {
  const found = document.querySelector<HTMLElement>(`[data-task-id="${id}"]`);
  if (!found) throw new Error(`no row for ${id}`);
  return found;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a task beside its list', () => {
  it('opens beside the list with focus on its heading, and closes back to its row', async () => {
    windowWidth(true);
    const { services, listId, gate } = await listWithTasks();
    const { router } = renderApp(services, `/lists/${listId}`);
    const listHeading = await findHeading('Groceries');
    await screen.findByRole('link', { name: 'Fix the gate' });

    act(() => router.navigate(`/lists/${listId}/tasks/${gate}`));
    const panel = await screen.findByRole('complementary', { name: 'Fix the gate' });
    const title = within(panel).getByRole('heading', { level: 2, name: 'Fix the gate' });
    await waitFor(() => expect(title).toHaveFocus());
    // The list is still there (the same one), and the panel has no way "back" but Close.
    expect(screen.getByRole('heading', { level: 1 })).toBe(listHeading);
    expect(within(panel).queryByRole('link', { name: 'Groceries' })).toBeNull();

    const user = userEvent.setup();
    await user.click(within(panel).getByRole('button', { name: 'Close' }));
    expect(router.state.location.pathname).toBe(`/lists/${listId}`);
    expect(screen.queryByRole('complementary')).toBeNull();
    expect(screen.getByRole('heading', { level: 1 })).toBe(listHeading);
    expect(row(gate)).toHaveFocus();
  });

  it('Enter or a click on the open task’s row goes into the panel, adding no history entry', async () => {
    windowWidth(true);
    const { services, listId, gate } = await listWithTasks();
    const { router } = renderApp(services, `/lists/${listId}`);
    await screen.findByRole('link', { name: 'Fix the gate' });
    act(() => router.navigate(`/lists/${listId}/tasks/${gate}`));
    const panel = await screen.findByRole('complementary', { name: 'Fix the gate' });
    const title = within(panel).getByRole('heading', { level: 2, name: 'Fix the gate' });
    await waitFor(() => expect(title).toHaveFocus());

    const user = userEvent.setup();
    for (const key of ['{Enter}', 'o']) {
      act(() => row(gate).focus());
      await user.keyboard(key);
      await waitFor(() => expect(title).toHaveFocus());
      expect(router.state.location.pathname).toBe(`/lists/${listId}/tasks/${gate}`);
    }
    // A click on its title link opens it no second time either.
    await user.click(within(row(gate)).getByRole('link', { name: 'Fix the gate' }));
    expect(router.state.location.pathname).toBe(`/lists/${listId}/tasks/${gate}`);
    // One Back closes the task: the task was opened once.
    await act(() => router.back());
    expect(router.state.location.pathname).toBe(`/lists/${listId}`);
    expect(screen.queryByRole('complementary')).toBeNull();
  });

  it('closes with Escape from the panel, but not from a field in it', async () => {
    windowWidth(true);
    const { services, listId, gate } = await listWithTasks();
    const { router } = renderApp(services, `/lists/${listId}/tasks/${gate}`);
    const panel = await screen.findByRole('complementary', { name: 'Fix the gate' });
    const user = userEvent.setup();
    await user.click(within(panel).getByRole('textbox', { name: 'Notes' }));
    await user.keyboard('{Escape}');
    expect(screen.getByRole('complementary')).toBe(panel);

    within(panel).getByRole('heading', { level: 2, name: 'Fix the gate' }).focus();
    await user.keyboard('{Escape}');
    expect(router.state.location.pathname).toBe(`/lists/${listId}`);
    expect(screen.queryByRole('complementary')).toBeNull();
    await waitFor(() => expect(row(gate)).toHaveFocus());
  });

  it('deleted from the panel, closes with focus on the row that took its place', async () => {
    windowWidth(true);
    const { services, listId, gate, hedge } = await listWithTasks();
    const { router } = renderApp(services, `/lists/${listId}`);
    await screen.findByRole('link', { name: 'Fix the gate' });
    act(() => router.navigate(`/lists/${listId}/tasks/${gate}`));
    const panel = await screen.findByRole('complementary', { name: 'Fix the gate' });
    await waitFor(() =>
      expect(within(panel).getByRole('heading', { level: 2, name: 'Fix the gate' })).toHaveFocus(),
    );
    await userEvent.setup().keyboard('{Delete}');
    await waitFor(() => expect(router.state.location.pathname).toBe(`/lists/${listId}`));
    expect(screen.queryByRole('complementary')).toBeNull();
    await waitFor(() => expect(row(hedge)).toHaveFocus());
    expect(document.querySelector(`[data-task-id="${gate}"]`)).toBeNull();
  });

  it("is the task's own page on a narrow window, and switches as the window is resized", async () => {
    const width = windowWidth(false);
    const { services, listId, gate } = await listWithTasks();
    renderApp(services, `/lists/${listId}/tasks/${gate}`);
    await findHeading('Fix the gate');
    expect(screen.getByRole('link', { name: 'Groceries' })).toHaveAttribute(
      'href',
      `/lists/${listId}`,
    );
    expect(screen.queryByRole('complementary')).toBeNull();

    width.resize(true);
    expect(await screen.findByRole('complementary', { name: 'Fix the gate' })).toBeInTheDocument();
    await findHeading('Groceries');

    width.resize(false);
    await findHeading('Fix the gate');
    expect(screen.queryByRole('complementary')).toBeNull();
  });

  it('follows another task opened while one is open, keeping the list', async () => {
    windowWidth(true);
    const { services, listId, gate, hedge } = await listWithTasks();
    const { router } = renderApp(services, `/lists/${listId}/tasks/${gate}`);
    await screen.findByRole('complementary', { name: 'Fix the gate' });
    const listHeading = await findHeading('Groceries');
    act(() => router.navigate(`/lists/${listId}/tasks/${hedge}`, { replace: true }));
    expect(
      await screen.findByRole('complementary', { name: 'Trim the hedge' }),
    ).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 1 })).toBe(listHeading);
  });
});
