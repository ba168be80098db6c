// Convergence: what a device holds against what its user may see on the server, read from
// the database as that user (sync_pull from scratch under their row-level security), not
// through the engine.
import type { SqlEngine } from '../../devstack/sql-engine';
import type { Sync } from '../core';
import type { Backend } from './backend';
import { deviceDb, outboxCountsDrift } from '../testing';
import type { Device } from './device';
import { pullAll } from './sql';

/** A row by `table/id`, without the device's own fields. */
export type RowView = Map<string, Record<string, unknown> & { id: string }>;

/** Fields only the device keeps (`_v`, `_r`…) start with an underscore. */
const isLocalField = (key: string) => key.startsWith('_');

/** `table/id` → row, for the live (not deleted) rows user `uid` may see on the server. */
export async function serverRows(db: SqlEngine, uid: string): Promise<RowView> {
  const { rows } = await pullAll(db, uid, null);
  const view: RowView = new Map();
  for (const { table, row } of rows) {
    if (row.deleted_at) continue;
    view.set(`${table}/${row.id}`, row);
  }
  return view;
}

/** `table/id` → row, for the live rows in a device's store (every table of its schema). */
export async function deviceRows(sync: Sync<unknown, unknown>): Promise<RowView> {
  const db = deviceDb(sync);
  const view: RowView = new Map();
  for (const spec of db.registry) {
    for (const row of await db.rows(spec.name).toArray()) {
      if (row.deleted_at) continue;
      const copy: Record<string, unknown> & { id: string } = { id: row.id };
      for (const [key, value] of Object.entries(row)) if (!isLocalField(key)) copy[key] = value;
      view.set(`${spec.name}/${row.id}`, copy);
    }
  }
  return view;
}

/**
 * Where a device's rows differ from the server's (empty when they agree): `table/id: missing
 * on the device`, `table/id: extra on the device`, or `table/id.field: device … ≠ server …`
 * for each field the server has.
 */
export function diffRows(server: RowView, device: RowView): string[] {
  const problems: string[] = [];
  for (const [key, row] of server) {
    const mine = device.get(key);
    if (!mine) {
      problems.push(`${key}: missing on the device`);
      continue;
    }
    for (const [field, value] of Object.entries(row)) {
      if (JSON.stringify(mine[field]) !== JSON.stringify(value)) {
        problems.push(
          `${key}.${field}: device ${JSON.stringify(mine[field])} ≠ server ${JSON.stringify(value)}`,
        );
      }
    }
  }
  for (const key of device.keys()) {
    if (!server.has(key)) problems.push(`${key}: extra on the device`);
  }
  return problems;
}

/**
 * Checks that each device's store holds exactly the live rows its user may see on the server
 * (every table of the schema; fields starting with `_` and deleted rows aside), and that the
 * counts its outbox keeps match its queue, and throws an Error listing every difference, by
 * device, otherwise. Devices without a user are skipped.
 * Settle first (`settle(devices)`): a device still syncing differs for good reason.
 */
export async function assertConverged(
  backend: Pick<Backend, 'db'>,
  devices: readonly Device<unknown, unknown>[],
): Promise<void> {
  const problems: string[] = [];
  for (const device of devices) {
    if (!device.user) continue;
    const diff = diffRows(
      await serverRows(backend.db, device.user.id),
      await deviceRows(device.sync),
    );
    for (const line of diff) problems.push(`${device.name}: ${line}`);
    const drift = await outboxCountsDrift(device.sync);
    if (drift) problems.push(`${device.name}: outbox counts drifted: ${drift}`);
  }
  if (problems.length > 0) {
    throw new Error(
      `assertConverged: ${problems.length} difference(s) between devices and the server:\n  ${problems.join('\n  ')}`,
    );
  }
}
