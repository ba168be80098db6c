// The session's storage shared by the tabs and the service worker: IndexedDB is the truth, a
// tab mirrors it to localStorage for the start-up gate, a session kept only in localStorage
// (an earlier version of the app) moves into IndexedDB once, and removal clears both.
import { clear, createStore } from 'idb-keyval';
import { afterEach, describe, expect, it } from 'vitest';

import { sharedAuthStorage, type MirrorStorage } from './shared-auth-storage';

const KEY = 'outpost-auth';

function mirror(
  initial: Record<string, string> = {},
): MirrorStorage & { map: Map<string, string> } {
  const map = new Map(Object.entries(initial));
  return {
    map,
    getItem: (key) => map.get(key) ?? null,
    setItem: (key, value) => void map.set(key, value),
    removeItem: (key) => void map.delete(key),
  };
}

afterEach(async () => {
  await clear(createStore('outpost-auth', 'session'));
});

describe('sharedAuthStorage', () => {
  it('keeps the session for the worker (no mirror) and the tabs alike', async () => {
    const tab = sharedAuthStorage(mirror());
    const worker = sharedAuthStorage();
    await tab.setItem(KEY, 'session-1');
    expect(await worker.getItem(KEY)).toBe('session-1');
    // The worker refreshes the token: the tab reads the new session, not its mirror.
    await worker.setItem(KEY, 'session-2');
    expect(await tab.getItem(KEY)).toBe('session-2');
  });

  it('mirrors what a tab writes and removes, for the start-up gate', async () => {
    const local = mirror();
    const tab = sharedAuthStorage(local);
    await tab.setItem(KEY, 'session-1');
    expect(local.map.get(KEY)).toBe('session-1');
    await tab.removeItem(KEY);
    expect(local.map.has(KEY)).toBe(false);
    expect(await sharedAuthStorage().getItem(KEY)).toBeNull();
  });

  it('moves a session kept only in localStorage into IndexedDB, once', async () => {
    const local = mirror({ [KEY]: 'old-session' });
    expect(await sharedAuthStorage(local).getItem(KEY)).toBe('old-session');
    // The worker, which has no localStorage, now has it too.
    expect(await sharedAuthStorage().getItem(KEY)).toBe('old-session');
    // A later stale copy in localStorage does not win over IndexedDB.
    local.map.set(KEY, 'stale');
    expect(await sharedAuthStorage(local).getItem(KEY)).toBe('old-session');
  });

  it('keeps the session when the mirror cannot be written', async () => {
    const full: MirrorStorage = {
      getItem: () => null,
      setItem: () => {
        throw new DOMException('full', 'QuotaExceededError');
      },
      removeItem: () => undefined,
    };
    await sharedAuthStorage(full).setItem(KEY, 'session-1');
    expect(await sharedAuthStorage().getItem(KEY)).toBe('session-1');
  });
});
