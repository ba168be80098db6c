// The frame of the app: first run goes to the welcome screen; a device used without an
// account opens the lists; unknown paths say so with a way home; the header's sync status
// reads "on this device only" for local-only use and "Offline" (not an error) otherwise.
// None of it waits for supabase-js, which main.tsx loads after start-up (issue 16).
import type { SupabaseClient } from '@supabase/supabase-js';
import { act, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { setDeviceOwner } from '@sync/testing';
import { useSession } from '@/lib/session';
import {
  ALICE_ID,
  createTestServices,
  findHeading,
  localOnlyServices,
  renderApp,
  renderWithServices,
  storeAliceSession,
  type TestServices,
  unreachableClient,
} from '@/testing/app-harness';

/** The session as the app knows it: its mode once ready. */
function SessionMode() {
  const { ready, mode } = useSession();
  return <output aria-label="session">{ready ? mode : 'loading'}</output>;
}

/** A supabase-js client that has not loaded yet, and the way to make it come. */
function notLoadedYet(): { loaded: Promise<SupabaseClient>; load: () => SupabaseClient } {
  let resolve: (client: SupabaseClient) => void = () => undefined;
  const loaded = new Promise<SupabaseClient>((settle) => (resolve = settle));
  return {
    loaded,
    load() {
      const client = unreachableClient();
      resolve(client);
      return client;
    },
  };
}

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
    services = localOnlyServices();
    renderApp(services, '/');
    await findHeading(/lists/i);
    // The sidebar and the bottom bar (app.css shows one of them, by the window's width).
    expect(screen.getAllByRole('navigation', { name: 'Main' })).toHaveLength(2);
    const status = document.querySelector('.sync-status');
    expect(status).toHaveAttribute('data-state', 'local');
    expect(status).toHaveTextContent('On this device only');
  });

  it("opens a signed-in device's lists offline before supabase-js has loaded, and keeps them after", async () => {
    storeAliceSession();
    const supabase = notLoadedYet();
    services = createTestServices({ supabaseLoaded: supabase.loaded });
    await setDeviceOwner(services.sync, ALICE_ID);
    await services.sync.repos.lists.create({ name: 'Block C', color: 'teal' });
    const { router } = renderApp(services, '/lists');
    await findHeading(/lists/i);
    // On the lists screen (the sidebar names it too).
    const main = within(screen.getByRole('main'));
    expect(await main.findByText('Block C')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/lists');
    expect(document.querySelector('.sync-status')).toHaveAttribute('data-state', 'offline');
    // supabase-js comes (its stored session is alice's): nothing changes, no sign-in screen.
    const client = supabase.load();
    await act(async () => {
      await client.auth.getSession();
    });
    expect(router.state.location.pathname).toBe('/lists');
    expect(main.getByText('Block C')).toBeInTheDocument();
    expect(screen.queryByRole('heading', { level: 1, name: /sign in|welcome/i })).toBeNull();
  });

  it('knows a stored session is signed in before supabase-js has loaded', async () => {
    storeAliceSession();
    services = createTestServices({ supabaseLoaded: notLoadedYet().loaded });
    await setDeviceOwner(services.sync, ALICE_ID);
    renderWithServices(services, <SessionMode />);
    const session = screen.getByLabelText('session');
    await waitFor(() => expect(session).not.toHaveTextContent('loading'));
    // Not "expired" (asking to sign in again) nor "none": signed in, from the stored session.
    expect(session).toHaveTextContent('signed-in');
  });

  it('sends a signed-out device to the welcome screen before supabase-js has loaded', async () => {
    services = createTestServices({ supabaseLoaded: notLoadedYet().loaded });
    const { router } = renderApp(services, '/lists');
    await findHeading(/welcome/i);
    expect(router.state.location.pathname).toBe('/welcome');
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
