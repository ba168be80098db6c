// The engine over a scripted server (no network): what it does when handling a failure fails
// too, how it sizes batches after the server refused one as too large, and when it hands
// queued changes to the service worker (requestBackgroundSync).
import 'fake-indexeddb/auto';

import { afterEach, describe, expect, it } from 'vitest';

import type { SyncDatabase } from './db';
import { realClock } from './platform';
import { createSyncEngine, type EngineOptions, type SyncEngine } from './schedule';
import { BATCH_TOO_LARGE_SQLSTATE, SyncError } from './errors';
import { switchableOnline } from './switchable-online';
import type { PullResponse, PushResponse, Remote, WireMutation } from './remote';
import { boardsDevice } from './test-schema';

const USER = 'user-1';

/** A server that applies everything and has nothing to pull; `overrides` script the rest. */
function scriptedRemote(overrides: Partial<Remote> = {}): Remote {
  return {
    userId: () => Promise.resolve(USER),
    push: (_clientId: string, mutations: WireMutation[]): Promise<PushResponse> =>
      Promise.resolve({
        last_seq: mutations.at(-1)?.seq ?? 0,
        results: mutations.map((m) => ({ seq: m.seq, status: 'applied' as const })),
      }),
    pull: (): Promise<PullResponse> =>
      Promise.resolve({ rows: [], cursor: 'c1', has_more: false, schema_version: 1 }),
    refresh: () => Promise.resolve(true),
    subscribeTopic: () => () => undefined,
    onAuthChange: () => () => undefined,
    upload: () => Promise.resolve(),
    signedUrl: () => Promise.resolve('http://127.0.0.1:9/never'),
    cleanupDeletedFiles: () => Promise.resolve(),
    ...overrides,
  };
}

const engines: SyncEngine[] = [];

function engineFor(
  db: SyncDatabase,
  remote: Remote,
  extra: Partial<EngineOptions> = {},
): SyncEngine {
  const engine = createSyncEngine({
    db,
    remote,
    clock: realClock,
    online: switchableOnline(true),
    random: () => 0,
    newId: () => crypto.randomUUID(),
    schemaVersion: 1,
    undoWindowMs: 0,
    ...extra,
  });
  engines.push(engine);
  return engine;
}

afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.stop();
});

async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not true within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('a failure while handling a failure', () => {
  it('never escapes the cycle as an unhandled rejection (CURSOR_EXPIRED on a closed database)', async () => {
    const { db } = boardsDevice('engine');
    await db.setMeta('userId', USER);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      // The tab closes its database while the pull is out; the pull then says the cursor
      // expired, and the resync it starts writes to the closed database.
      const engine = engineFor(
        db,
        scriptedRemote({
          pull: () => {
            db.close();
            return Promise.reject(new SyncError('CURSOR_EXPIRED', 'Refreshing all data'));
          },
        }),
      );
      engine.start();
      await engine.syncNow();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe('batch size after the server refused a batch as too large', () => {
  it('keeps the smaller size instead of going back to 500 and being refused again', async () => {
    const { db, boards, cards } = boardsDevice('engine', USER);
    await db.setMeta('userId', USER);
    const boardId = await boards.create('Big');
    for (let i = 0; i < 300; i++) await cards.create(boardId, `Card ${i}`);
    const queued = await db._outbox.count();
    // This server measures batches its own way: over 100 mutations is too much for it.
    const sizes: number[] = [];
    let refused = 0;
    const real = scriptedRemote();
    const engine = engineFor(
      db,
      scriptedRemote({
        push(clientId, mutations) {
          sizes.push(mutations.length);
          if (mutations.length > 100) {
            refused += 1;
            return Promise.reject(
              new SyncError('SERVER_ERROR', 'batch too large', 400, BATCH_TOO_LARGE_SQLSTATE),
            );
          }
          return real.push(clientId, mutations);
        },
      }),
    );
    engine.start();
    await until(async () => (await db._outbox.count()) === 0);
    // 301 → refused, 150 → refused, then 75 at a time: never above what was refused again.
    expect(sizes.reduce((sum, n, i) => (sizes[i]! <= 100 ? sum + n : sum), 0)).toBe(queued);
    expect(refused).toBe(2);
  });
});

describe('handing queued changes to the service worker', () => {
  it('asks for a background sync when changes are queued offline or the network fails', async () => {
    const { db, boards } = boardsDevice('engine', USER);
    await db.setMeta('userId', USER);
    const online = switchableOnline(false);
    let asked = 0;
    let failPush = false;
    const real = scriptedRemote();
    const engine = engineFor(
      db,
      scriptedRemote({
        push: (clientId, mutations) =>
          failPush
            ? Promise.reject(new SyncError('OFFLINE', 'Failed to fetch'))
            : real.push(clientId, mutations),
      }),
      { online, requestBackgroundSync: () => (asked += 1) },
    );
    engine.start();
    // Offline with nothing queued: nothing to hand over.
    await engine.syncNow();
    expect(asked).toBe(0);

    // Each cycle that cannot send asks again (one registration, however many asks).
    await boards.create('Offline');
    await engine.syncNow();
    expect(asked).toBeGreaterThan(0);

    // Online, but the request never reaches the server.
    online.set(true);
    failPush = true;
    const beforeFailure = asked;
    await engine.syncNow();
    expect(asked).toBeGreaterThan(beforeFailure);

    // Sent: nothing left to hand over.
    failPush = false;
    await engine.syncNow();
    expect(await db._outbox.count()).toBe(0);
    const afterSent = asked;
    online.set(false);
    await engine.syncNow();
    expect(asked).toBe(afterSent);
  });
});
