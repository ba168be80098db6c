// I1 (no lost writes) and I6 (idempotent files) under injected faults, plus the engine's
// answers to 401, CURSOR_EXPIRED and APP_OUTDATED, against the devstack.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { SEED, startTestDevstack, type TestDevstack } from '../support/devstack';
import { FAULTS, FaultyNetwork, type Fault } from '../support/faults';
import { settled, waitFor, DeviceSet, type DeviceOptions } from '../support/sync-client';

let stack: TestDevstack;
const devices = new DeviceSet(() => stack);
const PUSH = /\/rpc\/sync_push$/;

const device = (email: string | null, options?: DeviceOptions) => devices.device(email, options);

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
  await devices.closeAll();
});
afterAll(async () => {
  await stack?.stop();
});

describe('I1: every write lands exactly once, whatever the network does', () => {
  // Every fault but the expired token and the hung request, which have their own tests.
  const faults: Fault[] = FAULTS.filter(
    (fault) => fault !== 'expire-token' && fault !== 'hang' && fault !== 'stall',
  );
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
    devices.keep(reloaded);
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

describe('batch limits', () => {
  it('measures batches in bytes as the server does: long multi-byte notes split into more pushes', async () => {
    const net = new FaultyNetwork();
    const alice = await device('alice@example.com', { fetch: net.fetch });
    await alice.sync.engine.syncNow();
    alice.online.set(false);
    // 9,000 "€" = 27,000 bytes of UTF-8 each: 120 tasks are ~3.2 MB, though only ~1.1 M
    // characters (counted in characters, ~114 would fit one "1 MiB" batch).
    const notes = '€'.repeat(9_000);
    for (let i = 0; i < 120; i++) {
      await alice.sync.repos.tasks.create(SEED.list, { title: `Euro ${i}`, notes });
    }
    const pushesBefore = net.count('/rest/v1/rpc/sync_push');
    alice.online.set(true);
    await settled(alice, 60_000);
    const { rows } = await stack.db.query<{ n: string | number }>(
      `select count(*) as n from public.tasks where title like 'Euro %' and notes = $1`,
      [notes],
    );
    expect(Number(rows[0]?.n)).toBe(120);
    expect(net.count('/rest/v1/rpc/sync_push') - pushesBefore).toBeGreaterThanOrEqual(4);
  });

  it('counts a mutation exactly as Postgres prints it as jsonb', async () => {
    const { jsonbTextBytes } = await import('../../sync/engine');
    const samples: unknown[] = [
      { seq: 1, table: 'tasks', op: 'patch', id: SEED.task(1), data: { title: 'Zürich ☕', n: 3 } },
      [{ a: null, b: [1, 2, { c: 'x"y\\z' }] }, 'tab\there', true, 1.5],
      { notes: '€'.repeat(100), emoji: '🧭'.repeat(10), empty: {}, list: [] },
    ];
    for (const value of samples) {
      const { rows } = await stack.db.query<{ n: string | number }>(
        'select octet_length($1::jsonb::text) as n',
        [JSON.stringify(value)],
      );
      expect(jsonbTextBytes(value), JSON.stringify(value)).toBe(Number(rows[0]?.n));
    }
  });
});

describe('files the server refuses', () => {
  it("refuses an attachment whose file storage won't take, instead of pushing the row without it", async () => {
    const alice = await device('alice@example.com');
    await alice.sync.engine.syncNow();
    alice.online.set(false);
    const png = new Blob([new Uint8Array(64).fill(7)], { type: 'image/png' });
    const id = await alice.sync.repos.attachments.add(SEED.task(5), png, 'too-big.png');
    await alice.sync.repos.tasks.update(SEED.task(5), { title: 'Sent beside a refused file' });
    // The bucket's limit shrinks below the file while it waits (a project's own setting).
    await stack.db.query(
      `update storage.buckets set file_size_limit = 16 where id = 'attachments'`,
    );
    try {
      alice.online.set(true);
      await settled(alice);
    } finally {
      await stack.db.query(
        `update storage.buckets set file_size_limit = 10485760 where id = 'attachments'`,
      );
    }
    const { rows } = await stack.db.query('select 1 from public.attachments where id = $1', [id]);
    expect(rows).toEqual([]);
    expect(await alice.sync.db.rows('attachments').get(id)).toBeUndefined();
    const rejections = await alice.sync.db._rejections.toArray();
    expect(rejections).toEqual([
      expect.objectContaining({ rowId: id, table: 'attachments', code: 'FILE_TOO_LARGE' }),
    ]);
    // The rest of the batch went on.
    expect((await serverTask(SEED.task(5)))?.title).toBe('Sent beside a refused file');
  });
});

describe('resync and outdated apps', () => {
  it('CURSOR_EXPIRED: keeps rows on screen while it pulls everything again, then sweeps what is gone', async () => {
    let pulls = 0;
    let failSecond = true;
    const alice = await device('alice@example.com', {
      undoWindowMs: 60_000,
      // The resync's first pull fails (the connection drops in the middle of it).
      wrapRemote: (real) => ({
        ...real,
        async pull(cursor, maxRows) {
          pulls += 1;
          if (cursor === null && failSecond && pulls > 1) {
            failSecond = false;
            const { SyncError } = await import('../../sync/errors');
            throw new SyncError('OFFLINE', 'connection dropped');
          }
          return real.pull(cursor, maxRows);
        },
      }),
    });
    await alice.sync.engine.syncNow();
    const before = await alice.sync.db.rows('tasks').count();
    // A task deleted long ago: its tombstone was purged, so no pull will ever mention it.
    const gone = SEED.task(25);
    await stack.db.query(`delete from public.comments where task_id = $1`, [gone]);
    await stack.db.query(`delete from public.attachments where task_id = $1`, [gone]);
    await stack.db.query(`delete from public.tasks where id = $1`, [gone]);
    await stack.db.query(`update public.sync_state set purged_xid = pg_current_xact_id()`);
    try {
      const status = await alice.sync.engine.syncNow();
      // Interrupted: still refreshing, and everything is still there to work with.
      expect(status.phase).toBe('backing-off');
      expect(await alice.sync.db.rows('tasks').count()).toBe(before);
      expect(await alice.sync.db.getMeta('resync')).toBeDefined();
    } finally {
      await stack.db.query(`update public.sync_state set purged_xid = '0'`);
    }
    const done = await alice.sync.engine.syncNow();
    expect(done).toMatchObject({ phase: 'synced', lastError: null });
    expect(await alice.sync.db.rows('tasks').get(gone)).toBeUndefined();
    expect(await alice.sync.db.rows('tasks').count()).toBe(before - 1);
    expect(await alice.sync.db.getMeta('resync')).toBeUndefined();
  });

  it('CURSOR_EXPIRED: pulls from scratch, keeps queued edits', async () => {
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
