import { describe, expect, it } from 'vitest';

import {
  ATTACHMENT_MAX_BYTES,
  attachmentInput,
  canTransition,
  listInput,
  taskInput,
  TASK_TITLE_MAX,
  validate,
} from './schema';

describe('shared validation', () => {
  it('trims and accepts valid input', () => {
    expect(validate(listInput, { name: '  Groceries ', color: 'teal' })).toEqual({
      ok: true,
      value: { name: 'Groceries', color: 'teal' },
    });
  });

  it('gives one message per field, ready to show inline', () => {
    const result = validate(taskInput, {
      title: '   ',
      notes: '',
      status: 'blocked',
      priority: 7,
      due_on: '31/01/2026',
      assignee_id: null,
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toEqual({
      title: "Title can't be empty.",
      status: 'Status must be todo, doing or done.',
      priority: 'Priority must be 0 to 3.',
      due_on: 'Use a date like 2026-01-31.',
    });
  });

  it('enforces the limits of SPEC §9 at their exact boundaries', () => {
    const base = { notes: '', status: 'todo', priority: 0, due_on: null, assignee_id: null };
    expect(validate(taskInput, { ...base, title: 'x'.repeat(TASK_TITLE_MAX) }).ok).toBe(true);
    expect(validate(taskInput, { ...base, title: 'x'.repeat(TASK_TITLE_MAX + 1) }).ok).toBe(false);
    const file = { file_name: 'a.png', mime_type: 'image/png' };
    expect(validate(attachmentInput, { ...file, size_bytes: ATTACHMENT_MAX_BYTES }).ok).toBe(true);
    expect(validate(attachmentInput, { ...file, size_bytes: ATTACHMENT_MAX_BYTES + 1 }).ok).toBe(
      false,
    );
    expect(validate(attachmentInput, { ...file, mime_type: 'text/html', size_bytes: 1 }).ok).toBe(
      false,
    );
    expect(validate(listInput, { name: 'A list', color: 'pink' }).ok).toBe(false);
  });

  it('allows exactly the status transitions of SPEC §4', () => {
    const allowed = ['todo>doing', 'todo>done', 'doing>todo', 'doing>done', 'done>todo'];
    for (const from of ['todo', 'doing', 'done'] as const) {
      for (const to of ['todo', 'doing', 'done'] as const) {
        const expected = from === to || allowed.includes(`${from}>${to}`);
        expect(canTransition(from, to), `${from} → ${to}`).toBe(expected);
      }
    }
  });
});
