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

/** The names a fetch's error has when the request was aborted or timed out, not refused. */
const ABORTED: ReadonlySet<string> = new Set(['AbortError', 'TimeoutError']);

/**
 * What a supabase-js rpc error (PostgREST JSON + HTTP status) means for the engine, by its
 * status and PostgREST code; never by its message. With no answer at all (status 0: the fetch
 * failed), `cause`, the fetch's own error where supabase-js keeps it (storage-js's
 * originalError, functions-js's context), tells a request aborted or timed out by its name
 * (AbortError, TimeoutError) from one that never reached the server.
 */
export function classifyRpcError(
  error: { code?: string | undefined; message?: string | undefined } | null | undefined,
  status: number | undefined,
  cause?: unknown,
): SyncError {
  const message = error?.message ?? 'request failed';
  const code = error?.code ?? '';
  const make = (kind: SyncErrorCode, text = message) =>
    new SyncError(kind, text, status, code || undefined);
  if (code === 'PT410') return make('CURSOR_EXPIRED', 'Refreshing all data');
  if (status === 401 || code === 'PGRST301' || code === 'PGRST303') return make('AUTH_EXPIRED');
  if (status === 429) return make('RATE_LIMITED');
  if (status === 408 || status === 504) return make('TIMEOUT');
  if (!status) {
    return make(cause instanceof Error && ABORTED.has(cause.name) ? 'TIMEOUT' : 'OFFLINE');
  }
  // A batch over the server's limits is not the data's fault: the engine sends less.
  if (status >= 500 || code === BATCH_TOO_LARGE_SQLSTATE) return make('SERVER_ERROR');
  if (status === 403 || code === '42501') return make('PERMISSION_DENIED');
  return make('VALIDATION_FAILED');
}

/**
 * A storage-js error as the engine receives it. Storage answers HTTP 400 with the real status
 * as a string in the body's `statusCode` (wire reference §5); storage-js keeps that in
 * `statusCode` (or the body's `code` when there is no statusCode), the HTTP status in
 * `status`, and the body's message. `code` and `error` are read too, when an error has them.
 * A request that got no answer (StorageUnknownError) has none of these, and the fetch's own
 * error in `originalError`.
 */
export interface StorageFailure {
  message: string;
  status?: unknown;
  statusCode?: unknown;
  code?: unknown;
  error?: unknown;
  originalError?: unknown;
}

/** Storage refusals that are about the file itself (product.md §8), by status or storage's code. */
const FILE_REFUSALS: ReadonlyMap<string, SyncErrorCode> = new Map([
  ['413', 'FILE_TOO_LARGE'],
  ['415', 'FILE_TYPE'],
  ['EntityTooLarge', 'FILE_TOO_LARGE'],
  ['InvalidMimeType', 'FILE_TYPE'],
]);

/**
 * What a storage error (upload, signed URL) means for the engine, by its fields only: the
 * body's statusCode (else the HTTP status) and storage's code names. A 401, or storage's
 * InvalidJWT, is AUTH_EXPIRED. A token storage could not verify, expired or not, is answered
 * by hosted storage exactly as a policy's refusal (403 AccessDenied; only the English message
 * differs), so a 403 is PERMISSION_DENIED here and sync/requests.ts's storageRequest tells the
 * two apart by asking again with a renewed token.
 */
export function classifyStorageError(error: StorageFailure): SyncError {
  const httpStatus = Number(error.status) || undefined;
  const names = [error.statusCode, error.code, error.error].filter(
    (name): name is string => typeof name === 'string' && name !== '',
  );
  // The body's status wins: storage sends its refusals with HTTP 400.
  const status = Number(error.statusCode) || httpStatus;
  const storageCode = names.find((name) => !(Number(name) > 0));
  const make = (code: SyncErrorCode) => new SyncError(code, error.message, status, storageCode);

  // The status first, then storage's names.
  const fileCode = [String(status), ...names].map((name) => FILE_REFUSALS.get(name)).find(Boolean);
  if (fileCode) return make(fileCode);
  if (names.includes('InvalidJWT')) return make('AUTH_EXPIRED');
  return classifyRpcError(
    { message: error.message, code: storageCode },
    status,
    error.originalError,
  );
}
