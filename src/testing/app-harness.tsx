// Renders the real app (routes, screens, sync library) for component tests: a fresh
// fake-indexeddb per test, a switchable network, a fixed or real clock, and a supabase-js
// client that either points at the test devstack or at nowhere (offline tests). Nothing is
// mocked: screens write through the real repositories into a real (fake-)IndexedDB.
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { cleanup, render, screen, waitFor, type RenderResult } from '@testing-library/react';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { useLayoutEffect, type ReactNode } from 'react';
import { inject } from 'vitest';
import WebSocket from 'ws';

import { type ListColor } from '@/data/schema';
import { createOutpostSync, type OutpostSync } from '@/data/sync';
import { switchableOnline, type SwitchableOnline } from '@sync/testing';
import { AppRoutes } from '@/app/routes';
import { createSessionRevocations } from '@/lib/revocations';
import { useLocation, useNavigate, type AppLocation, type NavigateFunction } from '@/lib/router';
import { ServicesProvider, type AppServices } from '@/lib/services';
import { SessionProvider, LOCAL_ONLY_KEY } from '@/lib/session';
import { AUTH_STORAGE_KEY } from '@/lib/supabase';

import { trackServices, untrackServices } from './open-services';

export interface TestServices extends AppServices {
  /** The supabase-js client itself (`supabase` is the promise of it, as in main.tsx). */
  readonly client: SupabaseClient;
  readonly online: SwitchableOnline;
  /** Stops the engine and closes the database. */
  close(): Promise<void>;
}

/** The seeded shared list (supabase/seed.sql): alice owns it, bob edits it, 30 tasks. */
export const SEEDED_LIST = '11570000-0000-4000-8000-000000000001';
export const SEEDED_LIST_NAME = 'Site inspection — Block C';

/**
 * A client of the test devstack (global setup). By default its session is stored where the
 * app's is (the app under test uses it); `{ side: true }` gives another person's client whose
 * session the app never sees. Realtime runs on Node's `ws`: jsdom's own WebSocket dispatches
 * jsdom events into Node's EventTarget and throws.
 */
export function devstackClient(options: { side?: boolean } = {}) {
  const { url, publishableKey } = inject('devstack');
  return createClient(url, publishableKey, {
    realtime: { transport: WebSocket as unknown as typeof globalThis.WebSocket },
    auth: {
      persistSession: !options.side,
      autoRefreshToken: false,
      detectSessionInUrl: false,
      storageKey: options.side ? `side-${crypto.randomUUID()}` : AUTH_STORAGE_KEY,
    },
  });
}

/** Signs a client in as a seeded demo user (password `outpost-demo`). */
export async function signInDemo(
  supabase: SupabaseClient,
  who: 'alice' | 'bob',
): Promise<SupabaseClient> {
  const { error } = await supabase.auth.signInWithPassword({
    email: `${who}@example.com`,
    password: 'outpost-demo',
  });
  if (error) throw error;
  return supabase;
}

/** Signs a client up as a new person (the devstack confirms at once). */
export async function signUpFresh(
  supabase: SupabaseClient,
  name = `Guest ${crypto.randomUUID().slice(0, 6)}`,
): Promise<{ id: string; name: string; email: string }> {
  const email = `test-${crypto.randomUUID()}@example.com`;
  const { data, error } = await supabase.auth.signUp({
    email,
    password: 'test-password-1',
    options: { data: { display_name: name } },
  });
  if (error || !data.user) throw error ?? new Error('sign-up returned no user');
  return { id: data.user.id, name, email };
}

/** A client that can reach nothing (port 9, discard): for tests that stay offline. */
export function unreachableClient() {
  return createClient('http://127.0.0.1:9', 'test-anon-key', {
    auth: { persistSession: true, autoRefreshToken: false, storageKey: AUTH_STORAGE_KEY },
  });
}

export function createTestServices(
  options: {
    supabase?: SupabaseClient;
    /**
     * When supabase-js "has loaded": the promise the app and the sync library get (default:
     * `supabase`, at once). A promise that never settles is a start-up before it has come.
     */
    supabaseLoaded?: Promise<SupabaseClient>;
    online?: boolean;
    now?: () => number;
    /** Start the engine (tests against the devstack); default false. */
    startEngine?: boolean;
  } = {},
): TestServices {
  const client = options.supabase ?? unreachableClient();
  // As main.tsx hands it over: the promise of the client (supabase-js loads after start-up).
  const supabase = options.supabaseLoaded ?? Promise.resolve(client);
  const online = switchableOnline(options.online ?? false);
  const dbName = `outpost-test-${crypto.randomUUID()}`;
  // As main.tsx wires it: signed-out sessions' refresh tokens wait under a `…:revoke` key.
  const revocations = createSessionRevocations(supabase, {
    online,
    key: `outpost-sync:${dbName}:revoke`,
    random: () => 0,
  });
  const sync: OutpostSync = createOutpostSync({
    supabase,
    dbName,
    indexedDb: { indexedDB: new IDBFactory(), IDBKeyRange },
    online,
    undoWindowMs: 0,
    random: () => 0,
    leadership: (onLeader) => {
      onLeader();
      return () => undefined;
    },
    keepForRevocation: revocations.add,
  });
  if (options.startEngine) {
    revocations.start();
    sync.start();
  }
  const services: TestServices = {
    supabase,
    client,
    sync,
    online,
    now: options.now ?? (() => Date.now()),
    origin: 'http://localhost:4173',
    async close() {
      untrackServices(services);
      cleanup(); // unmount first: live queries must not outlive the database
      revocations.stop();
      await sync.close();
      await client.removeAllChannels();
    },
  };
  trackServices(services);
  return services;
}

