// GoTrue's admin API as one group: /admin/* and /invite, each behind the admin check
// (requireAdminCredentials), registered by routes.ts after the API-key check.
import type { Context, Hono, Next } from 'hono';

import type { DevstackContext } from '../context';
import { requireAdmin } from './admin-auth';
import { registerAdminFactorRoutes } from './admin-factors';
import { registerAdminLinkRoutes } from './admin-links';
import { registerAdminUserRoutes } from './admin-users';
import { AuthApiError } from './errors';
import { registerOAuthClientRoutes, registerOAuthDynamicRoute } from './oauth-clients';

export function registerAdminRoutes(app: Hono, ctx: DevstackContext): void {
  for (const path of ['/admin', '/admin/*', '/invite']) {
    app.use(path, async (c: Context, next: Next) => {
      await requireAdmin(ctx, c);
      await next();
    });
  }
  // The OAuth server's client admin when config.toml switches it on (oauth-clients.ts), and
  // its dynamic registration (open, answered 404 while the server is off).
  if (ctx.settings.auth.oauthServerEnabled) registerOAuthClientRoutes(app, ctx);
  registerOAuthDynamicRoute(app, ctx);
  // Features the devstack does not run answer as a project with them switched off does.
  const disabled: [string, string][] = [
    ...(ctx.settings.auth.oauthServerEnabled
      ? []
      : ([['/admin/oauth', 'OAuth server is disabled']] as [string, string][])),
    ['/admin/custom-providers', 'Custom OAuth providers are disabled'],
  ];
  for (const [prefix, message] of disabled) {
    app.all(`${prefix}/*`, () => {
      throw new AuthApiError(404, 'feature_disabled', message);
    });
  }
  registerAdminUserRoutes(app, ctx);
  registerAdminFactorRoutes(app, ctx);
  registerAdminLinkRoutes(app, ctx);
}
