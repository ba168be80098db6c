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
    [{ message: 'Too Many Requests' }, 429, 'RATE_LIMITED', true],
    [{ message: 'Gateway Timeout' }, 504, 'TIMEOUT', true],
    [{ message: 'AbortError: The operation was aborted' }, 0, 'TIMEOUT', true],
    [{ message: 'TypeError: fetch failed' }, 0, 'OFFLINE', true],
    [{ message: 'Service Unavailable' }, 503, 'SERVER_ERROR', true],
    [{ code: '54000', message: 'a push carries at most 1 MiB' }, 400, 'SERVER_ERROR', true],
    [{ code: '42501', message: 'permission denied' }, 403, 'PERMISSION_DENIED', false],
    [{ code: '22023', message: 'malformed cursor' }, 400, 'VALIDATION_FAILED', false],
  ] as const)('%j with HTTP %s → %s', (error, status, code, transient) => {
    const classified = classifyRpcError(error, status);
    expect(classified.code).toBe(code);
    expect(classified.transient).toBe(transient);
    if ('code' in error) expect(classified.serverCode).toBe(error.code);
  });
});

describe('classifyStorageError (an upload or a signed URL failed)', () => {
  // As storage-js builds them from storage's answers (HTTP 400, the real status in the body's
  // statusCode; wire reference §5): message, status (HTTP) and statusCode.
  it.each([
    // Hosted storage (and the devstack) on an expired token: a 403 like a refusal.
    [{ message: 'jwt expired', status: 400, statusCode: '403' }, 'AUTH_EXPIRED'],
    [{ message: 'JWT expired', status: 400, statusCode: '403' }, 'AUTH_EXPIRED'],
    [
      { message: '"exp" claim timestamp check failed', status: 403, statusCode: '403' },
      'AUTH_EXPIRED',
    ],
    [{ message: 'signature verification failed', status: 400, statusCode: '403' }, 'AUTH_EXPIRED'],
    [{ message: 'jwt malformed', status: 400, statusCode: '400' }, 'AUTH_EXPIRED'],
    // Structured fields first: whatever the message says.
    [{ message: 'Unauthorized', status: 401, statusCode: '401' }, 'AUTH_EXPIRED'],
    [
      { message: 'No API key found in request', status: 400, statusCode: 'InvalidJWT' },
      'AUTH_EXPIRED',
    ],
    [{ message: 'bad', status: 400, statusCode: '400', code: 'InvalidJWT' }, 'AUTH_EXPIRED'],
    // A row-level security refusal stays one: the file is not allowed.
    [
      { message: 'new row violates row-level security policy', status: 400, statusCode: '403' },
      'PERMISSION_DENIED',
    ],
    [
      { message: 'The object exceeded the maximum allowed size', status: 400, statusCode: '413' },
      'FILE_TOO_LARGE',
    ],
    [
      { message: 'mime type text/html is not supported', status: 400, statusCode: '415' },
      'FILE_TYPE',
    ],
    [{ message: 'Payload too large', status: 413 }, 'FILE_TOO_LARGE'],
    [{ message: 'Internal Server Error', status: 400, statusCode: '500' }, 'SERVER_ERROR'],
    [{ message: 'injected 503', status: 503, statusCode: '503' }, 'SERVER_ERROR'],
    [{ message: 'fetch failed' }, 'OFFLINE'],
  ] as const)('%j → %s', (error, code) => {
    expect(classifyStorageError(error).code).toBe(code);
  });
});
