// Sign-in against the real devstack: success, a wrong password, the offline state, an
// expired session's waiting changes, the warning before another account's sign-in would
// delete this device's unsynced changes, and a local-only device signing into an account
// that already has data (its rows claimed and uploaded, the account's data pulled down).
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent, { type UserEvent } from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { LOCAL_USER_ID } from '@sync/index';
import { storedRows, storedRow } from '@sync/testing';
import { deviceOwnerEmail } from '@/lib/auth';
import {
  ALICE_ID,
  createTestServices,
  devstackClient,
  findHeading,
  markLocalOnly,
  onlineServices,
  renderApp,
  SEEDED_LIST,
  signUpFresh,
  type TestServices,
} from '@/testing/app-harness';

const BOB_ID = 'b0b00000-0000-4000-8000-000000000002';
const PASSWORD = 'outpost-demo';
/** The password signUpFresh gives new accounts (src/testing/app-harness.tsx). */
const FRESH_PASSWORD = 'test-password-1';

let services: TestServices | undefined;
afterEach(() => {
  vi.restoreAllMocks();
});

function online(): TestServices {
  services = onlineServices();
  return services;
}

async function fillAndSubmit(user: UserEvent, email: string, password: string) {
  const emailField = screen.getByLabelText('Email');
  await user.clear(emailField);
  await user.type(emailField, email);
  await user.type(screen.getByLabelText('Password'), password);
  await user.click(screen.getByRole('button', { name: 'Sign in' }));
}

/** Alice signed in through the screen and synced: the start of the session-ended cases. */
async function aliceSignedInAndSynced() {
  const app = online();
  const user = userEvent.setup();
  renderApp(app, '/sign-in');
  await findHeading('Sign in');
  await fillAndSubmit(user, 'alice@example.com', PASSWORD);
  await waitFor(async () => expect(await app.sync.queries.deviceOwner()).toBe(ALICE_ID));
  await app.sync.engine.syncNow();
  return { app, user };
}

