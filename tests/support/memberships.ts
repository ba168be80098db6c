// Members join a list the only way the server allows (product.md §4: invited → member): the owner
// makes an invite and the user accepts it, through the SQL the create-invite and
// accept-invite edge functions call with the service role. Clients cannot insert memberships.
import type { SqlEngine, SqlRunner } from '../../devstack/sql-engine';
import { actAs } from './database';

interface InviteAnswer {
  error?: string;
  message?: string;
  token?: string;
  membership_id?: string;
}

/**
 * Makes `user` an editor or viewer of `list` through an invite that `owner` creates and
 * `user` accepts, in one committed transaction; returns the membership's id. Throws with
 * the invite's error code if either step refuses.
 */
export function addMember(
  engine: SqlEngine,
  list: string,
  owner: string,
  user: string,
  role: 'editor' | 'viewer',
): Promise<string> {
  return engine.transaction(async (tx) => {
    await actAs(tx, 'service_role');
    return addMemberOn(tx, list, owner, user, role);
  });
}

/** addMember inside a transaction the caller holds (its role is set to the service role). */
export async function addMemberOn(
  tx: SqlRunner,
  list: string,
  owner: string,
  user: string,
  role: 'editor' | 'viewer',
): Promise<string> {
  await actAs(tx, 'service_role');
  const made = await call(tx, 'select public.invite_create($1, $2, $3) as r', [list, role, owner]);
  if (!made.token) throw new Error(`invite_create: ${made.error ?? '?'} ${made.message ?? ''}`);
  const taken = await call(tx, 'select public.invite_accept($1, $2) as r', [made.token, user]);
  if (!taken.membership_id) {
    throw new Error(`invite_accept: ${taken.error ?? '?'} ${taken.message ?? ''}`);
  }
  return taken.membership_id;
}

async function call(tx: SqlRunner, sql: string, params: string[]): Promise<InviteAnswer> {
  const { rows } = await tx.query<{ r: InviteAnswer }>(sql, params);
  return rows[0]?.r ?? {};
}
