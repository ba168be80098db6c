// Errors as values with a code from product.md §8, and the classification of what the server or
// the network said into those codes. The engine decides what to do by code, never by text.

/** Every error code of product.md §8, the vocabulary the engine and the screens share. */
export const SYNC_ERROR_CODES = [
  'OFFLINE',
  'AUTH_EXPIRED',
  'PERMISSION_DENIED',
  'VALIDATION_FAILED',
  'NOT_FOUND',
  'DUPLICATE',
  'RATE_LIMITED',
  'SERVER_ERROR',
  'TIMEOUT',
  'QUOTA_EXCEEDED',
  'FILE_TOO_LARGE',
  'FILE_TYPE',
  'CURSOR_EXPIRED',
  'APP_OUTDATED',
] as const;
/** One of the product.md §8 error codes. */
export type SyncErrorCode = (typeof SYNC_ERROR_CODES)[number];

/** Codes after which the engine retries with backoff (nothing is dropped). */
const TRANSIENT: ReadonlySet<SyncErrorCode> = new Set([
  'OFFLINE',
  'RATE_LIMITED',
  'SERVER_ERROR',
  'TIMEOUT',
]);

/** A failure with its product.md §8 code: what the engine and the screens decide by. */
export class SyncError extends Error {
  constructor(
    /** What kind of failure this is (product.md §8). */
    readonly code: SyncErrorCode,
    message: string,
    /** The HTTP status behind it, when there was a response. */
    readonly status?: number,
    /** The server's SQLSTATE, PostgREST or storage code, when it sent one. */
    readonly serverCode?: string,
  ) {
    super(message);
    this.name = 'SyncError';
  }
  /** Worth retrying later with backoff: nothing is wrong with the data itself. */
  get transient(): boolean {
    return TRANSIENT.has(this.code);
  }
}

/** Narrows an unknown thrown value to a SyncError. */
export function isSyncError(error: unknown): error is SyncError {
  return error instanceof SyncError;
}

/** SQLSTATE sync_push raises when a whole batch is over its limits (500 mutations / 1 MiB). */
export const BATCH_TOO_LARGE_SQLSTATE = '54000';

/**
 * The product.md §8 code of a mutation the server refused, from its SQLSTATE. A unique violation
 * of an insert's primary key (the constraint the server names: `{table}_pkey`) is a replay of
 * a row the server already has (DUPLICATE: treat as applied); any other unique violation is a
 * real conflict.
 */
export function codeForSqlState(
  sqlState: string | undefined,
  context?: { op: string; table: string; constraint?: string | undefined },
): SyncErrorCode {
  switch (sqlState) {
    case 'DUPLICATE':
      return 'DUPLICATE';
    case '23505':
      return context?.op === 'insert' && context.constraint === `${context.table}_pkey`
        ? 'DUPLICATE'
        : 'VALIDATION_FAILED';
    case '42501':
      return 'PERMISSION_DENIED';
    case 'P0002':
    case '23503': // a parent row is gone
      return 'NOT_FOUND';
    default:
      // 23514 check, 22001 too long, 23502 not null, P0001 rule, 22023/42804/42703/22P02
      // bad input, 23505 unique: the row as sent can never be applied.
      return 'VALIDATION_FAILED';
  }
}

