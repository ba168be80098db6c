import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openPglite, sqlState, type SqlEngine } from './sql-engine';

describe('sqlState', () => {
  it('reads a SQLSTATE from a driver error and nothing else', () => {
    expect(sqlState({ code: '42501' })).toBe('42501');
    expect(sqlState({ code: 'PT410' })).toBe('PT410');
    expect(sqlState({ code: 'ECONNREFUSED' })).toBeUndefined();
    expect(sqlState(new Error('boom'))).toBeUndefined();
    expect(sqlState(null)).toBeUndefined();
  });
});

describe('PGlite engine', () => {
  let db: SqlEngine;
  beforeAll(async () => {
    db = await openPglite();
    await db.exec('create table t (n int)');
  });
  afterAll(() => db.close());

  it('runs concurrent transactions one after another on its single connection', async () => {
    const order: string[] = [];
    const slow = db.transaction(async (tx) => {
      order.push('a:start');
      await tx.query('insert into t values (1)');
      await new Promise((r) => setTimeout(r, 20));
      order.push('a:end');
    });
    const fast = db.transaction(async (tx) => {
      order.push('b:start');
      await tx.query('insert into t values (2)');
      order.push('b:end');
    });
    await Promise.all([slow, fast]);
    expect(order).toEqual(['a:start', 'a:end', 'b:start', 'b:end']);
  });

  it('rolls a failed transaction back and keeps serving', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.query('insert into t values (3)');
        await tx.query('select * from missing_table');
      }),
    ).rejects.toMatchObject({ code: '42P01' });
    const { rows } = await db.query<{ n: number }>('select n from t order by n');
    expect(rows.map((r) => r.n)).toEqual([1, 2]);
  });
});
