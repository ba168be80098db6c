// I1 (no lost writes) and I6 (idempotent files) under injected faults, plus the engine's
// answers to 401 (storage's expired token included), CURSOR_EXPIRED and APP_OUTDATED, and
// what becomes of an attachment's bytes on the device, against the devstack. Where a test
// waits on time (backoff, a request that never answers, the undo window), the device runs
// on a ManualClock and the test says how far time may move.
// Before Dexie loads (the engine's constants bring it): it looks for a global IndexedDB once,
// and without one its liveQuery (the engine's watch on the outbox) stays silent.
import 'fake-indexeddb/auto';

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { describe, expect, it } from 'vitest';

import { purgeList } from '../../sync/apply';
import { PUSH_DEBOUNCE_MS } from '../../sync/schedule';
import { UNDO_WINDOW_MS } from '../../sync/store';
import { supabaseRemote } from '../../sync/remote';
import { deviceSuite } from '../support/device-suite';
import { SEED, type TestDevstack } from '../support/devstack';
import { FAULTS, FaultyNetwork, type Fault } from '../../sync/kit/faults';
import { manualClocksForTests } from '../support/manual-clock';
import {
  clientFor,
  settled,
  signIn,
  waitFor,
  type Device,
  synced,
  track,
} from '../support/sync-client';
import { deviceDb } from '../../sync/testing';
import { OUTPOST_SCHEMA_VERSION } from '../../src/data/tables';

let stack: TestDevstack;
const { devices, device } = deviceSuite((started) => (stack = started));

/** Manual clocks, run out before the devices close when a test fails. */
const testClock = manualClocksForTests();
const PUSH = /\/rpc\/sync_push$/;
const PUSH_PATH = '/rest/v1/rpc/sync_push';
const UPLOAD = /\/storage\/v1\/object\/attachments\//;
const TOKEN_PATH = '/auth/v1/token';

/** A small PNG-typed blob; `tag` makes its content its own. */
const png = (tag: number) =>
  new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47, tag, tag + 1, tag + 2])], {
    type: 'image/png',
  });

/** The storage path of an attachment made on `d` (from its row). */
async function objectPathOf(d: Device, id: string): Promise<string> {
  return String((await deviceDb(d.sync).rows('attachments').get(id))?.object_path);
}

/** Upload requests (POST) that reached storage for an attachment's object. */
const uploadsOf = (net: FaultyNetwork, objectPath: string) =>
  net.countRequests('POST', `/storage/v1/object/attachments/${objectPath}`);

async function serverAttachment(id: string) {
  const { rows } = await stack.db.query<{ object_path: string; deleted_at: unknown }>(
    'select object_path, deleted_at from public.attachments where id = $1',
    [id],
  );
  return rows[0];
}

/**
 * A manual clock and a fault network on it, for a test's devices (`options`): their engine's
 * schedule (push debounce, backoff, undo window, the 60 s pull), their request timeouts and
 * the network's delays move only as the test moves time. Waits let real I/O run and move
 * time at most `aheadMs` on (0: only what is due now).
 */
function timeline() {
  const clock = testClock();
  const net = new FaultyNetwork({ clock });
  const quiet = net.idle;
  return {
    clock,
    net,
    options: { fetch: net.fetch, clock },
    until: (check: () => boolean | Promise<boolean>, aheadMs = 0) =>
      clock.until(check, { quiet, maxAdvanceMs: aheadMs }),
    settle: <T>(work: Promise<T>, aheadMs = 0) =>
      clock.settle(work, { quiet, maxAdvanceMs: aheadMs }),
    /** Moves time to `at`, running what is due by then. */
    runTo: (at: number) => clock.runTo(at, { quiet }),
  };
}

/** Backoff jitter halfway: the first retry comes 500 ms after a failure. */
const halfway = () => 0.5;
/** product.md §9: the first retry within 1 s (full jitter), so 500 ms with `halfway`. */
const FIRST_RETRY_HALFWAY_MS = 500;

async function serverTask(id: string) {
  const { rows } = await stack.db.query<{ title: string; version: string | number }>(
    'select title, version from public.tasks where id = $1',
    [id],
  );
  return rows[0];
}

