// GoTrue's token endpoint (internal/api/token.go): POST /token with grant_type=password (a
// session for an email and password, one bcrypt comparison whether or not the address is
// known) and refresh_token (rotation with the reuse interval); other grants answer as a
// project with them switched off does (providers.ts).
import type { Hono } from 'hono';

import { sqlNow } from '../clock';
import type { DevstackContext } from '../context';
import { isBanned, userBanned } from './admin-auth';
import { AuthApiError, authErrors } from './errors';
import { disabledGrant } from './providers';
import type { AuthLimiters } from './rate-limit';
import {
  limitOrThrow,
  optionalString,
  passwordMatches,
  readJsonBody,
  requireUserRow,
} from './route-kit';
import { createSession, rotateRefreshToken, sessionResponse } from './sessions';
import { findUserByEmail, findUserById } from './users';

/** POST /token; `reuseIntervalSec` is how long a rotated refresh token still answers. */
export function registerTokenRoutes(
  app: Hono,
  ctx: DevstackContext,
  limiters: AuthLimiters,
  reuseIntervalSec: number,
): void {
  const config = ctx.settings.auth;

  app.post('/token', async (c) => {
    const grantType = c.req.query('grant_type');
    // GoTrue's limiter runs before the handler: every attempt counts, malformed ones too.
    limitOrThrow(grantType === 'refresh_token' ? limiters.tokenRefresh : limiters.signInSignUps, c);
    const body = await readJsonBody(c);

    if (grantType === 'password') {
      const rawEmail = optionalString(body, 'email');
      const password = optionalString(body, 'password') ?? '';
      if (optionalString(body, 'phone')) throw authErrors.invalidCredentials();
      if (!rawEmail) throw authErrors.validation('missing email or phone');
      const user = await findUserByEmail(ctx.db, rawEmail.trim());
      // Always one bcrypt comparison, known address or not.
      const matches = await passwordMatches(ctx, user, password);
      // GoTrue refuses a banned user whatever the password (after the same bcrypt time here).
      if (user?.encrypted_password && (await isBanned(ctx, user.id))) throw userBanned(400);
      if (!user || !matches) throw authErrors.invalidCredentials();
      if (!user.email_confirmed_at) {
        throw new AuthApiError(400, 'email_not_confirmed', 'Email not confirmed');
      }
      const session = await ctx.db.transaction(async (tx) => {
        const at = sqlNow(ctx.clock);
        await tx.query(
          `update auth.users set last_sign_in_at = $2::timestamptz, updated_at = $2::timestamptz
           where id::text = $1`,
          [user.id, at],
        );
        await tx.query(
          `update auth.identities set last_sign_in_at = $2::timestamptz
           where user_id::text = $1 and provider = 'email'`,
          [user.id, at],
        );
        const fresh = await requireUserRow(tx, user.id);
        const { sessionId, refreshToken } = await createSession(ctx, tx, user.id, 'password');
        return sessionResponse(ctx, tx, fresh, sessionId, refreshToken);
      });
      return c.json(session);
    }

    if (grantType === 'refresh_token') {
      const token = optionalString(body, 'refresh_token');
      if (!token) throw authErrors.refreshNotFound();
      const outcome = await ctx.db.transaction(async (tx) => {
        const rotated = await rotateRefreshToken(
          ctx,
          tx,
          token,
          reuseIntervalSec,
          config.refreshTokenRotation,
        );
        if (!rotated.ok) return rotated;
        const user = await findUserById(tx, rotated.userId);
        if (!user) return { ok: false as const, error: authErrors.refreshNotFound() };
        const session = await sessionResponse(
          ctx,
          tx,
          user,
          rotated.sessionId,
          rotated.refreshToken,
        );
        return { ok: true as const, session };
      });
      if (!outcome.ok) throw outcome.error;
      return c.json(outcome.session);
    }

    disabledGrant(grantType, body);
    throw authErrors.unsupportedGrant();
  });
}
