// The sync library end to end against the devstack: devices are the real engine over
// fake-indexeddb with supabase-js signed in as seeded users. Local-first writes, push and
// pull between devices, field-level merges, rejections reverted and logged, revocation.
import { describe, expect, it } from 'vitest';

import { SyncError } from '../../sync/errors';
import { deviceSuite } from '../support/device-suite';
import { SEED, type TestDevstack } from '../support/devstack';
import { liveRows, waitFor, startDevice } from '../support/sync-client';
import { deviceDb, rejectionsLogged } from '../../sync/testing';

let stack: TestDevstack;
const { devices, device } = deviceSuite((started) => (stack = started));

/** A server-side read as the service role (the oracle, not the engine). */
async function serverRow(table: string, id: string) {
  const { rows } = await stack.db.query(`select * from public.${table} where id = $1`, [id]);
  return rows[0];
}

describe('sync engine', () => {
  it('pulls the seeded list on first sync', async () => {
    const alice = await device('alice@example.com');
    const status = await alice.sync.engine.syncNow();
    expect(status.phase).toBe('synced');
    const lists = await liveRows(alice, 'lists');
    expect(lists.map((l) => l.id)).toContain(SEED.list);
    const tasks = await liveRows(alice, 'tasks');
    expect(tasks.length).toBeGreaterThanOrEqual(30);
    expect(tasks.every((t) => t._v === t.version && t._v > 0)).toBe(true);
  });

  it('writes locally first (offline, durable before any network call), then pushes once online', async () => {
    const alice = await device('alice@example.com');
    await alice.sync.engine.syncNow();
    alice.online.set(false);
    const id = await alice.sync.repos.tasks.create(SEED.list, { title: 'Written offline' });
    // Visible and queued at once, with no server involved.
    expect((await deviceDb(alice.sync).rows('tasks').get(id))?.title).toBe('Written offline');
    expect(await alice.sync.pendingCount()).toBe(1);
    expect(alice.sync.engine.status.getSnapshot().phase).toBe('offline');
    expect(await serverRow('tasks', id)).toBeUndefined();

    // A reload (new engine, same IndexedDB) still has it.
    await alice.sync.stop();
    const reloaded = alice.reload();
    devices.keep(reloaded);
    expect((await deviceDb(reloaded.sync).rows('tasks').get(id))?.title).toBe('Written offline');

    reloaded.online.set(true);
    const status = await reloaded.sync.engine.syncNow();
    expect(status.phase).toBe('synced');
    expect(status.pending).toBe(0);
    const server = await serverRow('tasks', id);
    expect(server?.title).toBe('Written offline');
    expect(Number(server?.version)).toBe(1);
  });

  it('merges concurrent edits of different fields of one task; both devices converge', async () => {
    const alice = await device('alice@example.com');
    const bob = await device('bob@example.com');
    await Promise.all([alice.sync.engine.syncNow(), bob.sync.engine.syncNow()]);
    const id = SEED.task(5);

    alice.online.set(false);
    bob.online.set(false);
    await alice.sync.repos.tasks.update(id, { title: 'Roof drainage (alice)' });
    await bob.sync.repos.tasks.update(id, { notes: 'Gutter blocked (bob)', priority: 3 });
    alice.online.set(true);
    bob.online.set(true);
    await alice.sync.engine.syncNow();
    await bob.sync.engine.syncNow();
    await alice.sync.engine.syncNow();

    const server = await serverRow('tasks', id);
    expect(server).toMatchObject({
      title: 'Roof drainage (alice)',
      notes: 'Gutter blocked (bob)',
      priority: 3,
    });
    for (const d of [alice, bob]) {
      expect(await deviceDb(d.sync).rows('tasks').get(id)).toMatchObject({
        title: 'Roof drainage (alice)',
        notes: 'Gutter blocked (bob)',
        priority: 3,
        version: Number(server?.version),
      });
    }
  });

  it('keeps pending local fields on top of a newer pulled row (rebase)', async () => {
    // A delete in its undo window holds back everything queued after it, so the pull below
    // meets a pending edit.
    const alice = await device('alice@example.com', { undoWindowMs: 60_000 });
    const bob = await device('bob@example.com');
    await Promise.all([alice.sync.engine.syncNow(), bob.sync.engine.syncNow()]);
    const held = SEED.task(20);
    const target = SEED.task(21);
    await alice.sync.repos.tasks.delete(held);
    await alice.sync.repos.tasks.update(target, { title: 'Pending on alice' });
    await bob.sync.repos.tasks.update(target, { notes: 'Pushed by bob' });
    await bob.sync.engine.syncNow();

    await alice.sync.engine.syncNow();
    expect(await alice.sync.pendingCount()).toBe(2);
    const row = await deviceDb(alice.sync).rows('tasks').get(target);
    expect(row).toMatchObject({ title: 'Pending on alice', notes: 'Pushed by bob' });
    expect(row?._v).toBe(Number((await serverRow('tasks', target))?.version));
  });

  it('coalesces unsent edits of a row into one mutation', async () => {
    const alice = await device('alice@example.com');
    await alice.sync.engine.syncNow();
    alice.online.set(false);
    const id = await alice.sync.repos.tasks.create(SEED.list, { title: 'One' });
    await alice.sync.repos.tasks.update(id, { title: 'Two' });
    await alice.sync.repos.tasks.update(id, { notes: 'Three' });
    const outbox = await deviceDb(alice.sync)._outbox.toArray();
    expect(outbox).toHaveLength(1);
    expect(outbox[0]).toMatchObject({ op: 'insert', data: { title: 'Two', notes: 'Three' } });
  });

  it('reverts and logs an edit the server refuses (a viewer edits a task)', async () => {
    const carolEmail = `carol-${Date.now()}@example.com`;
    const signup = stack.client();
    const { data } = await signup.auth.signUp({ email: carolEmail, password: 'secret-123' });
    const carolId = data.user?.id ?? '';
    await stack.db.query(
      `insert into public.memberships (list_id, user_id, role) values ($1, $2, 'viewer')`,
      [SEED.list, carolId],
    );
    const carol = await device(carolEmail, { supabase: signup });
    await carol.sync.engine.syncNow();
    const id = SEED.task(2);
    const before = await deviceDb(carol.sync).rows('tasks').get(id);
    expect(before).toBeDefined();

    await carol.sync.repos.tasks.update(id, { title: 'Viewer was here' });
    expect((await deviceDb(carol.sync).rows('tasks').get(id))?.title).toBe('Viewer was here');
    const status = await carol.sync.engine.syncNow();
    expect(status.pending).toBe(0);
    expect((await deviceDb(carol.sync).rows('tasks').get(id))?.title).toBe(before?.title);
    const rejections = await deviceDb(carol.sync)._rejections.toArray();
    expect(rejections).toHaveLength(1);
    expect(rejections[0]).toMatchObject({ table: 'tasks', rowId: id, code: 'PERMISSION_DENIED' });
    expect((await serverRow('tasks', id))?.title).toBe(before?.title);

    // A refused delete brings back the task and the comments it hid.
    const alice = await device('alice@example.com');
    await alice.sync.engine.syncNow();
    const commentId = await alice.sync.repos.comments.create(id, 'Still here');
    await alice.sync.engine.syncNow();
    await carol.sync.engine.syncNow();
    await carol.sync.repos.tasks.delete(id);
    expect((await liveRows(carol, 'comments')).some((c) => c.id === commentId)).toBe(false);
    await carol.sync.engine.syncNow();
    expect((await liveRows(carol, 'tasks')).some((t) => t.id === id)).toBe(true);
    expect((await liveRows(carol, 'comments')).some((c) => c.id === commentId)).toBe(true);
    expect(await deviceDb(carol.sync)._rejections.count()).toBe(2);
  });

  it('logs the rule a refused change broke as the server names it (code, column), not as text', async () => {
    // Someone with an account but no place on the list: the rules trigger refuses them as
    // an assignee, which this device cannot know beforehand.
    const signup = stack.client();
    const { data } = await signup.auth.signUp({
      email: `dora-${Date.now()}@example.com`,
      password: 'secret-123',
    });
    const outsider = data.user?.id ?? '';
    const alice = await device('alice@example.com');
    await alice.sync.engine.syncNow();
    await alice.sync.repos.tasks.update(SEED.task(3), { assignee_id: outsider });
    await alice.sync.engine.syncNow();
    const rejections = await deviceDb(alice.sync)._rejections.toArray();
    expect(rejections).toHaveLength(1);
    expect(rejections[0]).toMatchObject({
      table: 'tasks',
      code: 'VALIDATION_FAILED',
      sqlState: 'P0001',
      rule: 'ASSIGNEE_NOT_MEMBER',
      column: 'assignee_id',
    });
  });

  it('purges a list from a device when its membership is revoked (I5)', async () => {
    const alice = await device('alice@example.com');
    const listId = await alice.sync.repos.lists.create({ name: 'Short-lived share', color: 'red' });
    await alice.sync.repos.tasks.create(listId, { title: 'Secret task' });
    await alice.sync.engine.syncNow();
    const { rows } = await stack.db.query<{ id: string }>(
      `insert into public.memberships (list_id, user_id, role) values ($1, $2, 'editor') returning id`,
      [listId, SEED.bob],
    );
    const bob = await device('bob@example.com');
    await bob.sync.engine.syncNow();
    expect((await liveRows(bob, 'tasks')).some((t) => t.list_id === listId)).toBe(true);

    await alice.sync.engine.syncNow();
    await alice.sync.repos.memberships.remove(rows[0]?.id ?? '');
    await alice.sync.engine.syncNow();
    await bob.sync.engine.syncNow();
    for (const table of ['lists', 'tasks', 'memberships', 'comments']) {
      const all = await deviceDb(bob.sync).rows(table).toArray();
      expect(
        all.filter((r) => r.id === listId || r.list_id === listId),
        table,
      ).toEqual([]);
    }
  });
});

