// The first-run screen: the three ways in, `?next=` carried along, and no welcome for a
// device that already chose.
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { LOCAL_ONLY_KEY } from '@/lib/session';
import {
  createTestServices,
  findHeading,
  localOnlyServices,
  onlineServices,
  renderApp,
  type TestServices,
} from '@/testing/app-harness';

let services: TestServices | undefined;

describe('welcome screen', () => {
  it('"Use without an account" opens the lists in local-only mode', async () => {
    services = onlineServices();
    const user = userEvent.setup();
    const { router } = renderApp(services, '/');
    await findHeading('Welcome to Outpost');
    expect(router.state.location.pathname).toBe('/welcome');

    await user.click(screen.getByRole('button', { name: 'Use without an account' }));

    await waitFor(() => expect(router.state.location.pathname).toBe('/lists'));
    expect(localStorage.getItem(LOCAL_ONLY_KEY)).toBe('1');
    await waitFor(() =>
      expect(document.querySelector('.sync-status')).toHaveAttribute('data-state', 'local'),
    );
  });

  it('keeps ?next= on the sign-in and sign-up links and goes there without an account', async () => {
    services = onlineServices();
    const user = userEvent.setup();
    const { router } = renderApp(services, '/settings');
    await findHeading('Welcome to Outpost');
    expect(router.state.location.search).toBe('?next=%2Fsettings');
    expect(screen.getByRole('link', { name: 'Sign in' })).toHaveAttribute(
      'href',
      '/sign-in?next=%2Fsettings',
    );
    expect(screen.getByRole('link', { name: 'Create an account' })).toHaveAttribute(
      'href',
      '/sign-up?next=%2Fsettings',
    );

    await user.click(screen.getByRole('button', { name: 'Use without an account' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/settings'));
  });

  it('carries ?next= on to the sign-in screen and its sign-up link', async () => {
    services = createTestServices();
    const user = userEvent.setup();
    const { router } = renderApp(services, '/welcome?next=%2Fsettings');
    await user.click(await screen.findByRole('link', { name: 'Sign in' }));
    await findHeading('Sign in');
    expect(router.state.location.pathname).toBe('/sign-in');
    expect(router.state.location.search).toBe('?next=%2Fsettings');
    expect(screen.getByRole('link', { name: 'Create an account' })).toHaveAttribute(
      'href',
      '/sign-up?next=%2Fsettings',
    );
  });

  it('ignores a ?next= that leaves the site', async () => {
    services = createTestServices();
    const user = userEvent.setup();
    const { router } = renderApp(services, '/welcome?next=%2F%2Fevil.example.com');
    await findHeading('Welcome to Outpost');
    expect(screen.getByRole('link', { name: 'Sign in' })).toHaveAttribute('href', '/sign-in');
    await user.click(screen.getByRole('button', { name: 'Use without an account' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/lists'));
  });

  it('sends a device that already chose straight on', async () => {
    services = localOnlyServices();
    const { router } = renderApp(services, '/welcome?next=%2Fsettings');
    await waitFor(() => expect(router.state.location.pathname).toBe('/settings'));
    expect(screen.queryByRole('heading', { name: 'Welcome to Outpost' })).not.toBeInTheDocument();
  });
});
