// Revoking a signed-out session's refresh token on the server, and the queue that keeps such
// tokens across reloads and retries them, against the installed supabase-js (its auth
// client's request parts are not public: these tests pin them) over a scripted fetch, so
// every answer the server could give is played without a server. Ending the session on the
// device is the sync library's: sync/session-end.test.ts.
import { describe, expect, it } from 'vitest';

import type { Clock } from '@sync/index';
import { switchableOnline } from '@sync/testing';

import {
  authTestClient,
  jsonResponse,
  memoryStorage,
  scriptedFetch,
} from '../../tests/support/auth-client';

import {
  createRevocationQueue,
  createSessionRevocations,
  REVOCATIONS_KEY,
  revokeRefreshToken,
  type RevocationStorage,
} from './revocations';

const STORAGE_KEY = `test-auth-${crypto.randomUUID()}`;

const client = (storage: RevocationStorage, fetchImpl: typeof fetch) =>
  authTestClient(storage, fetchImpl, STORAGE_KEY);
const json = jsonResponse;

describe('revoking a refresh token', () => {
  const TIMEOUT_MS = 5_000;

  it('redeems the token, then logs its session out with the access token it got', async () => {
    const { fetch, requests } = scriptedFetch([
      json(200, { access_token: 'fresh-access', refresh_token: 'refresh-2', expires_in: 3600 }),
      new Response(null, { status: 204 }),
    ]);
    expect(await revokeRefreshToken(client(memoryStorage(), fetch), 'refresh-1', TIMEOUT_MS)).toBe(
      true,
    );
    expect(requests.map((r) => r.path)).toEqual([
      '/auth/v1/token?grant_type=refresh_token',
      '/auth/v1/logout?scope=local',
    ]);
    expect(JSON.parse(requests[0]?.body ?? '{}')).toEqual({ refresh_token: 'refresh-1' });
    expect(requests[1]?.authorization).toBe('Bearer fresh-access');
  });

  it('is done when the server refuses the token, and when the session is gone at logout', async () => {
    for (const answers of [
      [json(400, { code: 400, error_code: 'refresh_token_not_found', msg: 'Not Found' })],
      [json(400, { code: 'refresh_token_already_used', message: 'Already Used' })],
      [
        json(200, { access_token: 'fresh-access', refresh_token: 'refresh-2', expires_in: 3600 }),
        json(403, { code: 'session_not_found', message: 'Session not found' }),
      ],
    ]) {
      const { fetch } = scriptedFetch(answers);
      expect(
        await revokeRefreshToken(client(memoryStorage(), fetch), 'refresh-1', TIMEOUT_MS),
      ).toBe(true);
    }
  });

  it('tries again after a network failure, a 5xx, a rate limit or a logout lost on the way', async () => {
    for (const answers of [
      ['network-error' as const],
      [json(503, { code: 'unexpected_failure' })],
      [json(429, { code: 'over_request_rate_limit' })],
      [
        json(200, { access_token: 'fresh-access', refresh_token: 'refresh-2', expires_in: 3600 }),
        'network-error' as const,
      ],
    ]) {
      const { fetch } = scriptedFetch(answers);
      expect(
        await revokeRefreshToken(client(memoryStorage(), fetch), 'refresh-1', TIMEOUT_MS),
      ).toBe(false);
    }
  });

  it('never stores what it redeems in the auth client', async () => {
    const storage = memoryStorage();
    const { fetch } = scriptedFetch([
      json(200, { access_token: 'fresh-access', refresh_token: 'refresh-2', expires_in: 3600 }),
      new Response(null, { status: 204 }),
    ]);
    const supabase = client(storage, fetch);
    const events: string[] = [];
    supabase.auth.onAuthStateChange((event) => events.push(event));
    await revokeRefreshToken(supabase, 'refresh-1', TIMEOUT_MS);
    expect(storage.getItem(STORAGE_KEY)).toBeNull();
    expect(events.filter((e) => e !== 'INITIAL_SESSION')).toEqual([]);
  });
});

