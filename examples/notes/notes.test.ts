// The notes example, tested the way any app tests its sync: only the library's public entry
// (sync/index.ts, through app.ts), the sync kit, and the generator for the drift check. Two
// users each keep private notes; one shares a folder with the other; both edit offline, a
// push answer is lost, they settle and converge, and neither ever holds the other's private
// notes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  assertConverged,
  storedRow,
  openDevice,
  settle,
  startBackend,
  type Backend,
  type Device,
} from '../../sync/kit/index';
import { syncSql } from '../../sync/sql/generate';
import { NOTES_APP, type NotesQueries, type NotesWrites } from './app';
import { NOTES_SCHEMA } from './schema';

const MIGRATIONS = fileURLToPath(new URL('./migrations', import.meta.url));
const PUSH = /\/rest\/v1\/rpc\/sync_push$/;

type NotesDevice = Device<NotesQueries, NotesWrites>;

let backend: Backend;
beforeAll(async () => {
  backend = await startBackend({ migrations: MIGRATIONS });
});
afterAll(async () => {
  await backend?.stop();
});

const titles = (rows: readonly { title: string }[]) => rows.map((r) => r.title).sort();

describe('the notes example', () => {
  it('commits the sync migration the generator makes from NOTES_SCHEMA', () => {
    const committed = readFileSync(join(MIGRATIONS, '0002_sync.sql'), 'utf8');
    expect(committed).toBe(syncSql(NOTES_SCHEMA));
  });

  it('shares a folder, converges through offline edits and a lost answer, keeps private notes private', async () => {
    const ann = await backend.createUser();
    const ben = await backend.createUser();
    const a: NotesDevice = await openDevice(backend, NOTES_APP, ann);
    const b: NotesDevice = await openDevice(backend, NOTES_APP, ben);

    // Each user's private notes, and a folder Ann will share.
    const annFolder = await a.sync.repos.folders.create('Ann private');
    const annSecret = await a.sync.repos.notes.create(annFolder, { title: 'Ann secret' });
    const benFolder = await b.sync.repos.folders.create('Ben private');
    const benSecret = await b.sync.repos.notes.create(benFolder, { title: 'Ben secret' });
    const shared = await a.sync.repos.folders.create('Trip');
    const plan = await a.sync.repos.notes.create(shared, { title: 'Plan', body: 'Day 1' });
    await settle([a, b]);

    await a.sync.repos.folders.share(shared, ben.id);
    await settle([a, b]);
    expect((await b.sync.queries.folders()).map((f) => f.name)).toEqual(['Ben private', 'Trip']);
    expect(titles(await b.sync.queries.notesOf(shared))).toEqual(['Plan']);

    // Both offline: each writes to the shared folder and to their own; Ben's push answer
    // is lost once they are back (the server applied it; the retry must not apply it twice).
    a.online.set(false);
    b.online.set(false);
    await a.sync.repos.notes.create(shared, { title: 'Tickets' });
    await a.sync.repos.notes.edit(plan, { body: 'Day 1: museum' });
    await a.sync.repos.notes.edit(annSecret, { body: 'still mine' });
    await b.sync.repos.notes.create(shared, { title: 'Packing list' });
    await b.sync.repos.notes.edit(plan, { title: 'Plan (draft)' });
    await b.sync.repos.notes.edit(benSecret, { body: 'mine too' });
    b.network.script(PUSH, 'drop-response');
    a.online.set(true);
    b.online.set(true);
    await settle([a, b]);

    expect(b.network.fired.get('drop-response')).toBe(1);
    await assertConverged(backend, [a, b]);
    for (const device of [a, b]) {
      expect(titles(await device.sync.queries.notesOf(shared))).toEqual([
        'Packing list',
        'Plan (draft)',
        'Tickets',
      ]);
    }
    expect((await a.sync.queries.notesOf(shared)).find((n) => n.id === plan)?.body).toBe(
      'Day 1: museum',
    );
    const rows = await backend.sql<{ n: number }>(
      `select count(*)::int as n from public.notes where folder_id = $1`,
      [shared],
    );
    expect(rows[0]?.n).toBe(3);

    // A client that bypasses the app cannot let itself into Ann's private folder: sync_push,
    // under the folders' row-level security, refuses the membership.
    const pushed = await b.supabase.rpc('sync_push', {
      client_id: crypto.randomUUID(),
      mutations: [
        {
          seq: 1,
          table: 'folder_members',
          op: 'insert',
          id: crypto.randomUUID(),
          data: { folder_id: annFolder, user_id: ben.id, role: 'editor' },
        },
      ],
    });
    expect(pushed.error).toBeNull();
    expect(pushed.data as unknown).toMatchObject({
      results: [{ status: 'rejected', code: '42501' }],
    });
    await settle([a, b]);
    await assertConverged(backend, [a, b]);

    // Neither device ever received the other's private folder or notes.
    expect((await a.sync.queries.folders()).map((f) => f.name)).toEqual(['Ann private', 'Trip']);
    expect(await b.sync.queries.notesOf(annFolder)).toEqual([]);
    expect(await a.sync.queries.notesOf(benFolder)).toEqual([]);
    expect(await storedRow(b.sync, 'notes', annSecret)).toBeUndefined();
    expect(await storedRow(b.sync, 'folders', annFolder)).toBeUndefined();
    expect(await storedRow(a.sync, 'notes', benSecret)).toBeUndefined();
  });
});
