/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** The Supabase project URL (hosted, or the devstack's). */
  readonly VITE_SUPABASE_URL?: string;
  /** The project's publishable key (`sb_publishable_…`). */
  readonly VITE_SUPABASE_PUBLISHABLE_KEY?: string;
  /** The old name of VITE_SUPABASE_PUBLISHABLE_KEY: still read, with a build warning. */
  readonly VITE_SUPABASE_ANON_KEY?: string;
}

/** The app's version (package.json), injected at build time. */
declare const __APP_VERSION__: string;
/** When the build was made (ISO), injected at build time. */
declare const __BUILD_TIME__: string;
