// An upload's body (raw bytes or one multipart file) checked against its bucket's size limit
// and allowed types, stored as a storage.objects row written in the caller's transaction (so
// RLS decides) with the bytes moved into place before that transaction commits. Shared by
// the plain upload routes and the signed-URL upload, as storage-api shares its uploader.
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

import type { Context } from 'hono';

import { parseJsonText } from '../json';
import type { SqlParam } from '../sql-engine';
import {
  bucketNotFound,
  entityTooLarge,
  invalidKey,
  invalidRequest,
  naming,
  objectNotFound,
} from './errors';
import { acceptedMimeType, OPAQUE_MIME_TYPE } from './content-type';
import { objectFilePath } from './object-names';
import {
  checkName,
  isNodeError,
  ownerColumns,
  sizeLimitOf,
  type Caller,
  type ObjectMetadata,
  type StorageKit,
} from './shared';
import { multipartFileTypes, readBounded, receiveToFile, tempFilePath } from './upload-body';

/** Room for the form fields around the file in a multipart upload. */
const MULTIPART_OVERHEAD_BYTES = 1024 * 1024;

export interface UploadTarget {
  bucketId: string;
  name: string;
  /** Whose transaction writes the row (RLS applies to them). */
  caller: Caller;
  /** The `sub` the row is owned by. */
  owner: unknown;
  /** insert: a new object (409 if it exists); upsert: new or replaced; update: must exist. */
  mode: 'insert' | 'upsert' | 'update';
  operation: string;
}

interface ReceivedBody {
  mimetype: string;
  cacheControl: string;
  userMetadata: unknown;
  size: number;
  md5: string;
}

/** storage-js sends user metadata as base64 JSON in `x-metadata` for raw bodies. */
export function parseMetadataHeader(value: string | undefined): unknown {
  if (!value) return null;
  return metadataJson(
    Buffer.from(value, 'base64').toString('utf8'),
    'x-metadata is not base64-encoded JSON',
  );
}

/** User metadata is stored as jsonb: bounded in depth like every JSON body. */
function metadataJson(text: string, invalid: string): unknown {
  const parsed = parseJsonText(text);
  if (!parsed.ok) throw invalidRequest(invalid);
  return parsed.value;
}

async function receiveBody(
  c: Context,
  tmp: string,
  limit: number,
  allowed: string[] | null,
): Promise<ReceivedBody> {
  const contentType = c.req.header('content-type') ?? OPAQUE_MIME_TYPE;
  if (!/^multipart\/form-data/i.test(contentType)) {
    const mimetype = acceptedMimeType(contentType, allowed);
    const received = await receiveToFile(c.req.raw.body, tmp, limit);
    return {
      mimetype,
      cacheControl: c.req.header('cache-control') ?? 'no-cache',
      userMetadata: parseMetadataHeader(c.req.header('x-metadata')),
      size: received.size,
      md5: received.md5,
    };
  }
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
  if (partTypes.length !== 1) throw invalidRequest('A multipart upload carries exactly one file');
  const mimetype = acceptedMimeType(partTypes[0] ?? OPAQUE_MIME_TYPE, allowed);
  if (file.size > limit) throw entityTooLarge();
  const data = new Uint8Array(await file.arrayBuffer());
  await writeFile(tmp, data);
  const cache = form.get('cacheControl');
  const meta = form.get('metadata');
  const userMetadata =
    typeof meta === 'string' ? metadataJson(meta, 'metadata is not valid JSON') : null;
  return {
    mimetype,
    cacheControl: typeof cache === 'string' && cache ? `max-age=${cache}` : 'no-cache',
    userMetadata,
    size: data.byteLength,
    md5: createHash('md5').update(data).digest('hex'),
  };
}

function writeSql(mode: UploadTarget['mode']): string {
  const set = `owner = $3, owner_id = $4, metadata = $5::jsonb, user_metadata = $6::jsonb,
               version = $7, updated_at = now(), last_accessed_at = now()`;
  if (mode === 'update') {
    return `update storage.objects set ${set} where bucket_id = $1 and name = $2 returning id`;
  }
  return `insert into storage.objects
            (bucket_id, name, owner, owner_id, metadata, user_metadata, version)
          values ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7)
          ${mode === 'upsert' ? `on conflict (bucket_id, name) do update set ${set}` : ''}
          returning id`;
}

/** Receives the request's body and stores it as `target`; returns the object's id. */
export async function storeUpload(kit: StorageKit, c: Context, target: UploadTarget) {
  const { bucketId, name } = target;
  checkName(name);
  const bucket = await kit.findBucket(bucketId);
  if (!bucket) throw bucketNotFound();
  const tmp = await tempFilePath(kit.ctx.settings.storageDir);
  try {
    const body = await receiveBody(c, tmp, sizeLimitOf(bucket), bucket.allowed_mime_types);
    const metadata: ObjectMetadata = {
      eTag: `"${body.md5}"`,
      size: body.size,
      mimetype: body.mimetype,
      cacheControl: body.cacheControl,
      lastModified: new Date(kit.ctx.clock.now()).toUTCString(),
      contentLength: body.size,
      httpStatusCode: 200,
    };
    const { owner, ownerId } = ownerColumns(target.owner);
    const params: SqlParam[] = [
      bucketId,
      name,
      owner,
      ownerId,
      JSON.stringify(metadata),
      JSON.stringify(body.userMetadata),
      randomUUID(),
    ];
    const finalPath = objectFilePath(kit.ctx.settings.storageDir, bucketId, name);
    const write = () =>
      kit.asCaller(c, target.caller, target.operation, async (tx) => {
        const { rows } = await tx.query<{ id: string }>(writeSql(target.mode), params);
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
      });
    return await naming('KeyAlreadyExists', write);
  } finally {
    await rm(tmp, { force: true });
  }
}

/** Thrown inside a probe's transaction so that it rolls back. */
class ProbeDone extends Error {}

/**
 * Whether the caller may upload `name` (storage-api's canUpload before it signs an upload
 * URL): the row is written as the caller and rolled back, so RLS and a duplicate answer now.
 */
export async function probeUpload(
  kit: StorageKit,
  c: Context,
  caller: Caller,
  bucketId: string,
  name: string,
  upsert: boolean,
): Promise<void> {
  checkName(name);
  if (!(await kit.findBucket(bucketId))) throw bucketNotFound();
  const { owner, ownerId } = ownerColumns(caller.claims.sub);
  try {
    await naming('KeyAlreadyExists', () =>
      kit.asCaller(c, caller, 'storage.object.sign_upload', async (tx) => {
        await tx.query(writeSql(upsert ? 'upsert' : 'insert'), [
          bucketId,
          name,
          owner,
          ownerId,
          '{}',
          'null',
          randomUUID(),
        ]);
        throw new ProbeDone();
      }),
    );
  } catch (error) {
    if (!(error instanceof ProbeDone)) throw error;
  }
}
