// Ending the supabase-js session on this device, whatever the network does, and revoking it
// on the server later. supabase-js's own signOut asks the server first and, when that fails
// on the network, keeps the stored session (auth-js `_signOut` returns the error before
// `_removeSession`): signed out offline, the device stayed signed in and the account's data
// came back with the network. So the session leaves the auth client's storage here, and its
// refresh token (only it) is kept aside to be revoked once the server is reachable.
import { isAuthApiError, type SupabaseClient } from '@supabase/supabase-js';

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
  supabase: SupabaseClient,
  refreshToken: string,
  timeoutMs: number,
): Promise<boolean> {
  const { url, headers, fetch: authFetch } = authClientParts(supabase);
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
    // 401/403/404: the session is gone already (supabase-js's own signOut reads them so).
    return !error || (isAuthApiError(error) && [401, 403, 404].includes(error.status));
  } catch {
    return false; // offline, or no answer: the token may still work
  }
}
