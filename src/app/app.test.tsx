// The frame of the app: first run goes to the welcome screen; a device used without an
// account opens the lists; unknown paths say so with a way home; the header's sync status
// reads "on this device only" for local-only use and "Offline" (not an error) otherwise.
import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import {
  createTestServices,
  findHeading,
  markLocalOnly,
  renderApp,
  type TestServices,
} from '@/testing/app-harness';

let services: TestServices | undefined;

describe('app frame', () => {
  it('sends a first-time visitor to the welcome screen, keeping where they were going', async () => {
    services = createTestServices();
    const { router } = renderApp(services, '/lists');
    await findHeading(/welcome/i);
    expect(router.state.location.pathname).toBe('/welcome');
    expect(router.state.location.search).toBe('?next=%2Flists');
  });

  it('opens the lists for local-only use and shows where the data lives', async () => {
    markLocalOnly();
    services = createTestServices();
    renderApp(services, '/');
    await findHeading(/lists/i);
    expect(screen.getByRole('navigation', { name: 'Main' })).toBeInTheDocument();
    const status = document.querySelector('.sync-status');
    expect(status).toHaveAttribute('data-state', 'local');
    expect(status).toHaveTextContent('On this device only');
  });

  it('shows a not-found page with a way home', async () => {
    services = createTestServices();
    renderApp(services, '/no/such/page');
    await findHeading('Page not found');
    expect(screen.getByRole('link', { name: 'Go to your lists' })).toHaveAttribute(
      'href',
      '/lists',
    );
  });
});
