// Sign-up against the real devstack: a new account, an email already taken, the field
// rules, the offline state, and local-only data claimed by the new account and uploaded.
import { screen, waitFor } from '@testing-library/react';
import userEvent, { type UserEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { LOCAL_USER_ID } from '@sync/index';
import { storedRow } from '@sync/testing';
import { deviceOwnerEmail } from '@/lib/auth';
import {
  findHeading,
  markLocalOnly,
  onlineServices,
  renderApp,
  type TestServices,
} from '@/testing/app-harness';

let services: TestServices | undefined;

function online(): TestServices {
  services = onlineServices();
  return services;
}

function uniqueEmail(): string {
  return `acct-${crypto.randomUUID()}@example.com`;
}

async function fillAndSubmit(
  user: UserEvent,
  values: { name: string; email: string; password: string },
) {
  if (values.name) await user.type(screen.getByLabelText('Name'), values.name);
  if (values.email) await user.type(screen.getByLabelText('Email'), values.email);
  if (values.password) await user.type(screen.getByLabelText('Password'), values.password);
  await user.click(screen.getByRole('button', { name: 'Create account' }));
}

describe('sign-up screen', () => {
  it('creates an account, signs it in and opens the lists', async () => {
    const app = online();
    const user = userEvent.setup();
    const { router } = renderApp(app, '/sign-up');
    await findHeading('Create an account');
    expect(screen.getByLabelText('Password')).toHaveAttribute('autocomplete', 'new-password');
    expect(screen.getByLabelText('Password')).toHaveAccessibleDescription('At least 6 characters.');
    const email = uniqueEmail();

    await fillAndSubmit(user, { name: 'Casey', email, password: 'long-enough' });

    await waitFor(() => expect(router.state.location.pathname).toBe('/lists'));
    const { data } = await app.client.auth.getUser();
    expect(data.user?.email).toBe(email);
    expect(data.user?.user_metadata).toMatchObject({ display_name: 'Casey' });
    expect(deviceOwnerEmail()).toBe(email);
  });

  it("says when there's already an account with the email", async () => {
    const app = online();
    const user = userEvent.setup();
    const { router } = renderApp(app, '/sign-up');
    await findHeading('Create an account');
    await fillAndSubmit(user, { name: 'Alice', email: 'alice@example.com', password: 'whatever1' });

    const email = screen.getByLabelText('Email');
    await waitFor(() =>
      expect(email).toHaveAccessibleDescription(
        "There's already an account with this email. Sign in instead?",
      ),
    );
    await waitFor(() => expect(email).toHaveFocus());
    expect(router.state.location.pathname).toBe('/sign-up');
    expect((await app.client.auth.getSession()).data.session).toBeNull();
  });

  it('checks name and password rules before asking the server', async () => {
    const app = online();
    const user = userEvent.setup();
    renderApp(app, '/sign-up');
    await findHeading('Create an account');
    await fillAndSubmit(user, { name: '', email: uniqueEmail(), password: 'short' });

    const name = screen.getByLabelText('Name');
    expect(name).toHaveAccessibleDescription(/Enter your name\./);
    expect(screen.getByLabelText('Password')).toHaveAccessibleDescription(
      /Password must be at least 6 characters\./,
    );
    await waitFor(() => expect(name).toHaveFocus());
    expect((await app.client.auth.getSession()).data.session).toBeNull();
  });

  it('says creating an account needs a connection and waits for one', async () => {
    const app = online();
    app.online.set(false);
    renderApp(app, '/sign-up');
    await findHeading('Create an account');
    expect(screen.getByText(/^Creating an account needs a connection\./)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Create account' })).toBeDisabled();
    app.online.set(true);
    await waitFor(() =>
      expect(screen.getByRole('button', { name: 'Create account' })).toBeEnabled(),
    );
  });

  it("uploads a local-only device's lists to the new account", async () => {
    markLocalOnly();
    const app = online();
    const user = userEvent.setup();
    const listId = await app.sync.repos.lists.create({ name: 'Garage', color: 'green' });
    expect(await storedRow(app.sync, 'lists', listId)).toMatchObject({
      created_by: LOCAL_USER_ID,
    });

    const { router } = renderApp(app, '/sign-up');
    await findHeading('Create an account');
    expect(
      screen.getByText('Your lists on this device will be uploaded to your new account.'),
    ).toBeInTheDocument();
    await fillAndSubmit(user, {
      name: 'Garage Owner',
      email: uniqueEmail(),
      password: 'secret-99',
    });
    await waitFor(() => expect(router.state.location.pathname).toBe('/lists'));

    const { data } = await app.client.auth.getUser();
    const userId = data.user?.id;
    expect(userId).toBeDefined();
    await waitFor(async () => expect(await app.sync.pendingCount()).toBe(0));
    const row = await storedRow(app.sync, 'lists', listId);
    expect(row?.created_by).toBe(userId);
    expect(row?._v).toBeGreaterThan(0);

    // And the server has it, as the new user's.
    const pulled = await app.client.rpc('sync_pull', { cursor: null, max_rows: 1000 });
    expect(pulled.error).toBeNull();
    const rows = (pulled.data as { rows: { table: string; row: Record<string, unknown> }[] }).rows;
    const garage = rows.find((entry) => entry.table === 'lists' && entry.row.id === listId);
    expect(garage?.row).toMatchObject({ name: 'Garage', created_by: userId });
  });
});
