// startBackend on a schema of its own: migrations from another directory, a seed file, the
// bootstrap's auth under them, and a failing migration named.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, expect, it } from 'vitest';

import { startBackend } from './index';

const dir = mkdtempSync(join(tmpdir(), 'kit-schema-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function schema(name: string, migrations: Record<string, string>, seed?: string) {
  const migrationsDir = join(dir, name, 'migrations');
  mkdirSync(migrationsDir, { recursive: true });
  for (const [file, sql] of Object.entries(migrations)) {
    writeFileSync(join(migrationsDir, file), sql);
  }
  const seedFile = join(dir, name, 'seed.sql');
  if (seed !== undefined) writeFileSync(seedFile, seed);
  return { migrations: migrationsDir, seed: seed === undefined ? (false as const) : seedFile };
}

it('builds a backend from a directory of migrations and a seed file, in name order', async () => {
  const backend = await startBackend(
    schema(
      'notes',
      {
        // Applied by name: 0002 needs 0001's table.
        '0002_index.sql': 'create index notes_owner on public.notes (owner);',
        '0001_notes.sql': `create table public.notes (
          id uuid primary key default gen_random_uuid(),
          owner uuid not null references auth.users (id),
          body text not null
        );`,
      },
      `insert into public.notes (owner, body)
         select id, 'seeded' from auth.users limit 0;
       create table public.seeded (n int); insert into public.seeded values (1);`,
    ),
  );
  try {
    const user = await backend.createUser();
    await backend.sql('insert into public.notes (owner, body) values ($1, $2)', [user.id, 'hi']);
    expect(await backend.sql('select body from public.notes')).toEqual([{ body: 'hi' }]);
    expect(await backend.sql('select n from public.seeded')).toEqual([{ n: 1 }]);
    // Not Outpost's schema: none of its tables.
    expect(await backend.sql(`select to_regclass('public.tasks') as t`)).toEqual([{ t: null }]);
    const client = await backend.signIn(user);
    expect((await client.auth.getUser()).data.user?.id).toBe(user.id);
  } finally {
    await backend.stop();
  }
});

it('names the migration that failed', async () => {
  await expect(
    startBackend(schema('broken', { '0001_broken.sql': 'create table public.x (;' })),
  ).rejects.toThrow(/0001_broken\.sql/);
});