/** Services of a device used without an account (marked local-only: no welcome screen). */
export function localOnlyServices(options: Parameters<typeof createTestServices>[0] = {}) {
  markLocalOnly();
  return createTestServices(options);
}

/** Services as a device signed in to the test devstack runs them: online, engine started. */
export function onlineServices(
  supabase: SupabaseClient = devstackClient(),
  options: { now?: () => number } = {},
): TestServices {
  return createTestServices({ ...options, supabase, online: true, startEngine: true });
}

/**
 * A new list owned by `owner`, made through the real sync library (its own services, closed
 * after), so tests that add, change or remove members never touch the seeded list other
 * suites count on.
 */
export async function ownList(
  owner: SupabaseClient,
  name: string,
  color: ListColor = 'green',
): Promise<string> {
  const services = onlineServices(owner);
  try {
    await services.sync.engine.syncNow();
    const id = await services.sync.repos.lists.create({ name, color });
    const status = await services.sync.engine.syncNow();
    if (status.phase !== 'synced' || (await services.sync.pendingCount()) > 0) {
      throw new Error(`the list did not reach the server (${status.phase})`);
    }
    return id;
  } finally {
    await services.close();
  }
}

/** Alice of the demo data (supabase/seed.sql). */
export const ALICE_ID = 'a11ce000-0000-4000-8000-000000000001';

/**
 * Stores a session as supabase-js stores it (alice's, valid for an hour), as on a device she
 * signed in on; supabase-js discards a stored session of another shape on start.
 */
export function storeAliceSession(): void {
  localStorage.setItem(
    AUTH_STORAGE_KEY,
    JSON.stringify({
      access_token: 'test-access-token',
      refresh_token: 'test-refresh-token',
      token_type: 'bearer',
      expires_in: 3600,
      expires_at: Math.floor(Date.now() / 1000) + 3600,
      user: { id: ALICE_ID, email: 'alice@example.com', aud: 'authenticated' },
    }),
  );
}

/** Marks the device as used without an account (skips the welcome screen). */
export function markLocalOnly(): void {
  localStorage.setItem(LOCAL_ONLY_KEY, '1');
}

export function Providers({ services, children }: { services: AppServices; children: ReactNode }) {
  return (
    <ServicesProvider services={services}>
      <SessionProvider>{children}</SessionProvider>
    </ServicesProvider>
  );
}

/** Where the app is, and a way to go elsewhere (the test's view of the router). */
export interface RouterProbe {
  state: { location: AppLocation };
  /** Navigates as a link would (wrap in act() or follow with a find*). */
  navigate: NavigateFunction;
  /** The browser's Back; resolves once the location has changed (wrap in act()). */
  back: () => Promise<void>;
}

function LocationProbe({
  onLocation,
  onNavigate,
}: {
  onLocation: (location: AppLocation) => void;
  onNavigate: (navigate: NavigateFunction) => void;
}) {
  const location = useLocation();
  const navigate = useNavigate();
  useLayoutEffect(() => {
    onLocation(location);
  }, [location, onLocation]);
  useLayoutEffect(() => {
    onNavigate(navigate);
  }, [navigate, onNavigate]);
  return null;
}

/** Where history is before the app's first page (atPath): what Back from there leads to. */
export const BEFORE_THE_APP = '/before-the-app';

/**
 * Puts the app at `path` (the router follows the browser's location, which jsdom has too):
 * call it before rendering what reads the location. The page before it in history is
 * BEFORE_THE_APP, whatever an earlier test left there.
 */
export function atPath(path: string): void {
  window.history.replaceState(null, '', BEFORE_THE_APP);
  window.history.pushState(null, '', path);
}

/** Renders the whole app at `path` (the real routes). */
export function renderApp(
  services: AppServices,
  path: string,
): RenderResult & { router: RouterProbe } {
  atPath(path);
  const router: RouterProbe = {
    state: {
      location: { pathname: '', search: '', hash: '', state: null },
    },
    navigate: () => {
      throw new Error('the app has not rendered yet');
    },
    back: () =>
      new Promise<void>((resolve) => {
        window.addEventListener('popstate', () => resolve(), { once: true });
        window.history.back();
      }),
  };
  const result = render(
    <Providers services={services}>
      <AppRoutes />
      <LocationProbe
        onLocation={(location) => {
          router.state.location = location;
        }}
        onNavigate={(navigate) => {
          router.navigate = navigate;
        }}
      />
    </Providers>,
  );
  return { ...result, router };
}

/** Renders one component inside the providers (no router unless it brings its own). */
export function renderWithServices(services: AppServices, ui: ReactNode): RenderResult {
  return render(<Providers services={services}>{ui}</Providers>);
}

/** Waits for a lazy route's heading. */
export async function findHeading(name: string | RegExp): Promise<HTMLElement> {
  return screen.findByRole('heading', { level: 1, name });
}

export { waitFor };
