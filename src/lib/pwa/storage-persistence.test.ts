// Persistent storage is asked for once, after the first real save (never at load, never again
// after the browser answered), and what Settings shows comes from the browser's own figures.
import { describe, expect, it } from 'vitest';

import {
  PERSIST_ASKED_KEY,
  requestPersistence,
  requestPersistenceAfterFirstSave,
  storageInfo,
} from './storage-persistence';

function fakeStorage(options: { grant: boolean; usage?: number; quota?: number }) {
  let persisted = false;
  const calls = { persist: 0 };
  return {
    calls,
    storage: {
      persist: () => {
        calls.persist += 1;
        persisted = options.grant;
        return Promise.resolve(options.grant);
      },
      persisted: () => Promise.resolve(persisted),
      estimate: () => Promise.resolve({ usage: options.usage ?? 0, quota: options.quota ?? 0 }),
    },
  };
}

describe('storage persistence', () => {
  it('asks once, after the first save, and never again', async () => {
    const { storage, calls } = fakeStorage({ grant: false });
    requestPersistenceAfterFirstSave(storage);
    requestPersistenceAfterFirstSave(storage);
    requestPersistenceAfterFirstSave(storage);
    await Promise.resolve();
    expect(calls.persist).toBe(1);
    expect(localStorage.getItem(PERSIST_ASKED_KEY)).toBe('1');
  });

  it('asks again when the user presses "Keep data on this device", and reports the answer', async () => {
    const { storage, calls } = fakeStorage({ grant: true, usage: 1_900_000, quota: 11e9 });
    localStorage.setItem(PERSIST_ASKED_KEY, '1');
    expect(await requestPersistence(storage)).toBe(true);
    expect(calls.persist).toBe(1);
    expect(await storageInfo(storage)).toEqual({
      persisted: true,
      usage: 1_900_000,
      quota: 11e9,
    });
  });

  it('copes with a browser without the storage API', async () => {
    requestPersistenceAfterFirstSave(undefined);
    expect(await requestPersistence(undefined)).toBe(false);
    expect(await storageInfo(undefined)).toEqual({ persisted: false, usage: null, quota: null });
  });
});
