// Errors as values with a code from SPEC §8, and the classification of what the server or
// the network said into those codes. The engine decides what to do by code, never by text.

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
export type SyncErrorCode = (typeof SYNC_ERROR_CODES)[number];

/** Codes after which the engine retries with backoff (nothing is dropped). */
const TRANSIENT: ReadonlySet<SyncErrorCode> = new Set([
  'OFFLINE',
  'RATE_LIMITED',
  'SERVER_ERROR',
  'TIMEOUT',
]);

export class SyncError extends Error {
  constructor(
    readonly code: SyncErrorCode,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'SyncError';
  }
  get transient(): boolean {
    return TRANSIENT.has(this.code);
  }
}

export function isSyncError(error: unknown): error is SyncError {
  return error instanceof SyncError;
}

/** The SPEC §8 code of a mutation the server refused, from its SQLSTATE. */
export function codeForSqlState(sqlState: string | undefined): SyncErrorCode {
  switch (sqlState) {
    case 'DUPLICATE':
      return 'DUPLICATE';
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
  if (code === 'PT410' || message === 'CURSOR_EXPIRED') {
    return new SyncError('CURSOR_EXPIRED', 'Refreshing all data', status);
  }
  if (status === 401 || code === 'PGRST301' || code === 'PGRST303') {
    return new SyncError('AUTH_EXPIRED', message, status);
  }
  if (status === 429) return new SyncError('RATE_LIMITED', message, status);
  if (status === 408 || status === 504) return new SyncError('TIMEOUT', message, status);
  // supabase-js reports a failed fetch with status 0 and a TypeError-ish message.
  if (!status) {
    if (/abort|timeout/i.test(message)) return new SyncError('TIMEOUT', message, status);
    return new SyncError('OFFLINE', message, status);
  }
  if (status >= 500) return new SyncError('SERVER_ERROR', message, status);
  if (status === 403 || code === '42501')
    return new SyncError('PERMISSION_DENIED', message, status);
  return new SyncError('VALIDATION_FAILED', message, status);
}
