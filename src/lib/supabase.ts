// The app's one supabase-js client, and the service worker's. Its session (in IndexedDB,
// shared with the worker, mirrored to localStorage in tabs: shared-auth-storage.ts) is the
// sync engine's session. Without VITE_SUPABASE_* (a bare `npm run dev`), it points at the local devstack
// with the Supabase CLI's well-known local publishable key; a production build cannot be made
// without them (scripts/build-env.ts). main.tsx imports this module
// dynamically, right after start-up: supabase-js is not part of the app shell (issue 16).
import { createClient, navigatorLock } from '@supabase/supabase-js';

import type { Database } from '../../supabase/database.types';
import { AUTH_STORAGE_KEY } from './auth-storage';
import { sharedAuthStorage, type MirrorStorage } from './shared-auth-storage';

export { AUTH_STORAGE_KEY };

/** The devstack's address and well-known local publishable key (see devstack/keys-api.ts). */
const DEVSTACK_URL = 'http://127.0.0.1:54321';
const DEVSTACK_PUBLISHABLE_KEY = 'sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH';

/**
 * The client of the project the app was built for. `mirror`: where a tab mirrors the session
 * for the start-up gate (localStorage; the worker has none). `worker`: the service worker's
 * client, which refreshes a token only when a request needs it (a tab's runs a timer).
 */
export function createAppSupabase({
  url = import.meta.env.VITE_SUPABASE_URL || DEVSTACK_URL,
  // VITE_SUPABASE_ANON_KEY is the variable's old name, still read (the build warns about it).
  publishableKey = import.meta.env.VITE_SUPABASE_PUBLISHABLE_KEY ||
    import.meta.env.VITE_SUPABASE_ANON_KEY ||
    DEVSTACK_PUBLISHABLE_KEY,
  mirror = typeof localStorage === 'undefined' ? undefined : localStorage,
  worker = false,
}: {
  url?: string;
  publishableKey?: string;
  mirror?: MirrorStorage | undefined;
  worker?: boolean;
} = {}) {
  // Typed by the schema the migrations make (`npm run types`: supabase/database.types.ts).
  return createClient<Database>(url, publishableKey, {
    auth: {
      persistSession: true,
      autoRefreshToken: !worker,
      // Invite and sign-in links are app routes, not OAuth redirects.
      detectSessionInUrl: false,
      // A fixed key, so the app can tell at start-up, without a network call, whether this
      // device holds a session (src/lib/session.tsx).
      storageKey: AUTH_STORAGE_KEY,
      storage: sharedAuthStorage(mirror),
      // The tabs and the worker read, refresh and write the one stored session in turn: a
      // refresh token is single-use, and two refreshing it at once would sign the device out.
      // supabase-js takes no lock by default (it coordinates within one client only).
      lock: navigatorLock,
    },
  });
}
