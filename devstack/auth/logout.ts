// GoTrue's sign-out (internal/api/logout.go): POST /logout ends the caller's sessions, all of
// them (scope=global, the default), this one (local) or every other one (others).
import type { Hono } from 'hono';

import type { DevstackContext } from '../context';
import { authErrors } from './errors';
import { requireUser } from './route-kit';

/** POST /logout (behind requireAuthentication). */
export function registerLogoutRoutes(app: Hono, ctx: DevstackContext): void {
  app.post('/logout', async (c) => {
    const scope = c.req.query('scope') ?? 'global';
    if (scope !== 'global' && scope !== 'local' && scope !== 'others') {
      throw authErrors.validation(`Unsupported logout scope "${scope}"`);
    }
    const { user, sessionId } = await requireUser(ctx, c);
    // Deleting sessions deletes their refresh tokens (on delete cascade), as GoTrue does.
    if (scope === 'global' || !sessionId) {
      await ctx.db.query(`delete from auth.sessions where user_id::text = $1`, [user.id]);
    } else if (scope === 'local') {
      await ctx.db.query(`delete from auth.sessions where id::text = $1`, [sessionId]);
    } else {
      await ctx.db.query(`delete from auth.sessions where user_id::text = $1 and id::text <> $2`, [
        user.id,
        sessionId,
      ]);
    }
    return c.body(null, 204);
  });
}
