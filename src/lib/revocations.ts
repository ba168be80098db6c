// Revoking on the server the sessions signed out on this device. This is auth-session
// housekeeping, not data sync, so it lives with the app (as presence does): the sync
// library's signOut ends the session on the device at once, with or without a network, and
// hands its refresh token here (`keepForRevocation`) before the session leaves the auth
// client's storage. The token waits where it survives a reload and the sign-out's wipe
// (localStorage), away from the auth client's storage, so nothing can turn it back into a
// session; every tab retries while online, with the sync engine's backoff, until the server
// says each token is dead. The queue is in the app shell (main.tsx hands `add` to the sync
// library at start-up); supabase-js, which only the revocation itself needs, is waited for
// then (issue 16).
import type { SupabaseClient } from '@supabase/supabase-js';

import {
  backoffDelayMs,
  realClock,
  REQUEST_TIMEOUT_MS,
  withTimeout,
  type Clock,
  type OnlineSignal,
  type SupabaseSource,
} from '@sync/index';

/**
 * Where the app's tokens wait: the key the sync library used for its default database
 * before revocation moved here, so tokens an older version kept are still revoked.
 */
export const REVOCATIONS_KEY = 'outpost-sync:outpost:revoke';

/** Where the tokens are kept: localStorage's shape (synchronous, shared by the tabs). */
export interface RevocationStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export interface RevocationQueue {
  /** Keeps `refreshToken` for revocation (at once, before anything else happens). */
  readonly add: (refreshToken: string) => void;
  /** The tokens still waiting. */
  readonly pending: () => string[];
  /** Tries now (when online), and again on reconnect and after each failure's backoff. */
  readonly start: () => void;
  /** Stops retrying; an attempt in flight finishes. */
  readonly stop: () => void;
}

export interface RevocationQueueOptions {
  storage: RevocationStorage;
  /** The storage key (one per device database). */
  key: string;
  /** One attempt: true once the server no longer accepts the token. */
  revoke(token: string): Promise<boolean>;
  online: OnlineSignal;
  clock: Clock;
  random: () => number;
}

export function createRevocationQueue(options: RevocationQueueOptions): RevocationQueue {
  const { storage, key, online, clock } = options;
  let running = false;
  let again = false;
  let started = false;
  let attempt = 0;
  let retryTimer: unknown;
  let unsubscribe = (): void => undefined;

  function read(): string[] {
    try {
      const tokens: unknown = JSON.parse(storage.getItem(key) ?? '[]');
      return Array.isArray(tokens) ? tokens.filter((t): t is string => typeof t === 'string') : [];
    } catch {
      return [];
    }
  }

  /** Read fresh each time: another tab may have added or revoked one meanwhile. */
  function write(tokens: string[]): void {
    if (tokens.length > 0) storage.setItem(key, JSON.stringify(tokens));
    else storage.removeItem(key);
  }

  async function run(): Promise<void> {
    if (!started || !online.isOnline()) return;
    if (running) {
      again = true; // a token added meanwhile gets its own attempt
      return;
    }
    running = true;
    again = false;
    clock.clearTimeout(retryTimer);
    let failed = false;
    for (const token of read()) {
      if (await options.revoke(token).catch(() => false)) write(read().filter((t) => t !== token));
      else failed = true;
    }
    running = false;
    if (again) return run();
    if (failed && started) {
      retryTimer = clock.setTimeout(() => void run(), backoffDelayMs(attempt++, options.random));
    } else attempt = 0;
  }

  return {
    add(refreshToken) {
      write([...read().filter((t) => t !== refreshToken), refreshToken]);
      void run();
    },
    pending: read,
    start() {
      if (started) return;
      started = true;
      unsubscribe = online.subscribe((up) => {
        if (up) {
          attempt = 0;
          void run();
        }
      });
      void run();
    },
    stop() {
      started = false;
      clock.clearTimeout(retryTimer);
      unsubscribe();
    },
  };
}

/**
 * The parts of supabase-js's auth client (auth-js GoTrueClient, `protected` in its types)
 * that reach the auth server with the project's API key but without the stored session.
 * Checked at run time, and pinned by src/lib/revocations.test.ts against the installed
 * version.
 */
interface AuthRequestParts {
  url: string;
  headers: Record<string, string>;
  fetch: typeof fetch;
}

function authRequestParts(supabase: SupabaseClient): AuthRequestParts {
  const auth = supabase.auth as unknown as Partial<AuthRequestParts>;
  if (
    typeof auth.url !== 'string' ||
    typeof auth.headers !== 'object' ||
    typeof auth.fetch !== 'function'
  ) {
    throw new Error('supabase-js auth client has changed: cannot revoke a session');
  }
  return auth as AuthRequestParts;
}

/**
 * Revokes the session a refresh token belongs to: redeems the token (`grant_type=
 * refresh_token`) for a short-lived access token, then logs that session out (`/logout?scope
 * =local`), which deletes it with every refresh token it has. What it redeems never enters
 * the auth client's storage, so it cannot sign anyone back in. Resolves to true once the
 * server no longer accepts the token, false to try again later. A retry after a lost logout
 * redeems the same token again: GoTrue answers a redeemed token whose successor is the
 * session's newest with that successor (a client that lost the answer), so it still works.
 */
export async function revokeRefreshToken(
  source: SupabaseSource,
  refreshToken: string,
  timeoutMs: number,
): Promise<boolean> {
  const supabase = await source;
  const { url, headers, fetch: authFetch } = authRequestParts(supabase);
  try {
    const redeemed = await withTimeout(timeoutMs, (signal) =>
      authFetch(`${url}/token?grant_type=refresh_token`, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: JSON.stringify({ refresh_token: refreshToken }),
        signal,
      }),
    );
    const { status } = redeemed;
    // Refused (refresh_token_not_found, refresh_token_already_used…): the token opens
    // nothing any more. A 5xx, a timeout or a rate limit says nothing about it: retry.
    if (!redeemed.ok) return status < 500 && status !== 408 && status !== 429;
    const { access_token: accessToken } = (await redeemed.json()) as { access_token: string };
    const { error } = await withTimeout(timeoutMs, () =>
      supabase.auth.admin.signOut(accessToken, 'local'),
    );
    if (!error) return true;
    // Here already (the client is): imported by name so the app shell need not hold it.
    const { isAuthApiError } = await import('@supabase/supabase-js');
    // 401/403/404: the session is gone already (supabase-js's own signOut reads them so).
    return isAuthApiError(error) && [401, 403, 404].includes(error.status);
  } catch {
    return false; // offline, or no answer: the token may still work
  }
}

/**
 * The app's revocation queue over its supabase-js client: hand `add` to the sync library as
 * `keepForRevocation`, and `start` it in every tab (main.tsx). Defaults: localStorage under
 * REVOCATIONS_KEY, the real clock, Math.random for the backoff's jitter, 30 s per request.
 */
export function createSessionRevocations(
  supabase: SupabaseSource,
  options: {
    online: OnlineSignal;
    key?: string;
    storage?: RevocationStorage;
    clock?: Clock;
    random?: () => number;
    timeoutMs?: number;
  },
): RevocationQueue {
  const timeoutMs = options.timeoutMs ?? REQUEST_TIMEOUT_MS;
  return createRevocationQueue({
    storage: options.storage ?? localStorage,
    key: options.key ?? REVOCATIONS_KEY,
    revoke: (token) => revokeRefreshToken(supabase, token, timeoutMs),
    online: options.online,
    clock: options.clock ?? realClock,
    random: options.random ?? Math.random,
  });
}
