// Deleting an attachment removes its object (sync-design.md "Files"): the delete queues the path in
// private.attachment_cleanup (triggers, cascades included) and the attachment-cleanup edge
// function removes it through the Storage API. Real engine, real supabase-js, real Deno.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { SupabaseClient } from '@supabase/supabase-js';
import { describe, expect, it } from 'vitest';

import { REPO_ROOT } from '../../devstack/schema-files';
import { deviceSuite } from '../support/device-suite';
import type { TestDevstack } from '../support/devstack';
import { waitFor, type Device, type DeviceOptions } from '../support/sync-client';

const BUCKET = 'attachments';
const FUNCTION = 'attachment-cleanup';
const PDF = new Uint8Array([0x25, 0x50, 0x44, 0x46, 1, 2, 3]);

let stack: TestDevstack;
let service: SupabaseClient;
const { devices } = deviceSuite((started) => {
  stack = started;
  service = stack.client({ key: stack.secretKey });
});

/** A device whose engine never pokes the function, so a test decides when it runs. */
const quiet: DeviceOptions = {
  wrapRemote: (real) => ({ ...real, cleanupDeletedFiles: () => Promise.resolve() }),
};

/** Whether storage still has the object: its row and its bytes (read with the service key). */
async function stored(path: string): Promise<boolean> {
  const { rows } = await stack.db.query<{ n: number }>(
    `select count(*)::int as n from storage.objects where bucket_id = $1 and name = $2`,
    [BUCKET, path],
  );
  const download = await service.storage.from(BUCKET).download(path);
  expect(rows[0]?.n === 1, `storage.objects and the bytes of ${path} agree`).toBe(!download.error);
  return !download.error;
}

async function queued(): Promise<string[]> {
  const { rows } = await stack.db.query<{ object_path: string }>(
    'select object_path from private.attachment_cleanup order by 1',
  );
  return rows.map((r) => r.object_path);
}

async function pathOf(id: string): Promise<string> {
  const { rows } = await stack.db.query<{ object_path: string }>(
    'select object_path from public.attachments where id = $1',
    [id],
  );
  const path = rows[0]?.object_path;
  if (!path) throw new Error(`attachment ${id} is not on the server`);
  return path;
}

/** A list with `perTask[i]` attachments on its i-th task, all pushed with their objects. */
async function listWithFiles(owner: Device, perTask: number[]) {
  const listId = await owner.sync.repos.lists.create({ name: 'Files', color: 'teal' });
  const tasks: { id: string; files: string[] }[] = [];
  for (const [i, count] of perTask.entries()) {
    const id = await owner.sync.repos.tasks.create(listId, { title: `Task ${i}` });
    const files: string[] = [];
    for (let n = 0; n < count; n++) {
      const blob = new Blob([PDF, new Uint8Array([i, n])], { type: 'application/pdf' });
      files.push(await owner.sync.repos.attachments.add(id, blob, `f${i}-${n}.pdf`));
    }
    tasks.push({ id, files });
  }
  expect((await owner.sync.engine.syncNow()).phase).toBe('synced');
  const paths = new Map<string, string>();
  for (const task of tasks) for (const id of task.files) paths.set(id, await pathOf(id));
  for (const path of paths.values()) expect(await stored(path)).toBe(true);
  return { listId, tasks, paths };
}

async function invoke(client: SupabaseClient, body?: Record<string, unknown>) {
  return client.functions.invoke<{ removed: number }>(FUNCTION, {
    method: 'POST',
    ...(body ? { body } : {}),
  });
}

/** Drains whatever earlier tests left queued, so counts below are this test's own. */
async function drainAll(): Promise<void> {
  expect((await invoke(service)).error).toBeNull();
  expect(await queued()).toEqual([]);
}

/**
 * Waits for the engine's poke (never awaited) to have run to its end, then checks the
 * objects are gone. The function takes paths off the queue only after storage removed their
 * objects, so an empty queue means it is done (the delete queued them before its push ended).
 */
async function cleanedUp(paths: Iterable<string>): Promise<void> {
  await waitFor(async () => (await queued()).length === 0);
  for (const path of paths) expect(await stored(path), path).toBe(false);
}

async function signedUpClient(email: string): Promise<SupabaseClient> {
  const client = stack.client();
  const { error } = await client.auth.signUp({ email, password: 'cleanup-pass' });
  if (error) throw error;
  return client;
}