describe('I1: every write lands exactly once, whatever the network does', () => {
  // Every fault but the expired token and the hung request, which have their own tests.
  const faults: Fault[] = FAULTS.filter(
    (fault) => fault !== 'expire-token' && fault !== 'hang' && fault !== 'stall',
  );
  /** What the device sees as a failed push (it backs off); the others are answered in the end. */
  const failing: ReadonlySet<Fault> = new Set<Fault>([
    'drop-request',
    'drop-response',
    'status-500',
    'status-503',
    'status-429',
  ]);
  it.each(faults)('%s on sync_push', async (fault) => {
    const { clock, net, options, until, settle, runTo } = timeline();
    const alice = await device('alice@example.com', { ...options, random: halfway });
    await settle(alice.sync.engine.syncNow());
    const taskId = SEED.task(10);
    const before = Number((await serverTask(taskId))?.version);

    net.script(PUSH, fault);
    await alice.sync.repos.tasks.update(taskId, { title: `After ${fault}` });
    const created = await alice.sync.repos.tasks.create(SEED.list, { title: `New under ${fault}` });
    if (failing.has(fault)) {
      // The push fails as far as the device can tell: it backs off, and sends nothing until
      // the first retry's delay has passed; then it sends again at once.
      const phase = () => alice.sync.engine.status.getSnapshot().phase;
      await until(() => phase() === 'backing-off', PUSH_DEBOUNCE_MS);
      const retryAt = clock.now() + FIRST_RETRY_HALFWAY_MS;
      const sent = net.count(PUSH_PATH);
      await runTo(retryAt - 1);
      expect(net.count(PUSH_PATH)).toBe(sent);
      expect(phase()).toBe('backing-off');
      await runTo(retryAt);
      await until(() => net.count(PUSH_PATH) === sent + 1);
    }
    // A delay's 50–250 ms included; the 60 s pull is far off.
    await until(synced(alice), 1_000);

    expect(net.fired.get(fault)).toBe(1);
    const after = await serverTask(taskId);
    expect(after?.title).toBe(`After ${fault}`);
    // Applied once: one version step, even when the request reached the server twice.
    expect(Number(after?.version)).toBe(before + 1);
    const { rows } = await stack.db.query('select id from public.tasks where title = $1', [
      `New under ${fault}`,
    ]);
    expect(rows).toEqual([{ id: created }]);
    expect(await deviceDb(alice.sync)._rejections.count()).toBe(0);
  });

  it('survives a reload after the server applied a push whose response was lost', async () => {
    const { net, options, until, settle } = timeline();
    // The retry after the lost answer is due ~1 s later (full jitter at its top), and time
    // never gets there: the page dies before it, as the test means.
    const alice = await device('alice@example.com', { ...options, random: () => 0.999 });
    await settle(alice.sync.engine.syncNow());
    const taskId = SEED.task(11);
    const before = Number((await serverTask(taskId))?.version);

    // The push reaches the server, then the page dies before the answer arrives.
    net.script(PUSH, 'drop-response');
    await alice.sync.repos.tasks.update(taskId, { title: 'Applied before the crash' });
    await until(() => net.fired.get('drop-response') === 1, PUSH_DEBOUNCE_MS);
    await alice.sync.stop();
    const sent = await deviceDb(alice.sync)._outbox.toArray();
    expect(sent).toHaveLength(1);
    expect(sent[0]?.sent).toBe(1);

    // Meanwhile the same device edits the row again (new, unsent entry after the frozen one).
    const reloaded = alice.reload();
    devices.keep(reloaded);
    await reloaded.sync.repos.tasks.update(taskId, { title: 'Edited after the reload' });
    expect(await deviceDb(reloaded.sync)._outbox.count()).toBe(2);
    await until(synced(reloaded), PUSH_DEBOUNCE_MS);

    const after = await serverTask(taskId);
    expect(after?.title).toBe('Edited after the reload');
    expect(Number(after?.version)).toBe(before + 2);
    expect((await deviceDb(reloaded.sync).rows('tasks').get(taskId))?.title).toBe(
      'Edited after the reload',
    );
  });

  it("shows the server's values once replayed entries are acknowledged (same version)", async () => {
    // Two of bob's patches to one row are applied but both answers are lost; alice then
    // changes the same field. The replays come back with alice's row; bob must show it, not
    // his own value laid on top by the first acknowledgement's rebase.
    // Bob's retries wait for time that never passes: only coming back online sends again.
    const { net, options, until, settle } = timeline();
    const bob = await device('bob@example.com', { ...options, random: () => 0.99 });
    const alice = await device('alice@example.com');
    await Promise.all([settle(bob.sync.engine.syncNow()), alice.sync.engine.syncNow()]);
    const taskId = SEED.task(13);

    net.script(PUSH, 'drop-response', 'drop-response');
    await bob.sync.repos.tasks.update(taskId, { title: 'Bob title' });
    await until(() => net.fired.get('drop-response') === 1, PUSH_DEBOUNCE_MS);
    bob.online.set(false);
    await bob.sync.repos.tasks.update(taskId, { notes: 'Bob notes' });
    expect(await deviceDb(bob.sync)._outbox.count()).toBe(2);
    bob.online.set(true);
    await until(() => net.fired.get('drop-response') === 2);
    bob.online.set(false);

    await alice.sync.engine.syncNow();
    await alice.sync.repos.tasks.update(taskId, { notes: 'Alice notes, later' });
    await alice.sync.engine.syncNow();

    bob.online.set(true);
    await until(synced(bob));
    const server = await stack.db.query<{ title: string; notes: string; version: number }>(
      'select title, notes, version from public.tasks where id = $1',
      [taskId],
    );
    expect(server.rows[0]).toMatchObject({ title: 'Bob title', notes: 'Alice notes, later' });
    expect(await deviceDb(bob.sync).rows('tasks').get(taskId)).toMatchObject({
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
    expect((await deviceDb(alice.sync).rows('tasks').get(taskId))?.deleted_at).toBeTruthy();
  });

  it('keeps queueing through an expired token: one refresh, then on', async () => {
    const { net, options, until, settle } = timeline();
    // Any backoff would wait 500 ms, and time moves no further than the write's debounce:
    // the push goes again right after the refresh.
    const alice = await device('alice@example.com', { ...options, random: halfway });
    await settle(alice.sync.engine.syncNow());
    net.script(PUSH, 'expire-token');
    const id = await alice.sync.repos.tasks.create(SEED.list, { title: 'Through a 401' });
    await until(synced(alice), PUSH_DEBOUNCE_MS);
    expect(net.fired.get('expire-token')).toBe(1);
    expect(net.count('/auth/v1/token')).toBeGreaterThanOrEqual(1);
    const { rows } = await stack.db.query('select id from public.tasks where id = $1', [id]);
    expect(rows).toHaveLength(1);
  });

  it('goes to signed-out and keeps the outbox when the session cannot be renewed', async () => {
    const { net, options, until, settle } = timeline();
    const alice = await device('alice@example.com', { ...options, random: halfway });
    await settle(alice.sync.engine.syncNow());
    net.script(PUSH, 'expire-token', 'expire-token');
    net.script(/\/auth\/v1\/token$/, 'expire-token');
    await alice.sync.repos.tasks.create(SEED.list, { title: 'Waiting for sign-in' });
    await until(
      () => alice.sync.engine.status.getSnapshot().phase === 'signed-out',
      PUSH_DEBOUNCE_MS,
    );
    expect(alice.sync.engine.status.getSnapshot().lastError?.code).toBe('AUTH_EXPIRED');
    expect(await alice.sync.pendingCount()).toBe(1);

    // Signing in again wakes the engine; nothing was dropped.
    const { error } = await alice.supabase.auth.signInWithPassword({
      email: 'alice@example.com',
      password: 'outpost-demo',
    });
    expect(error).toBeNull();
    await until(synced(alice));
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
    const { jsonbTextBytes } = await import('../../sync/push');
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
    expect(await deviceDb(alice.sync).rows('attachments').get(id)).toBeUndefined();
    const rejections = await deviceDb(alice.sync)._rejections.toArray();
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
    // The retry after the interrupted resync is 500 ms away, and time does not move: the
    // state in between stays to be looked at.
    const { options, settle } = timeline();
    const alice = await device('alice@example.com', {
      ...options,
      random: halfway,
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
    await settle(alice.sync.engine.syncNow());
    const before = await deviceDb(alice.sync).rows('tasks').count();
    // A task deleted long ago: its tombstone was purged, so no pull will ever mention it.
    const gone = SEED.task(25);
    await stack.db.query(`delete from public.comments where task_id = $1`, [gone]);
    await stack.db.query(`delete from public.attachments where task_id = $1`, [gone]);
    await stack.db.query(`delete from public.tasks where id = $1`, [gone]);
    await stack.db.query(`update public.sync_state set purged_xid = pg_current_xact_id()`);
    try {
      const status = await settle(alice.sync.engine.syncNow());
      // Interrupted: still refreshing, and everything is still there to work with.
      expect(status.phase).toBe('backing-off');
      expect(await deviceDb(alice.sync).rows('tasks').count()).toBe(before);
      expect(await deviceDb(alice.sync).getMeta('resync')).toBeDefined();
    } finally {
      await stack.db.query(`update public.sync_state set purged_xid = '0'`);
    }
    const done = await settle(alice.sync.engine.syncNow());
    expect(done).toMatchObject({ phase: 'synced', lastError: null });
    expect(await deviceDb(alice.sync).rows('tasks').get(gone)).toBeUndefined();
    expect(await deviceDb(alice.sync).rows('tasks').count()).toBe(before - 1);
    expect(await deviceDb(alice.sync).getMeta('resync')).toBeUndefined();
  });

  it('CURSOR_EXPIRED: pulls from scratch, keeps queued edits', async () => {
    const { net, options, settle } = timeline();
    // A long undo window keeps the delete queued while the resync happens (time stands still).
    const alice = await device('alice@example.com', { ...options, undoWindowMs: 60_000 });
    await settle(alice.sync.engine.syncNow());
    const doomed = SEED.task(12);
    await alice.sync.repos.tasks.delete(doomed);
    await stack.db.query(`update public.sync_state set purged_xid = pg_current_xact_id()`);
    const pullsBefore = net.count('/rest/v1/rpc/sync_pull');
    const status = await settle(alice.sync.engine.syncNow());
    await stack.db.query(`update public.sync_state set purged_xid = '0'`);

    expect(status.phase).toBe('synced');
    expect(net.count('/rest/v1/rpc/sync_pull') - pullsBefore).toBeGreaterThanOrEqual(2);
    expect(await alice.sync.pendingCount()).toBe(1);
    const tasks = await deviceDb(alice.sync).rows('tasks').toArray();
    expect(tasks.length).toBeGreaterThanOrEqual(30);
    expect(tasks.find((t) => t.id === doomed)?.deleted_at).toBeTruthy();
    expect(await alice.sync.repos.tasks.undoDelete(doomed)).toBe(true);
  });

  it('APP_OUTDATED: stops syncing when the server speaks a newer contract', async () => {
    const { clock, net, options, until, settle, runTo } = timeline();
    const alice = await device('alice@example.com', options);
    await settle(alice.sync.engine.syncNow());
    await stack.db.exec(
      `create or replace function public.sync_schema_version() returns integer language sql immutable as $$ select ${OUTPOST_SCHEMA_VERSION + 1} $$`,
    );
    try {
      const status = await settle(alice.sync.engine.syncNow());
      expect(status.lastError?.code).toBe('APP_OUTDATED');
      // Not "synced": nothing syncs until the app is updated.
      expect(status.phase).not.toBe('synced');
      const pushes = net.count(PUSH_PATH);
      await alice.sync.repos.tasks.create(SEED.list, { title: 'Kept for the new version' });
      // Once the engine has counted the write, it is due to run a debounce later: let time
      // pass that. It runs, and sends nothing.
      await until(() => alice.sync.engine.status.getSnapshot().pending === 1);
      await runTo(clock.now() + PUSH_DEBOUNCE_MS);
      expect(net.count(PUSH_PATH)).toBe(pushes);
      expect(await alice.sync.pendingCount()).toBe(1);
      expect(alice.sync.engine.status.getSnapshot()).toMatchObject({
        phase: 'backing-off',
        pending: 1,
      });
      expect(alice.sync.engine.status.getSnapshot().lastError?.code).toBe('APP_OUTDATED');

      // The same old app after a reload (or in another tab) knows it too: it sends nothing.
      await alice.sync.stop();
      const reloaded = devices.keep(alice.reload());
      const again = await settle(reloaded.sync.engine.syncNow());
      expect(again.phase).not.toBe('synced');
      expect(again.lastError?.code).toBe('APP_OUTDATED');
      await reloaded.sync.repos.tasks.create(SEED.list, { title: 'Also kept' });
      await until(() => reloaded.sync.engine.status.getSnapshot().pending === 2);
      await runTo(clock.now() + PUSH_DEBOUNCE_MS);
      expect(net.count(PUSH_PATH)).toBe(pushes);
      expect(await reloaded.sync.pendingCount()).toBe(2);
    } finally {
      await stack.db.exec(
        `create or replace function public.sync_schema_version() returns integer language sql immutable as $$ select ${OUTPOST_SCHEMA_VERSION} $$`,
      );
    }
  });
});

describe('I6: attachments are uploaded once per content, before their row', () => {
  it('uploads the object once per content across a lost upload answer, a lost push answer and a reload', async () => {
    const { net, options, until, settle } = timeline();
    // Backoff near its top: 990 ms, then 1,980 ms. Time moves past the first retry, not the
    // second, so the page reloads before that one.
    const alice = await device('alice@example.com', { ...options, random: () => 0.99 });
    await settle(alice.sync.engine.syncNow());
    // The upload reaches storage but its answer is lost: the engine cannot know, and sends
    // it again (an upsert of the same object). Then the row's push is lost the same way,
    // and the page reloads before retrying it: the file is uploaded already.
    net.script(UPLOAD, 'drop-response');
    net.script(PUSH, 'drop-response');
    const content = [0x89, 0x50, 0x4e, 0x47, 1, 2, 3];
    const id = await alice.sync.repos.attachments.add(
      SEED.task(3),
      new Blob([new Uint8Array(content)], { type: 'image/png' }),
      'crack.png',
    );
    const objectPath = await objectPathOf(alice, id);
    await until(() => net.fired.get('drop-response') === 2, PUSH_DEBOUNCE_MS + 1_000);
    await alice.sync.stop();
    expect((await deviceDb(alice.sync)._files.get(id))?.state).toBe('uploaded');
    const reloaded = devices.keep(alice.reload());
    await until(synced(reloaded), PUSH_DEBOUNCE_MS);

    // Two requests: the one whose answer was lost and its retry; none for the lost push's
    // retry, none after the reload.
    expect(uploadsOf(net, objectPath)).toBe(2);
    const { rows: objects } = await stack.db.query<{ name: string; created_at: string }>(
      `select name, created_at from storage.objects where bucket_id = 'attachments' and name like $1`,
      [`%${id}%`],
    );
    expect(objects).toHaveLength(1);
    const { rows } = await stack.db.query<{ object_path: string; created_at: string }>(
      'select object_path, created_at from public.attachments where id = $1',
      [id],
    );
    expect(rows[0]?.object_path).toBe(objectPath);
    expect(objects[0]?.name).toBe(objectPath);
    expect(new Date(objects[0]?.created_at ?? 0).getTime()).toBeLessThanOrEqual(
      new Date(rows[0]?.created_at ?? 0).getTime(),
    );
    expect((await deviceDb(reloaded.sync)._files.get(id))?.state).toBe('uploaded');
    const { data } = await reloaded.supabase.storage.from('attachments').download(objectPath);
    expect(new Uint8Array(await (data as Blob).arrayBuffer())).toEqual(new Uint8Array(content));
  });
});

describe('an expired token during an upload', () => {
  it('keeps the file, refreshes the session and uploads it (not a refusal)', async () => {
    const { net, options, until, settle } = timeline();
    // A backoff would wait 500 ms; time moves no further than the write's debounce.
    const alice = await device('alice@example.com', { ...options, random: halfway });
    await settle(alice.sync.engine.syncNow());
    // Storage's own answer to an expired JWT: HTTP 400, statusCode "403", "jwt expired".
    net.script(UPLOAD, 'expire-token');
    const refreshes = net.count(TOKEN_PATH);
    const id = await alice.sync.repos.attachments.add(SEED.task(7), png(10), 'expired.png');
    await until(synced(alice), PUSH_DEBOUNCE_MS);

    expect(net.fired.get('expire-token')).toBe(1);
    expect(net.count(TOKEN_PATH) - refreshes).toBe(1);
    expect(await deviceDb(alice.sync)._rejections.toArray()).toEqual([]);
    expect((await serverAttachment(id))?.object_path).toBe(await objectPathOf(alice, id));
    expect((await deviceDb(alice.sync)._files.get(id))?.state).toBe('uploaded');
    expect(uploadsOf(net, await objectPathOf(alice, id))).toBe(1);
  });

  it('goes to signed-out with the file, its row and its queued insert kept, and uploads after a sign-in', async () => {
    const { net, options, until, settle } = timeline();
    const alice = await device('alice@example.com', { ...options, random: halfway });
    await settle(alice.sync.engine.syncNow());
    net.script(UPLOAD, 'expire-token', 'expire-token');
    net.script(/\/auth\/v1\/token$/, 'expire-token');
    const id = await alice.sync.repos.attachments.add(SEED.task(8), png(20), 'later.png');
    await until(
      () => alice.sync.engine.status.getSnapshot().phase === 'signed-out',
      PUSH_DEBOUNCE_MS,
    );
    expect(alice.sync.engine.status.getSnapshot().lastError?.code).toBe('AUTH_EXPIRED');
    expect(await deviceDb(alice.sync)._rejections.count()).toBe(0);
    expect(await deviceDb(alice.sync).rows('attachments').get(id)).toBeDefined();
    expect((await deviceDb(alice.sync)._files.get(id))?.blob.size).toBe(7);
    expect(await alice.sync.pendingCount()).toBe(1);

    await signIn(alice.supabase, 'alice@example.com');
    await until(synced(alice));
    expect((await serverAttachment(id))?.object_path).toBe(await objectPathOf(alice, id));
    expect((await deviceDb(alice.sync)._files.get(id))?.state).toBe('uploaded');
  });
});

describe("an attachment's bytes on the device", () => {
  it('go once the server has its delete, not at the local delete (Undo needs them)', async () => {
    // Alice holds deletes for the app's real undo window on a manual clock: with the test
    // default (no window) a sync cycle already past its online check could send the delete
    // before the Undo, and the test would depend on the machine's speed.
    const { options, settle, until } = timeline();
    const alice = await device('alice@example.com', { ...options, undoWindowMs: UNDO_WINDOW_MS });
    const bob = await device('bob@example.com');
    await Promise.all([settle(alice.sync.engine.syncNow()), bob.sync.engine.syncNow()]);
    const id = await alice.sync.repos.attachments.add(SEED.task(9), png(30), 'gone.png');
    await until(synced(alice), PUSH_DEBOUNCE_MS);
    await bob.sync.engine.syncNow();
    // Bob looked at it once: kept for offline viewing.
    expect((await bob.sync.attachmentBlob(id))?.size).toBe(7);
    expect((await deviceDb(bob.sync)._files.get(id))?.state).toBe('cached');

    alice.online.set(false);
    await alice.sync.repos.attachments.delete(id);
    expect((await deviceDb(alice.sync)._files.get(id))?.state).toBe('uploaded');
    expect(await alice.sync.repos.attachments.undoDelete(id)).toBe(true);
    expect((await alice.sync.attachmentBlob(id))?.size).toBe(7);
    await alice.sync.repos.attachments.delete(id);
    alice.online.set(true);
    // The delete is sent once the undo window has passed on her clock.
    await until(synced(alice), UNDO_WINDOW_MS + PUSH_DEBOUNCE_MS);
    expect((await serverAttachment(id))?.deleted_at).toBeTruthy();
    // Acknowledged: gone on the device that deleted it…
    expect(await deviceDb(alice.sync)._files.get(id)).toBeUndefined();
    // …and on the one that pulls the tombstone.
    await bob.sync.engine.syncNow();
    expect((await deviceDb(bob.sync).rows('attachments').get(id))?.deleted_at).toBeTruthy();
    expect(await deviceDb(bob.sync)._files.get(id)).toBeUndefined();
  });

  it('are fetched through a signed URL that gives up after the request timeout', async () => {
    const alice = await device('alice@example.com');
    await alice.sync.engine.syncNow();
    const id = await alice.sync.repos.attachments.add(SEED.task(9), png(40), 'slow.png');
    await settled(alice);
    const { clock, net, options, until, runTo } = timeline();
    const bob = await device('bob@example.com', { ...options, requestTimeoutMs: 1_000 });
    await until(async () => (await deviceDb(bob.sync).rows('attachments').get(id)) !== undefined);
    net.script(/\/storage\/v1\/object\/sign\//, 'hang');
    const asked = clock.now();
    const fetching = track(bob.sync.attachmentBlob(id));
    await until(() => net.fired.get('hang') === 1);
    // Still waiting for the answer just before the request's time is up; given up at it.
    await runTo(asked + 999);
    expect(fetching.state).toBe('pending');
    await runTo(asked + 1_000);
    await waitFor(() => fetching.state !== 'pending');
    expect(fetching.state).toEqual({ value: undefined });
    expect(net.fired.get('hang')).toBe(1);
    // The next look fetches it.
    expect((await bob.sync.attachmentBlob(id))?.size).toBe(7);
  });

  it('are downloaded with a timeout: a download that never answers gives up', async () => {
    let requests = 0;
    const silent: Server = createServer(() => (requests += 1)); // takes requests, never answers
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const alice = await device('alice@example.com');
      await alice.sync.engine.syncNow();
      const id = await alice.sync.repos.attachments.add(SEED.task(9), png(50), 'silent.png');
      await settled(alice);
      const { port } = silent.address() as AddressInfo;
      const { clock, net, options, until, runTo } = timeline();
      const supabase = clientFor(stack, net.fetch);
      await signIn(supabase, 'bob@example.com');
      const bob = await device('bob@example.com', {
        ...options,
        supabase,
        requestTimeoutMs: 1_000,
        // The real port on the same clock (a wrapped one gets none), but for the signed URL.
        wrapRemote: () => ({
          ...supabaseRemote(supabase, { requestTimeoutMs: 1_000, clock }),
          signedUrl: () => Promise.resolve(`http://127.0.0.1:${port}/never`),
        }),
      });
      await until(async () => (await deviceDb(bob.sync).rows('attachments').get(id)) !== undefined);
      const asked = clock.now();
      const fetching = track(bob.sync.attachmentBlob(id));
      await waitFor(() => requests === 1);
      await runTo(asked + 999);
      expect(fetching.state).toBe('pending');
      await runTo(asked + 1_000);
      await waitFor(() => fetching.state !== 'pending');
      expect(fetching.state).toEqual({ value: undefined });
      expect(requests).toBe(1);
      expect(await deviceDb(bob.sync)._files.get(id)).toBeUndefined();
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('are not kept when the list was purged while they downloaded', async () => {
    const alice = await device('alice@example.com');
    await alice.sync.engine.syncNow();
    const id = await alice.sync.repos.attachments.add(SEED.task(9), png(60), 'purged.png');
    await settled(alice);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let asked = false;
    const bob = await device('bob@example.com', {
      wrapRemote: (real) => ({
        ...real,
        async signedUrl(bucket, path, expiresInSec) {
          asked = true;
          await gate;
          return real.signedUrl(bucket, path, expiresInSec);
        },
      }),
    });
    await settled(bob);
    await waitFor(async () => (await deviceDb(bob.sync).rows('attachments').get(id)) !== undefined);
    const viewing = bob.sync.attachmentBlob(id);
    await waitFor(() => asked);
    // Meanwhile bob loses the list (his membership's tombstone is pulled): all of it goes.
    const db = deviceDb(bob.sync);
    await db.transaction(
      'rw',
      db.allTables(),
      async () => await purgeList(db, SEED.list, Date.now()),
    );
    release();
    await viewing;
    expect(await db.rows('attachments').get(id)).toBeUndefined();
    expect(await db._files.get(id)).toBeUndefined();
  });
});
