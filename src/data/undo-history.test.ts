// The session's history of edits: two stacks, bounded, kept in (hostile) sessionStorage.
import { describe, expect, it } from 'vitest';

import {
  createUndoHistory,
  UNDO_STORAGE_KEY,
  type Change,
  type HistoryStorage,
} from './undo-history';

/** A Map-backed stand-in for sessionStorage. */
function memoryStorage(initial?: string): HistoryStorage & { text: () => string | null } {
  const items = new Map<string, string>();
  if (initial !== undefined) items.set(UNDO_STORAGE_KEY, initial);
  return {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
    text: () => items.get(UNDO_STORAGE_KEY) ?? null,
  };
}

const rename = (id: string, from: string, to: string): Change => ({
  op: 'fields',
  table: 'tasks',
  id,
  before: { title: from },
  after: { title: to },
});

const edit = (n: number) => ({ label: `edit ${n}`, changes: [rename(`t${n}`, 'a', 'b')] });

describe('the undo history', () => {
  it('undoes newest first, and an undone edit can be redone', () => {
    const history = createUndoHistory(memoryStorage());
    const first = history.push(edit(1));
    const second = history.push(edit(2));
    expect(second).toBeGreaterThan(first);

    const undone = history.take('done');
    expect(undone?.id).toBe(second);
    history.put('undone', undone!);
    expect(history.size('done')).toBe(1);
    expect(history.take('undone')?.label).toBe('edit 2');
  });

  it('takes a given edit out of order (a toast’s Undo) and nothing when it is gone', () => {
    const history = createUndoHistory(memoryStorage());
    const first = history.push(edit(1));
    history.push(edit(2));
    expect(history.take('done', first)?.label).toBe('edit 1');
    expect(history.take('done', first)).toBeUndefined();
    expect(history.size('done')).toBe(1);
  });

  it('forgets what can be redone once a new edit is made', () => {
    const history = createUndoHistory(memoryStorage());
    history.push(edit(1));
    history.put('undone', history.take('done')!);
    history.push(edit(2));
    expect(history.size('undone')).toBe(0);
  });

  it('keeps at most `max` edits, dropping the oldest', () => {
    const history = createUndoHistory(memoryStorage(), 3);
    for (let n = 1; n <= 5; n += 1) history.push(edit(n));
    expect(history.size('done')).toBe(3);
    const labels = [history.take('done'), history.take('done'), history.take('done')];
    expect(labels.map((e) => e?.label)).toEqual(['edit 5', 'edit 4', 'edit 3']);
    expect(history.take('done')).toBeUndefined();
  });

  it('settles an edit undone elsewhere onto the other stack', () => {
    const history = createUndoHistory(memoryStorage());
    history.push(edit(1));
    history.push(edit(2));
    history.settle('done', (e) => e.label === 'edit 1');
    expect(history.size('done')).toBe(1);
    expect(history.take('undone')?.label).toBe('edit 1');
  });

  it('survives a reload: a new history reads both stacks and goes on numbering', () => {
    const storage = memoryStorage();
    const before = createUndoHistory(storage);
    before.push(edit(1));
    const second = before.push(edit(2));
    before.put('undone', before.take('done')!);

    const after = createUndoHistory(storage);
    expect(after.size('done')).toBe(1);
    expect(after.take('undone')?.id).toBe(second);
    expect(after.push(edit(3))).toBeGreaterThan(second);
  });

  it('reads a stored history larger than its bound as its newest edits', () => {
    const storage = memoryStorage();
    const big = createUndoHistory(storage, 10);
    for (let n = 1; n <= 10; n += 1) big.push(edit(n));
    const small = createUndoHistory(storage, 2);
    expect(small.size('done')).toBe(2);
    expect(small.take('done')?.label).toBe('edit 10');
  });

  it.each([
    ['not JSON', '{"done": ['],
    ['the wrong shape', JSON.stringify({ done: 'all', undone: [] })],
    [
      'a field it may not write back',
      JSON.stringify({
        done: [
          {
            id: 1,
            label: 'x',
            changes: [
              { op: 'fields', table: 'tasks', id: 't', before: { list_id: 'l' }, after: {} },
            ],
          },
        ],
        undone: [],
      }),
    ],
    [
      'a table it does not know',
      JSON.stringify({
        done: [{ id: 1, label: 'x', changes: [{ op: 'delete', table: 'memberships', id: 'm' }] }],
        undone: [],
      }),
    ],
    [
      'an edit with no changes',
      JSON.stringify({ done: [{ id: 1, label: 'x', changes: [] }], undone: [] }),
    ],
    ['a string of nonsense', '"hello"'],
    [
      'a change of one kind shaped as another',
      JSON.stringify({
        done: [
          {
            id: 1,
            label: 'x',
            changes: [{ op: 'move', id: 't', before: { title: 'a' }, after: { title: 'b' } }],
          },
        ],
        undone: [],
      }),
    ],
    [
      'a value of the wrong type',
      JSON.stringify({
        done: [
          {
            id: 1,
            label: 'x',
            changes: [
              {
                op: 'fields',
                table: 'tasks',
                id: 't',
                before: { priority: 'high' },
                after: { priority: 1 },
              },
            ],
          },
        ],
        undone: [],
      }),
    ],
  ])('starts empty when storage holds %s', (_what, text) => {
    const history = createUndoHistory(memoryStorage(text));
    expect(history.size('done')).toBe(0);
    expect(history.size('undone')).toBe(0);
    // …and works from there.
    history.push(edit(1));
    expect(history.size('done')).toBe(1);
  });

  it('works in memory when storage throws on every read and write', () => {
    const throwing: HistoryStorage = {
      getItem: () => {
        throw new DOMException('denied', 'SecurityError');
      },
      setItem: () => {
        throw new DOMException('full', 'QuotaExceededError');
      },
      removeItem: () => {
        throw new DOMException('denied', 'SecurityError');
      },
    };
    const history = createUndoHistory(throwing);
    history.push(edit(1));
    expect(history.take('done')?.label).toBe('edit 1');
    history.push(edit(2));
    history.clear();
    expect(history.size('done')).toBe(0);
  });

  it('works with no storage at all', () => {
    const history = createUndoHistory(undefined);
    history.push(edit(1));
    expect(history.size('done')).toBe(1);
  });

  it('forgets every edit, in memory and in storage, when cleared (sign-out)', () => {
    const storage = memoryStorage();
    const history = createUndoHistory(storage);
    history.push(edit(1));
    history.push(edit(2));
    history.put('undone', history.take('done')!);
    history.clear();
    expect(history.size('done')).toBe(0);
    expect(history.size('undone')).toBe(0);
    expect(history.take('done')).toBeUndefined();
    expect(storage.text()).toBeNull();
    // A history read afresh from that storage (a reload) finds nothing either.
    expect(createUndoHistory(storage).size('done')).toBe(0);
  });

  it('stores what it holds as it changes', () => {
    const storage = memoryStorage();
    const history = createUndoHistory(storage);
    history.push(edit(1));
    expect(JSON.parse(storage.text()!)).toEqual({
      done: [{ id: 1, ...edit(1) }],
      undone: [],
    });
  });
});