describe('attachment cleanup through the sync engine', () => {
  it('deleting an attachment removes its object, and only its object', async () => {
    const alice = await devices.device('alice@example.com');
    const { tasks, paths } = await listWithFiles(alice, [2]);
    const [gone, kept] = tasks[0]?.files ?? [];
    if (!gone || !kept) throw new Error('two attachments expected');

    await alice.sync.repos.attachments.delete(gone);
    expect((await alice.sync.engine.syncNow()).phase).toBe('synced');
    await cleanedUp([paths.get(gone) ?? '']);
    expect(await stored(paths.get(kept) ?? '')).toBe(true);
  });

  it("deleting a task removes its attachments' objects", async () => {
    const alice = await devices.device('alice@example.com');
    const { tasks, paths } = await listWithFiles(alice, [3, 1]);
    const [doomed, other] = tasks;
    if (!doomed || !other) throw new Error('two tasks expected');

    await alice.sync.repos.tasks.delete(doomed.id);
    expect((await alice.sync.engine.syncNow()).phase).toBe('synced');
    await cleanedUp(doomed.files.map((id) => paths.get(id) ?? ''));
    expect(await stored(paths.get(other.files[0] ?? '') ?? '')).toBe(true);
  });

  it('deleting a list removes the objects of all its tasks', async () => {
    const alice = await devices.device('alice@example.com');
    const { listId, paths } = await listWithFiles(alice, [2, 2, 1]);

    await alice.sync.repos.lists.delete(listId);
    expect((await alice.sync.engine.syncNow()).phase).toBe('synced');
    await cleanedUp(paths.values());
  });
});

describe('the attachment-cleanup function', () => {
  it('removes what is queued once; a second call (and an object already gone) is no error', async () => {
    await drainAll();
    const alice = await devices.device('alice@example.com', quiet);
    const { tasks, paths } = await listWithFiles(alice, [3]);
    const [a, b, c] = tasks[0]?.files ?? [];
    if (!a || !b || !c) throw new Error('three attachments expected');
    for (const id of [a, b]) await alice.sync.repos.attachments.delete(id);
    await alice.sync.engine.syncNow();
    expect(await queued()).toEqual([paths.get(a), paths.get(b)].sort());
    // One of the two is gone already (someone removed it by hand): removing it is not an error.
    expect((await service.storage.from(BUCKET).remove([paths.get(a) ?? ''])).error).toBeNull();

    const first = await invoke(alice.supabase);
    expect(first.error).toBeNull();
    expect(first.data).toEqual({ removed: 1 });
    expect(await stored(paths.get(b) ?? '')).toBe(false);
    expect(await stored(paths.get(c) ?? '')).toBe(true);
    expect(await queued()).toEqual([]);

    const second = await invoke(alice.supabase);
    expect(second.error).toBeNull();
    expect(second.data).toEqual({ removed: 0 });
    expect(await stored(paths.get(c) ?? '')).toBe(true);
  });

  it('takes no paths from its caller: a viewer or a non-member removes nothing that is live', async () => {
    await drainAll();
    const alice = await devices.device('alice@example.com', quiet);
    const { listId, tasks, paths } = await listWithFiles(alice, [1]);
    const id = tasks[0]?.files[0] ?? '';
    const path = paths.get(id) ?? '';
    const viewer = await signedUpClient(`viewer-${Date.now()}@example.com`);
    const viewerId = (await viewer.auth.getUser()).data.user?.id ?? '';
    await stack.db.query(
      `insert into public.memberships (list_id, user_id, role) values ($1, $2, 'viewer')`,
      [listId, viewerId],
    );
    const stranger = await signedUpClient(`stranger-${Date.now()}@example.com`);

    for (const who of [viewer, stranger]) {
      for (const body of [{ paths: [path] }, { path }, { object_path: path, prefixes: [path] }]) {
        const answer = await invoke(who, body);
        expect(answer.error).toBeNull();
        expect(answer.data).toEqual({ removed: 0 });
      }
      // The SQL behind it is the service role's alone.
      const take = await who.rpc('attachment_cleanup_take', { max_paths: 10 });
      expect(take.error?.code).toBe('42501');
      const done = await who.rpc('attachment_cleanup_done', { paths: [path] });
      expect(done.error?.code).toBe('42501');
      // Nor can they queue it: a viewer's delete is refused, a stranger cannot see the row.
      const push = await who.rpc('sync_push', {
        client_id: crypto.randomUUID(),
        mutations: [{ seq: 1, table: 'attachments', op: 'delete', id, data: {} }],
      });
      expect(push.error).toBeNull();
      expect((push.data as { results: { status: string }[] }).results[0]?.status).toBe('rejected');
      expect((await invoke(who)).data).toEqual({ removed: 0 });
    }
    expect(await queued()).toEqual([]);
    expect(await stored(path)).toBe(true);

    // No session at all: the anon key is not a signed-in caller.
    const anon = await invoke(stack.client(), { paths: [path] });
    expect(anon.error).not.toBeNull();
    expect((anon.error as { context?: Response }).context?.status).toBe(401);
    expect(await stored(path)).toBe(true);
  });

  it('keeps its queue out of the API: not a table of the REST API, in no schema it serves', async () => {
    const alice = await devices.device('alice@example.com', quiet);
    for (const client of [alice.supabase, service]) {
      const plain = await client.from('attachment_cleanup').select('*');
      expect(plain.error?.code).toBe('PGRST205');
      const privateSchema = await client.schema('private').from('attachment_cleanup').select('*');
      expect(privateSchema.error?.code).toBe('PGRST106');
      const insert = await client
        .schema('private')
        .from('attachment_cleanup')
        .insert({ object_path: 'x/y/z.pdf' });
      expect(insert.error?.code).toBe('PGRST106');
    }
    const table = await stack.db.query<{ oid: string | null }>(
      `select to_regclass('private.attachment_cleanup')::text as oid`,
    );
    expect(table.rows[0]?.oid).toBe('private.attachment_cleanup');
    const { rows } = await stack.db.query<{ grantee: string }>(
      `select grantee from information_schema.role_table_grants
       where table_schema = 'private' and table_name = 'attachment_cleanup'
         and grantee in ('anon', 'authenticated', 'service_role')`,
    );
    expect(rows).toEqual([]);
  });

  it('answers the scheduler, which calls it with the service role key', async () => {
    await drainAll();
    const alice = await devices.device('alice@example.com', quiet);
    const { tasks, paths } = await listWithFiles(alice, [1]);
    const id = tasks[0]?.files[0] ?? '';
    await alice.sync.repos.attachments.delete(id);
    await alice.sync.engine.syncNow();
    const answer = await invoke(service);
    expect(answer.error).toBeNull();
    expect(answer.data).toEqual({ removed: 1 });
    expect(await stored(paths.get(id) ?? '')).toBe(false);
  });
});

