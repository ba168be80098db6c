// GoTrue's user endpoint (internal/api/user.go): GET /user answers the signed-in user, PUT
// /user changes their metadata, password (other sessions end) or address (confirmed by mail
// unless confirmations are off), behind the nonce and aal2 rules of reauthenticate.ts.
import bcrypt from 'bcryptjs';
import type { Hono } from 'hono';

import { sqlNow } from '../clock';
import type { DevstackContext } from '../context';
import { sqlState } from '../sql-engine';
import { requestEmailChange } from './email';
import { withMailFields } from './email-tokens';
import { upsertEmailIdentity } from './email-verify';
import { authErrors, isAuthApiError } from './errors';
import { checkUserUpdate } from './reauthenticate';
import {
  checkPasswordStrength,
  optionalObject,
  optionalString,
  passwordMatches,
  readJsonBody,
  requireUser,
  requireUserRow,
  validateEmail,
} from './route-kit';
import { EMAIL_APP_METADATA, findUserByEmail, jsonObject, userJson } from './users';

/** GET and PUT /user (behind requireAuthentication). */
export function registerUserRoutes(app: Hono, ctx: DevstackContext): void {
  const config = ctx.settings.auth;
  const hashCost = ctx.settings.passwordHashCost;

  app.get('/user', async (c) => {
    const { user } = await requireUser(ctx, c);
    return c.json(await userJson(ctx.db, user));
  });

  app.put('/user', async (c) => {
    const { user, sessionId } = await requireUser(ctx, c);
    const body = await readJsonBody(c);
    const rawEmail = optionalString(body, 'email');
    const password = optionalString(body, 'password');
    const data = optionalObject(body, 'data');
    const email = rawEmail ? validateEmail(rawEmail) : undefined;
    // aal2 with a verified factor; the nonce of /reauthenticate (reauthenticate.ts).
    const nonce = optionalString(body, 'nonce');
    if (password !== undefined) checkPasswordStrength(config, password);
    await checkUserUpdate(ctx, user, sessionId, { password, email, nonce });

    let hash: string | undefined;
    if (password !== undefined) {
      checkPasswordStrength(config, password);
      if (await passwordMatches(ctx, user, password)) throw authErrors.samePassword();
      hash = await bcrypt.hash(password, hashCost);
    }
    if (email && email !== user.email) {
      const other = await findUserByEmail(ctx.db, email);
      if (other && other.id !== user.id) throw authErrors.emailExists();
    }

    let updated;
    try {
      const at = sqlNow(ctx.clock);
      updated = await ctx.db.transaction(async (tx) => {
        if (data) {
          // GoTrue merges: null values delete keys, others overwrite.
          const merged = jsonObject(user.raw_user_meta_data);
          for (const [key, value] of Object.entries(data)) {
            if (value === null) delete merged[key];
            else merged[key] = value;
          }
          await tx.query(
            `update auth.users set raw_user_meta_data = $2::jsonb, updated_at = $3::timestamptz
             where id::text = $1`,
            [user.id, JSON.stringify(merged), at],
          );
        }
        if (hash !== undefined) {
          await tx.query(
            `update auth.users set encrypted_password = $2, updated_at = $3::timestamptz
             where id::text = $1`,
            [user.id, hash, at],
          );
          // As GoTrue's UpdatePassword: every other session must sign in again.
          await tx.query(
            sessionId
              ? `delete from auth.sessions where user_id::text = $1 and id::text <> $2`
              : `delete from auth.sessions where user_id::text = $1`,
            sessionId ? [user.id, sessionId] : [user.id],
          );
        }
        // A permanent user's new address waits for its confirmation links (email.ts).
        if (
          email &&
          email !== user.email &&
          !(await requestEmailChange(ctx, tx, user.id, email, c))
        ) {
          // Autoconfirm: the new address takes effect at once; an anonymous user becomes
          // a permanent email user.
          await tx.query(
            `update auth.users set email = $2, email_confirmed_at = $4::timestamptz,
               updated_at = $4::timestamptz, is_anonymous = false,
               raw_app_meta_data = case when is_anonymous then $3::jsonb else raw_app_meta_data end
             where id::text = $1`,
            [user.id, email, JSON.stringify(EMAIL_APP_METADATA), at],
          );
          await upsertEmailIdentity(tx, user.id, email, at, { email });
        }
        return withMailFields(ctx, tx, await userJson(tx, await requireUserRow(tx, user.id)));
      });
    } catch (error) {
      if (isAuthApiError(error)) throw error;
      if (sqlState(error) === '23505') throw authErrors.emailExists();
      throw error;
    }
    return c.json(updated);
  });
}
