// I1 (no lost writes) and I6 (idempotent files) under injected faults, plus the engine's
// answers to 401, CURSOR_EXPIRED and APP_OUTDATED, against the devstack.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { SEED, startTestDevstack, type TestDevstack } from '../support/devstack';
import { FAULTS, FaultyNetwork, type Fault } from '../support/faults';
import { settled, startDevice, waitFor, type Device } from '../support/sync-client';

let stack: TestDevstack;
const devices: Device[] = [];
const PUSH = /\/rpc\/sync_push$/;

async function device(email: string, options: Parameters<typeof startDevice>[2] = {}) {
  const d = await startDevice(stack, email, options);
  devices.push(d);
  return d;
}

async function serverTask(id: string) {
  const { rows } = await stack.db.query<{ title: string; version: string | number }>(
    'select title, version from public.tasks where id = $1',
    [id],
  );
  return rows[0];
}

beforeAll(async () => {
  stack = await startTestDevstack('pglite');
});
afterEach(async () => {
  for (const d of devices.splice(0)) await d.close();
});
afterAll(async () => {
  await stack?.stop();
});

describe('I1: every write lands exactly once, whatever the network does', () => {
  // Every fault but the expired token and the hung request, which have their own tests.
  const faults: Fault[] = FAULTS.filter((fault) => fault !== 'expire-token' && fault !== 'hang');
  it.each(faults)('%s on sync_push', async (fault) => {
    const net = new FaultyNetwork();
    const alice = await device('alice@example.com', { fetch: net.fetch });
    await alice.sync.engine.syncNow();
    const taskId = SEED.task(10);
    const before = Number((await serverTask(taskId))?.version);

    net.script(PUSH, fault);
    await alice.sync.repos.tasks.update(taskId, { title: `After ${fault}` });
    const created = await alice.sync.repos.tasks.create(SEED.list, { title: `New under ${fault}` });
    await settled(alice);

    expect(net.fired.get(fault)).toBe(1);
    const after = await serverTask(taskId);
    expect(after?.title).toBe(`After ${fault}`);
    // Applied once: one version step, even when the request reached the server twice.
    expect(Number(after?.version)).toBe(before + 1);
    const { rows } = await stack.db.query('select id from public.tasks where title = $1', [
      `New under ${fault}`,
    ]);
    expect(rows).toEqual([{ id: created }]);
    expect(await alice.sync.db._rejections.count()).toBe(0);
  });

  it('survives a reload after the server applied a push whose response was lost', async () => {
    const net = new FaultyNetwork();
    const alice = await device('alice@example.com', { fetch: net.fetch });
    await alice.sync.engine.syncNow();
    const taskId = SEED.task(11);
    const before = Number((await serverTask(taskId))?.version);

    // The push reaches the server, then the page dies before the answer arrives.
    net.script(PUSH, 'drop-response');
    await alice.sync.repos.tasks.update(taskId, { title: 'Applied before the crash' });
    await waitFor(() => net.fired.get('drop-response') === 1);
    await alice.sync.stop();
    const sent = await alice.sync.db._outbox.toArray();
    expect(sent).toHaveLength(1);
    expect(sent[0]?.sent).toBe(1);

    // Meanwhile the same device edits the row again (new, unsent entry after the frozen one).
    const reloaded = alice.reload();
    devices.push(reloaded);
    await reloaded.sync.repos.tasks.update(taskId, { title: 'Edited after the reload' });
    expect(await reloaded.sync.db._outbox.count()).toBe(2);
    await settled(reloaded);

    const after = await serverTask(taskId);
    expect(after?.title).toBe('Edited after the reload');
    expect(Number(after?.version)).toBe(before + 2);
    expect((await reloaded.sync.db.rows('tasks').get(taskId))?.title).toBe(
      'Edited after the reload',
    );
  });

  it("shows the server's values once replayed entries are acknowledged (same version)", async () => {
    // Two of bob's patches to one row are applied but both answers are lost; alice then
    // changes the same field. The replays come back with alice's row; bob must show it, not
    // his own value laid on top by the first acknowledgement's rebase.
    const net = new FaultyNetwork();
    const bob = await device('bob@example.com', { fetch: net.fetch, random: () => 0.99 });
    const alice = await device('alice@example.com');
    await Promise.all([bob.sync.engine.syncNow(), alice.sync.engine.syncNow()]);
    const taskId = SEED.task(13);

    net.script(PUSH, 'drop-response', 'drop-response');
    await bob.sync.repos.tasks.update(taskId, { title: 'Bob title' });
    await waitFor(() => net.fired.get('drop-response') === 1);
    bob.online.set(false);
    await bob.sync.repos.tasks.update(taskId, { notes: 'Bob notes' });
    expect(await bob.sync.db._outbox.count()).toBe(2);
    bob.online.set(true);
    await waitFor(() => net.fired.get('drop-response') === 2);
    bob.online.set(false);

    await alice.sync.engine.syncNow();
    await alice.sync.repos.tasks.update(taskId, { notes: 'Alice notes, later' });
    await alice.sync.engine.syncNow();

    bob.online.set(true);
    await settled(bob);
    const server = await stack.db.query<{ title: string; notes: string; version: number }>(
      'select title, notes, version from public.tasks where id = $1',
      [taskId],
    );
    expect(server.rows[0]).toMatchObject({ title: 'Bob title', notes: 'Alice notes, later' });
    expect(await bob.sync.db.rows('tasks').get(taskId)).toMatchObject({
      title: 'Bob title',
      notes: 'Alice notes, later',
      _v: Number(server.rows[0]?.version),
    });
  });

  it('never acknowledges a change that joined an entry after the batch was taken', async () => {
    // The push batch [attachment insert, task patch] waits on the upload; meanwhile the task
    // is deleted. The delete must go to the server, not fold into the patch being sent.
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let uploading = false;
    const held: typeof fetch = async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (url.includes('/storage/v1/object/attachments/')) {
        uploading = true;
        await gate;
      }
      return fetch(input, init);
    };
    const alice = await device('alice@example.com', { fetch: held });
    await alice.sync.engine.syncNow();
    const taskId = await alice.sync.repos.tasks.create(SEED.list, { title: 'Soon deleted' });
    const commentId = await alice.sync.repos.comments.create(taskId, 'Goes with its task');
    await alice.sync.engine.syncNow();

    alice.online.set(false);
    const png = new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 9])], { type: 'image/png' });
    await alice.sync.repos.attachments.add(taskId, png, 'a.png');
    await alice.sync.repos.tasks.update(taskId, { title: 'Patched, then deleted' });
    alice.online.set(true);
    await waitFor(() => uploading);
    await alice.sync.repos.tasks.delete(taskId);
    release();
    await settled(alice);

    const { rows } = await stack.db.query<{ deleted_at: unknown }>(
      'select deleted_at from public.tasks where id = $1',
      [taskId],
    );
    expect(rows[0]?.deleted_at).toBeTruthy();
    const comment = await stack.db.query<{ deleted_at: unknown }>(
      'select deleted_at from public.comments where id = $1',
      [commentId],
    );
    expect(comment.rows[0]?.deleted_at).toBeTruthy();
    expect((await alice.sync.db.rows('tasks').get(taskId))?.deleted_at).toBeTruthy();
  });

  it('keeps queueing through an expired token: one refresh, then on', async () => {
    const net = new FaultyNetwork();
    const alice = await device('alice@example.com', { fetch: net.fetch });
    await alice.sync.engine.syncNow();
    net.script(PUSH, 'expire-token');
    const id = await alice.sync.repos.tasks.create(SEED.list, { title: 'Through a 401' });
    await settled(alice);
    expect(net.fired.get('expire-token')).toBe(1);
    expect(net.count('/auth/v1/token')).toBeGreaterThanOrEqual(1);
    const { rows } = await stack.db.query('select id from public.tasks where id = $1', [id]);
    expect(rows).toHaveLength(1);
  });

  it('goes to signed-out and keeps the outbox when the session cannot be renewed', async () => {
    const net = new FaultyNetwork();
    const alice = await device('alice@example.com', { fetch: net.fetch });
    await alice.sync.engine.syncNow();
    net.script(PUSH, 'expire-token', 'expire-token');
    net.script(/\/auth\/v1\/token$/, 'expire-token');
    await alice.sync.repos.tasks.create(SEED.list, { title: 'Waiting for sign-in' });
    await waitFor(() => alice.sync.engine.status.getSnapshot().phase === 'signed-out');
    expect(alice.sync.engine.status.getSnapshot().lastError?.code).toBe('AUTH_EXPIRED');
    expect(await alice.sync.pendingCount()).toBe(1);

    // Signing in again wakes the engine; nothing was dropped.
    const { error } = await alice.supabase.auth.signInWithPassword({
      email: 'alice@example.com',
      password: 'outpost-demo',
    });
    expect(error).toBeNull();
    await settled(alice);
    const { rows } = await stack.db.query('select 1 from public.tasks where title = $1', [
      'Waiting for sign-in',
    ]);
    expect(rows).toHaveLength(1);
  });
});

