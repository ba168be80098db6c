// One live query for every component that asks the same question, on fake-indexeddb: it
// follows writes, stops when the last component goes, and starts afresh for the next one.
import 'fake-indexeddb/auto';

import { render, screen } from '@testing-library/react';
import Dexie from 'dexie';
import { afterEach, describe, expect, it } from 'vitest';

import { useSharedLiveQueries, useSharedLiveQuery, warmSharedQuery } from './use-shared-live-query';

let db: Dexie | undefined;

afterEach(async () => {
  db?.close();
  if (db) await Dexie.delete(db.name);
  db = undefined;
});

/** A query of the store's item count, and how many times it has read. */
function counting(store: Dexie) {
  const counter = {
    reads: 0,
    query: (): Promise<number> => {
      counter.reads += 1;
      return store.table('items').count();
    },
  };
  return counter;
}

async function open(): Promise<Dexie> {
  db = new Dexie(`shared-live-query-${crypto.randomUUID()}`);
  db.version(1).stores({ items: 'id' });
  await db.open();
  return db;
}

describe('useSharedLiveQuery', () => {
  it('reads once for three components asking the same key, and each shows every write', async () => {
    const store = await open();
    const count = counting(store);
    function Count({ label }: { label: string }) {
      const n = useSharedLiveQuery(store, 'items', count.query);
      return <p>{`${label}: ${n ?? '…'}`}</p>;
    }
    render(
      <>
        <Count label="a" />
        <Count label="b" />
        <Count label="c" />
      </>,
    );
    for (const label of ['a', 'b', 'c']) await screen.findByText(`${label}: 0`);
    expect(count.reads).toBe(1);

    const before = count.reads;
    await store.table('items').put({ id: 1 });
    for (const label of ['a', 'b', 'c']) await screen.findByText(`${label}: 1`);
    // However often Dexie re-runs the query after a write, it is one query, not three.
    const perWrite = count.reads - before;
    expect(perWrite).toBeGreaterThanOrEqual(1);
    expect(perWrite).toBeLessThan(3);
  });

  it('stops reading when the last component goes, and reads afresh for the next', async () => {
    const store = await open();
    const count = counting(store);
    function Count() {
      const n = useSharedLiveQuery(store, 'items', count.query);
      return <p>{`count: ${n ?? '…'}`}</p>;
    }
    const first = render(<Count />);
    await screen.findByText('count: 0');
    first.unmount();
    const afterUnmount = count.reads;
    await store.table('items').bulkPut([{ id: 1 }, { id: 2 }]);
    // A later write round trip: any re-run the first write caused has had its chance.
    await store.table('items').count();
    expect(count.reads).toBe(afterUnmount);

    render(<Count />);
    await screen.findByText('count: 2');
    expect(count.reads).toBe(afterUnmount + 1);
  });

  it('shows nothing and reads nothing while the key is null', async () => {
    const store = await open();
    const count = counting(store);
    function Count() {
      const n = useSharedLiveQuery(store, null, count.query);
      return <p>{`count: ${n ?? 'none'}`}</p>;
    }
    render(<Count />);
    await screen.findByText('count: none');
    await store.table('items').put({ id: 1 });
    await store.table('items').count();
    expect(count.reads).toBe(0);
  });

  it("has a warmed query's result at the first render, and lets it go when released", async () => {
    const store = await open();
    await store.table('items').put({ id: 1 });
    const count = counting(store);
    const warm = warmSharedQuery(store, { key: 'items', read: count.query });
    // The read runs with no component yet.
    expect(await warm.first).toBe(1);
    const painted: string[] = [];
    function Count() {
      const n = useSharedLiveQuery(store, 'items', count.query);
      painted.push(`count: ${n ?? '…'}`);
      return <p>{painted.at(-1)}</p>;
    }
    const shown = render(<Count />);
    expect(painted[0]).toBe('count: 1');
    expect(count.reads).toBe(1);

    // Released while shown: the component keeps it live.
    warm.release();
    warm.release(); // a second release changes nothing
    await store.table('items').put({ id: 2 });
    await screen.findByText('count: 2');

    // Released and not shown: it stops.
    shown.unmount();
    const stopped = count.reads;
    await store.table('items').put({ id: 3 });
    await store.table('items').count();
    expect(count.reads).toBe(stopped);
  });

  it('hands a query from a component that goes to one that comes in the same commit', async () => {
    const store = await open();
    await store.table('items').put({ id: 1 });
    const count = counting(store);
    const painted: string[] = [];
    function Count({ label }: { label: string }) {
      const n = useSharedLiveQuery(store, 'items', count.query);
      painted.push(`${label}: ${n ?? '…'}`);
      return <p>{painted.at(-1)}</p>;
    }
    const shown = render(<Count key="a" label="a" />);
    await screen.findByText('a: 1');
    painted.length = 0;
    shown.rerender(<Count key="b" label="b" />);
    await store.table('items').count(); // a round trip: a restarted query would have answered
    expect(painted).toEqual(['b: 1']);
    expect(count.reads).toBe(1);
  });
});

describe('useSharedLiveQueries', () => {
  it('reads each key once with useSharedLiveQuery, in order, and keeps the others when a key comes', async () => {
    const store = await open();
    await store.table('items').bulkPut([{ id: 1, group: 'a' }]);
    const reads: Record<string, number> = {};
    const spec = (group: string) => ({
      key: `group:${group}`,
      read: () => {
        reads[group] = (reads[group] ?? 0) + 1;
        return store
          .table<{ id: number; group: string }>('items')
          .filter((item) => item.group === group)
          .count();
      },
    });
    const answers: (readonly (number | undefined)[])[] = [];
    function Groups({ groups }: { groups: string[] }) {
      const counts = useSharedLiveQueries(store, groups.map(spec));
      answers.push(counts);
      return <p>{groups.map((group, i) => `${group}=${counts[i] ?? '…'}`).join(' ')}</p>;
    }
    function One() {
      const { key, read } = spec('a');
      return <p>{`one: ${useSharedLiveQuery(store, key, read) ?? '…'}`}</p>;
    }
    const shown = render(
      <>
        <Groups groups={['a', 'b']} />
        <One />
      </>,
    );
    await screen.findByText('a=1 b=0');
    await screen.findByText('one: 1');
    expect(reads).toEqual({ a: 1, b: 1 });
    // Nothing changed: the same array, not a new one each render.
    shown.rerender(
      <>
        <Groups groups={['a', 'b']} />
        <One />
      </>,
    );
    expect(answers.at(-1)).toBe(answers.at(-2));

    // A third key: read once; the first two go on without reading again.
    shown.rerender(
      <>
        <Groups groups={['a', 'b', 'c']} />
        <One />
      </>,
    );
    await screen.findByText('a=1 b=0 c=0');
    expect(reads).toEqual({ a: 1, b: 1, c: 1 });

    await store.table('items').put({ id: 2, group: 'c' });
    await screen.findByText('a=1 b=0 c=1');
  });
});
