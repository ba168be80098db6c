// Listing a bucket (storage-api's routes/object/listObjects.ts and listObjectsV2.ts). Rows are
// read as the caller (RLS decides what is listed), then grouped into folders and objects
// here. v1 pages by offset; v2 pages by an opaque cursor that names the last entry sent and
// the sort it was sent in, as storage-api's continuation token does.
import type { Context } from 'hono';

import { isPlainObject } from '../json';
import { invalidRequest, StorageError } from './errors';
import { OBJECT_COLUMNS, type ObjectMetadata, type ObjectRow, type StorageKit } from './shared';

/** storage-js's default page size for list(). */
const DEFAULT_LIST_LIMIT = 100;
/** list-v2 answers at most this many entries a page (storage-api's maxKeys cap). */
const MAX_LIST_V2_KEYS = 1000;

type Stamp = Date | string | null;

function iso(value: Stamp): string | null {
  if (value === null) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

/** Names compare as Postgres's "C" collation compares them: by UTF-8 bytes. */
function compareC(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

async function rowsUnder(kit: StorageKit, c: Context, bucketId: string, prefix: string) {
  const caller = await kit.requireCaller(c);
  const pattern = `${prefix.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
  return kit.asCaller(c, caller, 'storage.object.list', async (tx) => {
    const result = await tx.query<ObjectRow>(
      `select ${OBJECT_COLUMNS} from storage.objects
       where bucket_id = $1 and name like $2 escape '\\'`,
      [bucketId, pattern],
    );
    return result.rows;
  });
}

export async function list(kit: StorageKit, c: Context, bucketId: string) {
  const body = await kit.readJson(c);
  const prefix = typeof body.prefix === 'string' ? body.prefix : '';
  const search = typeof body.search === 'string' ? body.search.toLowerCase() : '';
  const limit = typeof body.limit === 'number' ? body.limit : DEFAULT_LIST_LIMIT;
  const offset = typeof body.offset === 'number' ? body.offset : 0;
  if (!Number.isInteger(limit) || limit < 0 || !Number.isInteger(offset) || offset < 0) {
    throw invalidRequest('limit and offset must be non-negative integers');
  }
  const sortBy = isPlainObject(body.sortBy) ? body.sortBy : {};
  const column =
    typeof sortBy.column === 'string' &&
    ['name', 'created_at', 'updated_at', 'last_accessed_at'].includes(sortBy.column)
      ? (sortBy.column as 'name' | 'created_at' | 'updated_at' | 'last_accessed_at')
      : 'name';
  const descending = sortBy.order === 'desc';
  const base = prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`;
  const rows = await rowsUnder(kit, c, bucketId, base);
  type Entry = {
    name: string;
    id: string | null;
    updated_at: Stamp;
    created_at: Stamp;
    last_accessed_at: Stamp;
    metadata: ObjectMetadata | null;
  };
  const folders = new Set<string>();
  const entries: Entry[] = [];
  for (const row of rows) {
    const rest = row.name.slice(base.length);
    const slash = rest.indexOf('/');
    const entryName = slash === -1 ? rest : rest.slice(0, slash);
    if (!entryName.toLowerCase().startsWith(search)) continue;
    if (slash !== -1) {
      if (folders.has(entryName)) continue;
      folders.add(entryName);
      entries.push({
        name: entryName,
        id: null,
        updated_at: null,
        created_at: null,
        last_accessed_at: null,
        metadata: null,
      });
    } else {
      entries.push({
        name: entryName,
        id: row.id,
        updated_at: row.updated_at,
        created_at: row.created_at,
        last_accessed_at: row.last_accessed_at,
        metadata: row.metadata,
      });
    }
  }
  const key = (entry: Entry): string => {
    const value = entry[column];
    if (value === null) return '';
    return value instanceof Date ? value.toISOString() : value;
  };
  entries.sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    const order = x < y ? -1 : x > y ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
    return descending ? -order : order;
  });
  return c.json(entries.slice(offset, offset + limit));
}

// ---- list-v2 ------------------------------------------------------------------------------

type SortColumn = 'name' | 'created_at' | 'updated_at';

interface Cursor {
  startAfter: string;
  order?: string;
  column?: string;
  after?: string;
}

const CURSOR_PARTS: Record<string, keyof Cursor> = {
  l: 'startAfter',
  o: 'order',
  c: 'column',
  a: 'after',
};

function encodeCursor(cursor: Cursor): string {
  const lines: string[] = [];
  for (const [letter, field] of Object.entries(CURSOR_PARTS)) {
    if (cursor[field]) lines.push(`${letter}:${cursor[field]}`);
  }
  return Buffer.from(lines.join('\n')).toString('base64');
}

function decodeCursor(token: string): Cursor {
  const cursor: Cursor = { startAfter: '', order: 'asc' };
  for (const line of Buffer.from(token, 'base64').toString().split('\n')) {
    const match = /^(\S):(.*)/.exec(line);
    const field = match?.[1] === undefined ? undefined : CURSOR_PARTS[match[1]];
    if (!match || field === undefined) {
      throw new StorageError(
        '400',
        'InvalidParameter',
        'InvalidParameter',
        'Invalid Parameter continuation token',
      );
    }
    cursor[field] = match[2] ?? '';
  }
  return cursor;
}

