// Where profile pictures live, apart from api.ts: a screen that shows one (use-avatar-url.ts)
// must not bring api.ts, whose error classes are supabase-js's (200 kB): the list's screen
// loaded and ran all of supabase-js before its first row for this one name (issue 42).

/** Bucket of profile pictures (supabase/migrations/…_avatars.sql). */
export const AVATARS_BUCKET = 'avatars';
