// What makes the membership re-check cheap and safe: only a memberships row (with a real list
// id) asks for one, the same change heard on two topics asks once, and a change while a
// re-check runs gets a round of its own after it (the running one may have read too early).
import { describe, expect, it } from 'vitest';

import { ListRechecks, listTopicPrefix, membershipChangeOf } from './reauth';

const LIST = '11570000-0000-4000-8000-000000000001';
const OTHER = '22220000-0000-4000-8000-000000000002';

/** A re-check per list that finishes only when the test says so. */
function controlled() {
  const runs: { list: string; finish: () => void }[] = [];
  const rechecks = new ListRechecks(
    (list) =>
      new Promise<void>((resolve) => {
        runs.push({ list, finish: resolve });
      }),
  );
  return { runs, rechecks };
}

const flush = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe('membershipChangeOf', () => {
  it("names a memberships row's list and change, and nothing else", () => {
    const row = { id: 'm1', list_id: LIST, version: 2 };
    expect(membershipChangeOf({ table: 'memberships', row, xid: '7' })).toEqual({
      list: LIST,
      change: JSON.stringify(['m1', 2, '7']),
    });
    expect(membershipChangeOf({ table: 'tasks', row, xid: '7' })).toBeUndefined();
    expect(
      membershipChangeOf({ table: 'memberships', row: { ...row, list_id: 'x:y' } }),
    ).toBeUndefined();
    expect(
      membershipChangeOf({
        table: 'memberships',
        row: { ...row, list_id: LIST.toUpperCase() + 'A' },
      }),
    ).toBeUndefined();
    expect(membershipChangeOf({ table: 'memberships', row: [LIST] })).toBeUndefined();
    expect(membershipChangeOf([{ table: 'memberships' }])).toBeUndefined();
    expect(membershipChangeOf(null)).toBeUndefined();
    expect(listTopicPrefix(LIST)).toBe(`list:${LIST}:`);
  });
});

describe('ListRechecks', () => {
  it('asks once per change, and once more for a change that comes while one runs', async () => {
    const { runs, rechecks } = controlled();
    let firstDone = false;
    const first = rechecks.request({ list: LIST, change: 'a' }).then(() => {
      firstDone = true;
    });
    // The same change from the member's own topic: covered by the first.
    const again = rechecks.request({ list: LIST, change: 'a' });
    await flush();
    expect(runs.map((r) => r.list)).toEqual([LIST]);

    // Two more changes while it runs: one more round, after it, for both.
    const second = rechecks.request({ list: LIST, change: 'b' });
    const third = rechecks.request({ list: LIST, change: 'c' });
    // Another list is not held up by this one.
    void rechecks.request({ list: OTHER, change: 'a' });
    await flush();
    expect(runs.map((r) => r.list)).toEqual([LIST, OTHER]);

    runs[0]?.finish();
    await first;
    await again;
    expect(firstDone).toBe(true);
    await flush();
    expect(runs.map((r) => r.list)).toEqual([LIST, OTHER, LIST]);
    runs[2]?.finish();
    await Promise.all([second, third]);
    expect(runs).toHaveLength(3);
    // The last change heard again later (from the member's own topic): no new round.
    await rechecks.request({ list: LIST, change: 'c' });
    expect(runs).toHaveLength(3);
  });

  it('keeps going after a re-check that failed', async () => {
    let calls = 0;
    const rechecks = new ListRechecks(() => {
      calls += 1;
      return calls === 1 ? Promise.reject(new Error('probe failed')) : Promise.resolve();
    });
    const warn = console.warn;
    console.warn = () => undefined;
    try {
      await rechecks.request({ list: LIST, change: 'a' });
      await rechecks.request({ list: LIST, change: 'b' });
    } finally {
      console.warn = warn;
    }
    expect(calls).toBe(2);
  });
});
