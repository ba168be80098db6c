// Where supabase-js keeps the session, apart from supabase-js itself (src/lib/supabase.ts): the
// session gate reads it at start-up (src/lib/session.tsx) before supabase-js has loaded.

/** Where supabase-js keeps the session in localStorage. */
export const AUTH_STORAGE_KEY = 'outpost-auth';
