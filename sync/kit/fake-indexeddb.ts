// fake-indexeddb as the global IndexedDB (as 'fake-indexeddb/auto'), with two costs of the
// fake taken out, so a test with long cursor walks or big counts measures our code.
//
// 1. fake-indexeddb 6.2.8 (the newest release) starts each cursor step at the start of the
//    cursor's key range instead of at the cursor: makeKeyRange in its FDBCursor.js keeps the
//    lowest of the range's lower bound and the cursor's position (going forward; the highest
//    upper bound going back), and within an index it can only seek by index key, so a walk
//    over records sharing one key (Dexie's `where('sent').equals(0)`) restarts at the first
//    of them. Step k looks at k records: a 3,000-record walk costs 2–8 ms a step by its end
//    instead of 0.01–0.08. Here each step starts where it can first find a record: at the
//    cursor's position, or the key (and primary key) passed to continue(). fake-indexeddb's
//    own step (FDBCursor._iterate) still does all the rest, filters, value cloning and
//    unique directions included; every record skipped is one its filters reject (they take
//    only records past the position, and at or past that key), so cursors return what they
//    did.
// 2. Its record tree hands out the records of a range through one generator per tree level
//    (yield* down the recursion), so each record read costs a resume per level, a dozen or
//    more in a tree of 5,000: count(), getAll() and every cursor step. Here the same records
//    come, in the same order, from one loop with a stack, about 3× faster. It matters because
//    our outbox watch (sync/schedule.ts, watchOutbox) counts the unsent entries after every
//    write: 5,000 offline writes count 12.5 million entries.
//
// fake-indexeddb.test.ts checks both against the unpatched fake; drop this file once a
// release does this itself (that test's "still quadratic" checks then fail to say so).
import 'fake-indexeddb/auto';

import { IDBCursor, IDBFactory, indexedDB } from 'fake-indexeddb';

type Key = IDBValidKey;

/** A record in one of fake-indexeddb's trees: an index's value is the primary key. */
interface TreeRecord {
  key: Key;
  value: unknown;
}

interface TreeNode {
  record: TreeRecord;
  left: TreeNode | undefined;
  right: TreeNode | undefined;
  /** Deleted records stay in the tree as tombstones until it is rebuilt. */
  deleted: boolean;
}

/** fake-indexeddb's BinarySearchTree, ordered by key, then (in a non-unique index) value. */
interface RecordTree {
  _root: TreeNode | undefined;
  _keysAreUnique: boolean;
  getRecords: (this: RecordTree, range: IDBKeyRange, descending?: boolean) => Iterator<TreeRecord>;
}

interface RawRecords {
  records: { records: RecordTree };
}

/** The private parts of fake-indexeddb's FDBCursor this fix reads. */
interface CursorInternals {
  readonly direction: IDBCursorDirection;
  readonly source: { _rawObjectStore?: RawRecords; _rawIndex?: RawRecords };
  _position: Key | undefined;
  _objectStorePosition: Key | undefined;
  _iterate: (this: CursorInternals, key?: Key, primaryKey?: Key) => unknown;
}

/**
 * A place in a tree's order, where a walk starts or ends: a key, and a primary key (in an
 * index) or LOWEST/HIGHEST, before or after every record with that key.
 */
interface Start {
  key: Key;
  value: Key | typeof LOWEST | typeof HIGHEST;
}
const LOWEST = Symbol('lowest');
const HIGHEST = Symbol('highest');

/** fake-indexeddb's key order (its cmp, not a copy), fetched once: it is called a lot. */
const cmp = indexedDB.cmp.bind(indexedDB);

interface FixState {
  /** Off: the fake as released, for the test that compares the two. */
  on: boolean;
  /** Records handed to cursor steps by the tree: the fake's work, for tests. */
  visited: number;
}

// Kept on the prototype, not in this module: vitest may evaluate this module again for each
// test file in a process, while fake-indexeddb itself is loaded (and patched) once.
const STATE = Symbol.for('outpost.fake-indexeddb.fixes');
type PatchedPrototype = CursorInternals & { [STATE]?: FixState };

const cursorPrototype = IDBCursor.prototype as unknown as PatchedPrototype;
const state: FixState = (cursorPrototype[STATE] ??= install(
  cursorPrototype,
  await recordTreePrototype(),
));

/** Turns the fixes off or on (they are on); what the fake returns must not depend on it. */
export function setFakeIndexedDbFixes(on: boolean): void {
  state.on = on;
}

/** How many records cursor steps have been handed so far (see FixState.visited). */
export function cursorRecordsVisited(): number {
  return state.visited;
}

function install(cursor: PatchedPrototype, tree: RecordTree): FixState {
  const iterate = cursor._iterate;
  const getRecords = tree.getRecords;
  if (iterate.length !== 2 || getRecords.length !== 1) {
    throw new Error(
      'fake-indexeddb changed its cursor or record tree: check whether sync/kit/fake-indexeddb.ts is still needed',
    );
  }
  const fixes: FixState = { on: true, visited: 0 };
  tree.getRecords = function (this: RecordTree, range, descending = false) {
    return fixes.on ? walk(this, range, descending) : getRecords.call(this, range, descending);
  };
  cursor._iterate = function (this: CursorInternals, key?: Key, primaryKey?: Key) {
    const raw = this.source._rawIndex ?? this.source._rawObjectStore;
    if (raw === undefined) return iterate.call(this, key, primaryKey);
    const records = raw.records.records;
    const start = fixes.on ? startOf(this, key, primaryKey) : undefined;
    // The step asks the tree for its records once, first thing; later asks (prevunique
    // looks its record up again) go to the tree as they are.
    records.getRecords = (range, descending = false) => {
      delete (records as Partial<RecordTree>).getRecords;
      return counted(
        start === undefined
          ? records.getRecords(range, descending)
          : walk(records, range, descending, start),
        fixes,
      );
    };
    try {
      return iterate.call(this, key, primaryKey);
    } finally {
      delete (records as Partial<RecordTree>).getRecords;
    }
  };
  return fixes;
}

