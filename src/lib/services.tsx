// The app's single instances (supabase-js client, sync library, connectivity, clock), made
// once in main.tsx and handed down through context, so component tests can give the screens
// a fake-indexeddb database, a switchable network and a fixed clock instead.
import type { SupabaseClient } from '@supabase/supabase-js';
import { createContext, useContext, type ReactNode } from 'react';

import type { OnlineSignal, OutpostSync } from '@sync/index';

export interface AppServices {
  readonly supabase: SupabaseClient;
  readonly sync: OutpostSync;
  /** navigator.onLine and its events in the browser; switchable in tests. */
  readonly online: OnlineSignal;
  /** Milliseconds since the epoch ("synced 2 min ago", due dates). */
  readonly now: () => number;
  /** Where invite links and exports point (the app's own origin). */
  readonly origin: string;
}

const ServicesContext = createContext<AppServices | null>(null);

export function ServicesProvider({
  services,
  children,
}: {
  services: AppServices;
  children: ReactNode;
}) {
  return <ServicesContext.Provider value={services}>{children}</ServicesContext.Provider>;
}

export function useServices(): AppServices {
  const services = useContext(ServicesContext);
  if (!services) throw new Error('useServices needs a <ServicesProvider> above it');
  return services;
}
