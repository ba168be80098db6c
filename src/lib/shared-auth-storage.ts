// Where supabase-js keeps the session: IndexedDB, so the service worker (which has no
// localStorage) signs its background sync with the same session as the tabs, and a token one
// of them refreshes is the one all of them use next (a refresh token is single-use). The
// tabs also mirror it to localStorage: the session gate reads that at start-up, synchronously,
// before supabase-js has loaded (src/lib/session.tsx, storedUser). IndexedDB is the truth; the
// mirror is read as a session only once, to move a session kept there by an earlier version of
// the app (or a test's seeded one) into IndexedDB. Only one of the tabs and the worker reads,
// refreshes and writes it at a time: supabase-js's auth lock over Web Locks (src/lib/supabase.ts).
import { createStore, del, get, set, type UseStore } from 'idb-keyval';

/** supabase-js's SupportedStorage, as asynchronous as it allows. */
export interface AuthStorage {
  getItem(key: string): Promise<string | null>;
  setItem(key: string, value: string): Promise<void>;
  removeItem(key: string): Promise<void>;
}

/** The synchronous storage a tab mirrors into (localStorage). */
export type MirrorStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

let store: UseStore | undefined;
/** The session's store, opened on first use. */
function sessionStore(): UseStore {
  store ??= createStore('outpost-auth', 'session');
  return store;
}

/**
 * The auth storage the tabs (`mirror`: localStorage) and the worker (no mirror) share. A
 * mirror that cannot be written (storage full, private mode) is skipped: IndexedDB holds the
 * session either way.
 */
export function sharedAuthStorage(mirror?: MirrorStorage): AuthStorage {
  const mirrored = (write: (storage: MirrorStorage) => void) => {
    if (!mirror) return;
    try {
      write(mirror);
    } catch {
      // The gate then reads an older copy; the session itself is in IndexedDB.
    }
  };
  return {
    async getItem(key) {
      const kept = await get<string>(key, sessionStore());
      if (typeof kept === 'string') return kept;
      // A session an earlier version kept in localStorage moves here once.
      const legacy = mirror?.getItem(key) ?? null;
      if (legacy !== null) await set(key, legacy, sessionStore());
      return legacy;
    },
    async setItem(key, value) {
      await set(key, value, sessionStore());
      mirrored((storage) => storage.setItem(key, value));
    },
    async removeItem(key) {
      await del(key, sessionStore());
      mirrored((storage) => storage.removeItem(key));
    },
  };
}
