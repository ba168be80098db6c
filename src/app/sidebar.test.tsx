// The navigation once signed in, on the real sync library: the sidebar's lists with their
// open counts and a mark while changes wait, the current list marked, "+ New list" creating
// and opening a list (and refusing a bad name), and the bottom bar's "New" fitting the screen.
// jsdom applies no app.css, so the sidebar and the bottom bar are both here.
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { clearQueue, queuedChanges, storedRows } from '@sync/testing';
import {
  findHeading,
  localOnlyServices,
  renderApp,
  type TestServices,
  waitFor,
} from '@/testing/app-harness';
import { sharedList } from '@/testing/fixtures';

function local(): TestServices {
  return localOnlyServices();
}

/** The navigation landmark called Main that is the sidebar (the other is the bottom bar). */
async function sidebar(): Promise<HTMLElement> {
  await screen.findByRole('heading', { name: 'Lists', level: 2 });
  const nav = screen
    .getAllByRole('navigation', { name: 'Main' })
    .find((each) => within(each).queryByRole('heading', { name: 'Lists' }));
  if (!nav) throw new Error('no sidebar');
  return nav;
}

async function bottomBar(): Promise<HTMLElement> {
  await sidebar();
  const nav = screen
    .getAllByRole('navigation', { name: 'Main' })
    .find((each) => !within(each).queryByRole('heading', { name: 'Lists' }));
  if (!nav) throw new Error('no bottom bar');
  return nav;
}

