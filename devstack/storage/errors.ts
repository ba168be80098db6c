// Storage's error shape: HTTP 400 whatever the cause, with the "real" status as a string in
// `statusCode` (storage-js reads it from the body, wire reference §5).
import { sqlState } from '../sql-engine';

export interface StorageErrorBody {
  statusCode: string;
  code: string;
  error: string;
  message: string;
}

export class StorageError extends Error {
  constructor(
    readonly statusCode: string,
    readonly code: string,
    readonly error: string,
    message: string,
  ) {
    super(message);
  }

  body(): StorageErrorBody {
    return {
      statusCode: this.statusCode,
      code: this.code,
      error: this.error,
      message: this.message,
    };
  }
}

export const objectNotFound = () =>
  new StorageError('404', 'NoSuchKey', 'not_found', 'Object not found');
export const bucketNotFound = () =>
  new StorageError('404', 'NoSuchBucket', 'Bucket not found', 'Bucket not found');
/** A unique violation: storage-api names the resource when it knows which one it was. */
export const duplicateObject = (
  code:
    'ResourceAlreadyExists' | 'KeyAlreadyExists' | 'BucketAlreadyExists' = 'ResourceAlreadyExists',
) => new StorageError('409', code, 'Duplicate', 'The resource already exists');
export const entityTooLarge = () =>
  new StorageError(
    '413',
    'EntityTooLarge',
    'Payload too large',
    'The object exceeded the maximum allowed size',
  );
export const invalidMimeType = (mime: string) =>
  new StorageError(
    '415',
    'InvalidMimeType',
    'invalid_mime_type',
    `mime type ${mime} is not supported`,
  );
// storage-api's \`error\` is the code unless the error names another (render() in its errors).
export const invalidKey = (name: string) =>
  new StorageError('400', 'InvalidKey', 'InvalidKey', `Invalid key: ${name}`);
export const invalidRequest = (message: string) =>
  new StorageError('400', 'InvalidRequest', 'InvalidRequest', message);
export const invalidJwt = (message: string) =>
  new StorageError('400', 'InvalidJWT', 'InvalidJWT', message);
export const rlsViolation = () =>
  new StorageError(
    '403',
    'AccessDenied',
    'Unauthorized',
    'new row violates row-level security policy',
  );

/** Runs `fn`, answering a unique violation as storage-api answers it for this resource. */
export async function naming<T>(
  code: 'KeyAlreadyExists' | 'BucketAlreadyExists',
  fn: () => Promise<T>,
): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (sqlState(error) === '23505') throw duplicateObject(code);
    throw error;
  }
}

/**
 * Maps a database error to storage's error (RLS, unique violation, bad input), else undefined.
 * Class 22 (data exception) is the caller's input: a malformed value, or a NUL character in a
 * bucket id or name, which Postgres text cannot hold (22021).
 */
export function fromDatabaseError(error: unknown): StorageError | undefined {
  const state = sqlState(error);
  switch (state) {
    case '42501':
      return rlsViolation();
    case '23505':
      return duplicateObject();
    case '23503':
      return bucketNotFound();
    default:
      if (state?.startsWith('22')) {
        return invalidRequest(error instanceof Error ? error.message : 'invalid input');
      }
      return undefined;
  }
}
