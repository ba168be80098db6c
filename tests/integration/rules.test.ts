// The server-side rules that are triggers rather than CHECKs: sync stamping, completed_at,
// assignee membership, limits of product.md §9, cascades of soft deletes, final tombstones and
// the profile made with each user.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  asCaller,
  asCallerThenRollback,
  createUsers,
  ENGINE_KINDS,
  failureCode,
  freshDatabase,
  testId,
  type TestDatabase,
} from '../support/database';
import { addMemberOn } from '../support/memberships';

const owner = testId('0a');
const outsider = testId('0b');

describe.each(ENGINE_KINDS)('rules on %s', (kind) => {
  let db: TestDatabase;
  let list: string;
  let task: string;

  beforeAll(async () => {
    db = await freshDatabase(kind, { seed: false });
    await createUsers(db.engine, { owner, outsider });
    list = testId('11');
    task = testId('7a');
    await asCaller(db.engine, { uid: owner }, async (tx) => {
      await tx.query(`insert into lists (id, name) values ($1, 'Rules')`, [list]);
      await tx.query(
        `insert into tasks (id, list_id, title, position) values ($1, $2, 'T', 'a0')`,
        [task, list],
      );
    });
  });
  afterAll(() => db.close());

  const asOwner = <T>(sql: string, params: string[] = []) =>
    asCallerThenRollback(db.engine, { uid: owner }, (tx) =>
      tx.query<T & Record<string, unknown>>(sql, params),
    );

  it('makes a profile for every new auth user, named from metadata', async () => {
    const { rows } = await db.engine.query('select display_name from profiles where id = $1', [
      owner,
    ]);
    expect(rows).toEqual([{ display_name: 'owner' }]);
  });

  it('makes the creator of a list its owner', async () => {
    const { rows } = await db.engine.query(
      'select user_id, role from memberships where list_id = $1',
      [list],
    );
    expect(rows).toEqual([{ user_id: owner, role: 'owner' }]);
  });

  it('bumps version and sync_xid on every write and keeps created_at', async () => {
    const { rows } = await asOwner<{
      before: string;
      after: string;
      v: string;
      same_created: boolean;
    }>(
      `with before as (select version, sync_xid, created_at from tasks where id = $1),
            upd as (update tasks set notes = 'n' where id = $1 returning version, sync_xid, created_at)
       select b.sync_xid::text as before, u.sync_xid::text as after, u.version::text as v,
              b.created_at = u.created_at as same_created
       from before b, upd u`,
      [task],
    );
    expect(rows[0]?.v).toBe('2');
    expect(rows[0]?.after).not.toBe(rows[0]?.before);
    expect(rows[0]?.same_created).toBe(true);
  });

  it('sets completed_at on entering done and clears it on reopening', async () => {
    const { rows } = await asCallerThenRollback(db.engine, { uid: owner }, async (tx) => {
      await tx.query(`update tasks set status = 'doing' where id = $1`, [task]);
      const done = await tx.query<{ c: unknown }>(
        `update tasks set status = 'done' where id = $1 returning completed_at as c`,
        [task],
      );
      const reopened = await tx.query<{ c: unknown }>(
        `update tasks set status = 'todo' where id = $1 returning completed_at as c`,
        [task],
      );
      return { rows: [done.rows[0]?.c, reopened.rows[0]?.c] };
    });
    expect(rows[0]).toBeTruthy();
    expect(rows[1]).toBeNull();
  });

  it('refuses an assignee who is not a member (P0001)', async () => {
    expect(
      await failureCode(() =>
        asOwner(`update tasks set assignee_id = $2 where id = $1`, [task, outsider]),
      ),
    ).toBe('P0001');
    expect(
      await failureCode(() =>
        asOwner(`update tasks set assignee_id = $2 where id = $1`, [task, owner]),
      ),
    ).toBeUndefined();
  });

  it('keeps at most 50 members in a list', async () => {
    // Members come only through invites, so the 51st is refused where invites land.
    const { full, direct } = await asCallerThenRollback(db.engine, 'service_role', async (tx) => {
      const more = Array.from({ length: 50 }, () => testId('0c'));
      await tx.query(`set local role postgres`);
      for (const id of more) {
        await tx.query(
          `insert into auth.users (id, email) values ($1::uuid, $1::text || '@example.com')`,
          [id],
        );
      }
      for (const id of more.slice(0, 48)) await addMemberOn(tx, list, owner, id, 'viewer');
      // 49 live members: one more fits.
      await addMemberOn(tx, list, owner, more[48] ?? '', 'viewer');
      const made = await tx.query<{ r: { token: string } }>(
        `select public.invite_create($1, 'viewer', $2) as r`,
        [list, owner],
      );
      const accepted = await tx.query<{ r: { error?: string } }>(
        `select public.invite_accept($1, $2) as r`,
        [made.rows[0]?.r.token ?? '', more[49] ?? ''],
      );
      const code = await failureCode(() =>
        tx.query(`insert into memberships (list_id, user_id, role) values ($1, $2, 'viewer')`, [
          list,
          more[49] ?? '',
        ]),
      );
      return { full: accepted.rows[0]?.r.error, direct: code };
    });
    expect(full).toBe('VALIDATION_FAILED');
    expect(direct).toBe('P0001');
  });

  it('keeps at most 20 live attachments on a task', async () => {
    const insert = `insert into attachments (id, task_id, list_id, object_path, file_name, mime_type, size_bytes)
                    values ($1::uuid, $2::uuid, $3::uuid, $3::text || '/' || $2::text || '/' || $1::text || '.png', 'a.png', 'image/png', 1)`;
    const code = await failureCode(() =>
      asCallerThenRollback(db.engine, { uid: owner }, async (tx) => {
        for (let i = 0; i < 20; i += 1) await tx.query(insert, [testId('a7'), task, list]);
        await tx.query(insert, [testId('a7'), task, list]);
      }),
    );
    expect(code).toBe('P0001');
  });

  it('refuses an attachment whose object path is not {list}/{task}/{id}.{ext}', async () => {
    const id = testId('a7');
    const bad = `insert into attachments (id, task_id, list_id, object_path, file_name, mime_type, size_bytes)
                 values ($1, $2, $3, $4, 'a.png', 'image/png', 1)`;
    for (const path of [
      `${list}/${task}/${testId('a7')}.png`,
      `${list}/${task}/${id}`,
      `../${task}/${id}.png`,
    ]) {
      expect(await failureCode(() => asOwner(bad, [id, task, list, path])), path).toBe('23514');
    }
  });

  it('soft-deletes a list’s tasks, comments and attachments with it', async () => {
    const { rows } = await asCallerThenRollback(db.engine, { uid: owner }, async (tx) => {
      await tx.query(`insert into comments (task_id, list_id, body) values ($1, $2, 'c')`, [
        task,
        list,
      ]);
      await tx.query(`update lists set deleted_at = now() where id = $1`, [list]);
      return tx.query<{ t: string; live: number }>(
        `select 'tasks' as t, count(*) filter (where deleted_at is null)::int as live from tasks where list_id = $1
         union all select 'comments', count(*) filter (where deleted_at is null)::int from comments where list_id = $1`,
        [list],
      );
    });
    expect(rows).toEqual([
      { t: 'tasks', live: 0 },
      { t: 'comments', live: 0 },
    ]);
  });

  it('keeps tombstones final for clients and refuses new tasks in a deleted list', async () => {
    const code = await failureCode(() =>
      asCallerThenRollback(db.engine, { uid: owner }, async (tx) => {
        await tx.query(`update tasks set deleted_at = now() where id = $1`, [task]);
        await tx.query(`update tasks set deleted_at = null where id = $1`, [task]);
      }),
    );
    expect(code).toBe('P0002');
    const insertCode = await failureCode(() =>
      asCallerThenRollback(db.engine, { uid: owner }, async (tx) => {
        await tx.query(`update lists set deleted_at = now() where id = $1`, [list]);
        await tx.query(`insert into tasks (list_id, title, position) values ($1, 'Late', 'b0')`, [
          list,
        ]);
      }),
    );
    expect(insertCode).toBe('P0002');
  });

  it('refuses changes to columns only the server sets', async () => {
    for (const [sql, col] of [
      [`update tasks set created_by = $2 where id = $1`, 'created_by'],
      [`update tasks set list_id = gen_random_uuid() where id = $1`, 'list_id'],
    ] as const) {
      const params = sql.includes('$2') ? [task, outsider] : [task];
      expect(await failureCode(() => asOwner(sql, params)), col).toBe('42501');
    }
  });
});
