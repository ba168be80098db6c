import { describe, expect, it } from 'vitest';

import { validate } from '@sync/index';

import {
  ATTACHMENT_MAX_BYTES,
  attachmentInput,
  canTransition,
  commentInput,
  listInput,
  listPatch,
  profilePatch,
  taskInput,
  taskPatch,
  TASK_TITLE_MAX,
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

  it('enforces the limits of product.md §9 at their exact boundaries', () => {
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

  it('takes only due dates that are on the calendar', () => {
    const dueOn = (due_on: string | null) => validate(taskPatch, { due_on });
    for (const real of ['2026-01-31', '2028-02-29', '2000-02-29', '2026-12-31', null]) {
      expect(dueOn(real), String(real)).toEqual({ ok: true, value: { due_on: real } });
    }
    for (const unreal of [
      '2026-02-30',
      '2026-02-29',
      '1900-02-29',
      '2026-04-31',
      '2026-13-01',
      '2026-1-5',
    ]) {
      expect(dueOn(unreal), unreal).toEqual({
        ok: false,
        errors: { due_on: 'Use a date like 2026-01-31.' },
      });
    }
  });

  it('takes any hex id of the uuid shape for an assignee', () => {
    for (const id of [
      '00000000-0000-0000-0000-000000000000',
      'ABCDEF01-2345-6789-abcd-ef0123456789',
    ]) {
      expect(validate(taskPatch, { assignee_id: id }), id).toEqual({
        ok: true,
        value: { assignee_id: id },
      });
    }
    expect(validate(taskPatch, { assignee_id: '0000000-00000-0000-0000-000000000000' })).toEqual({
      ok: false,
      errors: { assignee_id: 'Must be an id.' },
    });
  });

  it('names a missing field in its own words', () => {
    expect(validate(listInput, { name: 'Groceries' })).toEqual({
      ok: false,
      errors: { color: 'Pick one of the palette colours.' },
    });
    expect(validate(commentInput, {})).toEqual({
      ok: false,
      errors: { body: 'Comment must be text.' },
    });
  });

  it('drops keys it does not know and reports a wrong shape at the root', () => {
    expect(validate(commentInput, { body: 'Hi', list_id: 'x' })).toEqual({
      ok: true,
      value: { body: 'Hi' },
    });
    expect(validate(commentInput, 'Hi')).toMatchObject({
      ok: false,
      errors: { _: expect.any(String) as string },
    });
  });

  it('allows exactly the status transitions of product.md §4', () => {
    const allowed = ['todo>doing', 'todo>done', 'doing>todo', 'doing>done', 'done>todo'];
    for (const from of ['todo', 'doing', 'done'] as const) {
      for (const to of ['todo', 'doing', 'done'] as const) {
        const expected = from === to || allowed.includes(`${from}>${to}`);
        expect(canTransition(from, to), `${from} → ${to}`).toBe(expected);
      }
    }
  });

  it('explains refused files, comments, profiles and patches in the words the UI shows', () => {
    const file = { file_name: 'site.png', mime_type: 'image/png', size_bytes: 10 };
    expect(validate(attachmentInput, { ...file, file_name: 'a/b.png' })).toEqual({
      ok: false,
      errors: { file_name: 'File names cannot contain slashes.' },
    });
    expect(validate(attachmentInput, { ...file, size_bytes: 0 })).toEqual({
      ok: false,
      errors: { size_bytes: 'The file is empty.' },
    });
    expect(validate(attachmentInput, { ...file, size_bytes: ATTACHMENT_MAX_BYTES + 1 })).toEqual({
      ok: false,
      errors: { size_bytes: 'Files can be at most 10 MB.' },
    });
    expect(validate(attachmentInput, { ...file, size_bytes: 1.5 }).ok).toBe(false);
    expect(validate(commentInput, { body: 'x'.repeat(4_001) })).toEqual({
      ok: false,
      errors: { body: 'Comment can be at most 4,000 characters.' },
    });
    expect(validate(profilePatch, { display_name: '  Ann  ' })).toEqual({
      ok: true,
      value: { display_name: 'Ann' },
    });
    expect(validate(profilePatch, { avatar_path: null })).toEqual({
      ok: true,
      value: { avatar_path: null },
    });
    expect(validate(profilePatch, { display_name: '' }).ok).toBe(false);
    // Patches name only what changes; what they name is still checked.
    expect(validate(listPatch, { color: 'teal' })).toEqual({ ok: true, value: { color: 'teal' } });
    expect(validate(taskPatch, { due_on: null })).toEqual({ ok: true, value: { due_on: null } });
    expect(validate(taskPatch, { notes: 'x'.repeat(10_001) })).toEqual({
      ok: false,
      errors: { notes: 'Notes can be at most 10,000 characters.' },
    });
    expect(validate(taskPatch, { assignee_id: 'not-a-uuid' }).ok).toBe(false);
  });
});
