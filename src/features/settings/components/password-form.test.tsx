// Settings › Account › Change password against the devstack, as a freshly signed-up person
// (the demo users' passwords never change): the sign-up rules inline, the two entries must
// match, offline it says it needs a connection, GoTrue's refusal of the current password is
// a plain sentence, and the new password is the one that signs in afterwards.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import {
  devstackClient,
  findHeading,
  localOnlyServices,
  onlineServices,
  renderApp,
  signUpFresh,
  type TestServices,
} from '@/testing/app-harness';

import { describePasswordError, PASSWORD_MESSAGES } from '../utils/change-password';

/** signUpFresh's password. */
const FIRST_PASSWORD = 'test-password-1';

let services: TestServices | undefined;

function form(): HTMLElement {
  return screen.getByRole('form', { name: 'Change password' });
}

describe('settings › account › change password', () => {
  it('checks, sends on the current session and explains refusals in plain words', async () => {
    const supabase = devstackClient();
    const me = await signUpFresh(supabase, 'Casey Password');
    services = onlineServices(supabase);
    const app = services;
    const user = userEvent.setup();
    renderApp(app, '/settings#account');
    await findHeading('Settings');
    const password = within(form()).getByLabelText('New password');
    const repeat = within(form()).getByLabelText('Repeat new password');
    const submit = within(form()).getByRole('button', { name: 'Change password' });
    expect(password).toHaveAttribute('autocomplete', 'new-password');
    expect(password).toHaveAccessibleDescription('At least 6 characters.');

    // Offline: said up front, and nothing to press.
    app.online.set(false);
    expect(
      await within(form()).findByText(/Changing your password needs a connection/),
    ).toBeVisible();
    expect(submit).toBeDisabled();
    app.online.set(true);
    await waitFor(() => expect(submit).toBeEnabled());

    // The sign-up rules, inline, focus on the first field at fault.
    await user.type(password, 'short');
    await user.type(repeat, 'shirt');
    await user.click(submit);
    expect(
      await within(form()).findByText('Password must be at least 6 characters.'),
    ).toBeVisible();
    expect(within(form()).getByText("The two passwords don't match.")).toBeVisible();
    expect(password).toHaveFocus();
    expect(password).toHaveAttribute('aria-invalid', 'true');

    // GoTrue refuses the current password as the new one: a sentence, on the field.
    await user.clear(password);
    await user.type(password, FIRST_PASSWORD);
    await user.clear(repeat);
    await user.type(repeat, FIRST_PASSWORD);
    await user.click(submit);
    // GoTrue compares and hashes with bcrypt: seconds on a loaded machine.
    expect(await within(form()).findByText(PASSWORD_MESSAGES.same)).toBeVisible();
    expect(form()).not.toHaveTextContent(/should be different/);

    const next = `new-${crypto.randomUUID().slice(0, 8)}`;
    await user.clear(password);
    await user.type(password, next);
    await user.clear(repeat);
    await user.type(repeat, next);
    await user.click(submit);
    expect(
      await within(form()).findByText(/^Password changed\. Other devices signed in/),
    ).toBeInTheDocument();
    expect(password).toHaveValue('');
    expect(repeat).toHaveValue('');

    // The new password signs in; the old one no longer does.
    const elsewhere = devstackClient({ side: true });
    const old = await elsewhere.auth.signInWithPassword({
      email: me.email,
      password: FIRST_PASSWORD,
    });
    expect(old.error?.code).toBe('invalid_credentials');
    const fresh = await elsewhere.auth.signInWithPassword({ email: me.email, password: next });
    expect(fresh.error).toBeNull();
    expect(fresh.data.user?.id).toBe(me.id);
    // This device stays signed in.
    expect(
      within(screen.getByRole('region', { name: 'Account' })).getByText(me.email),
    ).toBeInTheDocument();
  });

  it('is offered only on a live session: not for local-only use nor an ended session', async () => {
    services = localOnlyServices();
    renderApp(services, '/settings');
    await findHeading('Settings');
    expect(screen.getByRole('region', { name: 'Account' })).toHaveTextContent(/without an account/);
    expect(screen.queryByRole('form', { name: 'Change password' })).toBeNull();
    await services.close();
    localStorage.clear();

    // The device's data belongs to an account whose session has gone.
    const supabase = devstackClient();
    const me = await signUpFresh(supabase);
    services = onlineServices(supabase);
    const app = services;
    await waitFor(async () => expect(await app.sync.queries.deviceOwner()).toBe(me.id), {
      timeout: 15_000,
    });
    await supabase.auth.signOut({ scope: 'local' });
    renderApp(app, '/settings');
    await findHeading('Settings');
    const account = screen.getByRole('region', { name: 'Account' });
    expect(
      await within(account).findByRole('link', { name: 'Sign in again to sync' }),
    ).toBeInTheDocument();
    expect(screen.queryByRole('form', { name: 'Change password' })).toBeNull();
  });

  it('asks to sign in again when the session is gone', async () => {
    const client = devstackClient({ side: true });
    const result = await client.auth.updateUser({ password: 'whatever-1' });
    expect(describePasswordError(result.error)).toEqual({
      ok: false,
      message: PASSWORD_MESSAGES.signInAgain,
    });
  });
});
