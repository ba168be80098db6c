// The screens of the email flows (issue 36) against the real devstack and its mailbox:
// "Forgot password?" → the reset mail → "check your inbox"; the reset screen a mailed link
// opens cold (the session taken from the URL, the URL cleaned, the new password then signs
// in); an expired or missing link; and the offline wording. Links are opened as a browser
// would (GoTrue's /verify redirect), then the app is rendered at the address it leads to.
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, inject } from 'vitest';

import {
  createTestServices,
  devstackClient,
  findHeading,
  onlineServices,
  renderApp,
  signUpFresh,
} from '@/testing/app-harness';

/** signUpFresh's password. */
const FIRST_PASSWORD = 'test-password-1';

/** The newest mail to `address` in the devstack's mailbox (its viewer's Mailpit API). */
async function lastMail(address: string): Promise<{ subject: string; link: string }> {
  const { url } = inject('devstack');
  const query = encodeURIComponent(`to:${address}`);
  const list = (await (
    await fetch(`${url}/_devstack/mail/api/v1/search?query=${query}`)
  ).json()) as {
    messages: { ID: string; Subject: string }[];
  };
  const summary = list.messages[0];
  if (!summary) throw new Error(`no mail to ${address}`);
  const mail = (await (
    await fetch(`${url}/_devstack/mail/api/v1/message/${summary.ID}`)
  ).json()) as {
    HTML: string;
  };
  const link = (/href="([^"]*)"/.exec(mail.HTML)?.[1] ?? '').replace(/&amp;/g, '&');
  return { subject: summary.Subject, link };
}

/** Where the link sends the browser (GoTrue's 303), as a path of the app with its fragment. */
async function follow(link: string): Promise<string> {
  const response = await fetch(link, { redirect: 'manual' });
  expect(response.status).toBe(303);
  const location = new URL(response.headers.get('location') ?? '');
  expect(location.origin).toBe(window.location.origin);
  return `${location.pathname}${location.search}${location.hash}`;
}

describe('forgot password', () => {
  it('asks for the address, mails a reset link to the app, and says to check the inbox', async () => {
    const me = await signUpFresh(devstackClient({ side: true }), 'Forgetful Fran');
    const app = createTestServices({ supabase: devstackClient(), online: true });
    const user = userEvent.setup();
    const { router } = renderApp(app, '/sign-in');
    await findHeading('Sign in');
    await user.type(screen.getByLabelText('Email'), me.email);
    await user.click(screen.getByRole('link', { name: 'Forgot password?' }));
    await findHeading('Reset your password');
    expect(router.state.location.pathname).toBe('/forgot-password');
    const email = screen.getByLabelText('Email');
    expect(email).toHaveValue(me.email);
    expect(email).toHaveAttribute('autocomplete', 'username');

    // A bad address is said inline, with focus on the field; nothing is sent.
    await user.clear(email);
    await user.type(email, 'not-an-address');
    await user.click(screen.getByRole('button', { name: 'Send reset link' }));
    expect(await screen.findByText('Enter an email address like name@example.com.')).toBeVisible();
    expect(email).toHaveFocus();

    await user.clear(email);
    await user.type(email, me.email);
    await user.click(screen.getByRole('button', { name: 'Send reset link' }));
    const heading = await findHeading('Check your inbox');
    await waitFor(() => expect(heading).toHaveFocus());
    expect(screen.getByText(/has an Outpost account/)).toHaveTextContent(
      `If ${me.email} has an Outpost account, we sent it a link to choose a new password.`,
    );

    const mail = await lastMail(me.email);
    expect(mail.subject).toBe('Reset your password');
    expect(new URL(mail.link).searchParams.get('redirect_to')).toBe(
      `${window.location.origin}/reset-password`,
    );
    await app.close();
  });

  it('offline, says that resetting needs a connection and sends nothing', async () => {
    const app = createTestServices({ supabase: devstackClient(), online: false });
    renderApp(app, '/forgot-password');
    await findHeading('Reset your password');
    expect(screen.getByText(/Resetting your password needs a connection/)).toBeVisible();
    expect(screen.getByRole('button', { name: 'Send reset link' })).toBeDisabled();
    await app.close();
  });
});

describe('reset password screen', () => {
  it('opened cold from the mailed link: takes the session, cleans the URL, sets the new password', async () => {
    const me = await signUpFresh(devstackClient({ side: true }), 'Reset Rae');
    const side = devstackClient({ side: true });
    expect(
      (
        await side.auth.resetPasswordForEmail(me.email, {
          redirectTo: `${window.location.origin}/reset-password`,
        })
      ).error,
    ).toBeNull();
    const target = await follow((await lastMail(me.email)).link);
    expect(target).toMatch(/^\/reset-password#access_token=.*&type=recovery$/);

    const app = onlineServices();
    const user = userEvent.setup();
    const { router } = renderApp(app, target);
    await findHeading('Choose a new password');
    const password = await screen.findByLabelText('New password');
    // The tokens are a live session: not left in the address bar or history.
    expect(window.location.hash).toBe('');
    expect(screen.getByText(me.email)).toBeVisible();
    await waitFor(() => expect(password).toHaveFocus());
    expect(password).toHaveAttribute('autocomplete', 'new-password');

    await user.type(password, 'fresh-password-2');
    await user.type(screen.getByLabelText('Repeat new password'), 'fresh-password-22');
    await user.click(screen.getByRole('button', { name: 'Save new password' }));
    expect(await screen.findByText("The two passwords don't match.")).toBeVisible();

    await user.clear(screen.getByLabelText('Repeat new password'));
    await user.type(screen.getByLabelText('Repeat new password'), 'fresh-password-2');
    await user.click(screen.getByRole('button', { name: 'Save new password' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/lists'));
    expect((await app.client.auth.getSession()).data.session?.user.email).toBe(me.email);

    const check = devstackClient({ side: true });
    const old = await check.auth.signInWithPassword({ email: me.email, password: FIRST_PASSWORD });
    expect(old.error?.code).toBe('invalid_credentials');
    const fresh = await check.auth.signInWithPassword({
      email: me.email,
      password: 'fresh-password-2',
    });
    expect(fresh.error).toBeNull();
    await app.close();
  });

  it('a used or expired link says so and offers a new one', async () => {
    const app = createTestServices({ supabase: devstackClient(), online: true });
    renderApp(
      app,
      '/reset-password#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired&sb=',
    );
    const heading = await findHeading('Reset your password');
    expect(screen.getByRole('alert')).toHaveTextContent(
      'This link has expired or has already been used. Ask for a new one.',
    );
    await waitFor(() => expect(heading).toHaveFocus());
    expect(screen.getByRole('link', { name: 'Send a new link' })).toHaveAttribute(
      'href',
      '/forgot-password',
    );
    await app.close();
  });

  it('offline with a link: keeps it until the connection is back', async () => {
    const app = createTestServices({ supabase: devstackClient(), online: false });
    renderApp(app, '/reset-password#access_token=a.b.c&refresh_token=r&type=recovery');
    await findHeading('Choose a new password');
    expect(screen.getByText(/Setting a new password needs a connection/)).toBeVisible();
    expect(screen.getByText('Your link is kept until you are back online.')).toBeVisible();
    expect(window.location.hash).toBe('');
    await app.close();
  });
});
