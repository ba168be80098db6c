// A refused change is explained by the rule it broke (product.md §8 VALIDATION_FAILED: "the
// field's rule"), never by the database's SQL: from the shared schema when it refuses the
// change too, else from the constraint, column or trigger the message names, else a plain
// generic sentence.
import { describe, expect, it } from 'vitest';

import {
  describeRejection,
  errorMessage,
  GENERIC_RULE,
  rejectionRule,
  type RejectionFacts,
} from './error-messages';

const refused = (
  table: string,
  message: string,
  data: Record<string, unknown> = {},
): RejectionFacts => ({ table, op: 'patch', code: 'VALIDATION_FAILED', message, data });

/** Words of Postgres's messages that must never reach a person. */
const SQL_WORDS = /relation|constraint|violates|column|varying|domain|null value|"/;

describe('the rule a refused change broke', () => {
  it("says the schema's rule for the field, not the check constraint's SQL", () => {
    const rejection = refused(
      'tasks',
      'new row for relation "tasks" violates check constraint "tasks_title_check"',
      { title: 'x'.repeat(201) },
    );
    expect(rejectionRule(rejection)).toBe('Title can be at most 200 characters.');
    const sentence = describeRejection(rejection, '“Fix the door”');
    expect(sentence).toBe(
      'The server refused your change to the task “Fix the door”: Title can be at most 200 characters. Your change was undone.',
    );
  });

  it("explains a profile picture outside the user's own folder (the rules trigger, 23514)", () => {
    const rejection: RejectionFacts = {
      table: 'profiles',
      op: 'patch',
      code: 'VALIDATION_FAILED',
      message: 'avatar_path must be a file in the folder 0b/ of the avatars bucket',
      column: 'avatar_path',
      data: { avatar_path: 'someone-else/avatar-1.png' },
    };
    expect(rejectionRule(rejection)).toBe(
      'The picture must be one you uploaded to your own profile.',
    );
    expect(describeRejection(rejection)).not.toMatch(SQL_WORDS);
  });

  it("names the constrained field's rule when the schema accepts what was sent", () => {
    // The server's row broke the rule, or its rules are newer than this app's.
    expect(
      rejectionRule(
        refused(
          'tasks',
          'new row for relation "tasks" violates check constraint "tasks_title_check"',
          { title: 'Fine here' },
        ),
      ),
    ).toBe('Title must be 1 to 200 characters, with no spaces at either end.');
    expect(
      rejectionRule(
        refused('tasks', 'new row for relation "tasks" violates check constraint "tasks_check"', {
          status: 'done',
        }),
      ),
    ).toBe('Only done tasks have a completion time.');
    expect(
      rejectionRule(
        refused(
          'comments',
          'new row for relation "comments" violates check constraint "comments_body_check1"',
        ),
      ),
    ).toBe('A comment must be 1 to 4,000 characters, with no spaces at either end.');
  });

  it('reads a not-null column, a domain and a type out of the message', () => {
    expect(
      rejectionRule(
        refused(
          'lists',
          'null value in column "name" of relation "lists" violates not-null constraint',
        ),
      ),
    ).toBe('List name must be 1 to 80 characters, with no spaces at either end.');
    expect(
      rejectionRule(
        refused(
          'lists',
          'value for domain list_color violates check constraint "list_color_check"',
        ),
      ),
    ).toBe('Pick one of the palette colours.');
    expect(
      rejectionRule(refused('tasks', 'invalid input syntax for type date: "2026-13-45"')),
    ).toBe('Use a date like 2026-01-31.');
  });

  it('uses the column the database named with its refusal, when it named one', () => {
    // A trigger's message says nothing of the field; the server's column field does.
    const rejection = {
      ...refused('tasks', 'value refused by a newer rule', { notes: 'fine here' }),
      column: 'notes',
    };
    expect(rejectionRule(rejection)).toBe(
      rejectionRule(refused('tasks', 'x', { notes: 'y'.repeat(10_001) })),
    );
    expect(rejectionRule(rejection)).not.toBe(GENERIC_RULE);
  });

  it("turns the database's own rules (triggers) into sentences", () => {
    expect(
      rejectionRule(
        refused('tasks', 'the assignee must be a member of the list', { assignee_id: null }),
      ),
    ).toBe('Tasks can only be assigned to members of the list.');
    expect(rejectionRule(refused('memberships', 'a list must keep at least one owner'))).toBe(
      'A list must keep at least one owner.',
    );
  });

  it('falls back to a plain sentence, never SQL, for anything else', () => {
    const messages = [
      'duplicate key value violates unique constraint "attachments_object_path_key"',
      'value too long for type character varying(80)',
      'null value in column "mystery" of relation "lists" violates not-null constraint',
      'column "secret" of tasks is not writable',
      '',
    ];
    for (const message of messages) {
      const rule = rejectionRule(refused('lists', message, { name: 'Fine' }));
      expect(rule, message).not.toMatch(SQL_WORDS);
      expect(describeRejection(refused('lists', message)), message).not.toMatch(SQL_WORDS);
    }
    expect(rejectionRule(refused('lists', messages[0] ?? ''))).toBe(GENERIC_RULE);
    expect(rejectionRule(refused('lists', messages[2] ?? ''))).toBe(
      'A required field was left empty.',
    );
  });

  it('only blames fields the change carried (a rename is not missing its colour)', () => {
    expect(
      rejectionRule(
        refused('lists', 'value too long for type character varying(80)', { name: 'x'.repeat(81) }),
      ),
    ).toBe('List name can be at most 80 characters.');
    expect(rejectionRule(refused('lists', 'something else', { name: 'Fine' }))).toBe(GENERIC_RULE);
  });
});

describe('the sentences of product.md §8', () => {
  it("says a refused edit as the catalogue does: you can't edit it any more", () => {
    expect(errorMessage('PERMISSION_DENIED')).toBe("You can't edit this any more");
    expect(
      describeRejection(
        { table: 'tasks', op: 'patch', code: 'PERMISSION_DENIED', message: '' },
        '“Fix the door”',
      ),
    ).toMatch(/^You can't edit the task “Fix the door” any more/);
  });

  it('names the file size limit in the units sizes are shown in (10 MiB reads "10 MB")', () => {
    expect(errorMessage('FILE_TOO_LARGE')).toBe('Files can be at most 10 MB');
  });
});