describe('what the device keeps when access ends', () => {
  /** A fresh user (signed up now) with a device. */
  async function newcomer(name: string) {
    const email = `${name}-${Date.now()}-${Math.random().toString(36).slice(2, 6)}@example.com`;
    const client = stack.client();
    const { data, error } = await client.auth.signUp({ email, password: 'secret-123' });
    if (error || !data.user) throw error ?? new Error('no user');
    return { id: data.user.id, device: await device(email, { supabase: client }) };
  }

  it('drops the profile of someone who no longer shares a list (the server sends no tombstone for it)', async () => {
    const alice = await device('alice@example.com');
    const listId = await alice.sync.repos.lists.create({ name: 'Short share', color: 'teal' });
    await alice.sync.engine.syncNow();
    const dana = await newcomer('dana');
    await stack.db.query(
      `insert into public.memberships (list_id, user_id, role) values ($1, $2, 'editor')`,
      [listId, dana.id],
    );
    await dana.device.sync.engine.syncNow();
    await alice.sync.engine.syncNow();
    expect(await deviceDb(alice.sync).rows('profiles').get(dana.id)).toBeDefined();

    // Dana leaves: her membership becomes a tombstone; her profile just stops being visible.
    const mine = (await liveRows(dana.device, 'memberships')).find((m) => m.list_id === listId);
    await dana.device.sync.repos.memberships.leave(listId);
    await dana.device.sync.engine.syncNow();
    expect(mine).toBeDefined();
    await alice.sync.engine.syncNow();
    expect(await deviceDb(alice.sync).rows('profiles').get(dana.id)).toBeUndefined();
    // Alice's own and her co-members' (bob shares the seeded list) stay.
    expect(await deviceDb(alice.sync).rows('profiles').get(SEED.alice)).toBeDefined();
    expect(await deviceDb(alice.sync).rows('profiles').get(SEED.bob)).toBeDefined();
  });

  it('still drops it when the pull that brought the news was cut short before its end', async () => {
    let cut = false;
    const alice = await device('alice@example.com', {
      // After the page with the membership change, one more page is asked for, and fails.
      wrapRemote: (real) => ({
        ...real,
        async pull(cursor, maxRows) {
          if (cut) {
            cut = false;
            throw new SyncError('OFFLINE', 'connection dropped');
          }
          const page = await real.pull(cursor, maxRows);
          if (page.rows.some((r) => r.table === 'memberships' && r.row.deleted_at)) {
            cut = true;
            return { ...page, has_more: true };
          }
          return page;
        },
      }),
    });
    const listId = await alice.sync.repos.lists.create({ name: 'Brief share', color: 'teal' });
    await alice.sync.engine.syncNow();
    const finn = await newcomer('finn');
    await stack.db.query(
      `insert into public.memberships (list_id, user_id, role) values ($1, $2, 'editor')`,
      [listId, finn.id],
    );
    await alice.sync.engine.syncNow();
    expect(await deviceDb(alice.sync).rows('profiles').get(finn.id)).toBeDefined();

    await stack.db.query(
      'update public.memberships set deleted_at = now() where list_id = $1 and user_id = $2',
      [listId, finn.id],
    );
    const interrupted = await alice.sync.engine.syncNow();
    expect(interrupted.phase).toBe('backing-off');
    await alice.sync.engine.syncNow();
    expect(await deviceDb(alice.sync).rows('profiles').get(finn.id)).toBeUndefined();
  });

  it('logs the changes still queued for a list the user lost, rather than dropping them', async () => {
    const alice = await device('alice@example.com');
    const listId = await alice.sync.repos.lists.create({ name: 'Taken away', color: 'red' });
    const taskId = await alice.sync.repos.tasks.create(listId, { title: 'Before' });
    await alice.sync.engine.syncNow();
    const erin = await newcomer('erin');
    const { rows } = await stack.db.query<{ id: string }>(
      `insert into public.memberships (list_id, user_id, role) values ($1, $2, 'editor') returning id`,
      [listId, erin.id],
    );
    await erin.device.sync.engine.syncNow();
    // Erin is removed while her device is busy: an edit lands after its push, before its pull
    // brings her membership's tombstone (the window where nothing can send it any more).
    await stack.db.query('update public.memberships set deleted_at = now() where id = $1', [
      rows[0]?.id ?? '',
    ]);
    await erin.device.close();
    devices.forget(erin.device);
    let wrote = false;
    const again = await device(null, {
      supabase: erin.device.supabase,
      indexedDb: erin.device.indexedDb,
      wrapRemote: (real) => ({
        ...real,
        async pull(cursor, maxRows) {
          if (!wrote) {
            wrote = true;
            await again.sync.repos.tasks.update(taskId, { title: 'Written too late' });
          }
          return real.pull(cursor, maxRows);
        },
      }),
    });
    await waitFor(async () => (await deviceDb(again.sync)._rejections.count()) > 0);
    const [rejection] = await deviceDb(again.sync)._rejections.toArray();
    expect(rejection).toMatchObject({ rowId: taskId, code: 'PERMISSION_DENIED', listId });
    expect(await deviceDb(again.sync).rows('tasks').get(taskId)).toBeUndefined();
    expect(await again.sync.pendingCount()).toBe(0);
  });
});

