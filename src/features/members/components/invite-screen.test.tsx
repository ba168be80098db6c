// Accepting an invite link against the devstack: signed out it asks for an account (keeping
// where to come back), offline it waits for a connection, and signed in the explicit
// "Accept invite" joins the list and opens it once it has reached the device. Used, junk
// and already-member tokens are plain sentences and change nothing.
import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { storedRow } from '@sync/testing';
import {
  BEFORE_THE_APP,
  createTestServices,
  devstackClient,
  findHeading,
  onlineServices,
  renderApp,
  type TestServices,
} from '@/testing/app-harness';
import { acceptInvite } from '@/lib/api';
import { errorMessage } from '@/lib/error-messages';
import { inviteToken, ownList, sideClient, signInAs, signUpNew } from '../members-test-support';

let services: TestServices | undefined;

/** Alice, on a client of her own, with a new list to invite people to. */
async function aliceWithList(name: string) {
  const alice = await signInAs(sideClient(), 'alice');
  return { alice, listId: await ownList(alice, name) };
}

/** A new person signed in on the app's client, the invite screen open at `token`. */
async function openAsNewUser(token: string, online = true) {
  const supabase = devstackClient();
  await signUpNew(supabase);
  services = createTestServices({ supabase, online, startEngine: true });
  const view = renderApp(services, `/invite/${token}`);
  await findHeading("You're invited to a list");
  // The heading shows while the session is read; the button once it is known.
  await screen.findByRole('button', { name: 'Accept invite' });
  return { ...view, user: userEvent.setup(), services };
}

describe('invite screen', () => {
  it('asks a signed-out visitor to sign in or sign up, coming back to the invite', async () => {
    services = createTestServices();
    renderApp(services, '/invite/abc123');
    await findHeading("You're invited to a list");
    await screen.findByRole('link', { name: 'Sign in' });
    const next = encodeURIComponent('/invite/abc123');
    expect(screen.getByRole('link', { name: 'Sign in' })).toHaveAttribute(
      'href',
      `/sign-in?next=${next}`,
    );
    expect(screen.getByRole('link', { name: 'Create an account' })).toHaveAttribute(
      'href',
      `/sign-up?next=${next}`,
    );
    expect(screen.queryByRole('button', { name: 'Accept invite' })).not.toBeInTheDocument();
  });

  it('joins the list on "Accept invite" and opens it once it is on the device', async () => {
    const { alice, listId } = await aliceWithList('Invite crew');
    const token = await inviteToken(alice, listId, 'editor');
    const { user, router, services: app } = await openAsNewUser(token);
    // Nothing happens before the explicit click.
    expect(router.state.location.pathname).toBe(`/invite/${token}`);
    await user.click(screen.getByRole('button', { name: 'Accept invite' }));
    await waitFor(() => expect(router.state.location.pathname).toBe(`/lists/${listId}`), {
      timeout: 15_000,
    });
    const list = await storedRow(app.sync, 'lists', listId);
    expect(list?.name).toBe('Invite crew');
    // Replaced, not pushed: Back does not return to a used invite.
    await act(async () => {
      await router.back();
    });
    expect(router.state.location.pathname).toBe(BEFORE_THE_APP);
  });

  it('says an already used link was used, and changes nothing', async () => {
    const { alice, listId } = await aliceWithList('Invite used');
    const token = await inviteToken(alice, listId, 'viewer');
    const first = sideClient();
    await signUpNew(first);
    expect(await acceptInvite(first, token)).toMatchObject({ ok: true });

    const { user, services: app } = await openAsNewUser(token);
    await user.click(screen.getByRole('button', { name: 'Accept invite' }));
    expect(await screen.findByText(errorMessage('INVITE_USED'))).toBeInTheDocument();
    // The heading no longer invites: it says what became of the link.
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent(
      'This invite link has been used',
    );
    expect(screen.getByRole('link', { name: 'Go to your lists' })).toHaveAttribute(
      'href',
      '/lists',
    );
    expect(screen.queryByRole('button', { name: 'Accept invite' })).not.toBeInTheDocument();
    await app.sync.engine.syncNow();
    expect(await storedRow(app.sync, 'lists', listId)).toBeUndefined();
  });

  it('says a junk link is not valid', async () => {
    const { user } = await openAsNewUser('not-a-real-token');
    await user.click(screen.getByRole('button', { name: 'Accept invite' }));
    expect(await screen.findByText(errorMessage('INVITE_INVALID'))).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent(
      "This invite link isn't valid",
    );
    expect(screen.getByRole('link', { name: 'Go to your lists' })).toBeInTheDocument();
  });

  it('tells a member they already are one, with a link to the list', async () => {
    const { alice, listId } = await aliceWithList('Invite member');
    const token = await inviteToken(alice, listId, 'viewer');
    const supabase = await signInAs(devstackClient(), 'alice');
    services = onlineServices(supabase);
    const user = userEvent.setup();
    renderApp(services, `/invite/${token}`);
    await findHeading("You're invited to a list");
    await user.click(await screen.findByRole('button', { name: 'Accept invite' }));
    expect(await screen.findByText(errorMessage('ALREADY_MEMBER'))).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent(
      "You're already on this list",
    );
    expect(screen.getByRole('link', { name: 'Open the list' })).toHaveAttribute(
      'href',
      `/lists/${listId}`,
    );
  });

  it('waits for a connection before it can accept', async () => {
    const { user, services: app } = await openAsNewUser('any-token', false);
    const button = screen.getByRole('button', { name: 'Accept invite' });
    expect(button).toBeDisabled();
    expect(button).toHaveAccessibleDescription('Accepting an invite needs a connection.');
    await user.click(button);
    expect(screen.queryByText(errorMessage('INVITE_INVALID'))).not.toBeInTheDocument();
    app.online.set(true);
    await waitFor(() => expect(button).toBeEnabled());
    expect(screen.queryByText('Accepting an invite needs a connection.')).not.toBeInTheDocument();
  });
});
