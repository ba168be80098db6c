// Pull (sync-design.md "Pull"): applies sync_pull pages from the stored cursor on, a page per
// transaction, so a pull cut short resumes where it stopped; finishes a resync and drops
// profiles no longer shared once it is complete.
import {
  applyServerRow,
  applyServerRows,
  dropUnsharedProfiles,
  listIdOf,
  markDelivered,
  purgeList,
  sweepUndelivered,
  type ServerRow,
} from './apply';
import type { SyncDatabase } from './db';
import type { Clock } from './platform';
import { SyncError } from './errors';
import type { Remote } from './remote';

/** Rows per sync_pull page (product.md §9). */
export const PULL_PAGE_ROWS = 1000;
/** `_meta` key: a pull changed memberships, so profiles are checked when it completes. */
const PROFILES_TO_CHECK = 'profilesToCheck';
/**
 * `_meta` key: the server's schema_version, kept once it is newer than the app's, so no
 * engine of this app version (after a reload, or in another tab) pushes again.
 */
export const SERVER_SCHEMA_VERSION = 'serverSchemaVersion';

/** What pull runs over (the engine's options). */
export interface PullContext {
  db: SyncDatabase;
  remote: Remote;
  clock: Clock;
  /** The sync contract version the app was built for (APP_OUTDATED above it). */
  schemaVersion: number;
}

/**
 * Pull over `ctx`: a function that pulls for `userId` until the server has nothing more, and
 * throws APP_OUTDATED once the server speaks a newer contract.
 */
export function createPull({
  db,
  remote,
  clock,
  schemaVersion,
}: PullContext): (userId: string) => Promise<void> {
  const { members, memberScope, memberUser } = db.schema.access;
  async function pullAll(userId: string): Promise<void> {
    let cursor = (await db.getMeta<string>('cursor')) ?? null;
    const resync = await db.getMeta<number>('resync');
    for (;;) {
      const page = await remote.pull(cursor, PULL_PAGE_ROWS);
      if (page.schema_version > schemaVersion) {
        await db.setMeta(SERVER_SCHEMA_VERSION, page.schema_version);
        throw new SyncError('APP_OUTDATED', 'Update available');
      }
      if (page.rows.length === 0) {
        // Nothing new (most pulls: start-up, wake-ups, the periodic check): only the cursor
        // moves, without a transaction over every table that would hold up the screens' reads.
        await db.setMeta('cursor', page.cursor);
      } else {
        await db.transaction('rw', db.allTables(), async () => {
          await applyPage(page.rows, userId);
          if (resync !== undefined) await markDelivered(db, page.rows, resync);
          // Who shares a list changed: profiles are checked once the pull is complete. Kept
          // with the page, so a pull cut short after it still checks (the cursor is past it).
          if (page.rows.some(({ table }) => table === members)) {
            await db.setMeta(PROFILES_TO_CHECK, true);
          }
          await db.setMeta('cursor', page.cursor);
        });
      }
      cursor = page.cursor;
      if (!page.has_more) break;
    }
    if (resync === undefined && !(await db.getMeta<boolean>(PROFILES_TO_CHECK))) return;
    await db.transaction('rw', db.allTables(), async () => {
      if (resync !== undefined) {
        await sweepUndelivered(db, resync);
        await db._meta.delete('resync');
      }
      await dropUnsharedProfiles(db, userId);
      await db._meta.delete(PROFILES_TO_CHECK);
    });
  }

  /**
   * Applies one pull page (inside its transaction): in page order, a run of one table's rows
   * at a time (in bulk); the caller's own memberships one by one, as they may purge or replace.
   */
  async function applyPage(rows: { table: string; row: ServerRow }[], userId: string) {
    let run: ServerRow[] = [];
    let runTable = '';
    const flush = async () => {
      await applyServerRows(db, runTable, run);
      run = [];
    };
    for (const { table, row } of rows) {
      const spec = db.registry.find((s) => s.name === table);
      if (!spec) continue;
      if (table === members && row[memberUser] === userId) {
        await flush();
        await applyOwnMembership(listIdOf(spec, row), row, userId);
        continue;
      }
      if (table !== runTable) {
        await flush();
        runTable = table;
      }
      run.push(row);
    }
    await flush();
  }

  /** The caller's own membership `row` of list `listId`. */
  async function applyOwnMembership(
    listId: string | undefined,
    row: ServerRow,
    userId: string,
  ): Promise<void> {
    if (listId && row.deleted_at) {
      // Our own membership tombstone: the list is no longer ours to keep (I5).
      await purgeList(db, listId, clock.now());
      return;
    }
    if (listId) {
      // The real owner membership replaces the stand-in made when the list was created here.
      const mine = await db
        .rows(members)
        .where(`[${memberScope}+${memberUser}]`)
        .equals([listId, userId])
        .toArray();
      await db
        .rows(members)
        .bulkDelete(mine.filter((m) => m.id !== row.id && m._standIn).map((m) => m.id));
    }
    await applyServerRow(db, members, row);
  }

  return pullAll;
}
