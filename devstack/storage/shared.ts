// What every storage route needs: the caller (as storage-api's JWT plugin decides), a
// transaction as that caller with `storage.operation` set (so RLS policies can read it), the
// bucket row, a bounded JSON body, and the row shapes storage keeps. The route groups
// (bucket, object, upload, signed, list, render) each take this kit.
import type { Context } from 'hono';

import { resolveCaller, type DevstackContext } from '../context';
import { isPlainObject, parseJsonText } from '../json';
import type { Claims, VerifyFailure } from '../keys';
import { runAsCaller, type ApiRole } from '../request-db';
import type { SqlRunner } from '../sql-engine';
import { invalidKey, invalidRequest, StorageError } from './errors';
import { isValidObjectName } from './object-names';
import { readBounded } from './upload-body';

/** Hosted storage's global upload limit when a bucket sets none (50 MiB). */
export const GLOBAL_FILE_SIZE_LIMIT_BYTES = 50 * 1024 * 1024;
/** JSON request bodies (list, sign, remove, buckets) are small. */
const MAX_JSON_BODY_BYTES = 1024 * 1024;

export type Caller = { role: ApiRole; claims: Claims };

/** Who storage acts as for a signed upload: the service, so the token is the only gate. */
export const SERVICE_CALLER: Caller = { role: 'service_role', claims: { role: 'service_role' } };

export type BucketRow = {
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

export type ObjectRow = {
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

export interface ObjectMetadata {
  eTag?: string;
  size?: number;
  mimetype?: string;
  cacheControl?: string;
  lastModified?: string;
  contentLength?: number;
  httpStatusCode?: number;
}

export const OBJECT_COLUMNS =
  'id, name, bucket_id, version, metadata, user_metadata, created_at, updated_at, last_accessed_at';
export const BUCKET_COLUMNS =
  'id, name, owner, owner_id, public, file_size_limit, allowed_mime_types, type::text as type, created_at, updated_at';

export function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

export function isNodeError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && 'code' in error;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** storage.objects/buckets keep the caller twice: `owner` (a uuid, or null) and `owner_id`. */
export function ownerColumns(sub: unknown): { owner: string | null; ownerId: string | null } {
  const id = typeof sub === 'string' ? sub : null;
  return { owner: id && UUID_RE.test(id) ? id : null, ownerId: id };
}

/** A bucket's upload limit in bytes: its own, never above the global one. */
export function sizeLimitOf(bucket: BucketRow): number {
  return bucket.file_size_limit === null
    ? GLOBAL_FILE_SIZE_LIMIT_BYTES
    : Math.min(Number(bucket.file_size_limit), GLOBAL_FILE_SIZE_LIMIT_BYTES);
}

export function checkName(name: string): void {
  if (!isValidObjectName(name)) throw invalidKey(name);
}

/**
 * A path and method storage-api has no route for. The router answers it with a real 404
 * naming the request (`Route GET:/render/image/... not found`), unlike the errors a route
 * raises, which travel as HTTP 400 with the status in the body.
 */
export class RouteNotFound extends StorageError {
  constructor() {
    super('404', 'InvalidRequest', 'Not Found', 'Route not found');
  }
}

export function routeNotFound(): StorageError {
  return new RouteNotFound();
}

/** Storage's words (it verifies with jose against the project's JWKS) for a refused token. */
export function storageJwtMessage(kind: VerifyFailure | undefined, fallback: string): string {
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

export interface StorageKit {
  readonly ctx: DevstackContext;
  requireCaller(c: Context): Promise<Caller>;
  asCaller<T>(
    c: Context,
    caller: Caller,
    operation: string,
    fn: (tx: SqlRunner) => Promise<T>,
  ): Promise<T>;
  /** The bucket as the service sees it (limits and types apply whatever RLS says). */
  findBucket(id: string): Promise<BucketRow | undefined>;
  readJson(c: Context): Promise<Record<string, unknown>>;
}

export function createStorageKit(ctx: DevstackContext): StorageKit {
  return {
    ctx,
    async requireCaller(c) {
      const caller = await resolveCaller(ctx, c);
      if (caller.ok) return { role: caller.role, claims: caller.claims };
      // No gateway key check stands before storage (public URLs work without a key): with
      // neither a key nor a token, storage-api verifies an empty JWT and says why it failed.
      // Any other JWT it cannot verify is AccessDenied (403) too, never InvalidJWT.
      const message =
        caller.reason === 'missing'
          ? 'Invalid Compact JWS'
          : storageJwtMessage(caller.kind, caller.message);
      throw new StorageError('403', 'AccessDenied', 'Unauthorized', message);
    },
    asCaller(c, caller, operation, fn) {
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
    },
    async findBucket(id) {
      const { rows } = await ctx.db.query<BucketRow>(
        `select ${BUCKET_COLUMNS} from storage.buckets where id = $1`,
        [id],
      );
      return rows[0];
    },
    async readJson(c) {
      const bytes = await readBounded(c.req.raw.body, MAX_JSON_BODY_BYTES);
      const parsed = parseJsonText(new TextDecoder().decode(bytes));
      if (!parsed.ok) throw invalidRequest('Body is not valid JSON');
      if (!isPlainObject(parsed.value)) throw invalidRequest('Body must be a JSON object');
      return parsed.value;
    },
  };
}
