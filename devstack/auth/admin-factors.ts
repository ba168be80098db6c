// GoTrue's admin factor endpoints (internal/api/admin.go): list a user's MFA factors, delete
// one (its sessions drop back to aal1) and rename one or change its phone. They read
// auth.mfa_factors, which the MFA endpoints fill; before that table exists a user simply has
// no factors.
import type { Hono } from 'hono';

import { sqlNow } from '../clock';
import type { DevstackContext } from '../context';
import type { SqlRunner } from '../sql-engine';
import {
  adminTransaction,
  hasFactorTable,
  isUuid,
  loadUser,
  stringField,
  userFactors,
  validatePhone,
} from './admin-auth';
import { AuthApiError } from './errors';
import { readJsonBody } from './route-kit';
import { FACTOR_COLUMNS, factorJson } from './users';

type Factor = Awaited<ReturnType<typeof userFactors>>[number];

/** GoTrue's loadFactor: a UUID naming one of the user's own factors, else 404. */
async function loadFactor(db: SqlRunner, userId: string, rawId: string): Promise<Factor> {
  if (!isUuid(rawId)) {
    throw new AuthApiError(404, 'validation_failed', 'factor_id must be an UUID');
  }
  const notFound = () => new AuthApiError(404, 'mfa_factor_not_found', 'Factor not found');
  if (!(await hasFactorTable(db))) throw notFound();
  const { rows } = await db.query<Factor>(
    `select ${FACTOR_COLUMNS} from auth.mfa_factors where id::text = $1 and user_id::text = $2`,
    [rawId.toLowerCase(), userId],
  );
  const factor = rows[0];
  if (!factor) throw notFound();
  return factor;
}

/** Whether a column exists (the sessions' factor link comes with the MFA tables). */
async function hasColumn(db: SqlRunner, table: string, column: string): Promise<boolean> {
  const { rows } = await db.query(
    `select 1 from information_schema.columns
     where table_schema = 'auth' and table_name = $1 and column_name = $2`,
    [table, column],
  );
  return rows.length > 0;
}

/** Factor.DowngradeSessionsToAAL1: sessions raised by the factor go back to aal1. */
async function downgradeSessions(tx: SqlRunner, userId: string, factorId: string): Promise<void> {
  if (!(await hasColumn(tx, 'sessions', 'factor_id'))) return;
  if (await hasColumn(tx, 'mfa_amr_claims', 'session_id')) {
    await tx.query(
      `delete from auth.mfa_amr_claims where authentication_method in ('totp', 'mfa/phone', 'mfa/webauthn')
         and session_id in (select id from auth.sessions where factor_id::text = $1)`,
      [factorId],
    );
  }
  await tx.query(
    `update auth.sessions set aal = 'aal1', factor_id = null
     where user_id::text = $1 and factor_id::text = $2`,
    [userId, factorId],
  );
}

export function registerAdminFactorRoutes(app: Hono, ctx: DevstackContext): void {
  app.get('/admin/users/:user_id/factors', async (c) => {
    const user = await loadUser(ctx.db, c.req.param('user_id'));
    return c.json((await userFactors(ctx.db, user.id)).map(factorJson));
  });

  app.delete('/admin/users/:user_id/factors/:factor_id', async (c) => {
    const user = await loadUser(ctx.db, c.req.param('user_id'));
    const factor = await loadFactor(ctx.db, user.id, c.req.param('factor_id'));
    await ctx.db.transaction(async (tx) => {
      await downgradeSessions(tx, user.id, factor.id);
      await tx.query(`delete from auth.mfa_factors where id::text = $1`, [factor.id]);
    });
    return c.json(factorJson(factor));
  });

  app.put('/admin/users/:user_id/factors/:factor_id', async (c) => {
    const user = await loadUser(ctx.db, c.req.param('user_id'));
    const factor = await loadFactor(ctx.db, user.id, c.req.param('factor_id'));
    const body = await readJsonBody(c);
    const friendlyName = stringField(body, 'friendly_name');
    const rawPhone = stringField(body, 'phone');
    const at = sqlNow(ctx.clock);
    // A name the user's other factor has: the unique index refuses it, GoTrue answers 500.
    await adminTransaction(ctx.db, 'Unexpected failure', async (tx) => {
      if (friendlyName !== '') {
        await tx.query(
          `update auth.mfa_factors set friendly_name = $2, updated_at = $3::timestamptz
             where id::text = $1`,
          [factor.id, friendlyName, at],
        );
      }
      if (rawPhone !== '' && factor.factor_type === 'phone') {
        const phone = validatePhone(rawPhone);
        await tx.query(
          `update auth.mfa_factors set phone = $2, updated_at = $3::timestamptz
             where id::text = $1`,
          [factor.id, phone, at],
        );
      }
    });
    return c.json(factorJson(await loadFactor(ctx.db, user.id, factor.id)));
  });
}
