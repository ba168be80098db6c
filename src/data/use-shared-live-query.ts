// One Dexie live query per key for however many components show its result. Each liveQuery
// re-reads IndexedDB after every write; three panels of one screen asking the same question
// would read three times, and in Chromium those reads queue ahead of the sync engine's next
// push. Here the first subscriber starts the query, the others share its result, and the
// last one to go stops it.
import { liveRead as liveQuery } from '@sync/index';
import { useMemo, useSyncExternalStore } from 'react';

interface SharedQuery<T> {
  subscribe: (onChange: () => void) => () => void;
  getSnapshot: () => T | undefined;
}

const queries = new WeakMap<object, Map<string, SharedQuery<unknown>>>();

/** A question for the device database: its key names everything `read` reads. */
export interface QuerySpec<T> {
  key: string;
  read: () => Promise<T>;
}

function sharedQuery<T>(owner: object, key: string, querier: () => Promise<T>): SharedQuery<T> {
  let byKey = queries.get(owner);
  if (!byKey) {
    byKey = new Map<string, SharedQuery<unknown>>();
    queries.set(owner, byKey);
  }
  const forKey = byKey;
  const found = byKey.get(key) as SharedQuery<T> | undefined;
  if (found) return found;
  const listeners = new Set<() => void>();
  let value: T | undefined;
  let stop: (() => void) | undefined;
  const query: SharedQuery<T> = {
    subscribe(onChange) {
      listeners.add(onChange);
      if (!stop) {
        const subscription = liveQuery(querier).subscribe({
          next: (next) => {
            value = next;
            for (const listener of [...listeners]) listener();
          },
          error: (error: unknown) => console.error('[live query]', key, error),
        });
        stop = () => subscription.unsubscribe();
      }
      return () => {
        listeners.delete(onChange);
        if (listeners.size > 0) return;
        // A component that takes over in the same commit (a screen replacing another that
        // showed the same data) subscribes right after this: the query stops only if nobody
        // has by then, else the newcomer would see its result go and come back (its screen
        // unmounted and mounted again, losing focus).
        queueMicrotask(() => {
          if (listeners.size > 0) return;
          stop?.();
          stop = undefined;
          value = undefined;
          forKey.delete(key);
        });
      };
    },
    getSnapshot: () => value,
  };
  byKey.set(key, query);
  return query;
}

/** A shared query started ahead of its components (warmSharedQuery). */
export interface WarmQuery<T> {
  /** Its first result. */
  first: Promise<T>;
  /** Lets it go: it stops unless components show it (idempotent). */
  release: () => void;
}

/**
 * Starts `read`'s shared live query before any component asks for it (the first screen's
 * reads, in main.tsx, while the screen's code is still loading): the first component to ask
 * with the same `owner` and `key` then has the result at its first render. The query is kept
 * until released; it goes on for as long as components show it.
 */
export function warmSharedQuery<T>(owner: object, { key, read }: QuerySpec<T>): WarmQuery<T> {
  const query = sharedQuery(owner, key, read);
  let delivered!: (value: T) => void;
  const first = new Promise<T>((resolve) => (delivered = resolve));
  const unsubscribe = query.subscribe(() => {
    const value = query.getSnapshot();
    if (value !== undefined) delivered(value);
  });
  let released = false;
  return {
    first,
    release: () => {
      if (released) return;
      released = true;
      unsubscribe();
    },
  };
}

const NOTHING: SharedQuery<undefined> = {
  subscribe: () => () => undefined,
  getSnapshot: () => undefined,
};

/**
 * `querier`'s live result, shared by every component that asks with the same `owner` and
 * `key` (the key must name everything the querier reads); undefined until the first result,
 * or while `key` is null.
 */
export function useSharedLiveQuery<T>(
  owner: object,
  key: string | null,
  querier: () => Promise<T>,
): T | undefined {
  // The querier is fixed by owner and key: a new closure with the same key is the same query.
  const query: SharedQuery<T | undefined> = useMemo(
    () => (key === null ? NOTHING : sharedQuery(owner, key, querier)),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [owner, key],
  );
  return useSyncExternalStore<T | undefined>(query.subscribe, query.getSnapshot);
}

/** The shared queries `queries` as one: their results in order, the same array until one changes. */
function allOf<T>(queries: readonly SharedQuery<T>[]) {
  let last: readonly (T | undefined)[] = [];
  return {
    subscribe: (onChange: () => void) => {
      const leaves = queries.map((query) => query.subscribe(onChange));
      return () => leaves.forEach((leave) => leave());
    },
    getSnapshot: (): readonly (T | undefined)[] => {
      const now = queries.map((query) => query.getSnapshot());
      if (now.length !== last.length || now.some((value, i) => value !== last[i])) last = now;
      return last;
    },
  };
}

/**
 * useSharedLiveQuery for as many questions as `specs` holds (one per list of the sidebar):
 * their results in the same order, each undefined until its first; each query is shared and
 * read again only when what it read changes.
 */
export function useSharedLiveQueries<T>(
  owner: object,
  specs: readonly QuerySpec<T>[],
): readonly (T | undefined)[] {
  const keys = specs.map((spec) => spec.key).join('\n');
  // The specs are fixed by owner and keys, as useSharedLiveQuery's querier is by its key.
  const all = useMemo(
    () => allOf(specs.map(({ key, read }) => sharedQuery(owner, key, read))),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [owner, keys],
  );
  return useSyncExternalStore(all.subscribe, all.getSnapshot);
}
