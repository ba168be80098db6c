// Buckets (storage-api's routes/bucket/*.ts): list (with its limit/offset/search/sort
// options), get, create, update, empty and delete, each as the caller so storage.buckets'
// RLS decides, with storage-api's field sets and words. Sizes arrive as bytes or as
// "20mb"-style strings, which storage-api reads in decimal units (1 kb = 1000 bytes).
import { rm } from 'node:fs/promises';
import { join } from 'node:path';

import type { Context } from 'hono';

import {
  bucketNotFound,
  entityTooLarge,
  invalidMimeType,
  invalidRequest,
  naming,
  StorageError,
} from './errors';
import { isAllowedMimeEntry } from './content-type';
import { isValidBucketId } from './object-names';
import { removeFiles } from './object-routes';
import {
  BUCKET_COLUMNS,
  GLOBAL_FILE_SIZE_LIMIT_BYTES,
  isStringArray,
  ownerColumns,
  routeNotFound,
  type BucketRow,
  type StorageKit,
} from './shared';

const SIZE_RE = /^([0-9]+(?:\.[0-9]+)?)(gb|mb|kb|b)$/i;
const UNIT_BYTES: Record<string, number> = { gb: 1e9, mb: 1e6, kb: 1e3, b: 1 };
const LIST_SORT_COLUMNS = new Set(['id', 'name', 'created_at', 'updated_at']);

const invalidFileSize = () =>
  invalidRequest('Invalid file size format, hint: use 20GB / 20MB / 30KB / 3B');
const invalidBucketName = () =>
  new StorageError('400', 'InvalidBucketName', 'Invalid Input', 'Bucket name invalid');

/** A bucket limit as storage-api stores it: bytes, never above the global limit (413). */
export function parseFileSizeLimit(value: unknown): number | null {
  if (value === null) return null;
  let bytes: number;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) throw invalidFileSize();
    bytes = value;
  } else if (typeof value === 'string') {
    const match = SIZE_RE.exec(value);
    if (!match?.[1] || !match[2]) throw invalidFileSize();
    // storage-api keeps three significant digits ("1.2345mb" is 1230000 bytes).
    bytes =
      Number(Number.parseFloat(match[1]).toPrecision(3)) *
      (UNIT_BYTES[match[2].toLowerCase()] ?? 1);
    if (!Number.isSafeInteger(bytes)) throw invalidFileSize();
  } else {
    throw invalidFileSize();
  }
  if (bytes > GLOBAL_FILE_SIZE_LIMIT_BYTES) throw entityTooLarge();
  return bytes;
}

