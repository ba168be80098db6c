// supabase/database.types.ts is what the migrations make it, on both database engines, so
// `npm test` fails as `npm run types:check` does when a migration changed and the file did
// not; and the renderer follows postgres-meta's template for what Outpost's schema lacks yet.
import { readFileSync } from 'node:fs';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openPglite, type SqlEngine } from '../devstack/sql-engine';
import { ENGINE_KINDS, freshDatabase, type TestDatabase } from '../tests/support/database';
import { databaseTypes, describeDifference, TYPES_FILE } from './gen-types';
import { readCatalog } from './gen-types-catalog';
import { renderTypes } from './gen-types-render';

describe.each(ENGINE_KINDS)('supabase/database.types.ts on %s', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await freshDatabase(kind, { seed: false });
  });
  afterAll(async () => {
    await database.close();
  });

  it('is what the migrations generate (else: npm run types)', async () => {
    const generated = await databaseTypes(database.engine);
    const committed = readFileSync(TYPES_FILE, 'utf8');
    expect(describeDifference(generated, committed)).toBeNull();
  });
});

describe('describeDifference', () => {
  it('names the first line that differs, with both versions', () => {
    const report = describeDifference('a\nb\nlist_id: string\nc', 'a\nb\nlistId: string\nc');
    expect(report).toContain('from line 3');
    expect(report).toContain('- 3: listId: string');
    expect(report).toContain('+ 3: list_id: string');
    expect(describeDifference('same', 'same')).toBeNull();
  });
});

describe('the renderer, on what Outpost does not use yet', () => {
  let db: SqlEngine;
  let text: string;
  beforeAll(async () => {
    db = await openPglite();
    await db.exec(`
      create type public.mood as enum ('calm', 'busy');
      create type public.point2 as (x float8, y float8);
      create table public.boards (
        id bigint generated always as identity primary key,
        title varchar not null,
        mood public.mood default 'calm',
        tags text[] not null default '{}',
        spot public.point2
      );
      create table public.pins (
        board_id bigint primary key references public.boards (id),
        note text
      );
      create view public.board_titles as select id, title from public.boards;
      create function public.boards_of(m public.mood) returns setof public.boards
        language sql stable as 'select * from public.boards where mood = m';
      create function public.first_board() returns public.boards
        language sql stable as 'select * from public.boards limit 1';
      create function public.counts() returns table (n bigint, title text)
        language sql as 'select 1::bigint, ''x''';
      create function public.touch() returns trigger language plpgsql as
        'begin return new; end';
      create function public.pick(a integer) returns text language sql as 'select ''x''';
      create function public.pick(a text) returns integer language sql as 'select 1';
      create function public.board_age(public.boards) returns integer
        language sql as 'select 1';
    `);
    text = await renderTypes(await readCatalog(db, ['public']), {
      defaultSchema: 'public',
      detectOneToOne: true,
    });
  });
  afterAll(async () => {
    await db.close();
  });

  it('types enums, arrays, composites and identity columns as postgres-meta does', () => {
    expect(text).toContain('mood: Database["public"]["Enums"]["mood"] | null');
    expect(text).toContain('tags: string[]');
    expect(text).toContain('spot: Database["public"]["CompositeTypes"]["point2"] | null');
    // GENERATED ALWAYS: never written.
    expect(text).toMatch(/Insert: \{\s+id\?: never/);
    expect(text).toContain('mood: "calm" | "busy"');
    expect(text).toContain(
      'point2: {\n        x: number | null\n        y: number | null\n      }',
    );
    expect(text).toContain('mood: ["calm", "busy"]');
  });

  it('marks a foreign key that is also the primary key one-to-one', () => {
    expect(text).toMatch(
      /foreignKeyName: "pins_board_id_fkey"\s+columns: \["board_id"\]\s+isOneToOne: true/,
    );
  });

  it('writes an updatable view with Insert and Update, and leaves out trigger functions', () => {
    expect(text).toMatch(/board_titles: \{\s+Row: \{\s+id: number \| null\s+title: string \| null/);
    // Auto-updatable: every column is writable through it, and optional.
    expect(text).toMatch(
      /board_titles: \{[^]*?Insert: \{\s+id\?: number \| null\s+title\?: string \| null/,
    );
    expect(text).not.toContain('touch');
  });

  it('marks what PostgREST cannot call as postgres-meta does, and computed fields', () => {
    expect(text).toContain(
      '"Could not choose the best candidate function between: public.pick(a => int4), public.pick(a => text). Try renaming the parameters or the function itself in the database so function overloading can be resolved"',
    );
    expect(text).toContain(
      '"the function public.board_age with parameter or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache"',
    );
    // A computed field comes after the columns in its table's Row.
    expect(text).toMatch(/boards: \{\s+Row: \{[^}]*title: string\s+board_age: number \| null\s+\}/);
  });

  it('types functions: set-returning, row-returning and returns table', () => {
    expect(text).toMatch(
      /boards_of: \{\s+Args: \{ m: Database\["public"\]\["Enums"\]\["mood"\] \}\s+Returns: \{[^}]*\}\[\]\s+SetofOptions: \{\s+from: "\*"\s+to: "boards"\s+isOneToOne: false\s+isSetofReturn: true/,
    );
    expect(text).toMatch(
      /first_board: \{\s+Args: never\s+Returns: \{[^}]*\}\s+SetofOptions: \{\s+from: "\*"\s+to: "boards"\s+isOneToOne: true\s+isSetofReturn: false/,
    );
    expect(text).toMatch(
      /counts: \{\s+Args: never\s+Returns: \{\s+n: number\s+title: string\s+\}\[\]/,
    );
  });
});
