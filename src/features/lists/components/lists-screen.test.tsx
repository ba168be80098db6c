// The lists screen on the real sync library: creating in the "New list" dialog (validated,
// opened at once, queued),
// counts and per-list sync badges, rename/recolour, delete with undo, roles, leaving (gone
// at once, back if refused), the manifest's "New task" shortcut, and the seeded shared list
// from a real devstack.
import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { patchStoredRow, storedRows, storedRow, queuedChanges, clearQueue } from '@sync/testing';
import {
  devstackClient,
  findHeading,
  localOnlyServices,
  onlineServices,
  renderApp,
  type TestServices,
  waitFor,
} from '@/testing/app-harness';
import { sharedList } from '@/testing/fixtures';

let services: TestServices | undefined;

/** Opens the "New list" dialog with the button beside the screen's heading. */
async function openNewList(user: ReturnType<typeof userEvent.setup>) {
  await user.click(within(screen.getByRole('main')).getByRole('button', { name: 'New list' }));
  return screen.getByRole('dialog', { name: 'New list' });
}

function local(): TestServices {
  services = localOnlyServices();
  return services;
}

async function liveLists(s: TestServices) {
  return (await storedRows(s.sync, 'lists')).filter((row) => !row.deleted_at);
}

describe('lists screen', () => {
  it('says there are no lists yet, then creates one, opens it and queues it', async () => {
    const s = local();
    const user = userEvent.setup();
    const { router } = renderApp(s, '/lists');
    await findHeading('Lists');
    expect(await screen.findByText('No lists yet')).toBeInTheDocument();

    const dialog = await openNewList(user);
    // The name field takes the focus, ready to type.
    expect(within(dialog).getByLabelText('List name')).toHaveFocus();
    await user.keyboard('  Garage clear-out  ');
    await user.click(within(dialog).getByRole('radio', { name: 'Purple' }));
    await user.click(within(dialog).getByRole('button', { name: 'Create list' }));

    await waitFor(() => expect(router.state.location.pathname).toMatch(/^\/lists\/[0-9a-f-]{36}$/));
    expect(screen.queryByRole('dialog', { name: 'New list' })).toBeNull();
    const [list] = await liveLists(s);
    expect(list).toMatchObject({ name: 'Garage clear-out', color: 'purple' });
    expect(router.state.location.pathname).toBe(`/lists/${list?.id}`);
    const queued = await queuedChanges(s.sync);
    expect(queued.map((entry) => [entry.table, entry.op])).toEqual([['lists', 'insert']]);
  });

  it('refuses an empty or too long name inline and keeps the field editable', async () => {
    const s = local();
    const user = userEvent.setup();
    renderApp(s, '/lists');
    await findHeading('Lists');
    const dialog = await openNewList(user);
    await user.click(within(dialog).getByRole('button', { name: 'Create list' }));
    const field = within(dialog).getByLabelText('List name');
    expect(field).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByText("List name can't be empty.")).toBeInTheDocument();
    // The cursor goes where the problem is, not left on the button.
    expect(field).toHaveFocus();

    await user.type(field, 'x'.repeat(81));
    await user.click(within(dialog).getByRole('button', { name: 'Create list' }));
    expect(within(dialog).getByText('List name can be at most 80 characters.')).toBeInTheDocument();
    // The counter says by how much, never "0 characters left" beside the error.
    expect(within(dialog).getByText('1 character too many')).toBeInTheDocument();
    expect(within(dialog).queryByText(/characters left/)).toBeNull();
    await user.type(field, 'xx');
    expect(within(dialog).getByText('3 characters too many')).toBeInTheDocument();
    await user.type(field, '{Backspace}{Backspace}{Backspace}{Backspace}');
    expect(within(dialog).getByText('1 character left')).toBeInTheDocument();
    expect(field).not.toBeDisabled();
    expect(await liveLists(s)).toHaveLength(0);

    // Cancel closes it, creating nothing; opened again, it starts empty.
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'New list' })).toBeNull());
    expect(within(await openNewList(user)).getByLabelText('List name')).toHaveValue('');
    expect(await liveLists(s)).toHaveLength(0);
  });

  it('shows open/done counts, members and how many changes wait to sync', async () => {
    const s = local();
    const listId = await s.sync.repos.lists.create({ name: 'Errands', color: 'green' });
    const first = await s.sync.repos.tasks.create(listId, { title: 'Post office' });
    await s.sync.repos.tasks.create(listId, { title: 'Bank' });
    await s.sync.repos.tasks.create(listId, { title: 'Pharmacy' });
    await s.sync.repos.tasks.setStatus(first, 'done');

    renderApp(s, '/lists');
    const card = (await screen.findByRole('link', { name: 'Errands' })).closest('li');
    expect(card).not.toBeNull();
    const inCard = within(card as HTMLElement);
    expect(inCard.getByText('2 open · 1 done')).toBeInTheDocument();
    // One list insert + three task inserts (the status change coalesced into its insert).
    expect(inCard.getByText('4 changes waiting')).toBeInTheDocument();
    expect(inCard.getByRole('img', { name: 'Members: You' })).toBeInTheDocument();
  });

  it('renames and recolours a list in one dialog', async () => {
    const s = local();
    const user = userEvent.setup();
    const listId = await s.sync.repos.lists.create({ name: 'Errands', color: 'green' });
    renderApp(s, '/lists');
    await user.click(await screen.findByRole('button', { name: 'Edit Errands' }));
    const dialog = screen.getByRole('dialog', { name: 'Edit list' });
    const name = within(dialog).getByLabelText('List name');
    await user.clear(name);
    await user.type(name, 'Weekend errands');
    await user.click(within(dialog).getByRole('radio', { name: 'Orange' }));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));

    await screen.findByRole('link', { name: 'Weekend errands' });
    expect(await storedRow(s.sync, 'lists', listId)).toMatchObject({
      name: 'Weekend errands',
      color: 'orange',
    });
  });

  it('deletes a list after confirmation and brings it back with Undo', async () => {
    const s = local();
    const user = userEvent.setup();
    const listId = await s.sync.repos.lists.create({ name: 'Errands', color: 'green' });
    await s.sync.repos.tasks.create(listId, { title: 'Bank' });
    renderApp(s, '/lists');
    await user.click(await screen.findByRole('button', { name: 'Delete Errands' }));
    await user.click(screen.getByRole('button', { name: 'Delete list' }));

    await waitFor(() => expect(screen.queryByRole('link', { name: 'Errands' })).toBeNull());
    expect((await storedRows(s.sync, 'tasks'))[0]?.deleted_at).toBeTruthy();

    await user.click(await screen.findByRole('button', { name: 'Undo' }));
    await screen.findByRole('link', { name: 'Errands' });
    expect((await storedRow(s.sync, 'lists', listId))?.deleted_at).toBeNull();
    expect((await storedRows(s.sync, 'tasks'))[0]?.deleted_at).toBeNull();
  });

  it('drops a list left offline at once, and brings it back when the server refuses the leave', async () => {
    const s = local();
    const user = userEvent.setup();
    const listId = await sharedList(s, 'editor', 'Shared plan');
    const { router } = renderApp(s, `/lists/${listId}/members`);
    await findHeading('Members of Shared plan');
    await user.click(screen.getByRole('button', { name: 'Leave list' }));
    const dialog = await screen.findByRole('dialog', { name: 'Leave “Shared plan”?' });
    await user.click(within(dialog).getByRole('button', { name: 'Leave list' }));

    await waitFor(() => expect(router.state.location.pathname).toBe('/lists'));
    expect(await screen.findByText('You left “Shared plan”.')).toBeInTheDocument();
    // Gone from this device's screens while the leave waits to be sent.
    expect(await screen.findByText('No lists yet')).toBeInTheDocument();
    const queued = await queuedChanges(s.sync);
    expect(queued.map((entry) => [entry.table, entry.op])).toEqual([['memberships', 'delete']]);
    act(() => void router.navigate(`/lists/${listId}`));
    await findHeading("This list isn't on this device");

    // The server refuses (say, someone made this user the last owner meanwhile): sync puts
    // the server's membership back, as the engine does with a refused row.
    const membershipId = queued[0]!.rowId;
    await clearQueue(s.sync);
    await patchStoredRow(s.sync, 'memberships', membershipId, { deleted_at: null });
    await findHeading('Shared plan');
    act(() => void router.navigate('/lists'));
    expect(await screen.findByRole('link', { name: 'Shared plan' })).toBeInTheDocument();
  });

  it('shows a viewer no edit or delete controls', async () => {
    const s = local();
    await sharedList(s, 'viewer', 'Shared plan');
    renderApp(s, '/lists');
    await screen.findByRole('link', { name: 'Shared plan' });
    expect(screen.queryByRole('button', { name: /Edit Shared plan/ })).toBeNull();
    expect(screen.queryByRole('button', { name: /Delete Shared plan/ })).toBeNull();
  });

  it('takes the "New task" shortcut to the list used last, quick-add ready', async () => {
    const s = local();
    await s.sync.repos.lists.create({ name: 'Older', color: 'green' });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const latest = await s.sync.repos.lists.create({ name: 'Newer', color: 'blue' });
    const { router } = renderApp(s, '/lists?new=task');
    await waitFor(() => expect(router.state.location.pathname).toBe(`/lists/${latest}`));
    // Quick add takes focus, and the address forgets ?new=1 (a reload opens the list as usual).
    const input = await screen.findByRole('textbox', { name: 'Add a task' });
    await waitFor(() => expect(input).toHaveFocus());
    expect(router.state.location.search).toBe('');
  });

  it('opens the "New list" dialog with "n", name field focused', async () => {
    const s = local();
    const user = userEvent.setup();
    renderApp(s, '/lists');
    await findHeading('Lists');
    await user.keyboard('n');
    const dialog = screen.getByRole('dialog', { name: 'New list' });
    expect(within(dialog).getByLabelText('List name')).toHaveFocus();
  });

  it('offers a new list when the "New task" shortcut finds none', async () => {
    const s = local();
    renderApp(s, '/lists?new=task');
    const dialog = await screen.findByRole('dialog', { name: 'New list' });
    expect(within(dialog).getByLabelText('List name')).toBeInTheDocument();
  });

  it('lays the lists out as an overview, with no form open beside them', async () => {
    const s = local();
    await s.sync.repos.lists.create({ name: 'Errands', color: 'green' });
    renderApp(s, '/lists');
    await screen.findByRole('link', { name: 'Errands' });
    expect(screen.queryByLabelText('List name')).toBeNull();
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});

describe('lists screen against the devstack', () => {
  it('shows the seeded shared list with its members, synced', async () => {
    const supabase = devstackClient();
    const { error } = await supabase.auth.signInWithPassword({
      email: 'bob@example.com',
      password: 'outpost-demo',
    });
    expect(error).toBeNull();
    services = onlineServices(supabase);
    renderApp(services, '/lists');
    const link = await screen.findByRole(
      'link',
      { name: 'Site inspection — Block C' },
      { timeout: 15_000 },
    );
    const card = within(link.closest('li') as HTMLElement);
    await waitFor(() => expect(card.getByText('Synced')).toBeInTheDocument());
    expect(
      card.getByRole('img', { name: /Members: .*Alice.*Bob|Members: .*Bob.*Alice/ }),
    ).toBeInTheDocument();
    // Bob is an editor: he may rename but not delete.
    expect(card.getByRole('button', { name: /Edit/ })).toBeInTheDocument();
    expect(card.queryByRole('button', { name: /Delete/ })).toBeNull();
  });
});