/** getBucket's fields (storage-api selects no `type` or `owner_id` there). */
function bucketJson(row: BucketRow) {
  return {
    id: row.id,
    name: row.name,
    owner: row.owner,
    public: row.public,
    file_size_limit: row.file_size_limit === null ? null : Number(row.file_size_limit),
    allowed_mime_types: row.allowed_mime_types,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function bucketFields(body: Record<string, unknown>) {
  const fields: {
    public?: boolean;
    file_size_limit?: number | null;
    allowed_mime_types?: string[] | null;
  } = {};
  if (body.public !== undefined) {
    if (typeof body.public !== 'boolean') throw invalidRequest('body/public must be boolean');
    fields.public = body.public;
  }
  if (body.file_size_limit !== undefined)
    fields.file_size_limit = parseFileSizeLimit(body.file_size_limit);
  if (body.allowed_mime_types !== undefined) {
    if (body.allowed_mime_types !== null && !isStringArray(body.allowed_mime_types)) {
      throw invalidRequest('body/allowed_mime_types must be array');
    }
    // storage-api drops empty entries. Entries are compared exactly, so one with parameters
    // or a list would match nothing sensible; refusing it keeps the list meaning what it says.
    const types = body.allowed_mime_types?.filter((entry) => entry !== '') ?? null;
    const bad = types?.find((entry) => !isAllowedMimeEntry(entry));
    if (bad !== undefined) throw invalidMimeType(bad);
    fields.allowed_mime_types = types;
  }
  return fields;
}

// Arrays travel as JSON text (SqlParam has no arrays); SQL unpacks them with jsonb functions.
const jsonArray = (values: string[] | null | undefined) => (values ? JSON.stringify(values) : null);
const TEXT_ARRAY = (param: string) =>
  `(select array(select jsonb_array_elements_text(${param}::jsonb)) where ${param}::jsonb is not null)`;

async function listBuckets(kit: StorageKit, c: Context) {
  const caller = await kit.requireCaller(c);
  const query = c.req.query();
  const where: string[] = [];
  const params: (string | number)[] = [];
  const integer = (name: 'limit' | 'offset', min: number) => {
    const raw = query[name];
    if (raw === undefined) return undefined;
    if (!/^\d+$/.test(raw) || Number(raw) < min) {
      throw invalidRequest(`querystring/${name} must be >= ${min}`);
    }
    return Number(raw);
  };
  const limit = integer('limit', 1);
  const offset = integer('offset', 0);
  const { search, sortColumn, sortOrder } = query;
  if (sortColumn !== undefined && !LIST_SORT_COLUMNS.has(sortColumn)) {
    throw invalidRequest('querystring/sortColumn must be equal to one of the allowed values');
  }
  if (sortOrder !== undefined && sortOrder !== 'asc' && sortOrder !== 'desc') {
    throw invalidRequest('querystring/sortOrder must be equal to one of the allowed values');
  }
  if (search) {
    params.push(`%${search.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`);
    where.push(`name ilike $${params.length} escape '\\'`);
  }
  let sql = `select ${BUCKET_COLUMNS} from storage.buckets
             ${where.length ? `where ${where.join(' and ')}` : ''}
             order by ${sortColumn ? `${sortColumn} ${sortOrder === 'desc' ? 'desc' : 'asc'}, ` : ''}name`;
  if (limit !== undefined) sql += ` limit ${limit}`;
  if (offset !== undefined) sql += ` offset ${offset}`;
  const rows = await kit.asCaller(c, caller, 'storage.bucket.list', async (tx) => {
    const result = await tx.query<BucketRow>(sql, params);
    return result.rows;
  });
  return c.json(rows.map((row) => ({ ...bucketJson(row), type: row.type })));
}

async function createBucket(kit: StorageKit, c: Context) {
  const caller = await kit.requireCaller(c);
  const body = await kit.readJson(c);
  if (typeof body.name !== 'string')
    throw invalidRequest("body must have required property 'name'");
  const newId = typeof body.id === 'string' && body.id !== '' ? body.id : body.name;
  if (!isValidBucketId(newId) || !isValidBucketId(body.name)) throw invalidBucketName();
  if (body.type !== undefined && body.type !== 'STANDARD' && body.type !== 'ANALYTICS') {
    throw invalidRequest('body/type must be equal to one of the allowed values');
  }
  if (body.type === 'ANALYTICS') {
    // Analytics (Iceberg) buckets are a hosted add-on this devstack does not have; these are
    // storage-api's words for a tenant without it.
    throw new StorageError(
      '409',
      'FeatureNotEnabled',
      'FeatureNotEnabled',
      'The feature Iceberg buckets are not enabled for this tenant is not enabled for this resource',
    );
  }
  const fields = bucketFields(body);
  const { owner, ownerId } = ownerColumns(caller.claims.sub);
  await naming('BucketAlreadyExists', () =>
    kit.asCaller(c, caller, 'storage.bucket.create', (tx) =>
      tx.query(
        `insert into storage.buckets (id, name, owner, owner_id, public, file_size_limit, allowed_mime_types)
       values ($1, $2, $3, $4, $5, $6, ${TEXT_ARRAY('$7')})`,
        [
          newId,
          body.name as string,
          owner,
          ownerId,
          fields.public ?? false,
          fields.file_size_limit ?? null,
          jsonArray(fields.allowed_mime_types),
        ],
      ),
    ),
  );
  return c.json({ name: body.name });
}

async function updateBucket(kit: StorageKit, c: Context, id: string) {
  const caller = await kit.requireCaller(c);
  const fields = bucketFields(await kit.readJson(c));
  if (Object.keys(fields).length === 0) {
    throw invalidRequest('body must match a schema in anyOf');
  }
  const updated = await kit.asCaller(c, caller, 'storage.bucket.update', async (tx) => {
    const result = await tx.query(
      `update storage.buckets set
         public = coalesce($2, public),
         file_size_limit = case when $3::boolean then $4::bigint else file_size_limit end,
         allowed_mime_types = case when $5::boolean then ${TEXT_ARRAY('$6')} else allowed_mime_types end,
         updated_at = now()
       where id = $1 returning id`,
      [
        id,
        fields.public ?? null,
        'file_size_limit' in fields,
        fields.file_size_limit ?? null,
        'allowed_mime_types' in fields,
        jsonArray(fields.allowed_mime_types),
      ],
    );
    return result.rows.length;
  });
  if (updated === 0) throw bucketNotFound();
  return c.json({ message: 'Successfully updated' });
}

async function deleteBucket(kit: StorageKit, c: Context, id: string) {
  const caller = await kit.requireCaller(c);
  const deleted = await kit.asCaller(c, caller, 'storage.bucket.delete', async (tx) => {
    const objects = await tx.query(`select 1 from storage.objects where bucket_id = $1 limit 1`, [
      id,
    ]);
    if (objects.rows.length > 0) {
      throw new StorageError(
        '409',
        'ResourceNotEmpty',
        'ResourceNotEmpty',
        'The bucket you tried to delete is not empty',
      );
    }
    const result = await tx.query(`delete from storage.buckets where id = $1 returning id`, [id]);
    return result.rows.length;
  });
  if (deleted === 0) throw bucketNotFound();
  if (isValidBucketId(id)) {
    await rm(join(kit.ctx.settings.storageDir, id), { recursive: true, force: true });
  }
  return c.json({ message: 'Successfully deleted' });
}

async function emptyBucket(kit: StorageKit, c: Context, id: string) {
  const caller = await kit.requireCaller(c);
  const names = await kit.asCaller(c, caller, 'storage.bucket.empty', async (tx) => {
    const bucket = await tx.query(`select id from storage.buckets where id = $1`, [id]);
    if (bucket.rows.length === 0) throw bucketNotFound();
    const result = await tx.query<{ name: string }>(
      `delete from storage.objects where bucket_id = $1 returning name`,
      [id],
    );
    return result.rows.map((row) => row.name);
  });
  await removeFiles(kit, id, names);
  // storage-api empties from a queue and says so; here the objects are gone already.
  return c.json({ message: 'Empty bucket has been queued. Completion may take up to an hour.' });
}

async function getBucket(kit: StorageKit, c: Context, id: string) {
  const caller = await kit.requireCaller(c);
  const rows = await kit.asCaller(c, caller, 'storage.bucket.get', async (tx) => {
    const result = await tx.query<BucketRow>(
      `select ${BUCKET_COLUMNS} from storage.buckets where id = $1`,
      [id],
    );
    return result.rows;
  });
  const row = rows[0];
  if (!row) throw bucketNotFound();
  return c.json(bucketJson(row));
}

/** /bucket[/:id[/empty]]: `rest` is the path after /bucket, decoded. */
export async function bucketRoute(kit: StorageKit, c: Context, rest: string[]) {
  const method = c.req.method;
  const [id, action, ...extra] = rest;
  if (extra.length > 0) throw routeNotFound();
  if (id === undefined || id === '') {
    if (method === 'GET') return listBuckets(kit, c);
    if (method === 'POST') return createBucket(kit, c);
  } else if (action === undefined) {
    if (method === 'GET') return getBucket(kit, c, id);
    if (method === 'PUT') return updateBucket(kit, c, id);
    if (method === 'DELETE') return deleteBucket(kit, c, id);
  } else if (action === 'empty' && method === 'POST') {
    return emptyBucket(kit, c, id);
  }
  throw routeNotFound();
}
