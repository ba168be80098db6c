// The object routes that read, describe, remove, move and copy stored objects (storage-api's
// routes/object/{getObject,getPublicObject,getObjectInfo,deleteObject(s),moveObject,
// copyObject}.ts), and serving an object's bytes, which the signed routes share.
import { copyFile, mkdir, rename, rm, stat } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import { dirname } from 'node:path';
import { Readable } from 'node:stream';

import type { Context } from 'hono';

import {
  bucketNotFound,
  entityTooLarge,
  invalidKey,
  invalidRequest,
  objectNotFound,
  StorageError,
} from './errors';
import { acceptedMimeType, OPAQUE_MIME_TYPE, servedInline, servedMimeType } from './content-type';
import { isValidBucketId, isValidObjectName, objectFilePath } from './object-names';
import {
  checkName,
  isNodeError,
  isStringArray,
  OBJECT_COLUMNS,
  sizeLimitOf,
  type BucketRow,
  type Caller,
  type ObjectRow,
  type StorageKit,
} from './shared';

export async function serveFile(kit: StorageKit, c: Context, row: ObjectRow, bucket?: BucketRow) {
  const path = objectFilePath(kit.ctx.settings.storageDir, row.bucket_id, row.name);
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
  const allowed = (bucket ?? (await kit.findBucket(row.bucket_id)))?.allowed_mime_types ?? null;
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

export async function findObjectAsCaller(
  kit: StorageKit,
  c: Context,
  caller: Caller,
  bucketId: string,
  name: string,
) {
  const rows = await kit.asCaller(c, caller, 'storage.object.get', async (tx) => {
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

export async function findObjectAsService(kit: StorageKit, bucketId: string, name: string) {
  const { rows } = await kit.ctx.db.query<ObjectRow>(
    `select ${OBJECT_COLUMNS} from storage.objects where bucket_id = $1 and name = $2`,
    [bucketId, name],
  );
  const row = rows[0];
  if (!row) throw objectNotFound();
  return row;
}

export async function download(kit: StorageKit, c: Context, bucketId: string, name: string) {
  const caller = await kit.requireCaller(c);
  checkName(name);
  return serveFile(kit, c, await findObjectAsCaller(kit, c, caller, bucketId, name));
}

export async function downloadPublic(kit: StorageKit, c: Context, bucketId: string, name: string) {
  checkName(name);
  const bucket = await kit.findBucket(bucketId);
  if (!bucket?.public) throw bucketNotFound();
  return serveFile(kit, c, await findObjectAsService(kit, bucketId, name), bucket);
}

export async function info(kit: StorageKit, c: Context, bucketId: string, name: string) {
  const caller = await kit.requireCaller(c);
  checkName(name);
  if (!(await kit.findBucket(bucketId))) throw bucketNotFound();
  const row = await findObjectAsCaller(kit, c, caller, bucketId, name);
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

export async function removeFiles(kit: StorageKit, bucketId: string, names: string[]) {
  if (!isValidBucketId(bucketId)) return;
  for (const name of names) {
    if (!isValidObjectName(name)) continue;
    await rm(objectFilePath(kit.ctx.settings.storageDir, bucketId, name), { force: true });
  }
}

export async function removeMany(kit: StorageKit, c: Context, bucketId: string, prefixes: unknown) {
  const caller = await kit.requireCaller(c);
  if (!isStringArray(prefixes) || prefixes.length === 0 || prefixes.length > 1000) {
    throw invalidRequest('prefixes must be an array of 1 to 1000 object names');
  }
  const rows = await kit.asCaller(c, caller, 'storage.object.delete', async (tx) => {
    const result = await tx.query<ObjectRow>(
      `delete from storage.objects where bucket_id = $1 and name in (select jsonb_array_elements_text($2::jsonb))
       returning ${OBJECT_COLUMNS}, owner, owner_id`,
      [bucketId, JSON.stringify(prefixes)],
    );
    return result.rows;
  });
  await removeFiles(
    kit,
    bucketId,
    rows.map((row) => row.name),
  );
  return rows;
}

export async function moveOrCopy(kit: StorageKit, c: Context, kind: 'move' | 'copy') {
  const caller = await kit.requireCaller(c);
  const body = await kit.readJson(c);
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
  const from = objectFilePath(kit.ctx.settings.storageDir, bucketId, sourceKey);
  const to = objectFilePath(kit.ctx.settings.storageDir, destinationBucket, destinationKey);
  const target = await kit.findBucket(destinationBucket);
  if (!target) throw bucketNotFound();
  const id = await kit.asCaller(c, caller, `storage.object.${kind}`, async (tx) => {
    // The object lands in the target bucket, so it must pass that bucket's limits as an
    // upload there would (a PDF must not reach the avatars bucket by a copy). Read as the
    // caller: an object they cannot see answers 404 below, not with its type or size.
    const source = await tx.query<ObjectRow>(
      `select ${OBJECT_COLUMNS} from storage.objects where bucket_id = $1 and name = $2`,
      [bucketId, sourceKey],
    );
    const sourceRow = source.rows[0];
    if (sourceRow) {
      acceptedMimeType(sourceRow.metadata?.mimetype ?? OPAQUE_MIME_TYPE, target.allowed_mime_types);
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
