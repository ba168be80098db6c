// What the server or the network said → the product.md §8 code the engine acts on.
import { describe, expect, it } from 'vitest';

import { classifyRpcError, classifyStorageError, codeForSqlState } from './errors';

describe('codeForSqlState (a refused mutation)', () => {
  it.each([
    ['42501', 'PERMISSION_DENIED'],
    ['P0002', 'NOT_FOUND'],
    ['23503', 'NOT_FOUND'],
    ['23514', 'VALIDATION_FAILED'],
    ['22001', 'VALIDATION_FAILED'],
    ['23502', 'VALIDATION_FAILED'],
    ['P0001', 'VALIDATION_FAILED'],
    ['DUPLICATE', 'DUPLICATE'],
  ])('%s → %s', (sqlState, code) => {
    expect(codeForSqlState(sqlState)).toBe(code);
  });

  it('reads a replayed insert (its primary key taken) as DUPLICATE, any other clash as a refusal', () => {
    const pkey = { table: 'tasks', constraint: 'tasks_pkey' };
    expect(codeForSqlState('23505', { op: 'insert', ...pkey })).toBe('DUPLICATE');
    expect(codeForSqlState('23505', { op: 'patch', ...pkey })).toBe('VALIDATION_FAILED');
    // Another table's key, another unique constraint, or none named: a real conflict.
    expect(
      codeForSqlState('23505', { op: 'insert', table: 'tasks', constraint: 'lists_pkey' }),
    ).toBe('VALIDATION_FAILED');
    expect(
      codeForSqlState('23505', {
        op: 'insert',
        table: 'memberships',
        constraint: 'memberships_list_id_user_id_key',
      }),
    ).toBe('VALIDATION_FAILED');
    expect(codeForSqlState('23505', { op: 'insert', table: 'tasks' })).toBe('VALIDATION_FAILED');
  });
});

describe('classifyRpcError (a whole request failed)', () => {
  it.each([
    [{ code: 'PT410', message: 'CURSOR_EXPIRED' }, 410, 'CURSOR_EXPIRED', false],
    [{ code: 'PGRST303', message: 'JWT expired' }, 401, 'AUTH_EXPIRED', false],
    [{ code: 'PGRST301', message: 'No suitable key' }, 400, 'AUTH_EXPIRED', false],
    [{ message: 'Unauthorized' }, 401, 'AUTH_EXPIRED', false],
    [{ message: 'Too Many Requests' }, 429, 'RATE_LIMITED', true],
    [{ message: 'Gateway Timeout' }, 504, 'TIMEOUT', true],
    [{ message: 'Request Timeout' }, 408, 'TIMEOUT', true],
    [{ message: 'TypeError: fetch failed' }, 0, 'OFFLINE', true],
    [{ message: 'Service Unavailable' }, 503, 'SERVER_ERROR', true],
    [{ code: '54000', message: 'a push carries at most 1 MiB' }, 400, 'SERVER_ERROR', true],
    [{ code: '42501', message: 'permission denied' }, 403, 'PERMISSION_DENIED', false],
    [{ code: '42501', message: 'permission denied' }, 400, 'PERMISSION_DENIED', false],
    [{ code: '22023', message: 'malformed cursor' }, 400, 'VALIDATION_FAILED', false],
  ] as const)('%j with HTTP %s → %s', (error, status, code, transient) => {
    const classified = classifyRpcError(error, status);
    expect(classified.code).toBe(code);
    expect(classified.transient).toBe(transient);
    if ('code' in error) expect(classified.serverCode).toBe(error.code);
  });

  // No answer at all (supabase-js says status 0): the fetch's error, or the request's own
  // abort signal, says whether it was aborted or timed out; its message is never read.
  it.each([
    [new DOMException('This operation was aborted', 'AbortError'), 'TIMEOUT'],
    [new DOMException('The operation timed out.', 'TimeoutError'), 'TIMEOUT'],
    [new TypeError('fetch failed'), 'OFFLINE'],
    [undefined, 'OFFLINE'],
    ['AbortError', 'OFFLINE'],
  ] as const)('no answer, caused by %s → %s', (cause, code) => {
    expect(classifyRpcError({ message: 'FetchError: failed' }, 0, cause).code).toBe(code);
  });

  it('reads codes and statuses, never the message', () => {
    // Words that once decided: now only the fields do.
    expect(classifyRpcError({ message: 'CURSOR_EXPIRED' }, 400).code).toBe('VALIDATION_FAILED');
    expect(classifyRpcError({ message: 'AbortError: The operation was aborted' }, 0).code).toBe(
      'OFFLINE',
    );
    expect(classifyRpcError({ message: 'request timeout' }, 0).code).toBe('OFFLINE');
    expect(classifyRpcError({ message: 'JWT expired' }, 403).code).toBe('PERMISSION_DENIED');
  });
});

