// The fixes in fake-indexeddb.ts must change how much the fake works, never what it returns:
// scripted cursor walks (every direction, over stores and indexes, with continue to a key,
// continuePrimaryKey, advance, and writes between steps), then counts and reads of ranges,
// must see the same records with the fixes on as off, and a cursor step's work must stay flat
// along a long walk.
import { IDBFactory, IDBKeyRange, IDBCursor as FakeCursor } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';

import { seededRandom } from '../../sync/kit/faults';
import { cursorRecordsVisited, setFakeIndexedDbFixes } from './fake-indexeddb';

interface Item {
  id: number;
  /** Few values, so the 'group' index holds long runs of one key. */
  group: number;
  /** One per id, for the unique index. */
  code: string;
}

const item = (id: number, group = id % 7): Item => ({ id, group, code: `c${1_000_000 + id}` });

async function openDatabase(items: Iterable<Item>): Promise<IDBDatabase> {
  const request = new IDBFactory().open('fixes', 1);
  request.onupgradeneeded = () => {
    const store = request.result.createObjectStore('items', { keyPath: 'id' });
    store.createIndex('group', 'group');
    store.createIndex('code', 'code', { unique: true });
    for (const row of items) store.put(row);
  };
  return settle(request);
}

function settle<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('request failed'));
  });
}

type Source = 'items' | 'group' | 'code';

interface Walk {
  source: Source;
  direction: IDBCursorDirection;
  range: IDBKeyRange | undefined;
  /** openKeyCursor instead of openCursor. */
  keysOnly: boolean;
  seed: number;
}

const ID_SPACE = 400;

/**
 * Walks a cursor in a readwrite transaction, making seeded moves and writes between steps,
 * and returns what each step saw (or the error a move threw), then what ranged reads of the
 * store and its indexes find after the walk.
 */
async function walk(spec: Walk, fixed: boolean): Promise<unknown[]> {
  setFakeIndexedDbFixes(fixed);
  try {
    const random = seededRandom(spec.seed);
    const ids: number[] = [];
    // Every 11th id is there, so IDBKeyRange.only(77) finds a record.
    for (let id = 0; id < ID_SPACE; id += 1) if (id % 11 === 0 || random() < 0.6) ids.push(id);
    const db = await openDatabase(ids.map((id) => item(id)));
    const seen: unknown[] = [];
    const tx = db.transaction('items', 'readwrite');
    const store = tx.objectStore('items');
    const source = spec.source === 'items' ? store : store.index(spec.source);
    const request = spec.keysOnly
      ? source.openKeyCursor(spec.range, spec.direction)
      : source.openCursor(spec.range, spec.direction);
    const forward = spec.direction.startsWith('next');
    request.onsuccess = () => {
      const cursor = request.result;
      if (cursor === null) return seen.push('end');
      seen.push([cursor.key, cursor.primaryKey, 'value' in cursor ? cursor.value : null]);
      if (seen.length > 2 * ID_SPACE) return; // a runaway walk: stop, the comparison fails
      // Writes between steps: ahead of the cursor, behind it, at it, and moving a record
      // from one group to another (so it moves in the indexes).
      const at = Math.floor(random() * ID_SPACE);
      const roll = random();
      if (roll < 0.15) store.put(item(at));
      else if (roll < 0.25) store.delete(at);
      else if (roll < 0.35) store.put(item(at, Math.floor(random() * 7)));
      else if (roll < 0.4 && !spec.keysOnly) cursor.delete();
      try {
        move(cursor, spec, forward, random);
      } catch (error) {
        seen.push(error instanceof DOMException ? error.name : String(error));
      }
    };
    await new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error ?? new Error('transaction failed'));
    });
    const after = await rangeReads(db);
    db.close();
    return [...seen, after];
  } finally {
    setFakeIndexedDbFixes(true);
  }
}

/** What the store and its indexes hold, through every kind of ranged read. */
async function rangeReads(db: IDBDatabase): Promise<unknown[]> {
  const store = db.transaction('items').objectStore('items');
  const reads: Promise<unknown>[] = [];
  for (const source of ['items', 'group', 'code'] as const) {
    const from = source === 'items' ? store : store.index(source);
    for (const range of RANGES[source]) {
      reads.push(
        settle(from.count(range)),
        settle(from.getAllKeys(range)),
        settle(from.getAll(range, 7)),
        settle(from.get(range ?? IDBKeyRange.lowerBound(-1))),
      );
    }
  }
  return Promise.all(reads);
}

function move(cursor: IDBCursor, spec: Walk, forward: boolean, random: () => number): void {
  const roll = random();
  const key = cursor.key;
  // The group index has 7 keys: jumping to another key is rare there, or walks end at once.
  const jump = spec.source === 'group' ? 0.03 : 0.15;
  if (roll < 0.1) return cursor.advance(1 + Math.floor(random() * 5));
  if (roll < 0.1 + jump) {
    // To a key a little way ahead in the walk's direction.
    const step = 1 + Math.floor(random() * 20);
    if (typeof key === 'number') return cursor.continue(forward ? key + step : key - step);
    if (typeof key === 'string') {
      const code = Number(key.slice(1)) + (forward ? step : -step);
      return cursor.continue(`c${code}`);
    }
  }
  const onIndex = spec.source !== 'items';
  if (roll < 0.4 && onIndex && (spec.direction === 'next' || spec.direction === 'prev')) {
    // A primary key further along the same key, or one on the next key over.
    const sameKey = typeof key !== 'number' || random() < 0.85;
    const toKey = sameKey ? key : key + (forward ? 1 : -1);
    const primaryKey = cursor.primaryKey as number;
    const toPrimaryKey = primaryKey + (forward ? 1 : -1) * (1 + Math.floor(random() * 30));
    return cursor.continuePrimaryKey(toKey, toPrimaryKey);
  }
  cursor.continue();
}