describe('sidebar', () => {
  it('lists every list with its open tasks, and marks one whose changes wait to sync', async () => {
    const s = local();
    const home = await s.sync.repos.lists.create({ name: 'Home', color: 'blue' });
    await s.sync.repos.tasks.create(home, { title: 'Fix the tap' });
    await clearQueue(s.sync); // Home has reached the server
    const errands = await s.sync.repos.lists.create({ name: 'Errands', color: 'green' });
    const done = await s.sync.repos.tasks.create(errands, { title: 'Post office' });
    await s.sync.repos.tasks.create(errands, { title: 'Bank' });
    await s.sync.repos.tasks.create(errands, { title: 'Pharmacy' });
    await s.sync.repos.tasks.setStatus(done, 'done');

    renderApp(s, '/settings');
    const nav = await sidebar();
    // In name order, each with its open count; only Errands has changes waiting (4 inserts).
    await waitFor(() =>
      expect(
        within(within(nav).getByRole('list', { name: 'Lists' }))
          .getAllByRole('listitem')
          .map((item) => [item.textContent, within(item).getByRole('link').ariaLabel]),
      ).toEqual([
        ['Errands2', 'Errands, 2 open, 4 waiting to sync'],
        ['Home1', 'Home, 1 open'],
      ]),
    );
    const errandsLink = within(nav).getByRole('link', {
      name: 'Errands, 2 open, 4 waiting to sync',
    });
    expect(errandsLink).toHaveAttribute('href', `/lists/${errands}`);
    expect(errandsLink.querySelector('.sidebar__pending')).toHaveAttribute(
      'title',
      '4 waiting to sync',
    );
    const homeLink = within(nav).getByRole('link', { name: 'Home, 1 open' });
    expect(homeLink).toHaveAttribute('href', `/lists/${home}`);
    expect(homeLink.querySelector('.sidebar__pending')).toBeNull();
    expect(within(nav).getByRole('link', { name: 'Settings' })).toHaveAttribute(
      'aria-current',
      'page',
    );
  });

  it('marks the list on screen as the current page, on its tasks too', async () => {
    const s = local();
    const home = await s.sync.repos.lists.create({ name: 'Home', color: 'blue' });
    await s.sync.repos.lists.create({ name: 'Errands', color: 'green' });
    const { router } = renderApp(s, `/lists/${home}`);
    await findHeading('Home');
    const nav = await sidebar();
    const homeLink = await within(nav).findByRole('link', { name: /^Home,/ });
    const errandsLink = within(nav).getByRole('link', { name: /^Errands,/ });
    expect(homeLink).toHaveAttribute('aria-current', 'page');
    expect(errandsLink).not.toHaveAttribute('aria-current');
    expect(within(nav).getByRole('link', { name: 'Lists' })).not.toHaveAttribute('aria-current');

    await userEvent.setup().click(errandsLink);
    await findHeading('Errands');
    expect(router.state.location.pathname).toMatch(/^\/lists\/[0-9a-f-]{36}$/);
    expect(errandsLink).toHaveAttribute('aria-current', 'page');
    expect(homeLink).not.toHaveAttribute('aria-current');
  });

  it('"+ New list" opens a dialog that creates the list and opens it', async () => {
    const s = local();
    const user = userEvent.setup();
    const { router } = renderApp(s, '/settings');
    await findHeading('Settings');
    await user.click(within(await sidebar()).getByRole('button', { name: 'New list' }));
    const dialog = await screen.findByRole('dialog', { name: 'New list' });
    const field = within(dialog).getByLabelText('List name');
    expect(field).toHaveFocus();

    // A bad name is refused inline, with the cursor back in the field.
    await user.click(within(dialog).getByRole('button', { name: 'Create list' }));
    expect(field).toHaveAttribute('aria-invalid', 'true');
    expect(within(dialog).getByText("List name can't be empty.")).toBeInTheDocument();
    expect(field).toHaveFocus();
    expect(await storedRows(s.sync, 'lists')).toHaveLength(0);

    await user.type(field, 'Garden');
    await user.click(within(dialog).getByRole('radio', { name: 'Orange' }));
    await user.keyboard('{Enter}');
    await findHeading('Garden');
    const [list] = await storedRows(s.sync, 'lists');
    expect(list).toMatchObject({ name: 'Garden', color: 'orange' });
    expect(router.state.location.pathname).toBe(`/lists/${list?.id}`);
    expect(screen.queryByRole('dialog', { name: 'New list' })).toBeNull();
    const queued = await queuedChanges(s.sync);
    expect(queued.map((entry) => [entry.table, entry.op])).toEqual([['lists', 'insert']]);
    // ... and the sidebar has it, marked as the page on screen.
    expect(
      await within(await sidebar()).findByRole('link', {
        name: 'Garden, 0 open, 1 waiting to sync',
      }),
    ).toHaveAttribute('aria-current', 'page');
  });
});

describe('bottom bar', () => {
  it('offers a new task on a list one may edit, focusing its quick add', async () => {
    const s = local();
    const user = userEvent.setup();
    const listId = await s.sync.repos.lists.create({ name: 'Home', color: 'blue' });
    renderApp(s, `/lists/${listId}`);
    await findHeading('Home');
    const bar = await bottomBar();
    await user.click(await within(bar).findByRole('link', { name: 'New task' }));
    await waitFor(() => expect(screen.getByLabelText('Add a task')).toHaveFocus());
    expect(within(bar).queryByRole('button', { name: 'New list' })).toBeNull();
  });

  it('offers a new list elsewhere, and on a list one may only view', async () => {
    const s = local();
    const user = userEvent.setup();
    const viewed = await sharedList(s, 'viewer', 'Shared plan');
    const { router } = renderApp(s, `/lists/${viewed}`);
    await findHeading('Shared plan');
    const bar = await bottomBar();
    await within(bar).findByRole('button', { name: 'New list' });
    expect(within(bar).queryByRole('link', { name: 'New task' })).toBeNull();

    await user.click(within(bar).getByRole('link', { name: 'Lists' }));
    await findHeading('Lists');
    expect(router.state.location.pathname).toBe('/lists');
    await user.click(within(bar).getByRole('button', { name: 'New list' }));
    expect(await screen.findByRole('dialog', { name: 'New list' })).toBeInTheDocument();
  });
});