describe('what reaches the queue besides soft deletes', () => {
  it('a tombstone purged before the cleanup ran, and a live row hard-deleted, still lose their objects', async () => {
    await drainAll();
    const alice = await devices.device('alice@example.com', quiet);
    const { tasks, paths } = await listWithFiles(alice, [2]);
    const [purged, hard] = tasks[0]?.files ?? [];
    if (!purged || !hard) throw new Error('two attachments expected');
    await alice.sync.repos.attachments.delete(purged);
    await alice.sync.engine.syncNow();
    await stack.db.query(
      `update public.attachments set deleted_at = now() - interval '91 days' where id = $1`,
      [purged],
    );
    const summary = await service.rpc('sync_purge_tombstones');
    expect(summary.error).toBeNull();
    expect(await pathOf(purged).catch(() => 'purged')).toBe('purged');
    // A live row that goes without a tombstone (a deleted account's, a hard-deleted list's).
    await stack.db.query('delete from public.attachments where id = $1', [hard]);
    expect(await queued()).toEqual([paths.get(purged), paths.get(hard)].sort());

    expect((await invoke(service)).data).toEqual({ removed: 2 });
    expect(await stored(paths.get(purged) ?? '')).toBe(false);
    expect(await stored(paths.get(hard) ?? '')).toBe(false);
  });

  it('the migration queues tombstones made before it, and runs again without harm', async () => {
    await drainAll();
    const alice = await devices.device('alice@example.com', quiet);
    const { tasks, paths } = await listWithFiles(alice, [2]);
    const [old, live] = tasks[0]?.files ?? [];
    if (!old || !live) throw new Error('two attachments expected');
    await alice.sync.repos.attachments.delete(old);
    await alice.sync.engine.syncNow();
    // As before the migration: a tombstone whose object nobody queued.
    await stack.db.query('delete from private.attachment_cleanup');

    const [migration] = ['20261124000500_attachment_cleanup.sql'].map((name) =>
      readFileSync(join(REPO_ROOT, 'supabase', 'migrations', name), 'utf8'),
    );
    await stack.db.exec(migration ?? '');
    expect(await queued()).toContain(paths.get(old));
    expect(await queued()).not.toContain(paths.get(live));
    const { rows } = await stack.db.query<{ n: number }>(
      `select count(*)::int as n from pg_trigger
       where tgrelid = 'public.attachments'::regclass and tgname like 'd_queue_cleanup%'`,
    );
    expect(rows[0]?.n).toBe(2);

    await invoke(service);
    expect(await stored(paths.get(old) ?? '')).toBe(false);
    expect(await stored(paths.get(live) ?? '')).toBe(true);
  });
});