describe('start-up', () => {
  it("stamps a write made in the first moment after start with the device's owner", async () => {
    const alice = await device('alice@example.com');
    await alice.sync.engine.syncNow();
    await alice.close();
    devices.forget(alice);
    // Reopened with no session to ask (e.g. offline, token expired): only the device knows.
    const reopened = await device(null, { indexedDb: alice.indexedDb, online: false });
    const listId = await reopened.sync.repos.lists.create({ name: 'At once', color: 'blue' });
    expect((await deviceDb(reopened.sync).rows('lists').get(listId))?.created_by).toBe(SEED.alice);
  });
});

describe('the table registry', () => {
  it('matches public.sync_registry column for column', async () => {
    const { OUTPOST_TABLES } = await import('../../src/data/tables');
    const { rows } = await stack.db.query<{
      name: string;
      scope: string;
      scope_column: string;
      insert_columns: string[];
      patch_columns: string[];
      depth: number;
    }>('select * from public.sync_registry order by name');
    const local = OUTPOST_TABLES.map((spec) => ({
      name: spec.name,
      scope: spec.scope.kind,
      scope_column: spec.scope.kind === 'list' ? spec.scope.column : 'id',
      insert_columns: [...spec.insertColumns],
      patch_columns: [...spec.patchColumns],
      depth: spec.depth,
    })).sort((a, b) => a.name.localeCompare(b.name));
    const server = rows.map((row) => ({
      name: row.name,
      scope: row.scope,
      scope_column: row.scope_column,
      insert_columns: row.insert_columns,
      patch_columns: row.patch_columns,
      depth: row.depth,
    }));
    expect(server).toEqual(local);
  });
});