describe('classifyStorageError (an upload or a signed URL failed)', () => {
  // As storage-js builds them from storage's answers (HTTP 400, the real status in the body's
  // statusCode; wire reference §5): message, status (HTTP) and statusCode.
  it.each([
    // A 401, or storage's own name for a token it could not verify.
    [{ message: 'Unauthorized', status: 401, statusCode: '401' }, 'AUTH_EXPIRED'],
    [{ message: 'Unauthorized', status: 401 }, 'AUTH_EXPIRED'],
    [
      { message: 'No API key found in request', status: 400, statusCode: 'InvalidJWT' },
      'AUTH_EXPIRED',
    ],
    [{ message: 'bad', status: 400, statusCode: '400', code: 'InvalidJWT' }, 'AUTH_EXPIRED'],
    [{ message: 'bad', status: 400, statusCode: '400', error: 'InvalidJWT' }, 'AUTH_EXPIRED'],
    // Hosted storage's 403 AccessDenied: a policy's refusal and a token it could not verify
    // alike (only the English differs). PERMISSION_DENIED here; storageRequest (requests.ts)
    // asks again with a renewed token before believing it.
    [
      { message: 'new row violates row-level security policy', status: 400, statusCode: '403' },
      'PERMISSION_DENIED',
    ],
    [{ message: 'jwt expired', status: 400, statusCode: '403' }, 'PERMISSION_DENIED'],
    [
      { message: '"exp" claim timestamp check failed', status: 400, statusCode: '403' },
      'PERMISSION_DENIED',
    ],
    // Old storage answered a bad token with a 400 and words only: a 400 is a 400.
    [{ message: 'jwt malformed', status: 400, statusCode: '400' }, 'VALIDATION_FAILED'],
    // The file itself: by status, or by storage's name for it.
    [
      { message: 'The object exceeded the maximum allowed size', status: 400, statusCode: '413' },
      'FILE_TOO_LARGE',
    ],
    [
      { message: 'mime type text/html is not supported', status: 400, statusCode: '415' },
      'FILE_TYPE',
    ],
    [{ message: 'Payload too large', status: 413 }, 'FILE_TOO_LARGE'],
    [{ message: 'x', status: 400, statusCode: 'EntityTooLarge' }, 'FILE_TOO_LARGE'],
    [{ message: 'x', status: 400, statusCode: '400', code: 'InvalidMimeType' }, 'FILE_TYPE'],
    // Words about the file decide nothing.
    [{ message: 'Payload too large', status: 400, statusCode: '400' }, 'VALIDATION_FAILED'],
    [
      { message: 'mime type is not supported', status: 400, statusCode: '400' },
      'VALIDATION_FAILED',
    ],
    // A name that is an Object.prototype key is just an unknown name.
    [{ message: 'x', status: 400, statusCode: 'constructor' }, 'VALIDATION_FAILED'],
    [{ message: 'Internal Server Error', status: 400, statusCode: '500' }, 'SERVER_ERROR'],
    [{ message: 'injected 503', status: 503, statusCode: '503' }, 'SERVER_ERROR'],
    // No answer (StorageUnknownError): the fetch's own error says why.
    [{ message: 'fetch failed', originalError: new TypeError('fetch failed') }, 'OFFLINE'],
    [{ message: 'aborted', originalError: new DOMException('aborted', 'AbortError') }, 'TIMEOUT'],
    [{ message: 'The operation timed out' }, 'OFFLINE'],
  ] as const)('%j → %s', (error, code) => {
    expect(classifyStorageError(error).code).toBe(code);
  });

  it("keeps the body's status and storage's name on the error", () => {
    const failure = classifyStorageError({
      message: 'bad',
      status: 400,
      statusCode: '400',
      code: 'InvalidJWT',
    });
    expect(failure).toMatchObject({ status: 400, serverCode: 'InvalidJWT' });
    const refused = classifyStorageError({ message: 'no', status: 400, statusCode: '403' });
    expect(refused).toMatchObject({ code: 'PERMISSION_DENIED', status: 403 });
    expect(refused.serverCode).toBeUndefined();
    const missing = classifyStorageError({
      message: 'Bucket not found',
      status: 400,
      statusCode: '404',
      code: 'NoSuchBucket',
    });
    expect(missing).toMatchObject({
      code: 'VALIDATION_FAILED',
      status: 404,
      serverCode: 'NoSuchBucket',
    });
  });
});
