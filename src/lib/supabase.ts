// The app's one supabase-js client. Its session (in localStorage) is the sync engine's
// session. Without VITE_SUPABASE_* (a bare `npm run dev`), it points at the local devstack
// with the Supabase CLI's well-known public demo anon key. main.tsx imports this module
// dynamically, right after start-up: supabase-js is not part of the app shell (issue 16).
import { createClient } from '@supabase/supabase-js';

import { AUTH_STORAGE_KEY } from './auth-storage';

export { AUTH_STORAGE_KEY };

/** The devstack's address and public demo anon key (see devstack/keys.ts). */
const DEVSTACK_URL = 'http://127.0.0.1:54321';
const DEVSTACK_ANON_KEY =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9.CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0';

export function createAppSupabase(
  url: string = import.meta.env.VITE_SUPABASE_URL ?? DEVSTACK_URL,
  anonKey: string = import.meta.env.VITE_SUPABASE_ANON_KEY ?? DEVSTACK_ANON_KEY,
) {
  return createClient(url, anonKey, {
    auth: {
      persistSession: true,
      autoRefreshToken: true,
      // Invite and sign-in links are app routes, not OAuth redirects.
      detectSessionInUrl: false,
      // A fixed key, so the app can tell at start-up, without a network call, whether this
      // device holds a session (src/lib/session.tsx).
      storageKey: AUTH_STORAGE_KEY,
    },
  });
}
