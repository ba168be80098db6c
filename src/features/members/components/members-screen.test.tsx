// The members screen against the devstack: what an owner and an editor may see and do,
// invite links (online only), role changes and removals reaching the server, the last-owner
// rule, and leaving a list; and, on a local device, how people without a profile are named.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import {
  devstackClient,
  findHeading,
  localOnlyServices,
  onlineServices,
  renderApp,
  type TestServices,
} from '@/testing/app-harness';
import { putMembership, sharedList } from '@/testing/fixtures';
import {
  addMember,
  ownList,
  SEEDED_LIST,
  SEEDED_LIST_NAME,
  sideClient,
  signInAs,
  signUpNew,
} from '../members-test-support';

let services: TestServices | undefined;

async function openMembers(who: 'alice' | 'bob', listId = SEEDED_LIST) {
  const supabase = await signInAs(devstackClient(), who);
  services = onlineServices(supabase);
  const user = userEvent.setup();
  const view = renderApp(services, `/lists/${listId}/members`);
  return { ...view, user, services, supabase };
}

/** The members list (the first list of the screen's main content; the sidebar has its own). */
const membersList = () => within(screen.getByRole('main')).getAllByRole('list')[0] as HTMLElement;

describe('members screen', () => {
  it('shows an owner the members with role selects and makes an invite link to copy', async () => {
    const { user } = await openMembers('alice');
    await findHeading(`Members of ${SEEDED_LIST_NAME}`);
    await waitFor(() => expect(membersList()).toHaveTextContent('Bob'));
    expect(membersList()).toHaveTextContent('Alice (you)');
    expect(screen.getByRole('link', { name: `Back to ${SEEDED_LIST_NAME}` })).toHaveAttribute(
      'href',
      `/lists/${SEEDED_LIST}`,
    );
    expect(screen.getByRole('combobox', { name: 'Role of Bob' })).toHaveValue('editor');
    expect(screen.getByRole('combobox', { name: 'Role of Alice' })).toHaveValue('owner');
    expect(screen.getByRole('button', { name: 'Remove Bob' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Remove Alice' })).not.toBeInTheDocument();

    await user.selectOptions(screen.getByLabelText('Role for the invited person'), 'viewer');
    expect(screen.getByText(/Viewers can see the list and comment/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Create invite link' }));
    const link = await screen.findByRole('textbox', { name: 'Invite link (viewer)' });
    const url = (link as HTMLInputElement).value;
    expect(url).toMatch(/\/invite\/[0-9a-f]{64}$/);
    expect(link).toHaveAttribute('readonly');
    expect(screen.getByText(/Valid for 7 days, once: until/)).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Copy link' }));
    expect(await screen.findByText('Link copied')).toBeInTheDocument();
    expect(await navigator.clipboard.readText()).toBe(url);
  });

  it('disables invite links offline and says why', async () => {
    const { services: app } = await openMembers('alice');
    await findHeading(`Members of ${SEEDED_LIST_NAME}`);
    await waitFor(() => expect(membersList()).toHaveTextContent('Bob'));
    app.online.set(false);
    const button = await screen.findByRole('button', { name: 'Create invite link' });
    await waitFor(() => expect(button).toBeDisabled());
    expect(button).toHaveAccessibleDescription('Creating an invite link needs a connection.');
    app.online.set(true);
    await waitFor(() => expect(button).toBeEnabled());
  });

  it('shows an editor the members without role, remove or invite controls', async () => {
    await openMembers('bob');
    await findHeading(`Members of ${SEEDED_LIST_NAME}`);
    await waitFor(() => expect(membersList()).toHaveTextContent('Alice'));
    expect(membersList()).toHaveTextContent('Bob (you)');
    expect(within(membersList()).getByText('Editor')).toBeInTheDocument();
    expect(within(membersList()).getByText('Owner')).toBeInTheDocument();
    expect(screen.queryByRole('combobox')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Remove/ })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Create invite link' })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Leave list' })).toBeEnabled();
  });

  it('keeps the last owner: no demotion, no leaving, nothing queued', async () => {
    const { user, services: app } = await openMembers('alice');
    await findHeading(`Members of ${SEEDED_LIST_NAME}`);
    const mine = await screen.findByRole('combobox', { name: 'Role of Alice' });
    await user.selectOptions(mine, 'editor');
    expect(await screen.findByText('A list needs at least one owner.')).toBeInTheDocument();
    expect(mine).toHaveValue('owner');
    expect(mine).toHaveAttribute('aria-invalid', 'true');

    // Said up front, with Leave out of reach, rather than refused after a click.
    const leave = screen.getByRole('button', { name: 'Leave list' });
    expect(leave).toBeDisabled();
    expect(leave).toHaveAccessibleDescription(/A list needs an owner/);
    await user.click(leave);
    expect(screen.queryByRole('dialog', { name: /Leave/ })).not.toBeInTheDocument();
    expect(await app.sync.queries.pendingCount()).toBe(0);
  });

  it('changes a role and removes a member, and the server agrees', async () => {
    const owner = await signInAs(devstackClient(), 'alice');
    const listId = await ownList(owner, 'Members test crew');
    const guestClient = sideClient();
    const guest = await signUpNew(guestClient);
    await addMember(owner, guestClient, listId, 'editor');

    services = onlineServices(owner);
    const app = services;
    const user = userEvent.setup();
    renderApp(app, `/lists/${listId}/members`);
    await findHeading('Members of Members test crew');
    const role = await screen.findByRole('combobox', { name: `Role of ${guest.name}` });
    await user.selectOptions(role, 'viewer');
    await waitFor(() => expect(role).toHaveValue('viewer'));
    await app.sync.engine.syncNow();
    const serverRole = async () =>
      (
        await guestClient
          .from('memberships')
          .select('role, deleted_at')
          .eq('list_id', listId)
          .eq('user_id', guest.id)
          .single()
      ).data;
    await waitFor(async () => expect((await serverRole())?.role).toBe('viewer'));

    await user.click(screen.getByRole('button', { name: `Remove ${guest.name}` }));
    const dialog = await screen.findByRole('dialog', { name: `Remove ${guest.name}?` });
    await user.click(within(dialog).getByRole('button', { name: 'Remove' }));
    await waitFor(() => expect(membersList()).not.toHaveTextContent(guest.name));
    expect(await screen.findByText(`${guest.name} was removed from the list.`)).toBeInTheDocument();
    await app.sync.engine.syncNow();
    await waitFor(async () => expect((await serverRole())?.deleted_at).toBeTruthy());
  });

  it('lets a member leave after confirming, then shows the lists', async () => {
    const owner = await signInAs(sideClient(), 'alice');
    const listId = await ownList(owner, 'Members test leave');
    const memberClient = devstackClient();
    const member = await signUpNew(memberClient);
    await addMember(owner, memberClient, listId, 'viewer');

    services = onlineServices(memberClient);
    const app = services;
    const user = userEvent.setup();
    const { router } = renderApp(app, `/lists/${listId}/members`);
    await findHeading('Members of Members test leave');
    await waitFor(() => expect(membersList()).toHaveTextContent(`${member.name} (you)`));
    expect(within(membersList()).getByText('Viewer')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Leave list' }));
    const dialog = await screen.findByRole('dialog', { name: 'Leave “Members test leave”?' });
    await user.click(within(dialog).getByRole('button', { name: 'Leave list' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/lists'));
    expect(await screen.findByText('You left “Members test leave”.')).toBeInTheDocument();

    await app.sync.engine.syncNow();
    const { data } = await owner
      .from('memberships')
      .select('deleted_at')
      .eq('list_id', listId)
      .eq('user_id', member.id)
      .single();
    expect(data?.deleted_at).toBeTruthy();
  });

  it('calls only the signed-in user "You"; a member without a profile here yet is "Member"', async () => {
    services = localOnlyServices();
    const listId = await sharedList(services, 'editor', 'Site visit');
    await putMembership(services, listId, 'viewer', crypto.randomUUID());
    renderApp(services, `/lists/${listId}/members`);
    await findHeading('Members of Site visit');
    await waitFor(() => expect(within(membersList()).getAllByRole('listitem')).toHaveLength(3));
    const names = within(membersList())
      .getAllByRole('listitem')
      .map((item) => item.querySelector('.members__name')?.textContent);
    // No profile of this device's user either: "You", without a second "(you)".
    expect(names).toEqual(['Olivia Owner', 'You', 'Member']);
  });

  it('says so when the list is not on this device', async () => {
    await openMembers('alice', '99999999-0000-4000-8000-000000000000');
    await findHeading("This list isn't here");
    expect(screen.getByRole('link', { name: 'Go to your lists' })).toHaveAttribute(
      'href',
      '/lists',
    );
  });
});