const RANGES: Record<Source, (IDBKeyRange | undefined)[]> = {
  items: [
    undefined,
    IDBKeyRange.bound(50, 300),
    IDBKeyRange.bound(50, 300, true, true),
    IDBKeyRange.lowerBound(120, true),
    IDBKeyRange.upperBound(260),
    IDBKeyRange.only(77),
  ],
  group: [
    undefined,
    IDBKeyRange.only(3),
    IDBKeyRange.bound(2, 5),
    IDBKeyRange.bound(2, 5, true, true),
    IDBKeyRange.lowerBound(4),
    IDBKeyRange.upperBound(1),
  ],
  code: [
    undefined,
    IDBKeyRange.bound('c1000050', 'c1000300'),
    IDBKeyRange.bound('c1000050', 'c1000300', true, true),
    IDBKeyRange.lowerBound('c1000120'),
    IDBKeyRange.upperBound('c1000260', true),
  ],
};

const DIRECTIONS: IDBCursorDirection[] = ['next', 'prev', 'nextunique', 'prevunique'];

describe('fake-indexeddb with its fixes', () => {
  it('patches the fake that the global IndexedDB comes from', () => {
    expect(globalThis.IDBCursor).toBe(FakeCursor);
  });

  const walks: Walk[] = [];
  let seed = 1;
  for (const source of ['items', 'group', 'code'] as const)
    for (const direction of DIRECTIONS)
      for (const range of RANGES[source])
        for (const keysOnly of [false, true])
          walks.push({ source, direction, range, keysOnly, seed: seed++ });

  it.each(walks.map((spec) => [describeWalk(spec), spec] as const))(
    'walks %s as the unpatched fake does',
    async (_name, spec) => {
      const unpatched = await walk(spec, false);
      expect(unpatched.length).toBeGreaterThan(2);
      expect(await walk(spec, true)).toEqual(unpatched);
    },
  );

  // Work is counted, not timed, so a busy machine cannot fail this: the records a step is
  // handed grow with its distance from the range's start without the fix, not with it.
  describe.each([
    ['a ranged store walk', 'items', 'next', IDBKeyRange.bound(5, 1e9)],
    ['a reversed store walk', 'items', 'prev', IDBKeyRange.upperBound(1e9)],
    ['a walk along one index key', 'group', 'next', IDBKeyRange.only(0)],
    ['a reversed walk along one index key', 'group', 'prev', IDBKeyRange.only(0)],
  ] as const)('%s', (_name, source, direction, range) => {
    it('costs the same per step at step 3,000 as at the start', async () => {
      const work = await workPerStep(source, direction, range, 3_000);
      expect(sum(work.slice(2_900, 3_000))).toBeLessThanOrEqual(3 * sum(work.slice(0, 100)));
    });

    it('is still quadratic in the unpatched fake (if not, delete fake-indexeddb.ts)', async () => {
      setFakeIndexedDbFixes(false);
      try {
        const work = await workPerStep(source, direction, range, 1_000);
        expect(sum(work.slice(900, 1_000))).toBeGreaterThan(10 * sum(work.slice(0, 100)));
      } finally {
        setFakeIndexedDbFixes(true);
      }
    });
  });
});

/** Records handed to each step of a walk over `steps` records that all share group 0. */
async function workPerStep(
  source: Source,
  direction: IDBCursorDirection,
  range: IDBKeyRange,
  steps: number,
): Promise<number[]> {
  const rows = Array.from({ length: steps + 20 }, (_, i) => item(i + 10, 0));
  const db = await openDatabase(rows);
  const work: number[] = [];
  const tx = db.transaction('items');
  const store = tx.objectStore('items');
  const request = (source === 'items' ? store : store.index(source)).openKeyCursor(
    range,
    direction,
  );
  let before = cursorRecordsVisited();
  request.onsuccess = () => {
    work.push(cursorRecordsVisited() - before);
    before = cursorRecordsVisited();
    if (request.result !== null && work.length < steps) request.result.continue();
  };
  await new Promise<void>((resolve) => (tx.oncomplete = () => resolve()));
  db.close();
  expect(work).toHaveLength(steps);
  return work;
}

const sum = (values: number[]): number => values.reduce((total, value) => total + value, 0);

function describeWalk(spec: Walk): string {
  const range = spec.range
    ? `${spec.range.lowerOpen ? '(' : '['}${String(spec.range.lower)}, ${String(spec.range.upper)}${spec.range.upperOpen ? ')' : ']'}`
    : 'everything';
  return `${spec.source} ${spec.direction} over ${range}${spec.keysOnly ? ' (keys)' : ''}`;
}
