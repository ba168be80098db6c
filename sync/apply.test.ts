// Applying server rows on the device: a resync's delivery mark survives a row being replaced
// (or the sweep at the resync's end deletes a row the server still has), and an attachment's
// tombstone from the server takes its bytes off the device.
import { describe, expect, it } from 'vitest';

import {
  applyServerRow,
  applyServerRows,
  markDelivered,
  sweepUndelivered,
  type ApplyMode,
  type ServerRow,
} from './apply';
import type { SyncDatabase } from './db';
import { clearQueueOf } from './testing';
import type { LocalRow } from './registry';
import { boardsDevice } from './test-schema';

/** A device row as the server would send it at `version`. */
function serverRow(row: LocalRow | undefined, version: number): ServerRow {
  if (!row) throw new Error('no such row');
  const columns: Record<string, unknown> = { ...row };
  delete columns._v;
  delete columns._r;
  return { ...columns, id: row.id, version };
}

/** A board with one card, both on the server at version 1 (nothing queued). */
async function synced() {
  const device = boardsDevice('apply');
  const { db } = device;
  const boardId = await device.boards.create('Crew');
  const cardId = await device.cards.create(boardId, 'Fix the gate');
  await clearQueueOf(db);
  await db.rows('boards').update(boardId, { _v: 1, version: 1 });
  await db.rows('cards').update(cardId, { _v: 1, version: 1 });
  const card = serverRow(await db.rows('cards').get(cardId), 1);
  return { ...device, boardId, cardId, card };
}

const inAll = (db: SyncDatabase, fn: () => Promise<unknown>) =>
  db.transaction('rw', db.allTables(), fn);

describe('a resync from scratch keeps what it delivered', () => {
  it.each<ApplyMode>(['force', 'ack', 'newer'])(
    'a row replaced by applyServerRow (%s) after its delivery is not swept',
    async (mode) => {
      const { db, boardId, cardId, card } = await synced();
      const mark = 1_000;
      // The resync delivered the board and the card (interrupted after that page).
      await inAll(db, () =>
        markDelivered(
          db,
          [
            { table: 'boards', row: { id: boardId } },
            { table: 'cards', row: { id: cardId } },
          ],
          mark,
        ),
      );
      // Then a refused patch reverts the card to the server's row (or a push result, or a
      // newer row, replaces it): the row is put anew.
      await inAll(db, () =>
        applyServerRow(db, 'cards', { ...card, title: 'As the server has it', version: 2 }, mode),
      );
      await inAll(db, () => sweepUndelivered(db, mark));
      expect(await db.rows('cards').get(cardId)).toMatchObject({
        title: 'As the server has it',
        _r: mark,
      });
    },
  );

  it('a row replaced by a later page (applyServerRows) keeps its mark too', async () => {
    const { db, cardId, card } = await synced();
    const mark = 2_000;
    await inAll(db, () => markDelivered(db, [{ table: 'cards', row: { id: cardId } }], mark));
    await inAll(db, () => applyServerRows(db, 'cards', [{ ...card, title: 'Newer', version: 3 }]));
    expect((await db.rows('cards').get(cardId))?._r).toBe(mark);
  });
});

describe("an attachment's tombstone from the server", () => {
  async function withFile() {
    const device = await synced();
    const file = new Blob([new Uint8Array([1, 2, 3])], { type: 'image/png' });
    const id = await device.cards.attach(device.cardId, file, 'gate.png');
    await clearQueueOf(device.db);
    await device.db._files.update(id, { state: 'uploaded' });
    const row = serverRow(await device.db.rows('card_files').get(id), 1);
    return { ...device, id, row: { ...row, version: 2, deleted_at: '2026-11-23T10:00:00Z' } };
  }

  it('takes its bytes off the device when a pull page brings it', async () => {
    const { db, id, row } = await withFile();
    await inAll(db, () => applyServerRows(db, 'card_files', [row]));
    expect(await db._files.get(id)).toBeUndefined();
  });

  it('takes its bytes off the device when a push result brings it', async () => {
    const { db, id, row } = await withFile();
    await inAll(db, () => applyServerRow(db, 'card_files', row, 'ack'));
    expect(await db._files.get(id)).toBeUndefined();
  });

  it('leaves them while the row is alive', async () => {
    const { db, id, row } = await withFile();
    await inAll(db, () => applyServerRows(db, 'card_files', [{ ...row, deleted_at: null }]));
    expect((await db._files.get(id))?.state).toBe('uploaded');
  });
});