/** A body field of list-v2 refused as its JSON schema refuses it (Fastify's wording). */
function badBody(message: string): StorageError {
  return new StorageError('400', 'InvalidRequest', 'InvalidRequest', `body/${message}`);
}

interface V2Entry {
  key?: string;
  name: string;
  id: string | null;
  updated_at: string | null;
  created_at: string | null;
  last_accessed_at: string | null;
  metadata: ObjectMetadata | null;
}

export async function listV2(kit: StorageKit, c: Context, bucketId: string) {
  const body = await kit.readJson(c);
  const { prefix = '', cursor, with_delimiter: delimited = false, limit, sortBy } = body;
  if (typeof prefix !== 'string') throw badBody('prefix must be string');
  if (cursor !== undefined && typeof cursor !== 'string') throw badBody('cursor must be string');
  if (typeof delimited !== 'boolean') throw badBody('with_delimiter must be boolean');
  if (limit !== undefined && (typeof limit !== 'number' || !Number.isInteger(limit))) {
    throw badBody('limit must be integer');
  }
  if (typeof limit === 'number' && limit < 1) throw badBody('limit must be >= 1');
  let column: SortColumn | undefined;
  let order: string | undefined;
  if (sortBy !== undefined) {
    if (!isPlainObject(sortBy)) throw badBody('sortBy must be object');
    if (
      sortBy.column !== 'name' &&
      sortBy.column !== 'created_at' &&
      sortBy.column !== 'updated_at'
    ) {
      throw badBody('sortBy/column must be equal to one of the allowed values');
    }
    if (sortBy.order !== undefined && sortBy.order !== 'asc' && sortBy.order !== 'desc') {
      throw badBody('sortBy/order must be equal to one of the allowed values');
    }
    column = sortBy.column;
    order = sortBy.order;
  }
  const pageSize = Math.min(limit || MAX_LIST_V2_KEYS, MAX_LIST_V2_KEYS);
  const from = cursor ? decodeCursor(cursor) : undefined;
  const sortColumn = (from?.column ?? column ?? 'name') as SortColumn;
  const descending = (from?.order ?? order ?? 'asc') === 'desc';
  const rows = await rowsUnder(kit, c, bucketId, prefix);

  // With the delimiter, storage-api's search_v2 keys each entry by its segment at the
  // prefix's depth and folds deeper names into folders (timestamps: their first object's).
  const levels = prefix === '' ? 1 : prefix.split('/').length;
  const entries: V2Entry[] = [];
  const folders = new Map<string, V2Entry>();
  for (const row of rows) {
    const slash = delimited ? row.name.indexOf('/', prefix.length) : -1;
    if (slash === -1) {
      entries.push({
        ...(delimited ? { key: row.name.split('/')[levels - 1] ?? '' } : {}),
        name: row.name,
        id: row.id,
        updated_at: iso(row.updated_at),
        created_at: iso(row.created_at),
        last_accessed_at: iso(row.last_accessed_at),
        metadata: row.metadata,
      });
      continue;
    }
    const name = row.name.slice(0, slash);
    const created = iso(row.created_at);
    const folder = folders.get(name);
    if (folder) {
      if (created !== null && (folder.created_at === null || created < folder.created_at)) {
        folder.created_at = folder.updated_at = created;
      }
      continue;
    }
    const entry: V2Entry = {
      key: name.split('/')[levels - 1] ?? '',
      name,
      id: null,
      updated_at: created,
      created_at: created,
      last_accessed_at: null,
      metadata: null,
    };
    folders.set(name, entry);
    entries.push(entry);
  }
  // Folders sort by their (earliest) time like objects; names break ties byte-wise.
  const stamp = (entry: V2Entry) =>
    sortColumn === 'name' ? '' : (entry[sortColumn] ?? new Date(0).toISOString());
  const compare = (a: V2Entry, b: V2Entry) => {
    const byStamp = stamp(a) < stamp(b) ? -1 : stamp(a) > stamp(b) ? 1 : 0;
    const order = byStamp !== 0 ? byStamp : compareC(a.name, b.name);
    return descending ? -order : order;
  };
  entries.sort(compare);
  const remaining = from
    ? entries.filter((entry) => {
        const mark: V2Entry = {
          name: from.startAfter,
          id: null,
          updated_at: from.after ?? null,
          created_at: from.after ?? null,
          last_accessed_at: null,
          metadata: null,
        };
        return compare(entry, mark) > 0;
      })
    : entries;
  const page = remaining.slice(0, pageSize);
  const hasNext = remaining.length > pageSize;
  const last = page[page.length - 1];
  const folderOut = page
    .filter((entry) => entry.id === null)
    .map((entry) => ({ ...entry, name: `${entry.name}/` }));
  const objectOut = page.filter((entry) => entry.id !== null);
  const next: Cursor = { startAfter: last?.name ?? '' };
  const nextOrder = from?.order ?? order;
  const nextColumn = from?.column ?? column;
  const nextAfter = sortColumn === 'name' ? null : (last?.[sortColumn] ?? null);
  if (nextOrder) next.order = nextOrder;
  if (nextColumn) next.column = nextColumn;
  if (nextAfter) next.after = nextAfter;
  return c.json({
    hasNext,
    ...(hasNext && last ? { nextCursor: encodeCursor(next), nextCursorKey: last.name } : {}),
    folders: folderOut,
    objects: objectOut,
  });
}
