// An edit never depends on undo: when undo's chunk cannot load, the screens' recording
// repositories still save the edit (unrecorded).
import { describe, expect, it, vi } from 'vitest';

import { storedRow } from '@sync/testing';
import { localOnlyServices } from '@/testing/app-harness';

import { withUndo } from './undo-services';

vi.mock('./undo', () => {
  throw new Error('the chunk is gone');
});

describe('the recording repositories', () => {
  it('save an edit although undo cannot load', async () => {
    const raw = localOnlyServices().sync;
    const listId = await raw.repos.lists.create({ name: 'Block C', color: 'teal' });
    const id = await raw.repos.tasks.create(listId, { title: 'Alpha' });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);

    const sync = withUndo(raw);
    await sync.repos.tasks.update(id, { title: 'Alpha 2' });
    await sync.repos.tasks.setStatus(id, 'done');
    expect(await storedRow(raw, 'tasks', id)).toMatchObject({ title: 'Alpha 2', status: 'done' });
    // Each edit said why it went without.
    expect(warn).toHaveBeenCalledTimes(2);
  });
});