/** fake-indexeddb does not export its record tree: take it from a store no one else sees. */
async function recordTreePrototype(): Promise<RecordTree> {
  const request = new IDBFactory().open('record-tree');
  return new Promise((resolve, reject) => {
    request.onupgradeneeded = () => {
      const store = request.result.createObjectStore('probe') as unknown as {
        _rawObjectStore: RawRecords;
      };
      resolve(Object.getPrototypeOf(store._rawObjectStore.records.records) as RecordTree);
    };
    request.onsuccess = () => request.result.close();
    request.onerror = () => reject(request.error ?? new Error('fake-indexeddb would not open'));
  });
}

/**
 * The first record a cursor step can return is at or past this, in the walk's direction;
 * undefined for a cursor's first step (the range's start is where the fake starts).
 */
function startOf(cursor: CursorInternals, key?: Key, primaryKey?: Key): Start | undefined {
  const position = cursor._position;
  if (position === undefined) return undefined;
  // In an index the position is (key, primary key), and next/prev may stay on that key; an
  // object store's position is its key alone.
  const primaryPosition = cursor._objectStorePosition;
  switch (cursor.direction) {
    case 'next':
      if (key !== undefined) return { key, value: primaryKey ?? LOWEST };
      return { key: position, value: primaryPosition ?? LOWEST };
    case 'prev':
      if (key !== undefined) return { key, value: primaryKey ?? HIGHEST };
      return { key: position, value: primaryPosition ?? HIGHEST };
    // Unique walks leave the position's key behind; prevunique returns the lowest record of
    // each key, so its walk must start above the whole of the next key down.
    case 'nextunique':
      return key !== undefined ? { key, value: LOWEST } : { key: position, value: HIGHEST };
    case 'prevunique':
      return key !== undefined ? { key, value: HIGHEST } : { key: position, value: LOWEST };
  }
}

/** Where a bound of the range sits: before or after the records with its key. */
function boundOf(range: IDBKeyRange, bound: 'lower' | 'upper'): Start | undefined {
  const key: unknown = range[bound];
  if (key === undefined) return undefined;
  const open = bound === 'lower' ? range.lowerOpen : range.upperOpen;
  return { key: key as Key, value: open === (bound === 'lower') ? HIGHEST : LOWEST };
}

/**
 * The live records of `range` in the walk's order, from `start` on (by default the range's
 * start): two seeks down the tree, for the first and the last record, then an in-order walk
 * with an explicit stack from one to the other, comparing no keys on the way.
 */
function* walk(
  tree: RecordTree,
  range: IDBKeyRange,
  descending: boolean,
  start = boundOf(range, descending ? 'upper' : 'lower'),
): Generator<TreeRecord> {
  const end = boundOf(range, descending ? 'lower' : 'upper');
  const [toFirst, toLast] = descending
    ? (['right', 'left'] as const)
    : (['left', 'right'] as const);
  // In the walk's order: does the record come before `at` (the start), or after it (the end)?
  const before = (record: TreeRecord, at: Start | undefined) =>
    at !== undefined && (descending ? 1 : -1) * compareTo(tree, record, at) > 0;
  const beyond = (record: TreeRecord, at: Start | undefined) =>
    at !== undefined && (descending ? -1 : 1) * compareTo(tree, record, at) > 0;
  // Nodes still to visit, the next one on top: the seek leaves the path's nodes at or past
  // the start, and each node visited adds the first-side spine of its last-side subtree.
  const pending: TreeNode[] = [];
  for (let node = tree._root; node;) {
    if (before(node.record, start)) {
      node = node[toLast];
    } else {
      pending.push(node);
      node = node[toFirst];
    }
  }
  let last: TreeNode | undefined;
  for (let node = tree._root; node;) {
    if (beyond(node.record, end)) {
      node = node[toFirst];
    } else {
      last = node;
      node = node[toLast];
    }
  }
  const first = pending.at(-1);
  if (first === undefined || last === undefined || beyond(first.record, end)) return;
  for (let node = pending.pop(); node; node = pending.pop()) {
    for (let child = node[toLast]; child; child = child[toFirst]) pending.push(child);
    if (!node.deleted) yield node.record;
    if (node === last) return;
  }
}

function compareTo(tree: RecordTree, record: TreeRecord, at: Start): number {
  const byKey = cmp(record.key, at.key);
  if (byKey !== 0) return byKey;
  if (at.value === LOWEST) return 1;
  if (at.value === HIGHEST) return -1;
  // An object store's value is the stored object, not a key to order by.
  return tree._keysAreUnique ? 0 : cmp(record.value, at.value);
}

function* counted(records: Iterator<TreeRecord>, fixes: FixState): Generator<TreeRecord> {
  for (let next = records.next(); next.done !== true; next = records.next()) {
    fixes.visited += 1;
    yield next.value;
  }
}
