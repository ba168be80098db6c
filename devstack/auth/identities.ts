// GoTrue's identity linking endpoints (internal/api/identity.go): GET /user/identities/authorize
// starts linking a third-party identity, DELETE /user/identities/:identity_id unlinks one. Both
// sit behind requireAuthentication and then requireManualLinkingEnabled, so with
// `[auth] enable_manual_linking = false` (the CLI's default) a signed-in caller gets 404
// manual_linking_disabled. With it on, linking still ends at the provider check (the devstack
// runs no third-party provider), and unlinking works on the identities the devstack has.
import type { Context, Hono } from 'hono';

import { sqlNow } from '../clock';
import type { DevstackContext } from '../context';
import { sqlState } from '../sql-engine';
import { isUuid } from './admin-auth';
import { AuthApiError } from './errors';
import { refuseProvider } from './providers';
import { requireUser } from './route-kit';
import { jsonObject, type UserRow } from './users';

interface IdentityRow {
  id: string;
  provider: string;
  email: string | null;
  identity_data: unknown;
  created_at: Date | string;
  [key: string]: unknown;
}

/** GoTrue's rank for the identity whose email becomes the user's: verified, unverified, none. */
function rank(identity: IdentityRow): number {
  if (!identity.email) return 2;
  return jsonObject(identity.identity_data).email_verified === true ? 0 : 1;
}

async function unlink(ctx: DevstackContext, user: UserRow, rawId: string): Promise<void> {
  if (!isUuid(rawId)) {
    throw new AuthApiError(404, 'validation_failed', 'identity_id must be an UUID');
  }
  const { rows: identities } = await ctx.db.query<IdentityRow>(
    `select id::text as id, provider, email, identity_data, created_at from auth.identities
     where user_id::text = $1 order by created_at, id`,
    [user.id],
  );
  if (identities.length <= 1) {
    throw new AuthApiError(
      422,
      'single_identity_not_deletable',
      'User must have at least 1 identity after unlinking',
    );
  }
  const target = identities.find((identity) => identity.id === rawId.toLowerCase());
  if (!target) throw new AuthApiError(422, 'identity_not_found', "Identity doesn't exist");
  const rest = identities.filter((identity) => identity !== target);
  const at = sqlNow(ctx.clock);
  try {
    await ctx.db.transaction(async (tx) => {
      await tx.query(`delete from auth.identities where id::text = $1`, [target.id]);
      if (target.provider === 'phone') {
        await tx.query(
          `update auth.users set phone = null, phone_confirmed_at = null, updated_at = $2::timestamptz
           where id::text = $1`,
          [user.id, at],
        );
      } else if (!rest.some((identity) => (identity.email ?? '') === (user.email ?? ''))) {
        // The user's email goes with the identity: the best remaining identity's email takes
        // its place, and stays confirmed only if its provider verified it.
        const primary = [...rest].sort((a, b) => rank(a) - rank(b))[0];
        const verified = primary !== undefined && rank(primary) === 0;
        await tx.query(
          `update auth.users set email = nullif($2, ''),
             email_confirmed_at = case when $3::boolean then email_confirmed_at end,
             raw_user_meta_data = case when $3::boolean then raw_user_meta_data
               else coalesce(raw_user_meta_data, '{}'::jsonb) || '{"email_verified": false}'::jsonb end,
             updated_at = $4::timestamptz
           where id::text = $1`,
          [user.id, primary?.email ?? '', verified, at],
        );
      }
      // UpdateAppMetaDataProviders: the remaining providers, oldest identity first.
      const providers = [...new Set(rest.map((identity) => identity.provider))];
      await tx.query(
        `update auth.users set raw_app_meta_data = coalesce(raw_app_meta_data, '{}'::jsonb)
           || jsonb_build_object('providers', $2::jsonb, 'provider', $3::text)
         where id::text = $1`,
        [user.id, JSON.stringify(providers), providers[0] ?? null],
      );
    });
  } catch (error) {
    if (sqlState(error) === '23505') {
      throw new AuthApiError(
        422,
        'email_conflict_identity_not_deletable',
        'Unable to unlink identity due to email conflict',
      );
    }
    throw error;
  }
}

export function registerIdentityRoutes(app: Hono, ctx: DevstackContext): void {
  const manualLinking = async (c: Context): Promise<UserRow> => {
    const { user } = await requireUser(ctx, c);
    if (!ctx.settings.auth.enableManualLinking) {
      throw new AuthApiError(404, 'manual_linking_disabled', 'Manual linking is disabled');
    }
    return user;
  };

  app.get('/user/identities/authorize', async (c) => {
    await manualLinking(c);
    // GetExternalProviderRedirectURL: no third-party provider is enabled here.
    return refuseProvider(c.req.query('provider') ?? '');
  });

  app.delete('/user/identities/:identity_id', async (c) => {
    const user = await manualLinking(c);
    await unlink(ctx, user, c.req.param('identity_id'));
    return c.json({});
  });
}