describe('resync and outdated apps', () => {
  it('CURSOR_EXPIRED: drops synced rows, pulls from scratch, keeps queued edits', async () => {
    const net = new FaultyNetwork();
    // A long undo window keeps the delete queued while the resync happens.
    const alice = await device('alice@example.com', { fetch: net.fetch, undoWindowMs: 60_000 });
    await alice.sync.engine.syncNow();
    const doomed = SEED.task(12);
    await alice.sync.repos.tasks.delete(doomed);
    await stack.db.query(`update public.sync_state set purged_xid = pg_current_xact_id()`);
    const pullsBefore = net.count('/rest/v1/rpc/sync_pull');
    const status = await alice.sync.engine.syncNow();
    await stack.db.query(`update public.sync_state set purged_xid = '0'`);

    expect(status.phase).toBe('synced');
    expect(net.count('/rest/v1/rpc/sync_pull') - pullsBefore).toBeGreaterThanOrEqual(2);
    expect(await alice.sync.pendingCount()).toBe(1);
    const tasks = await alice.sync.db.rows('tasks').toArray();
    expect(tasks.length).toBeGreaterThanOrEqual(30);
    expect(tasks.find((t) => t.id === doomed)?.deleted_at).toBeTruthy();
    expect(await alice.sync.repos.tasks.undoDelete(doomed)).toBe(true);
  });

  it('APP_OUTDATED: stops syncing when the server speaks a newer contract', async () => {
    const alice = await device('alice@example.com');
    await alice.sync.engine.syncNow();
    await stack.db.exec(
      `create or replace function public.sync_schema_version() returns integer language sql immutable as $$ select 2 $$`,
    );
    try {
      const status = await alice.sync.engine.syncNow();
      expect(status.lastError?.code).toBe('APP_OUTDATED');
      await alice.sync.repos.tasks.create(SEED.list, { title: 'Kept for the new version' });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await alice.sync.pendingCount()).toBe(1);
    } finally {
      await stack.db.exec(
        `create or replace function public.sync_schema_version() returns integer language sql immutable as $$ select 1 $$`,
      );
    }
  });
});

