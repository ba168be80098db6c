// The sync kit on Outpost's own app: a backend from supabase/migrations, devices of two
// users, a lost push answer, a hung request on a manual clock, settle, and convergence, which
// must also fail when a device's store differs from what its user may see.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { OUTPOST_APP as outpost, type OutpostSync } from '../../src/data/sync';
import {
  assertConverged,
  deviceDb,
  ManualClock,
  openDevice,
  settle,
  startBackend,
  type Backend,
  type Device,
} from '../../sync/kit/index';

type OutpostDevice = Device<OutpostSync['queries'], OutpostSync['repos']>;

const PUSH = /\/rest\/v1\/rpc\/sync_push$/;

let backend: Backend;
beforeAll(async () => {
  // Outpost's migrations, named as any app's would be: no seed then.
  backend = await startBackend({ migrations: 'supabase/migrations' });
});
afterAll(async () => {
  await backend?.stop();
});

/**
 * Two users, each on a device, sharing a list `ann` made (ben an editor). `clocks` are the
 * devices' engine clocks (default real time).
 */
async function sharedList(
  clocks: { a?: ManualClock; b?: ManualClock } = {},
  requestTimeoutMs?: number,
) {
  const timeout = requestTimeoutMs === undefined ? {} : { requestTimeoutMs };
  const ann = await backend.createUser();
  const ben = await backend.createUser();
  const a: OutpostDevice = await openDevice(backend, outpost, ann, {
    ...timeout,
    ...(clocks.a ? { clock: clocks.a } : {}),
  });
  const b: OutpostDevice = await openDevice(backend, outpost, ben, {
    ...timeout,
    ...(clocks.b ? { clock: clocks.b } : {}),
  });
  const listId = await a.sync.repos.lists.create({ name: 'Groceries', color: 'blue' });
  await settle([a, b]);
  await backend.sql(
    `insert into public.memberships (list_id, user_id, role) values ($1, $2, 'editor')`,
    [listId, ben.id],
  );
  await settle([a, b]);
  return { ann, ben, a, b, listId };
}

describe('the sync kit', () => {
  it('settles two users through a lost push answer, and they converge', async () => {
    // A manual clock each: a device's writes wait on its clock, so nothing is pushed before
    // settle drives that device, and settle moves each device's clock only while syncing it.
    const { a, b, listId } = await sharedList({ a: new ManualClock(), b: new ManualClock() });
    expect(await b.sync.queries.hasList(listId)).toBe(true);

    // Neither hears the other through realtime now: only settle's pulls bring the changes,
    // so a (synced first) gets ben's task only if settle syncs it again after ben's push.
    a.sockets.cutAndHold();
    b.sockets.cutAndHold();
    b.network.script(PUSH, 'drop-response');
    const milk = await b.sync.repos.tasks.create(listId, { title: 'Milk' });
    await a.sync.repos.tasks.create(listId, { title: 'Bread' });
    await a.sync.repos.lists.rename(listId, 'Weekly groceries');
    await settle([a, b]);

    expect(b.network.fired.get('drop-response')).toBe(1);
    // The push whose answer was lost reached the server, and its retry applied nothing twice.
    const titles = await backend.sql<{ title: string }>(
      'select title from public.tasks where list_id = $1 order by title',
      [listId],
    );
    expect(titles.map((row) => row.title)).toEqual(['Bread', 'Milk']);
    expect(await deviceDb(a.sync).rows('tasks').get(milk)).toMatchObject({ title: 'Milk' });
    await assertConverged(backend, [a, b]);
  });

  it('moves a manual clock through a hung request and a backoff', async () => {
    const clock = new ManualClock();
    const { a, b, listId } = await sharedList({ a: clock, b: clock }, 5_000);
    a.network.script(PUSH, 'hang', 'status-503');
    await a.sync.repos.tasks.create(listId, { title: 'Eggs' });
    const before = clock.now();
    await settle([a, b]);
    expect(a.network.fired.get('hang')).toBe(1);
    expect(a.network.fired.get('status-503')).toBe(1);
    // The hung push was abandoned after its timeout, on the manual clock.
    expect(clock.now() - before).toBeGreaterThanOrEqual(5_000);
    await assertConverged(backend, [a, b]);
    expect(await deviceDb(b.sync).rows('tasks').count()).toBe(1);
  });

  it('closes a device whose request hangs on its manual clock', async () => {
    const clock = new ManualClock();
    const { a, listId } = await sharedList({ a: clock });
    a.network.script(PUSH, 'hang');
    await a.sync.repos.tasks.create(listId, { title: 'Never answered' });
    await clock.until(() => a.network.held > 0, { quiet: a.network.idle, maxAdvanceMs: 1_000 });
    await a.close();
    expect(a.network.held).toBe(0);
  });

  it('says which device did not settle', async () => {
    const { a, b, listId } = await sharedList();
    a.online.set(false);
    await a.sync.repos.tasks.create(listId, { title: 'Stuck' });
    await expect(settle([a, b], { rounds: 2 })).rejects.toThrow(
      new RegExp(`${a.name}: offline, 1 queued`),
    );
    a.online.set(true);
    await settle([a, b]);
    await assertConverged(backend, [a, b]);
  });

  it('throws, listing each difference, when a device holds other than what its user may see', async () => {
    const { a, b, listId } = await sharedList();
    const kept = await a.sync.repos.tasks.create(listId, { title: 'Kept' });
    const lost = await a.sync.repos.tasks.create(listId, { title: 'Lost' });
    await settle([a, b]);
    await assertConverged(backend, [a, b]);

    // Behind the engine's back: a field changed, a row gone, a row the server never had.
    const rows = deviceDb(b.sync).rows('tasks');
    const row = await rows.get(kept);
    if (!row) throw new Error('the task did not reach ben');
    await rows.put({ ...row, title: 'Tampered' });
    await rows.delete(lost);
    const stray = crypto.randomUUID();
    await rows.put({ ...row, id: stray });

    const failure = await assertConverged(backend, [a, b]).then(
      () => new Error('assertConverged passed'),
      (error: unknown) => error as Error,
    );
    expect(failure.message).toContain(
      `${b.name}: tasks/${kept}.title: device "Tampered" ≠ server "Kept"`,
    );
    expect(failure.message).toContain(`${b.name}: tasks/${lost}: missing on the device`);
    expect(failure.message).toContain(`${b.name}: tasks/${stray}: extra on the device`);
    expect(failure.message).not.toContain(`${a.name}:`);
  });
});
