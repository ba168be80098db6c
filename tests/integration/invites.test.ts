// The invite SQL the edge functions call (service role only): owner-only creation with a
// hashed single-use token, accept once, expiry, revocation, already-member, and re-granting
// a former member (whose next pull then backfills the list).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  asCaller,
  createUsers,
  ENGINE_KINDS,
  failureCode,
  freshDatabase,
  testId,
  type TestDatabase,
} from '../support/database';
import { addMember } from '../support/memberships';
import { pullAll } from '../support/sync-calls';

type InviteAnswer = Record<string, unknown> & {
  error?: string;
  token?: string;
  invite_id?: string;
};

const owner = testId('0a');
const editor = testId('0e');
const guest = testId('0b');
const other = testId('0c');

describe.each(ENGINE_KINDS)('invites on %s', (kind) => {
  let db: TestDatabase;
  let list: string;

  const call = async (fn: string, ...args: (string | null)[]): Promise<InviteAnswer> => {
    const placeholders = args.map((_, i) => `$${i + 1}`).join(', ');
    const { rows } = await asCaller(db.engine, 'service_role', (tx) =>
      tx.query<{ r: InviteAnswer }>(`select public.${fn}(${placeholders}) as r`, args),
    );
    return rows[0]?.r ?? {};
  };
  const create = (role: string, by: string) => call('invite_create', list, role, by);
  const accept = (token: string, by: string) => call('invite_accept', token, by);

  beforeAll(async () => {
    db = await freshDatabase(kind, { seed: false });
    await createUsers(db.engine, { owner, editor, guest, other });
    list = testId('11');
    await db.engine.query(`insert into lists (id, name, created_by) values ($1, 'Crew', $2)`, [
      list,
      owner,
    ]);
    await addMember(db.engine, list, owner, editor, 'editor');
  });
  afterAll(() => db.close());

  it('lets only an owner create, storing a hash and never the token', async () => {
    expect((await create('viewer', editor)).error).toBe('PERMISSION_DENIED');
    expect((await create('owner', owner)).error).toBe('VALIDATION_FAILED');
    const made = await create('viewer', owner);
    expect(made.token).toMatch(/^[0-9a-f]{64}$/);
    const { rows } = await db.engine.query<{ token_hash: string; days: number }>(
      `select token_hash, round(extract(epoch from expires_at - created_at) / 86400)::int as days from invites where id = $1`,
      [made.invite_id ?? ''],
    );
    expect(rows[0]?.token_hash).not.toContain(made.token);
    expect(rows[0]?.token_hash).toHaveLength(64);
    expect(rows[0]?.days).toBe(7);
  });

  it('accepts once: a second use is INVITE_USED, a member gets ALREADY_MEMBER, junk INVITE_INVALID', async () => {
    const { token } = await create('editor', owner);
    expect(await accept(token ?? '', guest)).toMatchObject({ list_id: list, role: 'editor' });
    expect((await accept(token ?? '', other)).error).toBe('INVITE_USED');
    const second = await create('viewer', owner);
    expect((await accept(second.token ?? '', guest)).error).toBe('ALREADY_MEMBER');
    expect((await accept('nope', other)).error).toBe('INVITE_INVALID');
    expect((await accept('', other)).error).toBe('INVITE_INVALID');
    // ALREADY_MEMBER did not use up the second invite.
    expect(await accept(second.token ?? '', other)).toMatchObject({ role: 'viewer' });
  });

  it('refuses expired and revoked invites', async () => {
    const expired = await create('viewer', owner);
    await db.engine.query(
      `update invites set created_at = now() - interval '8 days', expires_at = now() - interval '1 day' where id = $1`,
      [expired.invite_id ?? ''],
    );
    const stranger = testId('0d');
    await createUsers(db.engine, { stranger });
    expect((await accept(expired.token ?? '', stranger)).error).toBe('INVITE_EXPIRED');
    const revoked = await create('viewer', owner);
    expect((await call('invite_revoke', revoked.invite_id ?? '', editor)).error).toBe(
      'PERMISSION_DENIED',
    );
    expect(await call('invite_revoke', revoked.invite_id ?? '', owner)).toMatchObject({
      revoked: true,
    });
    expect((await accept(revoked.token ?? '', stranger)).error).toBe('INVITE_INVALID');
  });

  it('re-grants a removed member on their old row, so their next pull backfills the list', async () => {
    const returning = testId('0f');
    await createUsers(db.engine, { returning });
    const first = await create('editor', owner);
    await accept(first.token ?? '', returning);
    const synced = await pullAll(db.engine, returning, null);
    await asCaller(db.engine, { uid: owner }, (tx) =>
      tx.query(`update memberships set deleted_at = now() where list_id = $1 and user_id = $2`, [
        list,
        returning,
      ]),
    );
    const afterRemoval = await pullAll(db.engine, returning, synced.cursor);
    expect(afterRemoval.rows.map((r) => r.table)).toEqual(['memberships']);

    const again = await create('viewer', owner);
    expect(await accept(again.token ?? '', returning)).toMatchObject({ role: 'viewer' });
    const back = await pullAll(db.engine, returning, afterRemoval.cursor);
    expect(back.rows.some((r) => r.table === 'lists' && r.row.id === list)).toBe(true);
    expect(
      back.rows.find((r) => r.table === 'memberships' && r.row.user_id === returning)?.row,
    ).toMatchObject({
      role: 'viewer',
      deleted_at: null,
    });
  });

  it('is callable by the service role only', async () => {
    for (const caller of ['anon', { uid: owner }] as const) {
      const code = await failureCode(() =>
        asCaller(db.engine, caller, (tx) =>
          tx.query(`select public.invite_create($1, 'viewer', $2)`, [list, owner]),
        ),
      );
      expect(code).toBe('42501');
    }
  });
});
