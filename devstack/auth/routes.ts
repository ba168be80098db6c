// /auth/v1: the subset of GoTrue (supabase/auth) that supabase-js uses, configured by
// config.toml's [auth] (sign-ups, anonymous sign-ins, password rules, confirmations, rate
// limits). Wire shapes: supabase-wire.md §2. This file builds the app and mounts the endpoint
// groups, a file each as GoTrue's internal/api splits them; what they share is route-kit.ts.
import { Hono, type Context, type Next } from 'hono';

import { checkApiKey, type DevstackContext } from '../context';
import { sqlState } from '../sql-engine';
import { registerAdminRoutes } from './admin-routes';
import { registerUserRoutes } from './current-user';
import { registerEmailRoutes, registerVerifyRoutes } from './email';
import {
  AuthApiError,
  authErrors,
  errorResponse,
  isAuthApiError,
  requestApiVersion,
  API_VERSION_HEADER,
} from './errors';
import { registerIdentityRoutes } from './identities';
import { registerLogoutRoutes } from './logout';
import { registerMfaRoutes } from './mfa';
import { registerPasskeyRoutes } from './passkeys';
import {
  oauthErrorResponse,
  registerOpenProviderRoutes,
  registerProviderRoutes,
} from './providers';
import { authLimiters } from './rate-limit';
import { registerReauthenticateRoutes } from './reauthenticate';
import { timingEqualiserHash } from './route-kit';
import { refreshTokenReuseIntervalFromEnv } from './sessions';
import { registerSignupRoutes } from './signup';
import { registerTokenRoutes } from './token';

export { BCRYPT_COST, BCRYPT_MIN_COST } from './route-kit';

export interface AuthOptions {
  /** Overrides config.toml's `refresh_token_reuse_interval` (s). */
  refreshTokenReuseIntervalSec?: number;
}

export function authRoutes(ctx: DevstackContext, options: AuthOptions = {}): Hono {
  const config = ctx.settings.auth;
  const reuseIntervalSec =
    options.refreshTokenReuseIntervalSec ??
    refreshTokenReuseIntervalFromEnv() ??
    config.refreshTokenReuseIntervalSec;
  // Sign-up and the password grant draw on one bucket, as GoTrue's do.
  const limiters = authLimiters(config.rateLimits, () => ctx.clock.now());
  // Made now, so no sign-in pays for hashing the equaliser of a cost other than 10.
  timingEqualiserHash(ctx.settings.passwordHashCost);
  const app = new Hono();

  // Hosted answers every auth error in the shape the request's API version asks for.
  app.onError((error, c) => {
    if (isAuthApiError(error)) return errorResponse(c, error);
    const oauth = oauthErrorResponse(c, error);
    if (oauth) return oauth;
    // Class 22 (data exception), e.g. a NUL character Postgres text cannot hold: bad input.
    if (sqlState(error)?.startsWith('22')) {
      return errorResponse(c, authErrors.validation('Invalid characters in request'));
    }
    console.error('[devstack auth] unexpected error:', error);
    return errorResponse(c, new AuthApiError(500, 'unexpected_failure', 'Unexpected failure'));
  });
  app.use('*', async (c: Context, next: Next) => {
    const version = requestApiVersion(c);
    if (version) c.header(API_VERSION_HEADER, version);
    await next();
  });

  // The email endpoints (email.ts). /verify comes first: the gateway leaves it open to links.
  registerVerifyRoutes(app, ctx);
  registerOpenProviderRoutes(app);

  // The API gateway in front of GoTrue: a request needs the project's anon or service_role
  // key in `apikey`; the Bearer (a user's token on /user and /logout) is GoTrue's business.
  app.use('*', async (c: Context, next: Next) => {
    const key = checkApiKey(ctx, c);
    if (!key.ok) return c.json({ message: key.message }, 401);
    await next();
    return undefined;
  });

  app.get('/health', (c) =>
    c.json({
      version: 'devstack',
      name: 'GoTrue',
      description: 'GoTrue is a user registration and authentication API',
    }),
  );

  registerProviderRoutes(app, ctx);
  registerSignupRoutes(app, ctx, limiters);
  registerTokenRoutes(app, ctx, limiters, reuseIntervalSec);
  registerUserRoutes(app, ctx);
  registerLogoutRoutes(app, ctx);
  registerEmailRoutes(app, ctx);
  registerReauthenticateRoutes(app, ctx);
  registerIdentityRoutes(app, ctx);
  registerMfaRoutes(app, ctx);
  // Passkeys (passkeys.ts), before the admin group: its admin routes check the caller themselves.
  registerPasskeyRoutes(app, ctx);
  // GoTrue's admin API (admin-routes.ts): a service_role caller only.
  registerAdminRoutes(app, ctx);

  app.all('*', () => {
    throw authErrors.notFound();
  });

  return app;
}
