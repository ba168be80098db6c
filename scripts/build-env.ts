// What a build of the app may be built with. A production build (`npm run build`) must name
// the Supabase project it talks to: without VITE_SUPABASE_URL the app used to fall back to the
// local devstack (127.0.0.1 and the CLI's public demo key) and a deploy silently shipped an app
// that could reach nothing. So the production build refuses a missing or local URL or key, and
// any build refuses a secret key (it would be in every visitor's browser). Builds against a
// local devstack (`npm start`, the browser tests, CI's size check) say so with
// `--mode devstack` (`npm run build:local`). vite.config.ts calls checkBuildEnv.

/** The mode that marks a build against a local devstack (`vite build --mode devstack`). */
export const LOCAL_BUILD_MODE = 'devstack';

/** The Supabase CLI's well-known local publishable key (public; devstack/keys-api.ts). */
const LOCAL_PUBLISHABLE_KEY = 'sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH';
/** Hosts that are this machine: a deployed app pointing there reaches no one's backend. */
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '0.0.0.0', '[::]']);

export interface BuildEnv {
  readonly VITE_SUPABASE_URL?: string | undefined;
  readonly VITE_SUPABASE_PUBLISHABLE_KEY?: string | undefined;
  /** The old name of the publishable (then anon) key: still read, with a warning. */
  readonly VITE_SUPABASE_ANON_KEY?: string | undefined;
}

export interface BuildEnvCheck {
  /** Why the build must stop; empty when it may go on. */
  readonly errors: string[];
  /** What the build should say but may go on with. */
  readonly warnings: string[];
}

/** The payload of a JWT-shaped key (the legacy anon/service_role keys), or undefined. */
function jwtPayload(key: string): Record<string, unknown> | undefined {
  const parts = key.split('.');
  if (parts.length !== 3 || !parts[1]) return undefined;
  try {
    const payload: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    return typeof payload === 'object' && payload !== null
      ? (payload as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Why `key` must never be in a browser's bundle, or undefined. */
function secretKeyProblem(name: string, key: string): string | undefined {
  if (key.startsWith('sb_secret_')) {
    return `${name} is a secret key (sb_secret_…). It would be readable by every visitor: use the project's publishable key (sb_publishable_…).`;
  }
  if (jwtPayload(key)?.role === 'service_role') {
    return `${name} is the legacy service_role key. It would be readable by every visitor: use the project's publishable key (sb_publishable_…).`;
  }
  return undefined;
}

/** Why `key` is the local devstack's and not a project's, or undefined. */
function localKeyProblem(name: string, key: string): string | undefined {
  if (key === LOCAL_PUBLISHABLE_KEY) {
    return `${name} is the local devstack's publishable key, not your project's.`;
  }
  if (jwtPayload(key)?.iss === 'supabase-demo') {
    return `${name} is the Supabase CLI's demo anon key, not your project's.`;
  }
  return undefined;
}

function urlProblem(raw: string | undefined): string | undefined {
  if (!raw)
    return 'VITE_SUPABASE_URL is not set: set it to your project URL (https://<project-ref>.supabase.co).';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `VITE_SUPABASE_URL is not a URL: ${JSON.stringify(raw)}.`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return `VITE_SUPABASE_URL must be an https:// URL, got ${JSON.stringify(raw)}.`;
  }
  if (LOCAL_HOSTS.has(url.hostname)) {
    return `VITE_SUPABASE_URL points at this machine (${url.host}), the local devstack: set your project URL.`;
  }
  return undefined;
}

/**
 * Checks a build's Supabase settings. `mode` is Vite's: every mode but LOCAL_BUILD_MODE is a
 * build for a deployment, which needs a real project's URL and publishable key.
 */
export function checkBuildEnv(env: BuildEnv, mode: string): BuildEnvCheck {
  const errors: string[] = [];
  const warnings: string[] = [];
  const local = mode === LOCAL_BUILD_MODE;
  const publishable = env.VITE_SUPABASE_PUBLISHABLE_KEY || undefined;
  const legacyName = env.VITE_SUPABASE_ANON_KEY || undefined;

  if (legacyName !== undefined) {
    warnings.push(
      publishable === undefined
        ? "VITE_SUPABASE_ANON_KEY is deprecated: rename it to VITE_SUPABASE_PUBLISHABLE_KEY (and use the project's publishable key, sb_publishable_…)."
        : 'VITE_SUPABASE_ANON_KEY is ignored: VITE_SUPABASE_PUBLISHABLE_KEY is set. Remove the old variable.',
    );
  }
  const [name, key] =
    publishable !== undefined
      ? ['VITE_SUPABASE_PUBLISHABLE_KEY', publishable]
      : ['VITE_SUPABASE_ANON_KEY', legacyName];

  // Never, whatever the mode: a secret key in a bundle is a leaked secret key.
  const secret = key === undefined ? undefined : secretKeyProblem(name, key);
  if (secret) errors.push(secret);
  if (local) return { errors, warnings };

  const url = urlProblem(env.VITE_SUPABASE_URL || undefined);
  if (url) errors.push(url);
  if (key === undefined) {
    errors.push(
      "VITE_SUPABASE_PUBLISHABLE_KEY is not set: set it to your project's publishable key (sb_publishable_…).",
    );
  } else if (!secret) {
    const localKey = localKeyProblem(name, key);
    if (localKey) errors.push(localKey);
  }
  return { errors, warnings };
}

/** The message a refused build stops with: every problem, and how to build for the devstack. */
export function buildEnvMessage(check: BuildEnvCheck): string {
  return [
    'This production build cannot be made with these Supabase settings:',
    ...check.errors.map((error) => `  - ${error}`),
    'Set them in the environment or in .env.production.local (README › Deploy).',
    `To build against the local devstack instead: npm run build:local (vite build --mode ${LOCAL_BUILD_MODE}).`,
  ].join('\n');
}
