// Who is using this device, known at once and without the network: the session supabase-js
// stored (read from localStorage, so an expired token on a plane still counts), the owner
// recorded in the device's database, and the "use without an account" choice. The screens
// render from this immediately, before supabase-js has even loaded (main.tsx imports it after
// start-up); the sync engine deals with refreshing the token.
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useState,
  type ReactNode,
} from 'react';

import { LOCAL_USER_ID } from '@sync/index';
import { type OutpostSync } from '@/data/sync';
import { useSharedLiveQuery, type QuerySpec } from '@/data/use-shared-live-query';
import { useServices } from './services';
import { AUTH_STORAGE_KEY } from './auth-storage';

/** localStorage flag: the person chose "use without an account" on this device. */
export const LOCAL_ONLY_KEY = 'outpost:local-only';

/** The channel on which a tab that signed out (or deleted local data) tells the others. */
const SIGNED_OUT_CHANNEL = 'outpost:signed-out';

/** Tells the other tabs that this one signed out or deleted the device's local data. */
export function announceSignOut(): void {
  if (typeof BroadcastChannel === 'undefined') return;
  const channel = new BroadcastChannel(SIGNED_OUT_CHANNEL);
  channel.postMessage('signed-out');
  channel.close();
}

export interface SessionUser {
  id: string;
  email: string | null;
}

/**
 * - `signed-in`: a session is stored (its token may be expired; sync refreshes it);
 * - `expired`: the device's data belongs to an account whose session is gone: edits keep
 *   queueing and the header asks to sign in again;
 * - `local`: no account; data stays on this device until sign-up;
 * - `none`: first run: the welcome screen.
 */
export type SessionMode = 'signed-in' | 'expired' | 'local' | 'none';

export interface Session {
  /** False for the first few milliseconds, until the device database has been read. */
  readonly ready: boolean;
  readonly mode: SessionMode;
  readonly user: SessionUser | null;
  /** The id rows are written under: the account's, or the local-only placeholder. */
  readonly userId: string;
  /** Chooses (or leaves) local-only use on this device. */
  setLocalOnly: (localOnly: boolean) => void;
}

/** The account whose session supabase-js stored on this device, if any. */
export function storedUser(): SessionUser | null {
  try {
    const raw = localStorage.getItem(AUTH_STORAGE_KEY);
    if (!raw) return null;
    const parsed = JSON.parse(raw) as { user?: { id?: unknown; email?: unknown } } | null;
    const id = parsed?.user?.id;
    if (typeof id !== 'string') return null;
    const email = parsed?.user?.email;
    return { id, email: typeof email === 'string' ? email : null };
  } catch {
    return null;
  }
}

/** The id rows are written under: the account's, else the device's owner, else local-only's. */
export function sessionUserId(user: SessionUser | null, owner: string | null | undefined): string {
  return user?.id ?? (owner && owner !== LOCAL_USER_ID ? owner : LOCAL_USER_ID);
}

/** Whose data the device database holds (null: nobody's yet). */
export function deviceOwnerQuery(sync: OutpostSync): QuerySpec<string | null> {
  return { key: 'device-owner', read: () => sync.queries.deviceOwner() };
}

const SessionContext = createContext<Session | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const { supabase, sync } = useServices();
  const [user, setUser] = useState<SessionUser | null>(storedUser);
  const [localOnly, setLocalOnlyState] = useState(
    () => localStorage.getItem(LOCAL_ONLY_KEY) === '1',
  );
  // undefined while loading; null when the device has no owner yet.
  const ownerQuery = deviceOwnerQuery(sync);
  const owner = useSharedLiveQuery(sync.queries, ownerQuery.key, ownerQuery.read);

  // Followed from when supabase-js has loaded; until then the stored session above stands.
  useEffect(() => {
    let stopped = false;
    let unsubscribe = (): void => undefined;
    supabase.then(
      (client) => {
        if (stopped) return;
        const { data } = client.auth.onAuthStateChange((event, session) => {
          if (session?.user) {
            setUser({ id: session.user.id, email: session.user.email ?? null });
          } else if (event === 'SIGNED_OUT' || !storedUser()) {
            // INITIAL_SESSION without a session while offline with an expired token is not a
            // sign-out: supabase-js keeps the stored session for the next refresh.
            setUser(null);
          }
        });
        unsubscribe = () => data.subscription.unsubscribe();
      },
      () => undefined, // said by ServicesProvider
    );
    return () => {
      stopped = true;
      unsubscribe();
    };
  }, [supabase]);

  // Signing in ends local-only use: the local rows are claimed by the account.
  useEffect(() => {
    if (user) localStorage.removeItem(LOCAL_ONLY_KEY);
  }, [user]);

  // Local data deleted in another tab: this one leaves local-only use too (an account's
  // sign-out reaches every tab through supabase-js and the device's owner).
  useEffect(() => {
    if (typeof BroadcastChannel === 'undefined') return;
    const channel = new BroadcastChannel(SIGNED_OUT_CHANNEL);
    channel.onmessage = () => setLocalOnlyState(localStorage.getItem(LOCAL_ONLY_KEY) === '1');
    return () => channel.close();
  }, []);

  const setLocalOnly = useCallback((next: boolean) => {
    if (next) localStorage.setItem(LOCAL_ONLY_KEY, '1');
    else localStorage.removeItem(LOCAL_ONLY_KEY);
    setLocalOnlyState(next);
  }, []);

  const value = useMemo<Session>(() => {
    const realOwner = owner && owner !== LOCAL_USER_ID ? owner : null;
    const mode: SessionMode = user
      ? 'signed-in'
      : realOwner
        ? 'expired'
        : (localOnly && localStorage.getItem(LOCAL_ONLY_KEY) === '1') || owner === LOCAL_USER_ID
          ? 'local'
          : 'none';
    return {
      ready: owner !== undefined,
      mode,
      user,
      userId: sessionUserId(user, owner),
      setLocalOnly,
    };
  }, [owner, user, localOnly, setLocalOnly]);

  // Whose this tab is now (null: nobody's): when another person than before, what the tab
  // and the device keep of the previous one goes (forget-account.ts, its own chunk).
  const tabUser = !value.ready ? undefined : value.mode === 'none' ? null : value.userId;
  useEffect(() => {
    if (tabUser === undefined) return;
    void import('./forget-account').then(
      ({ followTabUser }) => followTabUser(tabUser),
      (error: unknown) => console.error('[outpost] could not clear the last account', error),
    );
  }, [tabUser]);

  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession needs a <SessionProvider> above it');
  return session;
}