describe('live updates', () => {
  it("shows another device's change without a manual sync (realtime wake-up), also after the socket drops", async () => {
    const { clientFor, signIn } = await import('../support/sync-client');
    const { cuttableWebSocket } = await import('../../sync/kit/faults');
    const sockets = cuttableWebSocket();
    const bobClient = clientFor(stack, undefined, sockets.transport);
    await signIn(bobClient, 'bob@example.com');
    const alice = await device('alice@example.com');
    const bob = await device('bob@example.com', { supabase: bobClient });
    await Promise.all([alice.sync.engine.syncNow(), bob.sync.engine.syncNow()]);
    // Bob's subscription has joined before the change (a change before it would come with
    // the pull its join asks for, proving nothing about live delivery).
    const joined = () => bobClient.getChannels().some((channel) => channel.state === 'joined');
    await waitFor(joined, 30_000);

    // Waits are generous for a busy machine but well under bob's 60 s safety pull: only
    // realtime can bring the edit in time.
    const started = performance.now();
    await alice.sync.repos.tasks.update(SEED.task(7), { title: 'Seen live by bob' });
    await waitFor(
      async () =>
        (await deviceDb(bob.sync).rows('tasks').get(SEED.task(7)))?.title === 'Seen live by bob',
      30_000,
    );
    const liveMs = performance.now() - started;

    // The socket drops; an edit made meanwhile arrives once realtime-js has reconnected.
    expect(sockets.cut()).toBeGreaterThanOrEqual(1);
    await waitFor(() => !joined(), 30_000);
    await alice.sync.repos.tasks.update(SEED.task(7), { title: 'Seen after the reconnect' });
    await waitFor(
      async () =>
        (await deviceDb(bob.sync).rows('tasks').get(SEED.task(7)))?.title ===
        'Seen after the reconnect',
      30_000,
    );
    expect(joined()).toBe(true);
    console.log(`live: alice's edit on bob's device in ${liveMs.toFixed(0)} ms`);
  });
});

