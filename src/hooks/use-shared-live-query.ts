// One Dexie live query per key for however many components show its result. Each liveQuery
// re-reads IndexedDB after every write; three panels of one screen asking the same question
// would read three times, and in Chromium those reads queue ahead of the sync engine's next
// push. Here the first subscriber starts the query, the others share its result, and the
// last one to go stops it.
import { liveQuery } from '@sync/index';
import { useMemo, useSyncExternalStore } from 'react';

interface SharedQuery<T> {
  subscribe: (onChange: () => void) => () => void;
  getSnapshot: () => T | undefined;
}

const queries = new WeakMap<object, Map<string, SharedQuery<unknown>>>();

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
        stop?.();
        stop = undefined;
        value = undefined;
        forKey.delete(key);
      };
    },
    getSnapshot: () => value,
  };
  byKey.set(key, query);
  return query;
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
