// Supabase Storage at /storage/v1: object bytes on disk under settings.storageDir, their
// metadata in storage.objects, written and read as the caller so the migrations' RLS
// policies decide (wire reference §5). Paths are dispatched by hand because object names
// contain slashes and every segment must be decoded and checked before it touches the disk.
import { createHash, randomUUID } from 'node:crypto';
import { copyFile, mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';

import { Hono, type Context } from 'hono';

import { resolveCaller, type DevstackContext } from '../context';
import type { Claims, VerifyFailure } from '../keys';
import { runAsCaller, type ApiRole } from '../request-db';
import type { SqlParam, SqlRunner } from '../sql-engine';
import {
  bucketNotFound,
  entityTooLarge,
  fromDatabaseError,
  invalidJwt,
  invalidKey,
  invalidMimeType,
  invalidRequest,
  objectNotFound,
  StorageError,
} from './errors';
import {
  acceptedMimeType,
  isAllowedMimeEntry,
  OPAQUE_MIME_TYPE,
  servedInline,
  servedMimeType,
  STORAGE_SECURITY_HEADERS,
} from './content-type';
import { isValidBucketId, isValidObjectName, objectFilePath } from './object-names';
import { multipartFileTypes, readBounded, receiveToFile, tempFilePath } from './upload-body';

/** Hosted storage's global upload limit when a bucket sets none (50 MiB). */
const GLOBAL_FILE_SIZE_LIMIT_BYTES = 50 * 1024 * 1024;
/** Room for the form fields around the file in a multipart upload. */
const MULTIPART_OVERHEAD_BYTES = 1024 * 1024;
/** JSON request bodies (list, sign, remove, buckets) are small. */
const MAX_JSON_BODY_BYTES = 1024 * 1024;
/** storage-js's default page size for list(). */
const DEFAULT_LIST_LIMIT = 100;

type Caller = { role: ApiRole; claims: Claims };

type BucketRow = {
  id: string;
  name: string;
  owner: string | null;
  owner_id: string | null;
  public: boolean | null;
  file_size_limit: string | number | null;
  allowed_mime_types: string[] | null;
  type: string;
  created_at: Date | string;
  updated_at: Date | string;
};

type ObjectRow = {
  id: string;
  name: string;
  bucket_id: string;
  version: string | null;
  metadata: ObjectMetadata | null;
  user_metadata: unknown;
  created_at: Date | string | null;
  updated_at: Date | string | null;
  last_accessed_at: Date | string | null;
};

interface ObjectMetadata {
  eTag?: string;
  size?: number;
  mimetype?: string;
  cacheControl?: string;
  lastModified?: string;
  contentLength?: number;
  httpStatusCode?: number;
}

const OBJECT_COLUMNS =
  'id, name, bucket_id, version, metadata, user_metadata, created_at, updated_at, last_accessed_at';
const BUCKET_COLUMNS =
  'id, name, owner, owner_id, public, file_size_limit, allowed_mime_types, type::text as type, created_at, updated_at';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function isNodeError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && 'code' in error;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function bucketJson(row: BucketRow) {
  return {
    ...row,
    file_size_limit: row.file_size_limit === null ? null : Number(row.file_size_limit),
  };
}

/** A bucket's upload limit in bytes: its own, never above the global one. */
function sizeLimitOf(bucket: BucketRow): number {
  return bucket.file_size_limit === null
    ? GLOBAL_FILE_SIZE_LIMIT_BYTES
    : Math.min(Number(bucket.file_size_limit), GLOBAL_FILE_SIZE_LIMIT_BYTES);
}

/** "10MB", "1024" or a number → bytes; undefined when it is none of those. */
function parseSize(value: unknown): number | null | undefined {
  if (value === null) return null;
  if (typeof value === 'number')
    return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const match = /^\s*(\d+)\s*(b|kb|mb|gb)?\s*$/i.exec(value);
  if (!match?.[1]) return undefined;
  const units: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };
  const bytes = Number(match[1]) * (units[(match[2] ?? 'b').toLowerCase()] ?? 1);
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}