describe('files and tabs', () => {
  it('pushes a file made offline with its new list and task: the rows first, then the file', async () => {
    const alice = await device('alice@example.com');
    await alice.sync.engine.syncNow();
    alice.online.set(false);
    const listId = await alice.sync.repos.lists.create({ name: 'Site visit', color: 'teal' });
    const taskId = await alice.sync.repos.tasks.create(listId, { title: 'Photograph the gate' });
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 3, 1, 4]);
    const id = await alice.sync.repos.attachments.add(
      taskId,
      new Blob([bytes], { type: 'image/png' }),
      'gate.png',
    );
    alice.online.set(true);
    expect((await alice.sync.engine.syncNow()).phase).toBe('synced');
    // The bucket takes a file only once its list is on the server: one batch with all three
    // would have had the upload refused and the attachment dropped.
    expect(await rejectionsLogged(alice.sync)).toEqual([]);
    expect(await alice.sync.pendingCount()).toBe(0);
    expect((await serverRow('attachments', id))?.task_id).toBe(taskId);
    const { rows } = await stack.db.query<{ n: number }>(
      `select count(*)::int as n from storage.objects where bucket_id = 'attachments' and name = $1`,
      [String((await serverRow('attachments', id))?.object_path)],
    );
    expect(rows[0]?.n).toBe(1);
  });

  it('downloads an attachment once through a signed URL and keeps it for offline viewing', async () => {
    const alice = await device('alice@example.com');
    await alice.sync.engine.syncNow();
    const bytes = new Uint8Array([0x25, 0x50, 0x44, 0x46, 9, 8, 7]);
    const id = await alice.sync.repos.attachments.add(
      SEED.task(4),
      new Blob([bytes], { type: 'application/pdf' }),
      'report.pdf',
    );
    await alice.sync.engine.syncNow();

    const bob = await device('bob@example.com');
    await bob.sync.engine.syncNow();
    expect(await deviceDb(bob.sync)._files.get(id)).toBeUndefined();
    const blob = await bob.sync.attachmentBlob(id);
    expect(new Uint8Array(await (blob as Blob).arrayBuffer())).toEqual(bytes);
    expect((await deviceDb(bob.sync)._files.get(id))?.state).toBe('cached');
    // Now without a server: the kept copy answers.
    await bob.supabase.auth.signOut({ scope: 'local' });
    const again = await bob.sync.attachmentBlob(id);
    expect(new Uint8Array(await (again as Blob).arrayBuffer())).toEqual(bytes);
  });

  it('refuses files that are too large or of a wrong type before queueing', async () => {
    const alice = await device('alice@example.com');
    await alice.sync.engine.syncNow();
    const big = new Blob([new Uint8Array(10 * 1024 * 1024 + 1)], { type: 'image/png' });
    await expect(
      alice.sync.repos.attachments.add(SEED.task(4), big, 'big.png'),
    ).rejects.toMatchObject({
      code: 'FILE_TOO_LARGE',
    });
    const html = new Blob(['<p>'], { type: 'text/html' });
    await expect(
      alice.sync.repos.attachments.add(SEED.task(4), html, 'x.html'),
    ).rejects.toMatchObject({
      code: 'FILE_TYPE',
    });
    expect(await alice.sync.pendingCount()).toBe(0);
  });

  it('lets one tab lead: the others only write, and one takes over when it closes', async () => {
    const { createOutpostSync } = await import('../../src/data/sync');
    const { IDBFactory, IDBKeyRange } = await import('fake-indexeddb');
    const { clientFor, signIn, switchableOnline } = await import('../support/sync-client');
    const { FaultyNetwork } = await import('../../sync/kit/faults');

    // A lock with the Web Locks contract: one holder, the next waiter gets it on release.
    const waiters: (() => void)[] = [];
    let held = false;
    const leadership = (onLeader: () => void) => {
      let mine = false;
      const grant = () => {
        held = true;
        mine = true;
        onLeader();
      };
      if (held) waiters.push(grant);
      else grant();
      return () => {
        if (!mine) return;
        held = false;
        waiters.shift()?.();
      };
    };
    const indexedDb = { indexedDB: new IDBFactory(), IDBKeyRange };
    const openTab = async () => {
      const net = new FaultyNetwork();
      const supabase = clientFor(stack, net.fetch);
      await signIn(supabase, 'alice@example.com');
      const sync = createOutpostSync({
        supabase,
        dbName: 'tabs',
        indexedDb,
        online: switchableOnline(true),
        undoWindowMs: 0,
        random: () => 0,
        leadership,
      });
      sync.start();
      return { sync, net, supabase };
    };
    // Opened one after the other: the first tab takes the lock.
    const tabs = [await openTab(), await openTab()];
    const [first, second] = tabs as [(typeof tabs)[0], (typeof tabs)[0]];
    await first.sync.engine.syncNow();

    const id = await second.sync.repos.tasks.create(SEED.list, { title: 'Written in tab 2' });
    await waitFor(async () => (await serverRow('tasks', id)) !== undefined);
    expect(second.net.count('/rest/v1/rpc/sync_push')).toBe(0);
    expect(first.net.count('/rest/v1/rpc/sync_push')).toBeGreaterThanOrEqual(1);

    await first.sync.stop();
    const next = await second.sync.repos.tasks.create(SEED.list, { title: 'After tab 1 closed' });
    await waitFor(async () => (await serverRow('tasks', next)) !== undefined);
    expect(second.net.count('/rest/v1/rpc/sync_push')).toBeGreaterThanOrEqual(1);
    for (const tab of tabs) {
      await tab.sync.close();
      await tab.supabase.removeAllChannels();
    }
  });
});

