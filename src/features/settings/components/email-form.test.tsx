// Settings › Account › Change email against the devstack: the request says to check both
// inboxes and the address stays as it is; the mailed link, opened cold, lands on the app's
// /email-confirmed screen, which signs in with the new address; a taken address is said
// inline; offline it says it needs a connection.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, inject } from 'vitest';

import {
  createTestServices,
  devstackClient,
  findHeading,
  renderApp,
  signUpFresh,
  type TestServices,
} from '@/testing/app-harness';

let services: TestServices | undefined;

function form(): HTMLElement {
  return screen.getByRole('form', { name: 'Change email' });
}

/** The /verify link of the newest mail to `address` (the devstack's mail viewer API). */
async function lastLink(address: string): Promise<string> {
  const { url } = inject('devstack');
  const query = encodeURIComponent(`to:${address}`);
  const list = (await (
    await fetch(`${url}/_devstack/mail/api/v1/search?query=${query}`)
  ).json()) as {
    messages: { ID: string }[];
  };
  const id = list.messages[0]?.ID;
  if (!id) throw new Error(`no mail to ${address}`);
  const mail = (await (await fetch(`${url}/_devstack/mail/api/v1/message/${id}`)).json()) as {
    HTML: string;
  };
  return (/href="([^"]*)"/.exec(mail.HTML)?.[1] ?? '').replace(/&amp;/g, '&');
}

describe('settings › account › change email', () => {
  it('asks GoTrue, says to check both inboxes, and the address changes once the link is opened', async () => {
    const supabase = devstackClient();
    const me = await signUpFresh(supabase, 'Mover Max');
    const next = `moved-${crypto.randomUUID()}@example.com`;
    services = createTestServices({ supabase, online: true });
    const user = userEvent.setup();
    renderApp(services, '/settings#account');
    await findHeading('Settings');
    const field = within(form()).getByLabelText('New email');
    expect(field).toHaveAttribute('type', 'email');
    expect(field).toHaveAccessibleDescription(
      "We'll send a link to confirm it. Your email changes once it's confirmed.",
    );

    // Own address, or not an address: said inline, focus on the field.
    await user.type(field, me.email);
    await user.click(within(form()).getByRole('button', { name: 'Change email' }));
    expect(await within(form()).findByText("That's already your email address.")).toBeVisible();
    expect(field).toHaveFocus();

    await user.clear(field);
    await user.type(field, next);
    await user.click(within(form()).getByRole('button', { name: 'Change email' }));
    const sent = await screen.findByText(/Check your inbox at both addresses/);
    await waitFor(() => expect(sent).toHaveFocus());
    expect(sent).toHaveTextContent(
      `we sent a confirmation link to ${next} and to ${me.email}. Your email stays ${me.email} until the change is confirmed.`,
    );
    // Not yet changed.
    expect((await supabase.auth.getUser()).data.user?.email).toBe(me.email);
    await services.close();

    // The link, opened cold (the same browser: the session is the stored one).
    const response = await fetch(await lastLink(next), { redirect: 'manual' });
    const location = new URL(response.headers.get('location') ?? '');
    expect(location.pathname).toBe('/email-confirmed');
    services = createTestServices({ supabase: devstackClient(), online: true });
    renderApp(services, `${location.pathname}${location.hash}`);
    const heading = await findHeading('Email confirmed');
    await waitFor(() => expect(heading).toHaveFocus());
    expect(screen.getByText(`Your email address is now ${next}.`)).toBeVisible();
    expect(window.location.hash).toBe('');
    expect((await services.client.auth.getSession()).data.session?.user.email).toBe(next);
  });

  it('a taken address is said on the field', async () => {
    const other = await signUpFresh(devstackClient({ side: true }));
    const supabase = devstackClient();
    await signUpFresh(supabase);
    services = createTestServices({ supabase, online: true });
    const user = userEvent.setup();
    renderApp(services, '/settings#account');
    await findHeading('Settings');
    const field = within(form()).getByLabelText('New email');
    await user.type(field, other.email);
    await user.click(within(form()).getByRole('button', { name: 'Change email' }));
    expect(
      await within(form()).findByText('Another account already uses this email.'),
    ).toBeVisible();
    expect(field).toHaveAttribute('aria-invalid', 'true');
  });

  it('offline: says it needs a connection and cannot be sent', async () => {
    const supabase = devstackClient();
    await signUpFresh(supabase);
    services = createTestServices({ supabase, online: false });
    renderApp(services, '/settings#account');
    await findHeading('Settings');
    expect(within(form()).getByText(/Changing your email needs a connection/)).toBeVisible();
    expect(within(form()).getByRole('button', { name: 'Change email' })).toBeDisabled();
  });
});
