// Pull (sync-design.md "Pull"): applies sync_pull pages from the stored cursor on, a page per
// transaction, so a pull cut short resumes where it stopped; finishes a resync and drops
// profiles no longer shared once it is complete.
import {
  applyServerRow,
  applyServerRows,
  changedRows,
  dropUnsharedProfiles,
  listIdOf,
  markDelivered,
  purgeList,
  sweepUndelivered,
  type RemoteChange,
  type ServerRow,
} from './apply';
import type { SyncDatabase } from './db';
import { outboxCounts } from './outbox';
import type { Clock } from './platform';
import { SyncError } from './errors';
import type { Remote } from './remote';
import type { Download } from './status';

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
  /** Hears the progress of a pull from scratch after each page, and null once it ends. */
  onDownload?: (download: Download | null) => void;
  /**
   * Hears, after each page's transaction, the rows that changed the device's copies (not
   * those of a pull from scratch: a first download is no news).
   */
  onRemoteChanges?: ((changes: RemoteChange[]) => void) | undefined;
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
  onDownload,
  onRemoteChanges,
}: PullContext): (userId: string) => Promise<void> {
  const { members, memberScope, memberUser } = db.schema.access;
  async function pullAll(userId: string): Promise<void> {
    const cursor = (await db.getMeta<string>('cursor')) ?? null;
    const resync = await db.getMeta<number>('resync');
    // A pull from scratch on a new device: its rows are only this pull's (see applyPage).
    const fromScratch = cursor === null && resync === undefined;
    try {
      await pullPages(userId, cursor, resync, fromScratch);
    } finally {
      if (cursor === null) onDownload?.(null);
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

  /** Pulls and applies pages from `start` until the server has no more. */
  async function pullPages(
    userId: string,
    start: string | null,
    resync: number | undefined,
    fromScratch: boolean,
  ): Promise<void> {
    // From scratch (a new device, a resync), the screens show how far it has come.
    let download: Download | null = start === null ? { received: 0, expected: null } : null;
    if (download) onDownload?.(download);
    let next = remote.pull(start, PULL_PAGE_ROWS);
    for (;;) {
      const page = await next;
      if (page.schema_version > schemaVersion) {
        await db.setMeta(SERVER_SCHEMA_VERSION, page.schema_version);
        throw new SyncError('APP_OUTDATED', 'Update available');
      }
      // The next page is fetched while this one is written (its cursor is known now). If
      // writing this one fails, the pull ends and that page is dropped unread.
      if (page.has_more) {
        next = remote.pull(page.cursor, PULL_PAGE_ROWS);
        next.catch(() => undefined);
      }
      if (page.rows.length === 0) {
        // Nothing new (most pulls: start-up, wake-ups, the periodic check): only the cursor
        // moves, without a transaction over every table that would hold up the screens' reads.
        await db.setMeta('cursor', page.cursor);
      } else {
        const changes: RemoteChange[] = [];
        await db.transaction('rw', db.allTables(), async () => {
          await applyPage(page.rows, userId, fromScratch, changes);
          if (resync !== undefined) await markDelivered(db, page.rows, resync);
          // Who shares a list changed: profiles are checked once the pull is complete. Kept
          // with the page, so a pull cut short after it still checks (the cursor is past it).
          if (page.rows.some(({ table }) => table === members)) {
            await db.setMeta(PROFILES_TO_CHECK, true);
          }
          await db.setMeta('cursor', page.cursor);
        });
        if (changes.length > 0) onRemoteChanges?.(changes);
      }
      if (download) {
        download = {
          received: download.received + page.rows.length,
          expected: page.expected ?? download.expected,
        };
        onDownload?.(download);
      }
      if (!page.has_more) break;
    }
  }

  /**
   * Applies one pull page (inside its transaction): in page order, a run of one table's rows
   * at a time (in bulk); the caller's own memberships one by one, as they may purge or replace.
   * In a pull from scratch with nothing queued, rows are written as they come (`fresh`):
   * the device's copy of any of them can only be from an earlier page of this pull (older:
   * pages come in commit order), a realtime row (newer, but then also on a later page or the
   * next pull, as the cursor never passes what it has not delivered) or made here (a new id).
   */
  async function applyPage(
    rows: { table: string; row: ServerRow }[],
    userId: string,
    fromScratch: boolean,
    changes: RemoteChange[],
  ) {
    const mode = fromScratch && (await outboxCounts(db)).total === 0 ? 'fresh' : 'newer';
    let run: ServerRow[] = [];
    let runTable = '';
    const flush = async () => {
      const before = await applyServerRows(db, runTable, run, mode);
      // 'fresh' reads no copies: a pull from scratch is no news (PullContext.onRemoteChanges).
      if (mode === 'newer' && onRemoteChanges) changes.push(...changedRows(runTable, run, before));
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