describe('accounts', () => {
  it('works without an account, then uploads everything on sign-up (claim)', async () => {
    const local = await device(null);
    expect((await local.sync.engine.syncNow()).phase).toBe('signed-out');
    const listId = await local.sync.repos.lists.create({ name: 'Made offline', color: 'green' });
    const taskId = await local.sync.repos.tasks.create(listId, { title: 'Before any account' });
    expect((await deviceDb(local.sync).rows('lists').get(listId))?.created_by).toBe(
      '00000000-0000-0000-0000-000000000000',
    );

    const email = `local-${Date.now()}@example.com`;
    const { data, error } = await local.supabase.auth.signUp({ email, password: 'secret-123' });
    expect(error).toBeNull();
    const userId = data.user?.id ?? '';
    await waitFor(async () => (await local.sync.pendingCount()) === 0);
    await local.sync.engine.syncNow();

    expect(await serverRow('lists', listId)).toMatchObject({
      name: 'Made offline',
      created_by: userId,
    });
    expect(await serverRow('tasks', taskId)).toMatchObject({
      title: 'Before any account',
      created_by: userId,
    });
    const memberships = await liveRows(local, 'memberships');
    expect(memberships.filter((m) => m.list_id === listId)).toEqual([
      expect.objectContaining({ user_id: userId, role: 'owner', _v: 1 }),
    ]);

    // The same user on another device sees it.
    const other = await startDevice(stack, email, { password: 'secret-123' });
    devices.keep(other);
    await other.sync.engine.syncNow();
    expect((await liveRows(other, 'tasks')).map((t) => t.id)).toContain(taskId);
  });

  it('signs out only after a warning while changes are unsynced, then wipes the device', async () => {
    const alice = await device('alice@example.com');
    await alice.sync.engine.syncNow();
    alice.online.set(false);
    await alice.sync.repos.tasks.create(SEED.list, { title: 'Not yet synced' });
    expect(await alice.sync.signOut()).toEqual({ signedOut: false, pending: 1 });
    expect(await deviceDb(alice.sync).rows('tasks').count()).toBeGreaterThan(0);

    expect(await alice.sync.signOut({ force: true })).toEqual({ signedOut: true, pending: 1 });
    for (const spec of deviceDb(alice.sync).registry)
      expect(await deviceDb(alice.sync).rows(spec.name).count()).toBe(0);
    expect(await alice.sync.pendingCount()).toBe(0);
    expect((await alice.supabase.auth.getSession()).data.session).toBeNull();
  });
});
