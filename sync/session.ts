// The session half of the engine's Supabase port (remote.ts): who is signed in, and when that
// changes. The account (account.ts) follows the session from the first frame, so this is in
// an app's shell; the rest of the port (push, pull, realtime, storage, and the wire schemas
// their answers are checked against) is only the engine's and the attachments', and comes
// with them (core.ts), not with the app's first screen.
import type { SupabaseClient } from '@supabase/supabase-js';
import * as v from 'valibot';

import type { SupabaseSource } from './remote';
import {
  checked,
  REQUEST_TIMEOUT_MS,
  throwIfNetworkFailed,
  withTimeout,
  type RequestOptions,
} from './requests';

/** What happened to the session: a new sign-in, a token refresh, or anything else. */
export type AuthChange = 'signed-in' | 'refreshed' | 'other';

/** The session, as the account and the engine follow it (functions: no `this`). */
export interface Session {
  /**
   * The signed-in user's id, or null (local-only, or the session is gone for good). Throws a
   * transient SyncError when the session only could not be renewed right now (the network
   * failed during a token refresh): that is no reason to call the user signed out.
   */
  readonly userId: () => Promise<string | null>;
  /** Calls `onChange` when the session changes (sign-in, refresh, sign-out). */
  readonly onAuthChange: (
    onChange: (userId: string | null, change: AuthChange) => void,
  ) => () => void;
}

/** The app's client as the port reaches it: at once when it is here, else once it comes. */
export interface ClientHandle {
  /** The client, if here: at once when it was handed over itself (no extra turn). */
  readonly now: () => SupabaseClient | undefined;
  /** The client once it has come (rejects when it could not be loaded). */
  readonly ready: Promise<SupabaseClient>;
}

/** The Session over the app's client, with the client for the rest of the port. */
export interface SupabaseSession extends Session {
  readonly client: ClientHandle;
}

/** The signed-in user's id, as the auth client's session holds it (none: signed out). */
const UserIdSchema = v.nullish(v.string());

/**
 * The Session over the app's supabase-js client (or the promise of it: SupabaseSource): its
 * session is the engine's session.
 */
export function supabaseSession(
  source: SupabaseSource,
  options: RequestOptions = {},
): SupabaseSession {
  let loaded = 'then' in source ? undefined : source;
  const ready = Promise.resolve(source).then((supabase) => (loaded = supabase));
  ready.catch(() => undefined); // each use reports a failed load itself
  const client: ClientHandle = { now: () => loaded, ready };
  const timeoutMs = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;

  return {
    client,
    async userId() {
      const supabase = loaded ?? (await ready);
      const { data, error } = await withTimeout(
        timeoutMs,
        () => supabase.auth.getSession(),
        undefined,
        options.clock,
      );
      if (!data.session) throwIfNetworkFailed(error);
      return checked(UserIdSchema, data.session?.user.id, 'auth') ?? null;
    },
    onAuthChange(onChange) {
      let stopped = false;
      let unsubscribe = (): void => undefined;
      // Follows the session from when the client comes (its first event is the session then).
      const follow = (supabase: SupabaseClient) => {
        if (stopped) return;
        const { data } = supabase.auth.onAuthStateChange((event, session) => {
          const change: AuthChange =
            event === 'SIGNED_IN'
              ? 'signed-in'
              : event === 'TOKEN_REFRESHED'
                ? 'refreshed'
                : 'other';
          // Checked like userId's: an id that is not text joins nothing (the cycle's userId()
          // then says what is wrong).
          const id = session?.user.id;
          onChange(v.is(v.string(), id) ? id : null, change);
        });
        unsubscribe = () => data.subscription.unsubscribe();
      };
      if (loaded) follow(loaded);
      else
        void ready.then(follow, (error: unknown) =>
          console.warn('[sync] no supabase-js client', error),
        );
      return () => {
        stopped = true;
        unsubscribe();
      };
    },
  };
}
