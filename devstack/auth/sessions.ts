// Sessions, refresh tokens and access tokens as GoTrue keeps them: one auth.sessions row per
// sign-in, a chain of auth.refresh_tokens rows (each rotation revokes the token and adds a
// child), and an HS256 access token carrying the session id. Every timestamp here (iat, exp,
// created_at, updated_at, the reuse interval's "now") is the devstack's clock, not Postgres's.
import { randomBytes } from 'node:crypto';

import { epochSeconds, sqlNow } from '../clock';
import type { DevstackContext } from '../context';
import type { Claims } from '../keys';
import type { SqlRunner } from '../sql-engine';
import { authErrors, type AuthApiError } from './errors';
import { jsonObject, userJson, type JsonObject, type UserRow } from './users';

/**
 * A `refresh_token_reuse_interval` (s) from the environment, as a self-hosted GoTrue reads
 * GOTRUE_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL; undefined when unset (config.toml decides).
 */
export function refreshTokenReuseIntervalFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): number | undefined {
  const raw = env.GOTRUE_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL;
  const value = raw === undefined || raw.trim() === '' ? NaN : Number(raw);
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** A new opaque refresh token (GoTrue's legacy tokens are 12 random characters). */
function newRefreshToken(): string {
  return randomBytes(12).toString('base64url');
}

export interface SessionResponse {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  expires_at: number;
  refresh_token: string;
  user: JsonObject;
}

/**
 * Starts a session for `user` and returns its first refresh token. `method` (GoTrue's
 * authentication method: password, anonymous, otp, …) becomes the session's first amr claim;
 * without one the claim follows from the user (see sessionResponse).
 */
export async function createSession(
  ctx: DevstackContext,
  tx: SqlRunner,
  userId: string,
  method?: string,
): Promise<{ sessionId: string; refreshToken: string }> {
  const at = sqlNow(ctx.clock);
  const { rows } = await tx.query<{ id: string }>(
    `insert into auth.sessions (id, user_id, created_at, updated_at, aal)
     values (gen_random_uuid(), $1, $2::timestamptz, $2::timestamptz, 'aal1')
     returning id::text as id`,
    [userId, at],
  );
  const sessionId = rows[0]?.id;
  if (!sessionId) throw new Error('session insert returned no row');
  if (method) await addAmrClaim(ctx, tx, sessionId, method);
  const refreshToken = await insertRefreshToken(tx, userId, sessionId, null, at);
  return { sessionId, refreshToken };
}

/** GoTrue's AddClaimToSession: one claim per method, its time renewed when used again. */
export async function addAmrClaim(
  ctx: DevstackContext,
  tx: SqlRunner,
  sessionId: string,
  method: string,
): Promise<void> {
  await tx.query(
    `insert into auth.mfa_amr_claims (id, session_id, created_at, updated_at,
       authentication_method)
     values (gen_random_uuid(), $1::uuid, $3::timestamptz, $3::timestamptz, $2)
     on conflict on constraint mfa_amr_claims_session_id_authentication_method_pkey
     do update set updated_at = $3::timestamptz`,
    [sessionId, method, sqlNow(ctx.clock)],
  );
}

/** The methods that make a session aal2 (GoTrue's IsAAL2Claim). */
const AAL2_METHODS = new Set(['totp', 'mfa/phone', 'mfa/webauthn']);

async function insertRefreshToken(
  tx: SqlRunner,
  userId: string,
  sessionId: string,
  parent: string | null,
  at: string,
): Promise<string> {
  const token = newRefreshToken();
  await tx.query(
    `insert into auth.refresh_tokens
       (instance_id, token, user_id, revoked, created_at, updated_at, parent, session_id)
     values ('00000000-0000-0000-0000-000000000000', $1, $2, false, $5::timestamptz,
             $5::timestamptz, $3, $4)`,
    [token, userId, parent, sessionId, at],
  );
  return token;
}

/** The access token and session response GoTrue sends for a user and session. */
export async function sessionResponse(
  ctx: DevstackContext,
  tx: SqlRunner,
  user: UserRow,
  sessionId: string,
  refreshToken: string,
): Promise<SessionResponse> {
  const { rows } = await tx.query<{ created: number }>(
    `select extract(epoch from created_at)::bigint::int as created from auth.sessions
     where id::text = $1`,
    [sessionId],
  );
  const now = epochSeconds(ctx.clock);
  const ttl = ctx.settings.accessTokenTtlSec;
  // GoTrue's CalculateAALAndAMR: the session's claims, most recent first; aal2 once one of
  // them is a second factor. A session started without a recorded method (an email link)
  // has the method that follows from the user.
  const claimed = await tx.query<{ method: string; at: number }>(
    `select authentication_method as method,
            floor(extract(epoch from updated_at))::bigint::int as at
     from auth.mfa_amr_claims where session_id::text = $1 order by updated_at desc, id`,
    [sessionId],
  );
  const amr =
    claimed.rows.length > 0
      ? claimed.rows.map((claim) => ({ method: claim.method, timestamp: claim.at }))
      : [
          {
            method: user.is_anonymous ? 'anonymous' : 'password',
            timestamp: rows[0]?.created ?? now,
          },
        ];
  const aal = claimed.rows.some((claim) => AAL2_METHODS.has(claim.method)) ? 'aal2' : 'aal1';
  const claims: Claims = {
    iss: `${ctx.url()}/auth/v1`,
    sub: user.id,
    aud: user.aud ?? 'authenticated',
    exp: now + ttl,
    iat: now,
    email: user.email ?? '',
    phone: user.phone ?? '',
    app_metadata: jsonObject(user.raw_app_meta_data),
    user_metadata: jsonObject(user.raw_user_meta_data),
    role: user.role ?? 'authenticated',
    aal,
    amr,
    session_id: sessionId,
    is_anonymous: user.is_anonymous,
  };
  // iat/exp are set here rather than by sign()'s ttl so that expires_at matches exp exactly.
  const accessToken = await ctx.keys.sign(claims);
  return {
    access_token: accessToken,
    token_type: 'bearer',
    expires_in: ttl,
    expires_at: now + ttl,
    refresh_token: refreshToken,
    user: await userJson(tx, user),
  };
}

interface TokenRow {
  id: string;
  token: string;
  user_id: string | null;
  revoked: boolean | null;
  parent: string | null;
  session_id: string | null;
  reuse_expired: boolean;
  [key: string]: unknown;
}

export type RefreshOutcome =
  | { ok: true; userId: string; sessionId: string; refreshToken: string }
  | { ok: false; error: AuthApiError };

/**
 * GoTrue's refresh_token grant (internal/api/token_refresh.go): a live token is swapped for a
 * child; a revoked token that is the parent of the session's active token gets that active
 * token back (the client lost the previous answer); any other revoked token is accepted
 * within the reuse interval, and after it the whole session's tokens are revoked and the
 * request fails with refresh_token_already_used. With rotation disabled
 * (`enable_refresh_token_rotation = false`) GoTrue skips that reuse check. Runs inside one
 * transaction; a failure is returned, not thrown, so the family revocation commits.
 */
export async function rotateRefreshToken(
  ctx: DevstackContext,
  tx: SqlRunner,
  token: string,
  reuseIntervalSec: number,
  rotationEnabled = true,
): Promise<RefreshOutcome> {
  const at = sqlNow(ctx.clock);
  const { rows } = await tx.query<TokenRow>(
    `select id::text as id, token, user_id, revoked, parent, session_id::text as session_id,
            updated_at + make_interval(secs => $2) < $3::timestamptz as reuse_expired
     from auth.refresh_tokens where token = $1 for update`,
    [token, reuseIntervalSec, at],
  );
  const row = rows[0];
  if (!row?.session_id || !row.user_id) return { ok: false, error: authErrors.refreshNotFound() };
  const sessionId = row.session_id;
  const userId = row.user_id;

  if (row.revoked) {
    const active = await tx.query<{ token: string; parent: string | null }>(
      `select token, parent from auth.refresh_tokens
       where session_id::text = $1 and revoked is false order by id desc limit 1`,
      [sessionId],
    );
    const current = active.rows[0];
    if (current && current.parent === row.token) {
      return { ok: true, userId, sessionId, refreshToken: current.token };
    }
    if (rotationEnabled && row.reuse_expired) {
      await tx.query(
        `update auth.refresh_tokens set revoked = true, updated_at = $2::timestamptz
         where session_id::text = $1 and revoked is false`,
        [sessionId, at],
      );
      return { ok: false, error: authErrors.refreshAlreadyUsed() };
    }
  }

  await tx.query(
    `update auth.refresh_tokens set revoked = true, updated_at = $2::timestamptz
     where id = $1::bigint`,
    [row.id, at],
  );
  const refreshToken = await insertRefreshToken(tx, userId, sessionId, row.token, at);
  await tx.query(`update auth.sessions set updated_at = $2::timestamptz where id::text = $1`, [
    sessionId,
    at,
  ]);
  return { ok: true, userId, sessionId, refreshToken };
}
