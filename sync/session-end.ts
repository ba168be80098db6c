// Ending the supabase-js session on this device, whatever the network does. supabase-js's
// own signOut asks the server first and, when that fails on the network, keeps the stored
// session (auth-js `_signOut` returns the error before `_removeSession`): signed out
// offline, the device stayed signed in and the account's data came back with the network.
// So the session leaves the auth client's storage here, and its refresh token (only it) is
// handed to the caller first, to be revoked once the server is reachable (the app does that:
// src/lib/revocations.ts).
import type { SupabaseClient } from '@supabase/supabase-js';
import * as v from 'valibot';

/**
 * Where supabase-js's auth client (auth-js GoTrueClient, `protected` in its types) stores
 * the session: no public method removes it without the network. Checked at run time, and
 * pinned by sync/session-end.test.ts against the installed version.
 */
interface AuthStorageParts {
  storage?: {
    getItem(key: string): string | null | Promise<string | null>;
    removeItem(key: string): void | Promise<void>;
  };
  storageKey?: unknown;
}

/** The part of a stored session kept: its refresh token (the auth server's, stored as it came). */
const StoredSession = v.object({ refresh_token: v.string() });

/**
 * Ends the session on this device now, without a request: `keep` receives its refresh token
 * (to revoke later) before the session leaves storage, then supabase-js is told to sign out
 * with nothing stored, which it does locally and announces (`SIGNED_OUT`, here and in the
 * other tabs). A token refresh in flight is discarded by supabase-js when it lands, because
 * the stored session changed under it. Resolves to whether there was a session. If `keep`
 * throws, so does this, and the session stays: its token is never lost.
 */
export async function endLocalSession(
  supabase: SupabaseClient,
  keep: (refreshToken: string) => void = () => undefined,
): Promise<boolean> {
  const { storage, storageKey } = supabase.auth as unknown as AuthStorageParts;
  if (typeof storageKey !== 'string' || typeof storage?.removeItem !== 'function') {
    throw new Error('supabase-js auth client has changed: cannot end its session');
  }
  const stored = await storage.getItem(storageKey);
  let token: string | undefined;
  try {
    const session: unknown = JSON.parse(stored ?? 'null');
    if (v.is(StoredSession, session)) token = session.refresh_token;
  } catch {
    // Unreadable: no token to keep; the session is removed all the same.
  }
  if (token) keep(token);
  for (const key of [storageKey, `${storageKey}-user`, `${storageKey}-code-verifier`]) {
    await storage.removeItem(key);
  }
  const { error } = await supabase.auth.signOut({ scope: 'local' });
  // Nothing stored, so no request was made: an error here is not the network's.
  if (error) throw error;
  return !!token;
}
