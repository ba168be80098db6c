// The server's truth for one user, read straight from the database under that user's RLS
// (sync_pull from scratch, not through the engine), and a comparison with a device's store.
import type { SqlEngine } from '../../devstack/sql-engine';
import type { Device } from './sync-client';
import { pullAll } from './sync-calls';

type Row = Record<string, unknown> & { id: string };

/** Fields only the device keeps (`_v`, `_r`, `_standIn`…) start with an underscore. */
const isLocalField = (key: string) => key.startsWith('_');

/** `table/id` → row, for the live rows user `uid` may see on the server. */
export async function serverView(db: SqlEngine, uid: string): Promise<Map<string, Row>> {
  const { rows } = await pullAll(db, uid, null);
  const view = new Map<string, Row>();
  for (const { table, row } of rows) {
    if (row.deleted_at) continue;
    view.set(`${table}/${row.id}`, row);
  }
  return view;
}

/** `table/id` → row, for the live rows on a device. */
export async function deviceView(device: Device): Promise<Map<string, Row>> {
  const view = new Map<string, Row>();
  for (const spec of device.sync.db.registry) {
    for (const row of await device.sync.db.rows(spec.name).toArray()) {
      if (row.deleted_at) continue;
      const copy: Row = { id: row.id };
      for (const [key, value] of Object.entries(row)) if (!isLocalField(key)) copy[key] = value;
      view.set(`${spec.name}/${row.id}`, copy);
    }
  }
  return view;
}

/** Differences between the server's view and a device's (empty when they agree). */
export function diffViews(server: Map<string, Row>, device: Map<string, Row>): string[] {
  const problems: string[] = [];
  for (const [key, row] of server) {
    const mine = device.get(key);
    if (!mine) {
      problems.push(`missing on device: ${key}`);
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
  for (const key of device.keys()) if (!server.has(key)) problems.push(`extra on device: ${key}`);
  return problems;
}