/** What a supabase-js rpc error (PostgREST JSON + HTTP status) means for the engine. */
export function classifyRpcError(
  error: { code?: string; message?: string } | null | undefined,
  status: number | undefined,
): SyncError {
  const message = error?.message ?? 'request failed';
  const code = error?.code ?? '';
  const make = (kind: SyncErrorCode, text = message) =>
    new SyncError(kind, text, status, code || undefined);
  if (code === 'PT410' || message === 'CURSOR_EXPIRED') {
    return make('CURSOR_EXPIRED', 'Refreshing all data');
  }
  if (status === 401 || code === 'PGRST301' || code === 'PGRST303') return make('AUTH_EXPIRED');
  if (status === 429) return make('RATE_LIMITED');
  if (status === 408 || status === 504) return make('TIMEOUT');
  // supabase-js reports a failed fetch with status 0 and the fetch error's text; an aborted
  // request (our request timeout) says AbortError / TimeoutError.
  if (!status) return make(/abort|timeout/i.test(message) ? 'TIMEOUT' : 'OFFLINE');
  // A batch over the server's limits is not the data's fault: the engine sends less.
  if (status >= 500 || code === BATCH_TOO_LARGE_SQLSTATE) return make('SERVER_ERROR');
  if (status === 403 || code === '42501') return make('PERMISSION_DENIED');
  return make('VALIDATION_FAILED');
}

/**
 * A storage-js error as the engine receives it: storage answers HTTP 400 with the real status
 * as a string in the body's `statusCode` (wire reference §5), and storage-js keeps that in
 * `statusCode` (or the body's `code` when there is no statusCode), the HTTP status in
 * `status`, and the body's message. `code` and `error` are read too, when an error has them.
 */
export interface StorageFailure {
  message: string;
  status?: unknown;
  statusCode?: unknown;
  code?: unknown;
  error?: unknown;
}

/** Storage refusals that are about the file itself (product.md §8), by status or storage's code. */
const FILE_REFUSALS: Readonly<Record<string, SyncErrorCode>> = {
  '413': 'FILE_TOO_LARGE',
  '415': 'FILE_TYPE',
  EntityTooLarge: 'FILE_TOO_LARGE',
  InvalidMimeType: 'FILE_TYPE',
};

/** Storage's own code for a token it could not verify. */
const STORAGE_JWT_CODE = 'InvalidJWT';

/**
 * What storage says of a token it could not verify, expired or not. Hosted storage answers
 * it as AccessDenied with the status of a refusal (403), like a row-level security refusal,
 * and storage-js drops the code that tells the two apart: only these words are left
 * ("jwt expired", "jwt malformed", "invalid signature"; jose's "JWS…", '"exp" claim…',
 * "signature verification failed"). A row-level security refusal names none of them.
 */
const STORAGE_JWT_MESSAGE =
  /\bjwt\b|\bjws\b|json web token|"exp" claim|invalid signature|signature verification/i;

/**
 * What a storage error (upload, signed URL) means for the engine. A token storage could
 * not verify is AUTH_EXPIRED, never PERMISSION_DENIED: a refused file is thrown away, a
 * session is refreshed and the file kept. Structured fields decide first (status, storage's
 * code); the message only where storage-js left nothing else.
 */
export function classifyStorageError(error: StorageFailure): SyncError {
  const httpStatus = Number(error.status) || undefined;
  const statusCode = typeof error.statusCode === 'string' ? error.statusCode : '';
  const names = [statusCode, error.code, error.error].filter(
    (name): name is string => typeof name === 'string' && name !== '',
  );
  const status = Number(statusCode) || httpStatus;
  const message = error.message;
  const storageCode = names.find((name) => !/^\d+$/.test(name));
  const make = (code: SyncErrorCode) => new SyncError(code, message, status, storageCode);

  // The status first, then storage's names.
  const fileCode = [String(status), ...names].map((name) => FILE_REFUSALS[name]).find(Boolean);
  if (fileCode) return make(fileCode);
  if (
    status === 401 ||
    httpStatus === 401 ||
    names.includes(STORAGE_JWT_CODE) ||
    ((status === 400 || status === 403) && STORAGE_JWT_MESSAGE.test(message))
  ) {
    return make('AUTH_EXPIRED');
  }
  // Older storage versions name a refused file only in words.
  const words = `${names.join(' ')} ${message}`;
  if (/EntityTooLarge|too large/i.test(words)) return make('FILE_TOO_LARGE');
  if (/mime type|InvalidMimeType/i.test(words)) return make('FILE_TYPE');
  return classifyRpcError({ message }, status);
}