/** Timers that fire only when the test says. */
function manualClock() {
  let time = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  let next = 1;
  const clock: Clock & { advance(ms: number): void; pending(): number } = {
    now: () => time,
    setTimeout(fn, ms) {
      timers.set(next, { at: time + ms, fn });
      return next++;
    },
    clearTimeout(handle) {
      if (typeof handle === 'number') timers.delete(handle);
    },
    advance(ms) {
      time += ms;
      for (const [id, timer] of [...timers]) {
        if (timer.at <= time) {
          timers.delete(id);
          timer.fn();
        }
      }
    },
    pending: () => timers.size,
  };
  return clock;
}

describe('the revocation queue', () => {
  const KEY = 'revoke';

  function setup(online: boolean, outcomes: boolean[]) {
    const storage = memoryStorage();
    const signal = switchableOnline(online);
    const clock = manualClock();
    const attempts: string[] = [];
    const queue = createRevocationQueue({
      storage,
      key: KEY,
      online: signal,
      clock,
      random: () => 0.5,
      revoke(token) {
        attempts.push(token);
        return Promise.resolve(outcomes.shift() ?? false);
      },
    });
    return { storage, signal, clock, attempts, queue };
  }

  /** Lets the queue's promise chain run. */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

  it('keeps a token across a reload while offline, and revokes it when the network comes back', async () => {
    const first = setup(false, []);
    first.queue.start();
    first.queue.add('refresh-1');
    await settle();
    expect(first.attempts).toEqual([]);
    first.queue.stop();

    // The next start of the app, over the same storage.
    const signal = switchableOnline(false);
    const attempts: string[] = [];
    const queue = createRevocationQueue({
      storage: first.storage,
      key: KEY,
      online: signal,
      clock: manualClock(),
      random: () => 0,
      revoke(token) {
        attempts.push(token);
        return Promise.resolve(true);
      },
    });
    queue.start();
    expect(queue.pending()).toEqual(['refresh-1']);
    signal.set(true);
    await settle();
    expect(attempts).toEqual(['refresh-1']);
    expect(queue.pending()).toEqual([]);
    expect(first.storage.getItem(KEY)).toBeNull();
  });

  it('retries after a failure with backoff until the server has it', async () => {
    const { queue, clock, attempts } = setup(true, [false, false, true]);
    queue.start();
    queue.add('refresh-1');
    await settle();
    expect(attempts).toHaveLength(1);
    // Backoff with jitter 0.5: 500 ms, then 1 s.
    clock.advance(499);
    await settle();
    expect(attempts).toHaveLength(1);
    clock.advance(1);
    await settle();
    expect(attempts).toHaveLength(2);
    clock.advance(1_000);
    await settle();
    expect(attempts).toHaveLength(3);
    expect(queue.pending()).toEqual([]);
    expect(clock.pending()).toBe(0);
  });

  it('a token added while an attempt is in flight gets its own attempt', async () => {
    const { queue, attempts } = setup(true, [true, true]);
    queue.start();
    queue.add('refresh-1');
    queue.add('refresh-2');
    await settle();
    expect(attempts).toEqual(['refresh-1', 'refresh-2']);
    expect(queue.pending()).toEqual([]);
  });
});

describe("the app's revocations", () => {
  it('keep tokens under the key older versions used, and revoke them through the client', async () => {
    const storage = memoryStorage();
    storage.setItem(REVOCATIONS_KEY, JSON.stringify(['refresh-0']));
    const { fetch, requests } = scriptedFetch([
      json(400, { code: 400, error_code: 'refresh_token_not_found', msg: 'Not Found' }),
      json(400, { code: 400, error_code: 'refresh_token_not_found', msg: 'Not Found' }),
    ]);
    const online = switchableOnline(false);
    const queue = createSessionRevocations(client(memoryStorage(), fetch), {
      online,
      storage,
    });
    queue.start();
    queue.add('refresh-1');
    expect(JSON.parse(storage.getItem(REVOCATIONS_KEY) ?? '[]')).toEqual([
      'refresh-0',
      'refresh-1',
    ]);
    online.set(true);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(requests.map((r) => JSON.parse(r.body ?? '{}') as unknown)).toEqual([
      { refresh_token: 'refresh-0' },
      { refresh_token: 'refresh-1' },
    ]);
    expect(storage.getItem(REVOCATIONS_KEY)).toBeNull();
    queue.stop();
  });
});
