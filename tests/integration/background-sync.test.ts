// The service worker's sync (sync/background.ts) on Outpost's app, against the kit's backend:
// an edit made offline in a tab that then closed is sent by a background run, whatever the
// network does meanwhile (offline, a 5xx, a lost answer, a token that expires mid-run), never
// twice; a tab that leads keeps the sync; a tab that opens mid-run follows, then leads; with
// no session nothing is sent; and the run says which rows others changed.
import type { SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { OUTPOST_APP, type OutpostSync } from '../../src/data/sync';
import {
  syncInBackground,
  type BackgroundResult,
  type BackgroundSyncOptions,
} from '../../sync/background';
import {
  memoryLock,
  openDevice,
  queuedChanges,
  settle,
  startBackend,
  type Backend,
  type Device,
  type MemoryLock,
  type User,
} from '../../sync/kit/index';

type OutpostDevice = Device<OutpostSync['queries'], OutpostSync['repos']>;

const PUSH = /\/rest\/v1\/rpc\/sync_push$/;
const PUSH_PATH = '/rest/v1/rpc/sync_push';

let backend: Backend;
beforeAll(async () => {
  backend = await startBackend({ migrations: 'supabase/migrations' });
});
afterAll(async () => {
  await backend?.stop();
});

/** A user's tab on the engine's `lock`, holding a synced list; the tab is open and leads. */
async function tabWithList(lock: MemoryLock) {
  const user = await backend.createUser();
  const tab: OutpostDevice = await openDevice(backend, OUTPOST_APP, user, {
    sync: { leadership: lock.leadership },
  });
  const listId = await tab.sync.repos.lists.create({ name: 'Site', color: 'blue' });
  await settle([tab]);
  return { user, tab, listId };
}

/** An edit made offline, then every tab of the app closed: the lock is free. */
async function editOfflineThenClose(tab: OutpostDevice, listId: string): Promise<string> {
  tab.online.set(false);
  tab.network.offline = true;
  const id = await tab.sync.repos.tasks.create(listId, { title: 'Check the pump' });
  await tab.sync.stop();
  return id;
}

/** One background run over the tab's device database, as the worker would make it. */
function runInWorker(
  tab: OutpostDevice,
  lock: MemoryLock,
  extra: Partial<BackgroundSyncOptions> = {},
): Promise<BackgroundResult> {
  return syncInBackground(
    {
      supabase: tab.supabase,
      dbName: 'kit',
      indexedDb: tab.indexedDb,
      lock: lock.background,
      tabs: undefined,
      random: () => 0,
      ...extra,
    },
    OUTPOST_APP,
  );
}

async function tasksTitled(listId: string, title: string): Promise<number> {
  const rows = await backend.sql<{ n: number }>(
    'select count(*)::int as n from public.tasks where list_id = $1 and title = $2',
    [listId, title],
  );
  return rows[0]?.n ?? 0;
}

describe('sync in the service worker', () => {
  it('sends an edit made offline once the network is back, with every tab closed', async () => {
    const lock = memoryLock();
    const { tab, listId } = await tabWithList(lock);
    await editOfflineThenClose(tab, listId);
    expect(lock.held()).toBe(false);

    // Still offline when the browser first tries: nothing lost, the browser retries.
    const offline = await runInWorker(tab, lock);
    expect(offline.outcome).toBe('failed');
    expect(offline.pending).toBe(1);
    expect(await tasksTitled(listId, 'Check the pump')).toBe(0);

    tab.network.heal();
    const online = await runInWorker(tab, lock);
    expect(online).toMatchObject({ outcome: 'synced', pending: 0 });
    expect(await tasksTitled(listId, 'Check the pump')).toBe(1);
    expect(await queuedChanges(tab.sync)).toEqual([]);
    expect(lock.held()).toBe(false);
    await tab.close();
  });

  it('retries after a 5xx and after a lost answer without applying anything twice', async () => {
    const lock = memoryLock();
    const { tab, listId } = await tabWithList(lock);
    await editOfflineThenClose(tab, listId);
    tab.network.heal();

    tab.network.script(PUSH, 'status-503');
    expect((await runInWorker(tab, lock)).outcome).toBe('failed');
    tab.network.script(PUSH, 'drop-response');
    expect((await runInWorker(tab, lock)).outcome).toBe('failed');
    // The lost answer's push was applied: the retry replays the same seq, applied once.
    expect(await tasksTitled(listId, 'Check the pump')).toBe(1);
    const pushesBefore = tab.network.count(PUSH_PATH);

    expect((await runInWorker(tab, lock)).outcome).toBe('synced');
    expect(tab.network.count(PUSH_PATH)).toBe(pushesBefore + 1);
    expect(await tasksTitled(listId, 'Check the pump')).toBe(1);
    expect(await queuedChanges(tab.sync)).toEqual([]);
    expect(tab.network.fired.get('status-503')).toBe(1);
    expect(tab.network.fired.get('drop-response')).toBe(1);
    await tab.close();
  });

  it('refreshes a session whose token expires mid-run, and sends in the same run', async () => {
    const lock = memoryLock();
    const { tab, listId } = await tabWithList(lock);
    await editOfflineThenClose(tab, listId);
    tab.network.heal();
    tab.network.script(PUSH, 'expire-token');

    const result = await runInWorker(tab, lock);
    expect(result).toMatchObject({ outcome: 'synced', pending: 0 });
    expect(tab.network.fired.get('expire-token')).toBe(1);
    expect(await tasksTitled(listId, 'Check the pump')).toBe(1);
    await tab.close();
  });

  it('leaves the sync to a tab that leads, asking it to sync, and says what it still holds', async () => {
    const lock = memoryLock();
    const { tab, listId } = await tabWithList(lock);
    const messages: string[] = [];
    const asTab = {
      tabs: {
        post: (message: { type: string }) => messages.push(message.type),
        subscribe: () => () => undefined,
        close: () => undefined,
      },
    };
    const idle = await runInWorker(tab, lock, asTab);
    expect(idle).toMatchObject({ outcome: 'tab-leads', pending: 0 });
    expect(messages).toEqual(['sync']);
    // The tab still leads; with a change it cannot send yet, the run says so (the worker then
    // asks the browser to try again later, in case the tab closes first).
    expect(lock.held()).toBe(true);
    tab.online.set(false);
    tab.network.offline = true;
    await tab.sync.repos.tasks.create(listId, { title: 'Still the tab' });
    expect(await runInWorker(tab, lock, asTab)).toMatchObject({
      outcome: 'tab-leads',
      pending: 1,
    });
    tab.network.heal();
    tab.online.set(true);
    await settle([tab]);
    expect(await tasksTitled(listId, 'Still the tab')).toBe(1);
    await tab.close();
  });

  it('a tab opened mid-run waits for the run, then leads; nothing is sent twice', async () => {
    const lock = memoryLock();
    const { tab, listId, user } = await tabWithList(lock);
    await editOfflineThenClose(tab, listId);
    tab.network.heal();
    // The run's push is held on the wire while a tab opens over the same database.
    let releasePush: () => void = () => undefined;
    const pushHeld = new Promise<void>((resolve) => (releasePush = resolve));
    const wire = tab.supabase;
    const run = runInWorker(tab, lock, {
      supabase: withHeldRpc(wire, 'sync_push', pushHeld),
    });
    await until(() => lock.held());
    const reopened = await reopenTab(tab, lock, user);
    expect(lock.waiting()).toBe(1);
    releasePush();
    expect((await run).outcome).toBe('synced');
    // The tab's engine got the lock once the run let go, and finds nothing left to send.
    await settle([reopened]);
    expect(await tasksTitled(listId, 'Check the pump')).toBe(1);
    expect(await queuedChanges(reopened.sync)).toEqual([]);
    await reopened.close();
  });

  it('sends nothing once the session has ended on the device', async () => {
    const lock = memoryLock();
    const { tab, listId } = await tabWithList(lock);
    await editOfflineThenClose(tab, listId);
    tab.network.heal();
    tab.sync.start();
    const { signedOut } = await tab.sync.signOut({ force: true });
    expect(signedOut).toBe(true);
    await tab.sync.stop();
    const pushes = tab.network.count(PUSH_PATH);

    const result = await runInWorker(tab, lock);
    expect(result.outcome).toBe('signed-out');
    expect(tab.network.count(PUSH_PATH)).toBe(pushes);
    expect(await tasksTitled(listId, 'Check the pump')).toBe(0);
    await tab.close();
  });

  it("reports the rows others changed, such as a task assigned to the device's user", async () => {
    const lock = memoryLock();
    const { tab, listId, user } = await tabWithList(lock);
    const taskId = await tab.sync.repos.tasks.create(listId, { title: 'Read the meter' });
    await settle([tab]);
    await tab.sync.stop();
    // While the app is closed, someone assigns the task to the user on the server.
    await backend.sql('update public.tasks set assignee_id = $1 where id = $2', [
      tabUserId(tab),
      taskId,
    ]);
    const result = await runInWorker(tab, lock);
    expect(result.outcome).toBe('synced');
    const change = result.changes.find((c) => c.table === 'tasks' && c.row.id === taskId);
    expect(change?.row.assignee_id).toBe(tabUserId(tab));
    expect(change?.before?.assignee_id).toBeNull();
    expect(user.email).toBe(tab.name);
    await tab.close();
  });
});

function tabUserId(tab: OutpostDevice): string {
  const id = tab.user?.id;
  if (!id) throw new Error('the tab has no user');
  return id;
}

/** A new tab of the same user over the same device database, queued for the lock. */
async function reopenTab(tab: OutpostDevice, lock: MemoryLock, user: User): Promise<OutpostDevice> {
  await tab.close();
  return openDevice(backend, OUTPOST_APP, user, {
    indexedDb: tab.indexedDb,
    sync: { leadership: lock.leadership },
  });
}

/** `client` whose rpc(`fn`) is sent only once `gate` settles (the engine's call shape). */
function withHeldRpc(client: SupabaseClient, fn: string, gate: Promise<void>): SupabaseClient {
  type Rpc = (name: string, args: unknown) => { abortSignal(signal: AbortSignal): unknown };
  const rpc = client.rpc.bind(client) as unknown as Rpc;
  return new Proxy(client, {
    get(target, key, receiver) {
      if (key !== 'rpc') return Reflect.get(target, key, receiver) as unknown;
      return (name: string, args: unknown) => {
        if (name !== fn) return rpc(name, args);
        return {
          abortSignal: (signal: AbortSignal) =>
            gate.then(() => rpc(name, args).abortSignal(signal)),
        };
      };
    },
  });
}

/** Resolves once `check()` holds, looking after each turn of the event loop. */
async function until(check: () => boolean): Promise<void> {
  for (let turns = 0; turns < 10_000; turns++) {
    if (check()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('until: the condition never held');
}
