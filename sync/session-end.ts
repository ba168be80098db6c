// Ending the supabase-js session on this device, whatever the network does, and revoking it
// on the server later. supabase-js's own signOut asks the server first and, when that fails
// on the network, keeps the stored session (auth-js `_signOut` returns the error before
// `_removeSession`): signed out offline, the device stayed signed in and the account's data
// came back with the network. So the session leaves the auth client's storage here, and its
// refresh token (only it) is kept aside to be revoked once the server is reachable.
import { isAuthApiError, type AuthError, type SupabaseClient } from '@supabase/supabase-js';

import { withTimeout } from './remote';

/**
 * The parts of supabase-js's auth client (auth-js GoTrueClient, `protected` in its types)
 * that no public method offers without the network: where the session is stored, and how
 * to reach the auth server with the project's API key but without the stored session.
 * Checked at run time, and pinned by sync/session-end.test.ts against the installed version.
 */
interface AuthClientParts {
  storage: {
    getItem(key: string): string | null | Promise<string | null>;
    removeItem(key: string): void | Promise<void>;
  };
  storageKey: string;
  url: string;
  headers: Record<string, string>;
  fetch: typeof fetch;
}

function authClientParts(supabase: SupabaseClient): AuthClientParts {
  const auth = supabase.auth as unknown as Partial<AuthClientParts>;
  const { storage, storageKey, url, headers } = auth;
  if (
    typeof storageKey !== 'string' ||
    typeof storage?.getItem !== 'function' ||
    typeof storage.removeItem !== 'function' ||
    typeof url !== 'string' ||
    typeof headers !== 'object' ||
    typeof auth.fetch !== 'function'
  ) {
    throw new Error('supabase-js auth client has changed: cannot end its session');
  }
  return auth as AuthClientParts;
}

function refreshTokenOf(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  try {
    const stored = JSON.parse(raw) as { refresh_token?: unknown } | null;
    const token = stored?.refresh_token;
    return typeof token === 'string' && token !== '' ? token : null;
  } catch {
    return null;
  }
}

/**
 * Ends the session on this device now, without a request: `keep` receives its refresh token
 * (to revoke later) before the session leaves storage, then supabase-js is told to sign out
 * with nothing stored, which it does locally and announces (`SIGNED_OUT`, here and in the
 * other tabs). A token refresh in flight is discarded by supabase-js when it lands, because
 * the stored session changed under it. Resolves to whether there was a session.
 */
export async function endLocalSession(
  supabase: SupabaseClient,
  keep: (refreshToken: string) => void,
): Promise<boolean> {
  const { storage, storageKey } = authClientParts(supabase);
  const token = refreshTokenOf(await storage.getItem(storageKey));
  if (token) keep(token);
  for (const key of [storageKey, `${storageKey}-user`, `${storageKey}-code-verifier`]) {
    await storage.removeItem(key);
  }
  const { error } = await supabase.auth.signOut({ scope: 'local' });
  // Nothing stored, so no request was made: an error here is not the network's.
  if (error) throw error;
  return token !== null;
}

/** What one revocation attempt came to. */
export type RevocationOutcome =
  /** The server no longer accepts the token (revoked now, or before). */
  | { done: true }
  /** Try again later; `token` is the one to try with (a redeemed token's successor). */
  | { done: false; token: string };

/** GoTrue's answers meaning "this refresh token opens nothing any more". */
const DEAD_TOKEN_CODES = new Set([
  'refresh_token_not_found',
  'refresh_token_already_used',
  'session_not_found',
  'session_expired',
  'user_not_found',
]);

/** GoTrue's error code from either error shape (2024-01-01 `code`, or older `error_code`). */
async function errorCode(response: Response): Promise<string | undefined> {
  try {
    const body = (await response.json()) as { code?: unknown; error_code?: unknown };
    const code = typeof body.code === 'string' ? body.code : body.error_code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Revokes the session a refresh token belongs to: redeems the token (`grant_type=
 * refresh_token`) for a short-lived access token, then logs that session out (`/logout?scope
 * =local`), which deletes it and every refresh token it has. The tokens this gets never enter
 * the auth client's storage, so they cannot sign anyone back in. `rotated` hears the redeemed
 * token's successor before the logout is sent, so a logout lost on the network is retried
 * with a token that still works (GoTrue also answers a redeemed token with its successor).
 */
export async function revokeRefreshToken(
  supabase: SupabaseClient,
  refreshToken: string,
  options: { timeoutMs: number; rotated: (next: string) => void },
): Promise<RevocationOutcome> {
  const { url, headers, fetch: authFetch } = authClientParts(supabase);
  const retry: RevocationOutcome = { done: false, token: refreshToken };
  let redeemed: Response;
  try {
    redeemed = await withTimeout(options.timeoutMs, (signal) =>
      authFetch(`${url}/token?grant_type=refresh_token`, {
        method: 'POST',
        headers: {
          ...headers,
          'Content-Type': 'application/json',
          'X-Supabase-Api-Version': '2024-01-01',
        },
        body: JSON.stringify({ refresh_token: refreshToken }),
        signal,
      }),
    );
  } catch {
    return retry; // offline, or no answer: the token may still work
  }
  if (!redeemed.ok) {
    const code = await errorCode(redeemed);
    return code && DEAD_TOKEN_CODES.has(code) ? { done: true } : retry;
  }
  const session = (await redeemed.json().catch(() => null)) as {
    access_token?: unknown;
    refresh_token?: unknown;
  } | null;
  const accessToken = session?.access_token;
  if (typeof accessToken !== 'string') return retry;
  const next = typeof session?.refresh_token === 'string' ? session.refresh_token : refreshToken;
  if (next !== refreshToken) options.rotated(next);
  let error: AuthError | null;
  try {
    ({ error } = await withTimeout(options.timeoutMs, () =>
      supabase.auth.admin.signOut(accessToken, 'local'),
    ));
  } catch {
    return { done: false, token: next };
  }
  // 401/403/404: the session is gone already (supabase-js's own signOut reads them so too).
  if (!error || (isAuthApiError(error) && [401, 403, 404].includes(error.status))) {
    return { done: true };
  }
  return { done: false, token: next };
}
