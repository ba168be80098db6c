// Account (product.md §4 "Account"): whose device this is. Without a session, writes are made
// as LOCAL_USER_ID; the first sign-in claims them, a sign-in of another user wipes the store
// first, and a sign-out wipes it. The one owner of the device's user: the repositories stamp
// rows with `userId()`, the engine hands sign-ins to `adopt`, and only this room writes the
// store's owner (OWNER_KEY in `_meta`, which the engine and the app read). What a sign-in or a
// sign-out does to the store (claim, wipe, the session's end) is account-changes.ts.
import type { SyncDatabase } from './db';
import type { SupabaseSource } from './remote';
import type { Session } from './session';
import type { TabChannel } from './tabs';

/** The user id local-only rows carry until their owner signs in and claims them. */
export const LOCAL_USER_ID = '00000000-0000-0000-0000-000000000000';
/** `_meta` key of the store's owner: written here only, read by the engine and the app. */
export const OWNER_KEY = 'userId';

/** What a sign-out does beside the wipe (OutpostSyncOptions). */
export interface SignOutHooks {
  /** The client whose session ends (or the promise of it: waited for). */
  supabase: SupabaseSource;
  /** Receives the ending session's refresh token, to revoke it later. */
  keepForRevocation?: ((refreshToken: string) => void) | undefined;
  /** Called after the wipe. */
  onWipe?: (() => Promise<void> | void) | undefined;
}

/** The device's user: who writes, who owns the store, and the sign-in and sign-out that change it. */
export interface Account {
  /**
   * The user this device's writes are made as: the stored owner, then the session's user
   * once known or adopted (a session that ends elsewhere leaves it), LOCAL_USER_ID after a
   * wipe.
   */
  userId: () => string;
  /** Settles once the stored owner is read: writes wait for it (RepoContext.ready). */
  readonly ready: Promise<void>;
  /** The user whose data the store holds; null before anyone signed in here (live-queryable). */
  owner: () => Promise<string | null>;
  /**
   * Makes the store (stored owner `owner`) belong to `userId`, who has signed in: local-only
   * rows are claimed (their owner columns set to the real user); a store of another user is
   * wiped first, queued changes included. The app asks before that: its sign-in and sign-up
   * screens count the changes a different account's sign-in would drop
   * (use-unsynced-guard.ts) and go on only once the person agrees.
   */
  adopt(userId: string, owner: unknown): Promise<void>;
  /**
   * Ends the session on this device and wipes the store; every tab is told. Call it with no
   * engine running in any tab (leadership's `alone`), once the person agreed to lose what is
   * unsynced.
   */
  signOut(hooks: SignOutHooks): Promise<void>;
  /** Another tab signed out and wiped the store: writes from now on are local-only. */
  wiped(): void;
  /** Stops following the session. */
  close(): void;
}

/**
 * The account of the device database `db`, following `session` (the engine's Remote is one);
 * a sign-out here tells the other `tabs`.
 */
export function createAccount(db: SyncDatabase, session: Session, tabs?: TabChannel): Account {
  let user = LOCAL_USER_ID;
  const signedIn = (id: string | null) => {
    if (id) user = id;
  };
  // Closing the database before this settles is fine.
  const ready = db
    .getMeta<string>(OWNER_KEY)
    .then((id) => {
      if (id && user === LOCAL_USER_ID) user = id;
    })
    .catch(() => undefined);
  const stopAuthWatch = session.onAuthChange(signedIn);
  session
    .userId()
    .then(signedIn)
    .catch(() => undefined);
  // What a sign-in or a sign-out does to the store is loaded when one happens (the first
  // screen never needs it): account-changes.ts.
  const changes = () => import('./account-changes');

  return {
    userId: () => user,
    ready,
    owner: async () => (await db.getMeta<string>(OWNER_KEY)) ?? null,
    async adopt(userId, owner) {
      if (owner === userId) return;
      const { claimRows, wipe } = await changes();
      await db.transaction('rw', db.allTables(), async () => {
        if (owner && owner !== LOCAL_USER_ID) await wipe(db);
        else await claimRows(db, LOCAL_USER_ID, userId);
        await db.setMeta(OWNER_KEY, userId);
      });
      user = userId;
    },
    async signOut(hooks) {
      await (await changes()).endSessionAndWipe(db, hooks);
      user = LOCAL_USER_ID;
      tabs?.post({ type: 'wiped' });
      await hooks.onWipe?.();
    },
    wiped() {
      // Claimed by whoever signs in next.
      user = LOCAL_USER_ID;
    },
    close: stopAuthWatch,
  };
}
