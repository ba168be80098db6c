// The app's single instances (supabase-js client, sync library, connectivity, clock), made
// once in main.tsx and handed down through context, so component tests can give the screens
// a fake-indexeddb database, a switchable network and a fixed clock instead.
import type { SupabaseClient } from '@supabase/supabase-js';
import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';

import type { OnlineSignal } from '@sync/index';
import type { OutpostSync } from '@/data/sync';

import { preloadUndo, withUndo } from '@/data/undo-services';

export interface AppServices {
  /**
   * The supabase-js client, once it has loaded: main.tsx imports supabase-js right after
   * start-up, in parallel with the first screen, which reads the device and never waits for
   * it (issue 16). Await it for a request; useLoadedSupabase for what can show a moment later.
   */
  readonly supabase: Promise<SupabaseClient>;
  readonly sync: OutpostSync;
  /** navigator.onLine and its events in the browser; switchable in tests. */
  readonly online: OnlineSignal;
  /** Milliseconds since the epoch ("synced 2 min ago", due dates). */
  readonly now: () => number;
  /** Where invite links and exports point (the app's own origin). */
  readonly origin: string;
}

const ServicesContext = createContext<AppServices | null>(null);

/** Each services' client once it has come, so a screen rendered later has it at once. */
const loadedClients = new WeakMap<Promise<SupabaseClient>, SupabaseClient>();

function noteWhenLoaded(supabase: Promise<SupabaseClient>): void {
  if (loadedClients.has(supabase)) return;
  supabase.then(
    (client) => loadedClients.set(supabase, client),
    (error: unknown) => console.error('[outpost] supabase-js did not load', error),
  );
}

export function ServicesProvider({
  services,
  children,
}: {
  services: AppServices;
  children: ReactNode;
}) {
  noteWhenLoaded(services.supabase);
  // Every screen writes through repositories that note each edit for undo (lib/undo.ts).
  const value = useMemo(() => ({ ...services, sync: withUndo(services.sync) }), [services]);
  useEffect(preloadUndo, []);
  return <ServicesContext.Provider value={value}>{children}</ServicesContext.Provider>;
}

export function useServices(): AppServices {
  const services = useContext(ServicesContext);
  if (!services) throw new Error('useServices needs a <ServicesProvider> above it');
  return services;
}

/**
 * The supabase-js client if it has loaded, else undefined until it has (a re-render then):
 * for what can wait a moment, like a profile picture's URL or joining presence.
 */
export function useLoadedSupabase(): SupabaseClient | undefined {
  const { supabase } = useServices();
  // Only to render again once it comes; the client itself is read from loadedClients.
  const [, setClient] = useState<SupabaseClient | undefined>(() => loadedClients.get(supabase));
  useEffect(() => {
    let live = true;
    supabase.then(
      (loaded) => {
        loadedClients.set(supabase, loaded);
        if (live) setClient(loaded);
      },
      () => undefined, // said once, by noteWhenLoaded
    );
    return () => {
      live = false;
    };
  }, [supabase]);
  return loadedClients.get(supabase);
}
