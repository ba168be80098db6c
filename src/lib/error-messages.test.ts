// A refused change is explained by the rule it broke (product.md §8 VALIDATION_FAILED: "the
// field's rule"), chosen by values the server sends, never by its SQL: from the shared schema
// when it refuses the change too, else by the trigger's rule code, the constraint or column
// the database named, or the kind of error, else a plain generic sentence. Every check
// constraint of the synced tables has its sentence (held to the database's own list in
// tests/integration/rejection-rules.test.ts).
import { describe, expect, it } from 'vitest';

import { errorMessage } from './error-messages';
import {
  describeRejection,
  GENERIC_RULE,
  rejectionRule,
  type RejectionFacts,
} from './rejection-messages';

const refused = (
  table: string,
  facts: Omit<RejectionFacts, 'table' | 'op' | 'code'> = {},
): RejectionFacts => ({ table, op: 'patch', code: 'VALIDATION_FAILED', ...facts });

/** Words of Postgres's messages that must never reach a person. */
const SQL_WORDS = /relation|constraint|violates|column|varying|domain|null value|_check|"/;

describe('the rule a refused change broke', () => {
  it("says the schema's rule for the field, not the check constraint's name", () => {
    const rejection = refused('tasks', {
      sqlState: '23514',
      constraint: 'tasks_title_check',
      data: { title: 'x'.repeat(201) },
    });
    expect(rejectionRule(rejection)).toBe('Title can be at most 200 characters.');
    const sentence = describeRejection(rejection, '“Fix the door”');
    expect(sentence).toBe(
      'The server refused your change to the task “Fix the door”: Title can be at most 200 characters. Your change was undone.',
    );
  });

  it("explains a profile picture outside the user's own folder (the rules trigger, 23514)", () => {
    const rejection = refused('profiles', {
      sqlState: '23514',
      column: 'avatar_path',
      data: { avatar_path: 'someone-else/avatar-1.png' },
    });
    expect(rejectionRule(rejection)).toBe(
      'The picture must be one you uploaded to your own profile.',
    );
    expect(describeRejection(rejection)).not.toMatch(SQL_WORDS);
  });

  it("names the constrained field's rule when the schema accepts what was sent", () => {
    // The server's row broke the rule, or its rules are newer than this app's.
    const check = (table: string, constraint: string, data: Record<string, unknown> = {}) =>
      rejectionRule(refused(table, { sqlState: '23514', constraint, data }));
    expect(check('tasks', 'tasks_title_check', { title: 'Fine here' })).toBe(
      'Title must be 1 to 200 characters, with no spaces at either end.',
    );
    expect(check('tasks', 'tasks_check', { status: 'done' })).toBe(
      'Only done tasks have a completion time.',
    );
    expect(check('comments', 'comments_body_check')).toBe(
      'A comment must be 1 to 4,000 characters, with no spaces at either end.',
    );
    expect(check('lists', 'list_color_check')).toBe('Pick one of the palette colours.');
  });

  it('explains a not-null column and a bad date by their kind of error', () => {
    expect(rejectionRule(refused('lists', { sqlState: '23502', column: 'name' }))).toBe(
      'List name must be 1 to 80 characters, with no spaces at either end.',
    );
    expect(rejectionRule(refused('lists', { sqlState: '23502', column: 'mystery' }))).toBe(
      'A required field was left empty.',
    );
    expect(rejectionRule(refused('tasks', { sqlState: '22007' }))).toBe(
      'Use a date like 2026-01-31.',
    );
    // No other synced table takes a date from the client.
    expect(rejectionRule(refused('comments', { sqlState: '22007' }))).toBe(GENERIC_RULE);
  });

  it('uses the column the database named with its refusal, when it named one', () => {
    // A trigger's refusal says nothing of the field; the server's column field does.
    const rejection = refused('tasks', {
      sqlState: 'P0001',
      column: 'notes',
      data: { notes: 'ok' },
    });
    expect(rejectionRule(rejection)).toBe(
      rejectionRule(refused('tasks', { data: { notes: 'y'.repeat(10_001) } })),
    );
    expect(rejectionRule(rejection)).not.toBe(GENERIC_RULE);
  });

  it("turns the database's own rules (triggers) into sentences by their rule code", () => {
    const rule = (table: string, code: string) =>
      rejectionRule(refused(table, { sqlState: 'P0001', rule: code }));
    expect(rule('tasks', 'ASSIGNEE_NOT_MEMBER')).toBe(
      'Tasks can only be assigned to members of the list.',
    );
    expect(rule('memberships', 'LAST_OWNER')).toBe('A list must keep at least one owner.');
    expect(rule('memberships', 'MEMBER_LIMIT')).toBe('A list can have at most 50 members.');
    expect(rule('attachments', 'ATTACHMENT_LIMIT')).toBe('A task can have at most 20 files.');
  });

  it('falls back to a plain sentence, never SQL, for anything else', () => {
    const unknown: Omit<RejectionFacts, 'table' | 'op' | 'code'>[] = [
      { sqlState: '23505', constraint: 'attachments_object_path_key' },
      { sqlState: '22001' },
      { sqlState: 'P0001', rule: 'A_RULE_FROM_A_NEWER_SERVER' },
      { sqlState: '23514', constraint: 'lists_newer_check' },
      { sqlState: '42703', column: 'secret' },
      {},
    ];
    for (const facts of unknown) {
      const label = JSON.stringify(facts);
      expect(rejectionRule(refused('lists', { ...facts, data: { name: 'Fine' } })), label).toBe(
        GENERIC_RULE,
      );
      expect(describeRejection(refused('lists', facts)), label).not.toMatch(SQL_WORDS);
    }
  });

  it('only blames fields the change carried (a rename is not missing its colour)', () => {
    expect(
      rejectionRule(refused('lists', { sqlState: '22001', data: { name: 'x'.repeat(81) } })),
    ).toBe('List name can be at most 80 characters.');
    expect(rejectionRule(refused('lists', { sqlState: '22001', data: { name: 'Fine' } }))).toBe(
      GENERIC_RULE,
    );
  });
});

describe('the sentences of product.md §8', () => {
  it("says a refused edit as the catalogue does: you can't edit it any more", () => {
    expect(errorMessage('PERMISSION_DENIED')).toBe("You can't edit this any more");
    expect(
      describeRejection(
        { table: 'tasks', op: 'patch', code: 'PERMISSION_DENIED' },
        '“Fix the door”',
      ),
    ).toMatch(/^You can't edit the task “Fix the door” any more/);
  });

  it('names the file size limit in the units sizes are shown in (10 MiB reads "10 MB")', () => {
    expect(errorMessage('FILE_TOO_LARGE')).toBe('Files can be at most 10 MB');
  });
});