/** Storage's words (it verifies with jose against the project's JWKS) for a refused token. */
function storageJwtMessage(kind: VerifyFailure | undefined, fallback: string): string {
  switch (kind) {
    case 'expired':
      return 'jwt expired';
    case 'no-key':
      return 'no applicable key found in the JSON Web Key Set';
    case 'unsecured':
    case 'algorithm':
      return '"alg" (Algorithm) Header Parameter value not allowed';
    case 'signature':
      return 'signature verification failed';
    case 'malformed':
      return 'Invalid Compact JWS';
    default:
      return fallback;
  }
}

export function storageRoutes(ctx: DevstackContext): Hono {
  const app = new Hono();

  async function requireCaller(c: Context): Promise<Caller> {
    const caller = await resolveCaller(ctx, c);
    if (caller.ok) return { role: caller.role, claims: caller.claims };
    if (caller.reason === 'missing') throw invalidJwt(caller.message);
    // Hosted storage answers a JWT it cannot verify with AccessDenied (403), not InvalidJWT.
    const message = storageJwtMessage(caller.kind, caller.message);
    throw new StorageError('403', 'AccessDenied', 'Unauthorized', message);
  }

  function asCaller<T>(
    c: Context,
    caller: Caller,
    operation: string,
    fn: (tx: SqlRunner) => Promise<T>,
  ): Promise<T> {
    return runAsCaller(
      ctx.db,
      caller.role,
      caller.claims,
      { method: c.req.method, path: new URL(c.req.url).pathname },
      async (tx) => {
        await tx.query(`select set_config('storage.operation', $1, true)`, [operation]);
        return fn(tx);
      },
    );
  }

  async function findBucket(id: string): Promise<BucketRow | undefined> {
    const { rows } = await ctx.db.query<BucketRow>(
      `select ${BUCKET_COLUMNS} from storage.buckets where id = $1`,
      [id],
    );
    return rows[0];
  }

  async function readJson(c: Context): Promise<Record<string, unknown>> {
    const bytes = await readBounded(c.req.raw.body, MAX_JSON_BODY_BYTES);
    let parsed: unknown;
    try {
      parsed = JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      throw invalidRequest('Body is not valid JSON');
    }
    if (!isRecord(parsed)) throw invalidRequest('Body must be a JSON object');
    return parsed;
  }

  function checkName(name: string): void {
    if (!isValidObjectName(name)) throw invalidKey(name);
  }

  // ---- objects ------------------------------------------------------------------------

  async function upload(c: Context, bucketId: string, name: string, mode: 'POST' | 'PUT') {
    const caller = await requireCaller(c);
    checkName(name);
    const bucket = await findBucket(bucketId);
    if (!bucket) throw bucketNotFound();
    const limit = sizeLimitOf(bucket);
    const contentType = c.req.header('content-type') ?? OPAQUE_MIME_TYPE;
    const upsert = mode === 'POST' && c.req.header('x-upsert') === 'true';
    const tmp = await tempFilePath(ctx.settings.storageDir);
    try {
      let mimetype: string;
      let cacheControl: string;
      let userMetadata: unknown = null;
      let size: number;
      let md5: string;
      if (/^multipart\/form-data/i.test(contentType)) {
        const declared = Number(c.req.header('content-length'));
        if (Number.isFinite(declared) && declared > limit + MULTIPART_OVERHEAD_BYTES) {
          await readBounded(c.req.raw.body, 0).catch(() => undefined);
          throw entityTooLarge();
        }
        const bytes = await readBounded(c.req.raw.body, limit + MULTIPART_OVERHEAD_BYTES);
        let form: FormData;
        try {
          form = await new Response(bytes, { headers: { 'content-type': contentType } }).formData();
        } catch {
          throw invalidRequest('Malformed multipart/form-data body');
        }
        const file =
          form.get('') ?? [...form.values()].find((value): value is File => value instanceof Blob);
        if (!(file instanceof Blob)) throw invalidRequest('No file found in the multipart body');
        // Judged as sent: File.type has been lower-cased and trimmed by the parser already.
        const partTypes = multipartFileTypes(bytes, contentType);
        if (partTypes.length !== 1) {
          throw invalidRequest('A multipart upload carries exactly one file');
        }
        mimetype = acceptedMimeType(partTypes[0] ?? OPAQUE_MIME_TYPE, bucket.allowed_mime_types);
        if (file.size > limit) throw entityTooLarge();
        const data = new Uint8Array(await file.arrayBuffer());
        await writeFile(tmp, data);
        size = data.byteLength;
        md5 = createHash('md5').update(data).digest('hex');
        const cache = form.get('cacheControl');
        cacheControl = typeof cache === 'string' && cache ? `max-age=${cache}` : 'no-cache';
        const meta = form.get('metadata');
        if (typeof meta === 'string') {
          try {
            userMetadata = JSON.parse(meta);
          } catch {
            throw invalidRequest('metadata is not valid JSON');
          }
        }
      } else {
        mimetype = acceptedMimeType(contentType, bucket.allowed_mime_types);
        const received = await receiveToFile(c.req.raw.body, tmp, limit);
        size = received.size;
        md5 = received.md5;
        cacheControl = c.req.header('cache-control') ?? 'no-cache';
        const meta = c.req.header('x-metadata');
        if (meta) {
          try {
            userMetadata = JSON.parse(Buffer.from(meta, 'base64').toString('utf8'));
          } catch {
            throw invalidRequest('x-metadata is not base64-encoded JSON');
          }
        }
      }
      const metadata: ObjectMetadata = {
        eTag: `"${md5}"`,
        size,
        mimetype,
        cacheControl,
        lastModified: new Date().toUTCString(),
        contentLength: size,
        httpStatusCode: 200,
      };
      const sub = typeof caller.claims.sub === 'string' ? caller.claims.sub : null;
      const params: SqlParam[] = [
        bucketId,
        name,
        sub && UUID_RE.test(sub) ? sub : null,
        sub,
        JSON.stringify(metadata),
        JSON.stringify(userMetadata),
        randomUUID(),
      ];
      const finalPath = objectFilePath(ctx.settings.storageDir, bucketId, name);
      const id = await asCaller(
        c,
        caller,
        mode === 'PUT' ? 'storage.object.update' : 'storage.object.upload',
        async (tx) => {
          const set = `owner = $3, owner_id = $4, metadata = $5::jsonb, user_metadata = $6::jsonb,
                       version = $7, updated_at = now(), last_accessed_at = now()`;
          const sql =
            mode === 'PUT'
              ? `update storage.objects set ${set} where bucket_id = $1 and name = $2 returning id`
              : `insert into storage.objects
                   (bucket_id, name, owner, owner_id, metadata, user_metadata, version)
                 values ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7)
                 ${upsert ? `on conflict (bucket_id, name) do update set ${set}` : ''}
                 returning id`;
          const { rows } = await tx.query<{ id: string }>(sql, params);
          const row = rows[0];
          if (!row) throw objectNotFound();
          // Bytes move into place inside the transaction: if that fails, the row rolls back.
          try {
            await mkdir(dirname(finalPath), { recursive: true });
            await rename(tmp, finalPath);
          } catch (error) {
            if (
              isNodeError(error) &&
              ['EISDIR', 'ENOTDIR', 'EEXIST', 'ENOTEMPTY'].includes(error.code ?? '')
            ) {
              throw invalidKey(name);
            }
            throw error;
          }
          return row.id;
        },
      );
      return c.json({ Id: id, Key: `${bucketId}/${name}` });
    } finally {
      await rm(tmp, { force: true });
    }
  }

  async function serveFile(c: Context, row: ObjectRow, bucket?: BucketRow) {
    const path = objectFilePath(ctx.settings.storageDir, row.bucket_id, row.name);
    let size: number;
    try {
      const info = await stat(path);
      if (!info.isFile()) throw objectNotFound();
      size = info.size;
    } catch (error) {
      if (error instanceof StorageError) throw error;
      throw objectNotFound();
    }
    const meta = row.metadata ?? {};
    const allowed = (bucket ?? (await findBucket(row.bucket_id)))?.allowed_mime_types ?? null;
    const contentType = servedMimeType(meta.mimetype, allowed);
    const headers: Record<string, string> = {
      'content-type': contentType,
      'content-length': String(size),
      'cache-control': meta.cacheControl ?? 'no-cache',
    };
    if (meta.eTag) headers.etag = meta.eTag;
    if (meta.lastModified) headers['last-modified'] = meta.lastModified;
    // Only plain images are shown in place; anything else opened from the API origin is a
    // download, so a document in a bucket can never become a page there.
    const download = c.req.query('download');
    if (download !== undefined || !servedInline(contentType)) {
      const filename = download || row.name.split('/').pop() || 'download';
      headers['content-disposition'] = `attachment; filename="${encodeURIComponent(filename)}"`;
    }
    if (c.req.method === 'HEAD') return new Response(null, { status: 200, headers });
    const body = Readable.toWeb(createReadStream(path)) as unknown as ReadableStream<Uint8Array>;
    return new Response(body, { status: 200, headers });
  }

  async function findObjectAsCaller(c: Context, caller: Caller, bucketId: string, name: string) {
    const rows = await asCaller(c, caller, 'storage.object.get', async (tx) => {
      const result = await tx.query<ObjectRow>(
        `select ${OBJECT_COLUMNS} from storage.objects where bucket_id = $1 and name = $2`,
        [bucketId, name],
      );
      return result.rows;
    });
    const row = rows[0];
    if (!row) throw objectNotFound();
    return row;
  }

  async function findObjectAsService(bucketId: string, name: string) {
    const { rows } = await ctx.db.query<ObjectRow>(
      `select ${OBJECT_COLUMNS} from storage.objects where bucket_id = $1 and name = $2`,
      [bucketId, name],
    );
    const row = rows[0];
    if (!row) throw objectNotFound();
    return row;
  }

  async function download(c: Context, bucketId: string, name: string) {
    const caller = await requireCaller(c);
    checkName(name);
    return serveFile(c, await findObjectAsCaller(c, caller, bucketId, name));
  }

  async function downloadPublic(c: Context, bucketId: string, name: string) {
    checkName(name);
    const bucket = await findBucket(bucketId);
    if (!bucket?.public) throw bucketNotFound();
    return serveFile(c, await findObjectAsService(bucketId, name), bucket);
  }

  async function info(c: Context, bucketId: string, name: string) {
    const caller = await requireCaller(c);
    checkName(name);
    const row = await findObjectAsCaller(c, caller, bucketId, name);
    const meta = row.metadata ?? {};
    return c.json({
      id: row.id,
      name: row.name,
      version: row.version,
      bucket_id: row.bucket_id,
      size: meta.size ?? null,
      content_type: meta.mimetype ?? null,
      cache_control: meta.cacheControl ?? null,
      etag: meta.eTag ?? null,
      metadata: row.user_metadata ?? {},
      last_modified: row.updated_at,
      created_at: row.created_at,
    });
  }

  async function removeFiles(bucketId: string, names: string[]) {
    if (!isValidBucketId(bucketId)) return;
    for (const name of names) {
      if (!isValidObjectName(name)) continue;
      await rm(objectFilePath(ctx.settings.storageDir, bucketId, name), { force: true });
    }
  }

  async function removeMany(c: Context, bucketId: string, prefixes: unknown) {
    const caller = await requireCaller(c);
    if (!isStringArray(prefixes) || prefixes.length === 0 || prefixes.length > 1000) {
      throw invalidRequest('prefixes must be an array of 1 to 1000 object names');
    }
    const rows = await asCaller(c, caller, 'storage.object.delete', async (tx) => {
      const result = await tx.query<ObjectRow>(
        `delete from storage.objects where bucket_id = $1 and name in (select jsonb_array_elements_text($2::jsonb))
         returning ${OBJECT_COLUMNS}, owner, owner_id`,
        [bucketId, JSON.stringify(prefixes)],
      );
      return result.rows;
    });
    await removeFiles(
      bucketId,
      rows.map((row) => row.name),
    );
    return rows;
  }

  async function list(c: Context, bucketId: string) {
    const caller = await requireCaller(c);
    const body = await readJson(c);
    const prefix = typeof body.prefix === 'string' ? body.prefix : '';
    const search = typeof body.search === 'string' ? body.search.toLowerCase() : '';
    const limit = typeof body.limit === 'number' ? body.limit : DEFAULT_LIST_LIMIT;
    const offset = typeof body.offset === 'number' ? body.offset : 0;
    if (!Number.isInteger(limit) || limit < 0 || !Number.isInteger(offset) || offset < 0) {
      throw invalidRequest('limit and offset must be non-negative integers');
    }
    const sortBy = isRecord(body.sortBy) ? body.sortBy : {};
    const column =
      typeof sortBy.column === 'string' &&
      ['name', 'created_at', 'updated_at', 'last_accessed_at'].includes(sortBy.column)
        ? sortBy.column
        : 'name';
    const descending = sortBy.order === 'desc';
    const base = prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`;
    const pattern = `${base.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
    const rows = await asCaller(c, caller, 'storage.object.list', async (tx) => {
      const result = await tx.query<ObjectRow>(
        `select ${OBJECT_COLUMNS} from storage.objects
         where bucket_id = $1 and name like $2 escape '\\'`,
        [bucketId, pattern],
      );
      return result.rows;
    });
    type Entry = {
      name: string;
      id: string | null;
      updated_at: Date | string | null;
      created_at: Date | string | null;
      last_accessed_at: Date | string | null;
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
      const value = entry[column as 'name' | 'created_at' | 'updated_at' | 'last_accessed_at'];
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

  function expiresInOf(body: Record<string, unknown>): number {
    const expiresIn = Number(body.expiresIn);
    if (!Number.isInteger(expiresIn) || expiresIn < 1 || expiresIn > 10 * 365 * 24 * 3600) {
      throw invalidRequest('expiresIn must be a positive integer');
    }
    return expiresIn;
  }

  async function signedUrl(bucketId: string, name: string, expiresIn: number) {
    const token = await ctx.keys.sign({ url: `${bucketId}/${name}` }, expiresIn);
    return `/object/sign/${bucketId}/${name}?token=${token}`;
  }

  async function signOne(c: Context, bucketId: string, name: string) {
    const caller = await requireCaller(c);
    checkName(name);
    const expiresIn = expiresInOf(await readJson(c));
    await findObjectAsCaller(c, caller, bucketId, name);
    return c.json({ signedURL: await signedUrl(bucketId, name, expiresIn) });
  }

  async function signMany(c: Context, bucketId: string) {
    const caller = await requireCaller(c);
    const body = await readJson(c);
    const expiresIn = expiresInOf(body);
    const paths = body.paths;
    if (!isStringArray(paths) || paths.length === 0 || paths.length > 1000) {
      throw invalidRequest('paths must be an array of 1 to 1000 object names');
    }
    const visible = await asCaller(c, caller, 'storage.object.sign', async (tx) => {
      const result = await tx.query<{ name: string }>(
        `select name from storage.objects where bucket_id = $1 and name in (select jsonb_array_elements_text($2::jsonb))`,
        [bucketId, JSON.stringify(paths)],
      );
      return new Set(result.rows.map((row) => row.name));
    });
    const out = [];
    for (const path of paths) {
      out.push(
        visible.has(path)
          ? { path, signedURL: await signedUrl(bucketId, path, expiresIn), error: null }
          : {
              path,
              signedURL: null,
              error: 'Either the object does not exist or you do not have access to it',
            },
      );
    }
    return c.json(out);
  }

  async function serveSigned(c: Context, bucketId: string, name: string) {
    checkName(name);
    const token = c.req.query('token');
    if (!token) throw invalidRequest("querystring must have required property 'token'");
    const verified = await ctx.keys.verify(token);
    if (!verified.ok) {
      throw invalidJwt(storageJwtMessage(verified.kind, verified.message));
    }
    if (verified.claims.url !== `${bucketId}/${name}`) {
      throw new StorageError(
        '400',
        'InvalidSignature',
        'InvalidSignature',
        'The url do not match the signature',
      );
    }
    return serveFile(c, await findObjectAsService(bucketId, name));
  }

  async function moveOrCopy(c: Context, kind: 'move' | 'copy') {
    const caller = await requireCaller(c);
    const body = await readJson(c);
    const { bucketId, sourceKey, destinationKey } = body;
    const destinationBucket = body.destinationBucket ?? bucketId;
    if (
      typeof bucketId !== 'string' ||
      typeof sourceKey !== 'string' ||
      typeof destinationKey !== 'string' ||
      typeof destinationBucket !== 'string'
    ) {
      throw invalidRequest('bucketId, sourceKey and destinationKey are required');
    }
    checkName(sourceKey);
    checkName(destinationKey);
    if (!isValidBucketId(bucketId) || !isValidBucketId(destinationBucket)) throw bucketNotFound();
    const from = objectFilePath(ctx.settings.storageDir, bucketId, sourceKey);
    const to = objectFilePath(ctx.settings.storageDir, destinationBucket, destinationKey);
    const target = await findBucket(destinationBucket);
    if (!target) throw bucketNotFound();
    const id = await asCaller(c, caller, `storage.object.${kind}`, async (tx) => {
      // The object lands in the target bucket, so it must pass that bucket's limits as an
      // upload there would (a PDF must not reach the avatars bucket by a copy). Read as the
      // caller: an object they cannot see answers 404 below, not with its type or size.
      const source = await tx.query<ObjectRow>(
        `select ${OBJECT_COLUMNS} from storage.objects where bucket_id = $1 and name = $2`,
        [bucketId, sourceKey],
      );
      const sourceRow = source.rows[0];
      if (sourceRow) {
        acceptedMimeType(
          sourceRow.metadata?.mimetype ?? OPAQUE_MIME_TYPE,
          target.allowed_mime_types,
        );
        let size: number;
        try {
          size = (await stat(from)).size;
        } catch {
          throw objectNotFound();
        }
        if (size > sizeLimitOf(target)) throw entityTooLarge();
      }
      const sql =
        kind === 'move'
          ? `update storage.objects set bucket_id = $3, name = $4, updated_at = now()
             where bucket_id = $1 and name = $2 returning id`
          : `insert into storage.objects (bucket_id, name, owner, owner_id, metadata, user_metadata, version)
             select $3, $4, owner, owner_id, metadata, user_metadata, gen_random_uuid()::text
             from storage.objects where bucket_id = $1 and name = $2 returning id`;
      const { rows } = await tx.query<{ id: string }>(sql, [
        bucketId,
        sourceKey,
        destinationBucket,
        destinationKey,
      ]);
      const row = rows[0];
      if (!row) throw objectNotFound();
      try {
        await mkdir(dirname(to), { recursive: true });
        if (kind === 'move') await rename(from, to);
        else await copyFile(from, to);
      } catch (error) {
        if (isNodeError(error) && error.code === 'ENOENT') throw objectNotFound();
        if (isNodeError(error) && ['EISDIR', 'ENOTDIR', 'EEXIST'].includes(error.code ?? '')) {
          throw invalidKey(destinationKey);
        }
        throw error;
      }
      return row.id;
    });
    const key = `${destinationBucket}/${destinationKey}`;
    return c.json(
      kind === 'move' ? { message: 'Successfully moved', Id: id, Key: key } : { Id: id, Key: key },
    );
  }

  // ---- buckets ------------------------------------------------------------------------

  function bucketFields(body: Record<string, unknown>) {
    const fields: {
      public?: boolean;
      file_size_limit?: number | null;
      allowed_mime_types?: string[] | null;
    } = {};
    if (body.public !== undefined) {
      if (typeof body.public !== 'boolean') throw invalidRequest('public must be a boolean');
      fields.public = body.public;
    }
    if (body.file_size_limit !== undefined) {
      const size = parseSize(body.file_size_limit);
      if (size === undefined) throw invalidRequest('file_size_limit must be a size in bytes');
      fields.file_size_limit = size;
    }
    if (body.allowed_mime_types !== undefined) {
      if (body.allowed_mime_types !== null && !isStringArray(body.allowed_mime_types)) {
        throw invalidRequest('allowed_mime_types must be an array of strings');
      }
      // Entries are compared exactly, so one with parameters or a list would match nothing
      // sensible; refusing it keeps a bucket's list meaning what it says.
      const bad = body.allowed_mime_types?.find((entry) => !isAllowedMimeEntry(entry));
      if (bad !== undefined) throw invalidMimeType(bad);
      fields.allowed_mime_types = body.allowed_mime_types;
    }
    return fields;
  }

  // Arrays travel as JSON text (SqlParam has no arrays); SQL unpacks them with jsonb functions.
  const jsonArray = (values: string[] | null | undefined) =>
    values ? JSON.stringify(values) : null;

  async function bucketRoute(c: Context, rest: string[]) {
    const caller = await requireCaller(c);
    const method = c.req.method;
    const [id, action, ...extra] = rest;
    if (extra.length > 0) throw new StorageError('404', 'NotFound', 'Not Found', 'Route not found');
    if (id === undefined) {
      if (method === 'GET') {
        const rows = await asCaller(c, caller, 'storage.bucket.list', async (tx) => {
          const result = await tx.query<BucketRow>(
            `select ${BUCKET_COLUMNS} from storage.buckets order by name`,
          );
          return result.rows;
        });
        return c.json(rows.map(bucketJson));
      }
      if (method === 'POST') {
        const body = await readJson(c);
        const newId = typeof body.id === 'string' ? body.id : body.name;
        if (typeof newId !== 'string' || !isValidBucketId(newId)) {
          throw invalidRequest('Bucket name invalid');
        }
        const fields = bucketFields(body);
        const sub = typeof caller.claims.sub === 'string' ? caller.claims.sub : null;
        await asCaller(c, caller, 'storage.bucket.create', (tx) =>
          tx.query(
            `insert into storage.buckets (id, name, owner, owner_id, public, file_size_limit, allowed_mime_types)
             values ($1, $2, $3, $4, $5, $6, (select array(select jsonb_array_elements_text($7::jsonb)) where $7::jsonb is not null))`,
            [
              newId,
              typeof body.name === 'string' ? body.name : newId,
              sub && UUID_RE.test(sub) ? sub : null,
              sub,
              fields.public ?? false,
              fields.file_size_limit ?? null,
              jsonArray(fields.allowed_mime_types),
            ],
          ),
        );
        return c.json({ name: newId });
      }
    } else if (action === undefined) {
      if (method === 'GET') {
        const rows = await asCaller(c, caller, 'storage.bucket.get', async (tx) => {
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
      if (method === 'PUT') {
        const fields = bucketFields(await readJson(c));
        const updated = await asCaller(c, caller, 'storage.bucket.update', async (tx) => {
          const result = await tx.query(
            `update storage.buckets set
               public = coalesce($2, public),
               file_size_limit = case when $3::boolean then $4::bigint else file_size_limit end,
               allowed_mime_types = case when $5::boolean then (select array(select jsonb_array_elements_text($6::jsonb)) where $6::jsonb is not null) else allowed_mime_types end,
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
      if (method === 'DELETE') {
        const deleted = await asCaller(c, caller, 'storage.bucket.delete', async (tx) => {
          const objects = await tx.query(
            `select 1 from storage.objects where bucket_id = $1 limit 1`,
            [id],
          );
          if (objects.rows.length > 0) {
            throw new StorageError(
              '409',
              'InvalidRequest',
              'Conflict',
              'The bucket you tried to delete is not empty',
            );
          }
          const result = await tx.query(`delete from storage.buckets where id = $1 returning id`, [
            id,
          ]);
          return result.rows.length;
        });
        if (deleted === 0) throw bucketNotFound();
        if (isValidBucketId(id)) {
          await rm(join(ctx.settings.storageDir, id), { recursive: true, force: true });
        }
        return c.json({ message: 'Successfully deleted' });
      }
    } else if (action === 'empty' && method === 'POST') {
      const names = await asCaller(c, caller, 'storage.bucket.empty', async (tx) => {
        const bucket = await tx.query(`select id from storage.buckets where id = $1`, [id]);
        if (bucket.rows.length === 0) throw bucketNotFound();
        const result = await tx.query<{ name: string }>(
          `delete from storage.objects where bucket_id = $1 returning name`,
          [id],
        );
        return result.rows.map((row) => row.name);
      });
      await removeFiles(id, names);
      return c.json({ message: 'Successfully emptied' });
    }
    throw new StorageError('404', 'NotFound', 'Not Found', 'Route not found');
  }

  async function objectRoute(c: Context, rest: string[]) {
    const method = c.req.method;
    const read = method === 'GET' || method === 'HEAD';
    const [first, second, ...more] = rest;
    if (first === undefined)
      throw new StorageError('404', 'NotFound', 'Not Found', 'Route not found');
    const nameOf = (parts: string[]) => parts.join('/');
    if (first === 'list' && second !== undefined && method === 'POST' && more.length === 0) {
      return list(c, second);
    }
    if ((first === 'move' || first === 'copy') && second === undefined && method === 'POST') {
      return moveOrCopy(c, first);
    }
    if (first === 'sign' && second !== undefined) {
      if (more.length === 0 && method === 'POST') return signMany(c, second);
      if (more.length > 0 && method === 'POST') return signOne(c, second, nameOf(more));
      if (more.length > 0 && read) return serveSigned(c, second, nameOf(more));
    }
    if (first === 'public' && second !== undefined && more.length > 0 && read) {
      return downloadPublic(c, second, nameOf(more));
    }
    if (first === 'authenticated' && second !== undefined && more.length > 0 && read) {
      return download(c, second, nameOf(more));
    }
    if (first === 'info' && second !== undefined && more.length > 0 && method === 'GET') {
      const [bucket, ...name] =
        second === 'authenticated' || second === 'public' ? more : [second, ...more];
      if (bucket !== undefined && name.length > 0) return info(c, bucket, nameOf(name));
    }
    if (second === undefined) {
      if (method === 'DELETE') {
        const body = await readJson(c);
        return c.json(await removeMany(c, first, body.prefixes));
      }
      throw new StorageError('404', 'NotFound', 'Not Found', 'Route not found');
    }
    const name = nameOf([second, ...more]);
    if (method === 'POST' || method === 'PUT') return upload(c, first, name, method);
    if (read) return download(c, first, name);
    if (method === 'DELETE') {
      checkName(name);
      const rows = await removeMany(c, first, [name]);
      if (rows.length === 0) throw objectNotFound();
      return c.json({ message: 'Successfully deleted' });
    }
    throw new StorageError('404', 'NotFound', 'Not Found', 'Route not found');
  }

  // On every answer, errors included: a browser must never guess a type for storage bytes.
  app.use('*', async (c, next) => {
    await next();
    for (const [name, value] of Object.entries(STORAGE_SECURITY_HEADERS)) {
      c.res.headers.set(name, value);
    }
  });

  app.all('*', async (c) => {
    try {
      const pathname = new URL(c.req.url).pathname;
      const after = pathname.replace(/^.*?\/storage\/v1(?=\/|$)/, '');
      let segments: string[];
      try {
        segments = after
          .split('/')
          .slice(1)
          .map((segment) => decodeURIComponent(segment));
      } catch {
        throw invalidRequest('The path is not valid URI encoding');
      }
      const [service, ...rest] = segments;
      if (service === 'bucket') return await bucketRoute(c, rest);
      if (service === 'object') return await objectRoute(c, rest);
      throw new StorageError('404', 'NotFound', 'Not Found', 'Route not found');
    } catch (error) {
      const known = error instanceof StorageError ? error : fromDatabaseError(error);
      if (known) return c.json(known.body(), 400);
      console.error('[devstack storage] unexpected error:', error);
      return c.json(
        {
          statusCode: '500',
          code: 'InternalError',
          error: 'internal',
          message: 'Internal Server Error',
        },
        500,
      );
    }
  });

  return app;
}
