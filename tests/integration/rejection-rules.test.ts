// A refusal names the rule it broke as values, on both engines: sync_push answers a refused
// mutation with the constraint Postgres names (a check, a primary key), the rule code a
// trigger raises as HINT, and the column, and a replay (a lost response) answers with the
// same facts. The app words every one of them (src/lib/error-messages.ts): each check
// constraint of the synced tables, and each rule code a trigger of the migrations raises.
import { randomUUID } from 'node:crypto';

import type { SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { CONSTRAINT_FIELDS, COLUMN_RULES, TRIGGER_RULES } from '@/lib/rejection-messages';
import { ENGINE_KINDS } from '../support/database';
import {
  SEED,
  signedInDemoClient,
  startTestDevstack,
  type TestDevstack,
} from '../support/devstack';

interface Result {
  seq: number;
  status: string;
  code?: string;
  hint?: string;
  constraint?: string;
  column?: string;
  replayed?: boolean;
}

/** What a result says of the refusal (absent fields left out). */
function facts({ seq, status, code, hint, constraint, column }: Result) {
  return Object.fromEntries(
    Object.entries({ seq, status, code, hint, constraint, column }).filter(
      ([, value]) => value !== undefined,
    ),
  );
}

describe.each(ENGINE_KINDS)('rejection rules on %s', (kind) => {
  let stack: TestDevstack;
  let alice: SupabaseClient;

  beforeAll(async () => {
    stack = await startTestDevstack(kind);
    alice = await signedInDemoClient(stack, 'alice');
  });

  afterAll(async () => {
    await stack.stop();
  });

  it('answers a refusal with the constraint, the rule code and the column, and a replay the same', async () => {
    const { rows } = await stack.db.query<{ id: string }>(
      'select id from public.memberships where list_id = $1 and user_id = $2',
      [SEED.list, SEED.alice],
    );
    const ownMembership = rows[0]?.id;
    expect(ownMembership).toBeDefined();
    const push = {
      client_id: randomUUID(),
      mutations: [
        { seq: 1, table: 'tasks', op: 'patch', id: SEED.task(1), data: { title: 'x'.repeat(201) } },
        // The list's only owner stepping down: the rules trigger refuses (LAST_OWNER).
        { seq: 2, table: 'memberships', op: 'patch', id: ownMembership, data: { role: 'editor' } },
        // A task that is already there: its primary key.
        {
          seq: 3,
          table: 'tasks',
          op: 'insert',
          id: SEED.task(2),
          data: { list_id: SEED.list, title: 'Again', position: 'zz' },
        },
      ],
    };
    const first = await alice.rpc('sync_push', push);
    expect(first.error).toBeNull();
    const results = (first.data as { results: Result[] }).results;
    expect(results.map(facts)).toEqual([
      { seq: 1, status: 'rejected', code: '23514', constraint: 'tasks_title_check' },
      { seq: 2, status: 'rejected', code: 'P0001', hint: 'LAST_OWNER' },
      { seq: 3, status: 'rejected', code: '23505', constraint: 'tasks_pkey' },
    ]);

    // The response was lost: the same push again is answered from the server's record.
    const replay = await alice.rpc('sync_push', push);
    expect(replay.error).toBeNull();
    const replayed = (replay.data as { results: Result[] }).results;
    expect(replayed.map((r) => r.replayed)).toEqual([true, true, true]);
    expect(replayed.map(facts)).toEqual(results.map(facts));
  });

  it('has a sentence for every check constraint of the synced tables and every rule code', async () => {
    const { rows: checks } = await stack.db.query<{ name: string }>(
      `select c.conname as name
         from pg_constraint c
         join pg_class t on t.oid = c.conrelid
        where c.contype = 'c' and t.relnamespace = 'public'::regnamespace
          and t.relname in (select name from public.sync_registry)
       union
       select c.conname from pg_constraint c join pg_type d on d.oid = c.contypid
        where d.typnamespace = 'public'::regnamespace`,
    );
    const inDatabase = checks.map((c) => c.name).sort();
    expect(inDatabase.length).toBeGreaterThan(10);
    expect(Object.keys(CONSTRAINT_FIELDS).sort()).toEqual(inDatabase);
    for (const name of inDatabase) {
      const field = CONSTRAINT_FIELDS[name] ?? '';
      expect(COLUMN_RULES[field], name).toBeTruthy();
    }

    // The codes the migrations' functions raise as HINT (NOT_FOUND is a code of its own).
    const { rows: sources } = await stack.db.query<{ src: string }>(
      `select prosrc as src from pg_proc
        where pronamespace in ('public'::regnamespace, 'private'::regnamespace)`,
    );
    const raised = new Set<string>();
    for (const { src } of sources) {
      for (const match of src.matchAll(/hint\s*=\s*'([A-Z_]+)'/g)) raised.add(match[1] ?? '');
    }
    raised.delete('NOT_FOUND');
    expect(raised.size).toBeGreaterThanOrEqual(4);
    expect(Object.keys(TRIGGER_RULES).sort()).toEqual([...raised].sort());
  });
});