describe('sign-in screen', () => {
  it('signs alice in and opens the lists', async () => {
    const app = online();
    const user = userEvent.setup();
    const { router } = renderApp(app, '/sign-in');
    await findHeading('Sign in');
    const email = screen.getByLabelText('Email');
    expect(email).toHaveAttribute('type', 'email');
    expect(email).toHaveAttribute('autocomplete', 'username');
    expect(screen.getByLabelText('Password')).toHaveAttribute('autocomplete', 'current-password');

    await fillAndSubmit(user, 'alice@example.com', PASSWORD);

    await waitFor(() => expect(router.state.location.pathname).toBe('/lists'));
    // Signed in: the header shows sync (not "sign in again" or "on this device only"), the
    // engine adopts the device for alice and pulls her lists.
    await waitFor(async () => expect(await app.sync.queries.deviceOwner()).toBe(ALICE_ID));
    await waitFor(async () =>
      expect(await storedRow(app.sync, 'lists', SEEDED_LIST)).toBeDefined(),
    );
    await waitFor(() =>
      expect(document.querySelector('.sync-status')).toHaveAttribute('data-state', 'synced'),
    );
    expect((await app.client.auth.getSession()).data.session?.user.id).toBe(ALICE_ID);
    expect(deviceOwnerEmail()).toBe('alice@example.com');
  });

  it('goes to ?next= after signing in', async () => {
    const app = online();
    const user = userEvent.setup();
    const { router } = renderApp(app, '/sign-in?next=%2Fsettings');
    await findHeading('Sign in');
    await fillAndSubmit(user, 'bob@example.com', PASSWORD);
    await waitFor(() => expect(router.state.location.pathname).toBe('/settings'));
  });

  it('says a wrong password is wrong, inline, and stays', async () => {
    const app = online();
    const user = userEvent.setup();
    const { router } = renderApp(app, '/sign-in');
    await findHeading('Sign in');
    await fillAndSubmit(user, 'alice@example.com', 'not-the-password');

    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Email or password is wrong.');
    await waitFor(() => expect(alert.parentElement).toHaveFocus());
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeEnabled();
    expect(router.state.location.pathname).toBe('/sign-in');
    expect((await app.client.auth.getSession()).data.session).toBeNull();
  });

  it("says when the server can't be reached", async () => {
    // A client of nothing (port 9) on a device that believes it is online.
    services = createTestServices({ online: true });
    const user = userEvent.setup();
    renderApp(services, '/sign-in');
    await findHeading('Sign in');
    await fillAndSubmit(user, 'alice@example.com', PASSWORD);
    expect(await screen.findByRole('alert')).toHaveTextContent(
      "Can't reach the server. Check your connection and try again.",
    );
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeEnabled();
  });

  it('checks the fields before asking the server and focuses the first problem', async () => {
    const app = online();
    const user = userEvent.setup();
    renderApp(app, '/sign-in');
    await findHeading('Sign in');
    await user.type(screen.getByLabelText('Email'), 'not-an-email');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    const email = screen.getByLabelText('Email');
    expect(email).toHaveAccessibleDescription('Enter an email address like name@example.com.');
    expect(email).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByLabelText('Password')).toHaveAccessibleDescription('Enter your password.');
    await waitFor(() => expect(email).toHaveFocus());
  });

  it('says signing in needs a connection and waits for one', async () => {
    const app = online();
    app.online.set(false);
    renderApp(app, '/sign-in');
    await findHeading('Sign in');
    expect(
      screen.getByText(
        'Signing in needs a connection. You can keep using Outpost offline; your changes are saved on this device.',
      ),
    ).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeDisabled();

    app.online.set(true);
    await waitFor(() => expect(screen.getByRole('button', { name: 'Sign in' })).toBeEnabled());
    expect(screen.queryByText(/Signing in needs a connection/)).not.toBeInTheDocument();
  });

  it("warns before bob's sign-in deletes alice's unsynced changes, and Cancel keeps them", async () => {
    const { app, user } = await aliceSignedInAndSynced();

    // Offline, alice makes a change; then her session goes (expired), and the network returns.
    app.online.set(false);
    const listId = await app.sync.repos.lists.create({ name: 'Not yet synced', color: 'red' });
    const pending = await app.sync.pendingCount();
    expect(pending).toBeGreaterThan(0);
    await app.client.auth.signOut({ scope: 'local' });
    app.online.set(true);
    cleanup();

    const { router } = renderApp(app, '/sign-in');
    await findHeading('Sign in');
    const waiting = pending === 1 ? '1 waiting change' : `${pending} waiting changes`;
    expect(
      await screen.findByText(`Your session ended. Sign in again to sync ${waiting}.`),
    ).toBeInTheDocument();
    expect(screen.getByLabelText('Email')).toHaveValue('alice@example.com');

    await fillAndSubmit(user, 'bob@example.com', PASSWORD);
    const dialog = await screen.findByRole('dialog', {
      name: `This device has ${pending} unsynced ${pending === 1 ? 'change' : 'changes'}`,
    });
    const cancel = within(dialog).getByRole('button', { name: 'Cancel' });
    await waitFor(() => expect(cancel).toHaveFocus());
    expect(dialog).toHaveTextContent(
      /Changes made as alice@example\.com .* deletes (it|them) from this device/,
    );

    await user.click(cancel);
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(router.state.location.pathname).toBe('/sign-in');
    expect((await app.client.auth.getSession()).data.session).toBeNull();
    expect(await app.sync.queries.deviceOwner()).toBe(ALICE_ID);
    expect(await app.sync.pendingCount()).toBe(pending);
    expect(await storedRow(app.sync, 'lists', listId)).toMatchObject({
      name: 'Not yet synced',
    });

    // Confirming goes ahead: bob's device now, alice's unsynced list gone from it.
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    const again = await screen.findByRole('dialog');
    await user.click(within(again).getByRole('button', { name: 'Sign in and discard them' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/lists'));
    await waitFor(async () => expect(await app.sync.queries.deviceOwner()).toBe(BOB_ID));
    expect(await storedRow(app.sync, 'lists', listId)).toBeUndefined();
    expect(deviceOwnerEmail()).toBe('bob@example.com');
  });

  it('signs the same account back in without a warning', async () => {
    const { app, user } = await aliceSignedInAndSynced();
    app.online.set(false);
    const listId = await app.sync.repos.lists.create({ name: 'Made offline', color: 'blue' });
    await app.client.auth.signOut({ scope: 'local' });
    app.online.set(true);
    cleanup();

    const { router } = renderApp(app, '/sign-in');
    await findHeading('Sign in');
    // The email is filled in already: only the password is needed.
    await user.type(screen.getByLabelText('Password'), PASSWORD);
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/lists'));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    // The waiting change reaches the server.
    await waitFor(async () => expect(await app.sync.pendingCount()).toBe(0));
    expect((await storedRow(app.sync, 'lists', listId))?._v).toBeGreaterThan(0);
  });

  it("claims and uploads a local-only device's rows when it signs into an account that has data", async () => {
    // Dana has an account with a list on the server, made on another device.
    const elsewhere = devstackClient({ side: true });
    const dana = await signUpFresh(elsewhere, 'Dana');
    const other = onlineServices(elsewhere);
    const serverListId = await other.sync.repos.lists.create({ name: 'Van stock', color: 'blue' });
    const serverTaskId = await other.sync.repos.tasks.create(serverListId, {
      title: 'Count fuses',
    });
    await waitFor(async () => expect(await other.sync.pendingCount()).toBe(0));
    await other.close();

    // This device was used without an account: a list, a task and a comment of nobody yet.
    markLocalOnly();
    const app = online();
    const localListId = await app.sync.repos.lists.create({ name: 'Loft', color: 'green' });
    const localTaskId = await app.sync.repos.tasks.create(localListId, { title: 'Lag the pipes' });
    const commentId = await app.sync.repos.comments.create(localTaskId, 'Needs 20 m');
    expect(await storedRow(app.sync, 'lists', localListId)).toMatchObject({
      created_by: LOCAL_USER_ID,
    });

    // Uploads wait at a gate until the claim has been seen on the device: the server sets
    // the owner columns itself, so once its copies come back they say Dana either way.
    let openGate = () => undefined as void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const realFetch = globalThis.fetch;
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (url.includes('/rpc/sync_push')) await gate;
      return realFetch(input, init);
    });

    const user = userEvent.setup();
    const { router } = renderApp(app, '/sign-in');
    await findHeading('Sign in');
    await fillAndSubmit(user, dana.email, FRESH_PASSWORD);
    // Nothing is at risk (the local rows become Dana's), so no warning.
    await waitFor(() => expect(router.state.location.pathname).toBe('/lists'));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    await waitFor(async () => expect(await app.sync.queries.deviceOwner()).toBe(dana.id));

    // Claimed on the device, before anything is uploaded…
    expect(await app.sync.pendingCount()).toBeGreaterThan(0);
    expect(await storedRow(app.sync, 'lists', localListId)).toMatchObject({
      created_by: dana.id,
    });
    expect(await storedRow(app.sync, 'tasks', localTaskId)).toMatchObject({
      created_by: dana.id,
    });
    expect(await storedRow(app.sync, 'comments', commentId)).toMatchObject({
      author_id: dana.id,
    });
    const standIn = (await storedRows(app.sync, 'memberships')).find(
      (row) => row.list_id === localListId,
    );
    expect(standIn).toMatchObject({ user_id: dana.id, role: 'owner' });
    // …then uploaded.
    openGate();
    await waitFor(async () => expect(await app.sync.pendingCount()).toBe(0), { timeout: 15_000 });
    const list = await storedRow(app.sync, 'lists', localListId);
    expect(list).toMatchObject({ name: 'Loft', created_by: dana.id });
    expect(list?._v).toBeGreaterThan(0);
    // …and the account's own data arrives beside them, on screen too.
    await waitFor(async () =>
      expect(await storedRow(app.sync, 'tasks', serverTaskId)).toMatchObject({
        title: 'Count fuses',
      }),
    );
    // On the lists screen (the sidebar names them too).
    const main = within(screen.getByRole('main'));
    expect(await main.findByRole('link', { name: /Van stock/ })).toBeInTheDocument();
    expect(main.getByRole('link', { name: /Loft/ })).toBeInTheDocument();

    // Dana's other device sees what this one made, as hers.
    const pulled = await elsewhere.rpc('sync_pull', { cursor: null, max_rows: 1000 });
    expect(pulled.error).toBeNull();
    const rows = (pulled.data as { rows: { table: string; row: Record<string, unknown> }[] }).rows;
    const row = (table: string, id: string) =>
      rows.find((entry) => entry.table === table && entry.row.id === id)?.row;
    expect(row('lists', localListId)).toMatchObject({ name: 'Loft', created_by: dana.id });
    expect(row('tasks', localTaskId)).toMatchObject({
      title: 'Lag the pipes',
      created_by: dana.id,
    });
    expect(row('comments', commentId)).toMatchObject({ body: 'Needs 20 m', author_id: dana.id });
    expect(
      rows.some(
        (entry) =>
          entry.table === 'memberships' &&
          entry.row.list_id === localListId &&
          entry.row.user_id === dana.id &&
          entry.row.role === 'owner',
      ),
    ).toBe(true);
  });
});
