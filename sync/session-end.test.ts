// Ending a session with no network, against the installed supabase-js (its auth client's
// storage is not public: these tests pin it) over a fetch that fails every request. Revoking
// the session on the server later is the app's: src/lib/revocations.test.ts.
import { describe, expect, it } from 'vitest';

import {
  authTestClient,
  memoryStorage,
  scriptedFetch,
  type MemoryStorage,
} from '../tests/support/auth-client';
import { endLocalSession } from './session-end';

const STORAGE_KEY = 'test-auth';
const client = (storage: MemoryStorage, fetchImpl: typeof fetch) =>
  authTestClient(storage, fetchImpl, STORAGE_KEY);

/** A stored session as supabase-js writes it; `expiresInSec` from now. */
function storedSession(refreshToken: string, expiresInSec = 3600): string {
  const expiresAt = Math.floor(Date.now() / 1000) + expiresInSec;
  return JSON.stringify({
    access_token: 'header.payload.signature',
    token_type: 'bearer',
    expires_in: expiresInSec,
    expires_at: expiresAt,
    refresh_token: refreshToken,
    user: { id: '0b7d4c57-0000-4000-8000-000000000001', email: 'alice@example.com' },
  });
}

describe('ending the session with no network', () => {
  it("supabase-js's own signOut keeps the session when the network fails (why endLocalSession exists)", async () => {
    const storage = memoryStorage();
    storage.setItem(STORAGE_KEY, storedSession('refresh-1'));
    const { fetch, requests } = scriptedFetch();
    const supabase = client(storage, fetch);

    const { error } = await supabase.auth.signOut({ scope: 'local' });

    expect(error?.name).toBe('AuthRetryableFetchError');
    expect(requests.map((r) => r.path)).toEqual(['/auth/v1/logout?scope=local']);
    expect(storage.getItem(STORAGE_KEY)).not.toBeNull();
  });

  it('removes the stored session without a request, keeps its refresh token and announces SIGNED_OUT', async () => {
    const storage = memoryStorage();
    const session = storedSession('refresh-1');
    storage.setItem(STORAGE_KEY, session);
    storage.setItem(`${STORAGE_KEY}-code-verifier`, 'verifier');
    const { fetch, requests } = scriptedFetch();
    const supabase = client(storage, fetch);
    const events: string[] = [];
    supabase.auth.onAuthStateChange((event) => events.push(event));
    const kept: string[] = [];
    const storedWhenKept: (string | null)[] = [];

    expect(
      await endLocalSession(supabase, (token) => {
        kept.push(token);
        storedWhenKept.push(storage.getItem(STORAGE_KEY));
      }),
    ).toBe(true);

    expect(kept).toEqual(['refresh-1']);
    // Handed over while the session was still stored: a failure to keep it loses nothing.
    expect(storedWhenKept).toEqual([session]);
    expect([...storage.items.keys()]).toEqual([]);
    expect(events).toContain('SIGNED_OUT');
    expect(requests).toEqual([]);
    expect((await supabase.auth.getSession()).data.session).toBeNull();
  });

  it('with no session (local-only use) keeps nothing and still signs out locally', async () => {
    const storage = memoryStorage();
    const { fetch, requests } = scriptedFetch();
    const kept: string[] = [];
    expect(await endLocalSession(client(storage, fetch), (token) => kept.push(token))).toBe(false);
    expect(kept).toEqual([]);
    expect(requests).toEqual([]);
  });

  // What storage holds is checked, not cast: anything but a session with a text refresh token
  // keeps nothing, and is removed all the same.
  it.each(['not json', 'null', '{}', '{"refresh_token":42}', '{"refresh_token":null}'])(
    'removes an unreadable stored session (%s) and keeps no token',
    async (stored) => {
      const storage = memoryStorage();
      storage.setItem(STORAGE_KEY, stored);
      const { fetch, requests } = scriptedFetch();
      const kept: string[] = [];
      expect(await endLocalSession(client(storage, fetch), (token) => kept.push(token))).toBe(
        false,
      );
      expect(kept).toEqual([]);
      expect(storage.getItem(STORAGE_KEY)).toBeNull();
      expect(requests).toEqual([]);
    },
  );

  it('keeps the session when its token cannot be kept', async () => {
    const storage = memoryStorage();
    storage.setItem(STORAGE_KEY, storedSession('refresh-1'));
    const { fetch } = scriptedFetch();
    await expect(
      endLocalSession(client(storage, fetch), () => {
        throw new Error('storage full');
      }),
    ).rejects.toThrow('storage full');
    expect(storage.getItem(STORAGE_KEY)).not.toBeNull();
  });
});
