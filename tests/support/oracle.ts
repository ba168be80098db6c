// The server's truth for one user, read straight from the database under that user's RLS
// (sync_pull from scratch, not through the engine), a second reading of it from product.md §6 alone
// (plain SQL as the superuser: neither sync_pull nor RLS), and a comparison with a device's
// store. The generic parts are the sync kit's (sync/kit/converge.ts); product.md §6 is Outpost's.
import type { SqlEngine } from '../../devstack/sql-engine';
import { deviceRows, diffRows, serverRows } from '../../sync/kit/converge';
import type { Device } from './sync-client';

type Row = Record<string, unknown> & { id: string };

/** `table/id` → row, for the live rows user `uid` may see on the server (the sync kit's). */
export const serverView: (db: SqlEngine, uid: string) => Promise<Map<string, Row>> = serverRows;

/**
 * `table/id` → version of the live rows product.md §6 lets user `uid` see, computed without the
 * code under test: a member (a live membership) sees the list, its live memberships, tasks,
 * comments, attachments and checklist items; profiles are their own and those of people sharing a live
 * list with them. Compared with `serverView`, it catches a sync_pull that delivers too much
 * or too little, which the device and a sync_pull-based oracle would agree on.
 */
export async function specView(db: SqlEngine, uid: string): Promise<Map<string, number>> {
  const { rows } = await db.query<{ t: string; id: string; version: string | number }>(
    `with mine as (
       select list_id from public.memberships where user_id = $1 and deleted_at is null
     ), peers as (
       select $1::uuid as id
       union select m.user_id from public.memberships m
       where m.list_id in (select list_id from mine) and m.deleted_at is null
     )
     select 'lists' t, id, version from public.lists
       where id in (select list_id from mine) and deleted_at is null
     union all select 'memberships', id, version from public.memberships
       where list_id in (select list_id from mine) and deleted_at is null
     union all select 'tasks', id, version from public.tasks
       where list_id in (select list_id from mine) and deleted_at is null
     union all select 'comments', id, version from public.comments
       where list_id in (select list_id from mine) and deleted_at is null
     union all select 'attachments', id, version from public.attachments
       where list_id in (select list_id from mine) and deleted_at is null
     union all select 'checklist_items', id, version from public.checklist_items
       where list_id in (select list_id from mine) and deleted_at is null
     union all select 'profiles', id, version from public.profiles
       where id in (select id from peers) and deleted_at is null`,
    [uid],
  );
  return new Map(rows.map((r) => [`${r.t}/${r.id}`, Number(r.version)]));
}

/** Where sync_pull's view of a user (`serverView`) and product.md §6's (`specView`) disagree. */
export function diffSpec(server: Map<string, Row>, spec: Map<string, number>): string[] {
  const problems: string[] = [];
  for (const [key, version] of spec) {
    const row = server.get(key);
    if (!row) problems.push(`sync_pull misses ${key}`);
    else if (Number(row.version) !== version) {
      problems.push(`sync_pull has ${key} at version ${String(row.version)}, the table ${version}`);
    }
  }
  for (const key of server.keys()) if (!spec.has(key)) problems.push(`sync_pull leaks ${key}`);
  return problems;
}

/** `table/id` → row, for the live rows on a device (the sync kit's deviceRows). */
export function deviceView(device: Device): Promise<Map<string, Row>> {
  return deviceRows(device.sync);
}

/** Differences between the server's view and a device's (empty when they agree). */
export const diffViews: (server: Map<string, Row>, device: Map<string, Row>) => string[] = diffRows;