describe('I6: attachments are uploaded once per content, before their row', () => {
  it('retries an upload whose response was lost as an upsert of the same object', async () => {
    const net = new FaultyNetwork();
    const alice = await device('alice@example.com', { fetch: net.fetch });
    await alice.sync.engine.syncNow();
    net.script(/\/storage\/v1\/object\//, 'drop-response');
    const png = new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3])], {
      type: 'image/png',
    });
    const id = await alice.sync.repos.attachments.add(SEED.task(3), png, 'crack.png');
    await settled(alice);

    expect(net.fired.get('drop-response')).toBe(1);
    const { rows: objects } = await stack.db.query<{ name: string; created_at: string }>(
      `select name, created_at from storage.objects where bucket_id = 'attachments' and name like $1`,
      [`%${id}%`],
    );
    expect(objects).toHaveLength(1);
    const { rows } = await stack.db.query<{ object_path: string; created_at: string }>(
      'select object_path, created_at from public.attachments where id = $1',
      [id],
    );
    expect(rows[0]?.object_path).toBe(objects[0]?.name);
    expect(new Date(objects[0]?.created_at ?? 0).getTime()).toBeLessThanOrEqual(
      new Date(rows[0]?.created_at ?? 0).getTime(),
    );
    expect((await alice.sync.db._files.get(id))?.state).toBe('uploaded');
    const { data } = await alice.supabase.storage
      .from('attachments')
      .download(objects[0]?.name ?? '');
    expect(new Uint8Array(await (data as Blob).arrayBuffer())).toEqual(
      new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]),
    );
  });
});
