// The outbox keeps its counts (total, unsent, by list) with every write to it: after any
// sequence of writes, freezes, acknowledgements, undos, purges and clears, the kept counts
// are what counting the queue entry by entry gives.
import { describe, expect, it } from 'vitest';

import {
  clearOutbox,
  countQueue,
  dequeue,
  dequeueList,
  dequeueRow,
  freeze,
  OUTBOX_COUNTS,
  outboxCounts,
  outboxTables,
} from './outbox';
import { boardsDevice } from './test-schema';

/** A small deterministic generator (mulberry32), so a failing sequence can be replayed. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('outbox counts', () => {
  it('are kept through any sequence of outbox writes', async () => {
    const { db, boards, cards } = boardsDevice('outbox');
    const random = seeded(16);
    const pick = <T>(items: readonly T[]): T | undefined =>
      items[Math.floor(random() * items.length)];
    const boardIds = [await boards.create('One'), await boards.create('Two')];
    const cardIds: string[] = [];
    const steps: string[] = [];
    for (let step = 0; step < 300; step++) {
      const roll = random();
      const boardId = pick(boardIds)!;
      if (roll < 0.3) {
        steps.push('create');
        cardIds.push(await cards.create(boardId, `Card ${step}`));
      } else if (roll < 0.55 && cardIds.length > 0) {
        steps.push('edit'); // coalesces into an unsent entry, or queues after a sent one
        await cards.rename(pick(cardIds)!, `Edit ${step}`).catch(() => undefined);
      } else if (roll < 0.62 && cardIds.length > 0) {
        steps.push('delete/undo');
        const id = pick(cardIds)!;
        await cards.delete(id).catch(() => undefined);
        if (random() < 0.5) await cards.undoDelete(id);
      } else if (roll < 0.75) {
        steps.push('freeze'); // a push takes a batch
        await db.transaction('rw', outboxTables(db), async () => {
          const batch = await db._outbox
            .orderBy('seq')
            .limit(1 + Math.floor(random() * 5))
            .toArray();
          await freeze(db, batch);
        });
      } else if (roll < 0.88) {
        steps.push('ack'); // the server answers the frozen entries (and an unknown seq)
        await db.transaction('rw', outboxTables(db), async () => {
          const sent = await db._outbox.where('sent').equals(1).primaryKeys();
          await dequeue(db, [...sent.slice(0, 3), 999_999]);
        });
      } else if (roll < 0.93 && cardIds.length > 0) {
        steps.push('row');
        await db.transaction(
          'rw',
          outboxTables(db),
          async () => await dequeueRow(db, 'cards', pick(cardIds)!),
        );
      } else if (roll < 0.97) {
        steps.push('list');
        await db.transaction('rw', outboxTables(db), async () => await dequeueList(db, boardId));
      } else {
        steps.push('clear');
        await db.transaction('rw', outboxTables(db), async () => await clearOutbox(db));
      }
      const kept = await db.getMeta(OUTBOX_COUNTS);
      expect(kept, `after ${steps.join(', ')}`).toEqual(await countQueue(db));
    }
    // The sequence reached every kind of step, with something queued at the end.
    expect(new Set(steps).size).toBe(8);
    expect((await outboxCounts(db)).total).toBeGreaterThan(0);
  });

  it('are counted once from the queue on a device that did not keep them', async () => {
    const { db, boards, cards } = boardsDevice('outbox-upgrade');
    const boardId = await boards.create('One');
    await cards.create(boardId, 'A');
    await db._meta.delete(OUTBOX_COUNTS); // as a device from before counts were kept
    expect(await outboxCounts(db)).toEqual({ total: 2, unsent: 2, lists: { [boardId]: 2 } });
    await cards.create(boardId, 'B');
    expect(await db.getMeta(OUTBOX_COUNTS)).toEqual({
      total: 3,
      unsent: 3,
      lists: { [boardId]: 3 },
    });
  });
});
