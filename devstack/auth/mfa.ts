// GoTrue's MFA endpoints (internal/api/mfa.go): /factors to enroll, /factors/:id/challenge,
// /factors/:id/verify (which raises the session to aal2 and answers a new session) and
// DELETE /factors/:id, over auth.mfa_factors, auth.mfa_challenges and auth.mfa_amr_claims.
// TOTP is served in full; phone factors enroll but their challenge fails as GoTrue's does
// with no SMS provider; WebAuthn factors are mfa-webauthn.ts's, hooked in here.
import { randomUUID } from 'node:crypto';

import type { Context, Hono } from 'hono';
import QRCode from 'qrcode';

import { sqlNow } from '../clock';
import type { DevstackContext } from '../context';
import type { SqlRunner } from '../sql-engine';
import { AuthApiError, authErrors } from './errors';
import { sessionAal, validateNewFactor } from './mfa-factors';
import {
  challengeWebAuthn,
  enrollWebAuthn,
  saveWebAuthnProof,
  verifyWebAuthn,
  webAuthnParams,
} from './mfa-webauthn';
import { clientAddress, optionalString, readJsonBody, requireUser } from './route-kit';
import { addAmrClaim, rotateRefreshToken, sessionResponse } from './sessions';
import { newTotpSecret, totpIssuer, totpUri, totpValid } from './totp';
import type { UserRow } from './users';
import { findUserById } from './users';

/** GoTrue's MFA challenge lifetime (GOTRUE_MFA_CHALLENGE_EXPIRY_DURATION, s). */
const CHALLENGE_EXPIRY_SEC = 300;
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const E164_PATTERN = /^[1-9]\d{1,14}$/;

interface FactorRow {
  id: string;
  user_id: string;
  friendly_name: string | null;
  factor_type: 'totp' | 'phone' | 'webauthn';
  status: 'verified' | 'unverified';
  secret: string | null;
  phone: string | null;
  [key: string]: unknown;
}

interface ChallengeRow {
  id: string;
  verified_at: Date | string | null;
  ip_address: string;
  expired: boolean;
  [key: string]: unknown;
}

const mfaErrors = {
  anonymous: () =>
    new AuthApiError(
      403,
      'no_authorization',
      'Anonymous user not allowed to perform these actions',
    ),
  enrollDisabled: (type: 'totp' | 'phone' | 'webauthn') =>
    new AuthApiError(
      422,
      `mfa_${type}_enroll_not_enabled`,
      `MFA enroll is disabled for ${TYPE_NAMES[type]}`,
    ),
  verifyDisabled: (type: 'totp' | 'phone' | 'webauthn') =>
    new AuthApiError(
      422,
      `mfa_${type}_verify_not_enabled`,
      `MFA verification is disabled for ${TYPE_NAMES[type]}`,
    ),
  badType: () =>
    new AuthApiError(400, 'validation_failed', 'factor_type needs to be totp, phone, or webauthn'),
} as const;

const TYPE_NAMES = { totp: 'TOTP', phone: 'Phone', webauthn: 'WebAuthn' } as const;

function factorType(raw: string | undefined): 'totp' | 'phone' | 'webauthn' {
  if (raw === 'totp' || raw === 'phone' || raw === 'webauthn') return raw;
  throw mfaErrors.badType();
}

async function insertFactor(
  ctx: DevstackContext,
  tx: SqlRunner,
  userId: string,
  type: 'totp' | 'phone',
  friendlyName: string,
  secret: string | null,
  phone: string | null,
): Promise<string> {
  const id = randomUUID();
  await tx.query(
    `insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at,
       updated_at, secret, phone)
     values ($1::uuid, $2::uuid, $3, $4::auth.factor_type, 'unverified', $5::timestamptz,
       $5::timestamptz, $6, $7)`,
    [id, userId, friendlyName, type, sqlNow(ctx.clock), secret, phone],
  );
  return id;
}

/** The caller's own factor named in the path (GoTrue's loadFactor). */
async function loadFactor(db: SqlRunner, userId: string, rawId: string): Promise<FactorRow> {
  if (!UUID_PATTERN.test(rawId)) {
    throw new AuthApiError(404, 'validation_failed', 'factor_id must be an UUID');
  }
  const { rows } = await db.query<FactorRow>(
    `select id::text as id, user_id::text as user_id, friendly_name,
            factor_type::text as factor_type, status::text as status, secret, phone
     from auth.mfa_factors where id = $1::uuid and user_id::text = $2`,
    [rawId, userId],
  );
  const factor = rows[0];
  if (!factor) throw new AuthApiError(404, 'mfa_factor_not_found', 'Factor not found');
  return factor;
}

export function registerMfaRoutes(app: Hono, ctx: DevstackContext) {
  const config = ctx.settings.auth;
  const reuseIntervalSec = config.refreshTokenReuseIntervalSec;

  /** requireAuthentication + requireNotAnonymous, and the session GoTrue insists on. */
  async function signedIn(c: Context): Promise<{ user: UserRow; sessionId: string }> {
    const { user, sessionId } = await requireUser(ctx, c);
    if (user.is_anonymous) throw mfaErrors.anonymous();
    if (!sessionId) {
      throw new AuthApiError(
        500,
        'unexpected_failure',
        'A valid session and a registered user are required to enroll a factor',
      );
    }
    return { user, sessionId };
  }

  app.post('/factors', async (c) => {
    const { user, sessionId } = await signedIn(c);
    const body = await readJsonBody(c);
    const friendlyName = optionalString(body, 'friendly_name') ?? '';
    const issuerParam = optionalString(body, 'issuer') ?? '';
    const rawPhone = optionalString(body, 'phone') ?? '';
    const type = factorType(optionalString(body, 'factor_type'));
    if (type === 'phone' && !config.mfaPhoneEnroll) throw mfaErrors.enrollDisabled('phone');
    if (type === 'totp' && !config.mfaTotpEnroll) throw mfaErrors.enrollDisabled('totp');
    if (type === 'webauthn') {
      if (!config.mfaWebAuthnEnroll) throw mfaErrors.enrollDisabled('webauthn');
      return c.json(await enrollWebAuthn(ctx, user.id, friendlyName, sessionId));
    }

    if (type === 'phone') {
      if (rawPhone === '') {
        throw authErrors.validation('Phone number required to enroll Phone factor');
      }
      const phone = rawPhone.replace(/^\+/, '').replaceAll(' ', '');
      if (!E164_PATTERN.test(phone)) {
        throw authErrors.validation('Invalid phone number format (E.164 required)');
      }
      const id = await ctx.db.transaction(async (tx) => {
        const same = await tx.query<{ status: string }>(
          `select status::text as status from auth.mfa_factors
           where user_id::text = $1 and factor_type = 'phone' and phone = $2`,
          [user.id, phone],
        );
        if (same.rows.some((row) => row.status === 'verified')) {
          throw new AuthApiError(
            422,
            'mfa_verified_factor_exists',
            'A verified phone factor already exists, unenroll the existing factor to continue',
          );
        }
        await tx.query(
          `delete from auth.mfa_factors where user_id::text = $1 and factor_type = 'phone'
             and phone = $2 and status = 'unverified'`,
          [user.id, phone],
        );
        await validateNewFactor(ctx, tx, user.id, friendlyName, sessionId);
        return insertFactor(ctx, tx, user.id, 'phone', friendlyName, null, phone);
      });
      return c.json({ id, type: 'phone', friendly_name: friendlyName, phone: rawPhone });
    }

    const issuer = issuerParam !== '' ? issuerParam : totpIssuer(config.siteUrl);
    if (issuer === undefined) {
      throw new AuthApiError(500, 'unexpected_failure', 'site url is improperly formatted');
    }
    const secret = newTotpSecret();
    const id = await ctx.db.transaction(async (tx) => {
      await validateNewFactor(ctx, tx, user.id, friendlyName, sessionId);
      return insertFactor(ctx, tx, user.id, 'totp', friendlyName, secret, null);
    });
    const uri = totpUri(issuer, user.email ?? '', secret);
    // GoTrue sends the URI as a bare SVG QR code; supabase-js prefixes the data: URL.
    const qrCode = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M' });
    return c.json({
      id,
      type: 'totp',
      friendly_name: friendlyName,
      totp: { qr_code: qrCode, secret, uri },
    });
  });

  app.post('/factors/:factorId/challenge', async (c) => {
    const { user } = await signedIn(c);
    const factor = await loadFactor(ctx.db, user.id, c.req.param('factorId'));
    await readJsonBody(c);
    if (factor.factor_type === 'phone') {
      if (!config.mfaPhoneVerify) throw mfaErrors.verifyDisabled('phone');
      // GoTrue generates the code, then finds no SMS provider configured.
      throw new AuthApiError(500, 'unexpected_failure', 'Failed to get SMS provider');
    }
    if (factor.factor_type === 'webauthn') {
      if (!config.mfaWebAuthnVerify) throw mfaErrors.verifyDisabled('webauthn');
      return c.json(await challengeWebAuthn(ctx, user, factor, clientAddress(c)));
    }
    if (!config.mfaTotpVerify) throw mfaErrors.verifyDisabled('totp');
    const id = randomUUID();
    const at = sqlNow(ctx.clock);
    await ctx.db.transaction(async (tx) => {
      await tx.query(
        `insert into auth.mfa_challenges (id, factor_id, created_at, ip_address)
         values ($1::uuid, $2::uuid, $3::timestamptz, $4)`,
        [id, factor.id, at, clientAddress(c)],
      );
      await tx.query(
        `update auth.mfa_factors set last_challenged_at = $2::timestamptz where id = $1::uuid`,
        [factor.id, at],
      );
    });
    const expiresAt = Math.floor(ctx.clock.now() / 1000) + CHALLENGE_EXPIRY_SEC;
    return c.json({ id, type: factor.factor_type, expires_at: expiresAt });
  });

  app.post('/factors/:factorId/verify', async (c) => {
    const { user, sessionId } = await signedIn(c);
    const factor = await loadFactor(ctx.db, user.id, c.req.param('factorId'));
    const body = await readJsonBody(c);
    const challengeId = optionalString(body, 'challenge_id') ?? '';
    const code = optionalString(body, 'code') ?? '';
    if (!UUID_PATTERN.test(challengeId)) {
      throw authErrors.badJson('invalid UUID for field "challenge_id"');
    }
    if (code === '' && factor.factor_type !== 'webauthn') {
      throw authErrors.validation('Code needs to be non-empty');
    }
    if (factor.factor_type === 'phone' && !config.mfaPhoneVerify) {
      throw mfaErrors.verifyDisabled('phone');
    }
    // GoTrue answers a disabled WebAuthn verify with the enroll code and the verify message.
    if (factor.factor_type === 'webauthn' && !config.mfaWebAuthnVerify) {
      throw new AuthApiError(
        422,
        'mfa_webauthn_enroll_not_enabled',
        'MFA verification is disabled for WebAuthn',
      );
    }
    const webauthn = factor.factor_type === 'webauthn' ? webAuthnParams(body) : undefined;
    if (factor.factor_type === 'totp' && !config.mfaTotpVerify) {
      throw mfaErrors.verifyDisabled('totp');
    }
    const at = sqlNow(ctx.clock);
    const { rows } = await ctx.db.query<ChallengeRow>(
      `select id::text as id, verified_at, ip_address,
              created_at + make_interval(secs => $3) < $4::timestamptz as expired
       from auth.mfa_challenges where id = $1::uuid and factor_id = $2::uuid`,
      [challengeId, factor.id, CHALLENGE_EXPIRY_SEC, at],
    );
    const challenge = rows[0];
    if (!challenge) {
      throw new AuthApiError(
        422,
        'mfa_factor_not_found',
        'MFA factor with the provided challenge ID not found',
      );
    }
    if (challenge.verified_at !== null || challenge.ip_address !== clientAddress(c)) {
      throw new AuthApiError(
        422,
        'mfa_ip_address_mismatch',
        'Challenge and verify IP addresses mismatch.',
      );
    }
    if (challenge.expired) {
      await ctx.db.query(`delete from auth.mfa_challenges where id = $1::uuid`, [challenge.id]);
      throw new AuthApiError(
        422,
        'mfa_challenge_expired',
        `MFA challenge ${challenge.id} has expired, verify against another challenge or create a new challenge.`,
      );
    }
    // Phone challenges never get this far (no SMS provider, so none is created).
    const proof = webauthn && (await verifyWebAuthn(ctx, factor, challenge.id, webauthn));
    if (!webauthn && !totpValid(factor.secret ?? '', code, ctx.clock.now())) {
      throw new AuthApiError(422, 'mfa_verification_failed', 'Invalid TOTP code entered');
    }

    const session = await ctx.db.transaction(async (tx) => {
      await tx.query(
        `update auth.mfa_challenges set verified_at = $2::timestamptz where id = $1::uuid`,
        [challenge.id, at],
      );
      if (webauthn) await saveWebAuthnProof(tx, factor.id, challenge.id, webauthn.type, proof, at);
      await tx.query(
        `update auth.mfa_factors set status = 'verified', updated_at = $2::timestamptz
         where id = $1::uuid and status <> 'verified'`,
        [factor.id, at],
      );
      await addAmrClaim(ctx, tx, sessionId, webauthn ? 'mfa/webauthn' : 'totp');
      // A new refresh token, so the one issued at aal1 cannot be swapped for an aal2 session.
      const active = await tx.query<{ token: string }>(
        `select token from auth.refresh_tokens where session_id::text = $1 and revoked is false
         order by id desc limit 1`,
        [sessionId],
      );
      const current = active.rows[0]?.token;
      if (!current) throw authErrors.sessionNotFound();
      const rotated = await rotateRefreshToken(ctx, tx, current, reuseIntervalSec);
      if (!rotated.ok) throw rotated.error;
      await tx.query(
        `update auth.sessions set aal = 'aal2', factor_id = $2::uuid, updated_at = $3::timestamptz
         where id::text = $1`,
        [sessionId, factor.id, at],
      );
      // GoTrue's InvalidateSessionsWithAALLessThan: the user's other aal1 sessions end.
      await tx.query(`delete from auth.sessions where user_id::text = $1 and aal < 'aal2'`, [
        user.id,
      ]);
      await tx.query(
        `delete from auth.mfa_factors where user_id::text = $1 and status = 'unverified'
           and factor_type = $2::auth.factor_type`,
        [user.id, factor.factor_type],
      );
      const fresh = await findUserById(tx, user.id);
      if (!fresh) throw authErrors.userNotFound();
      return sessionResponse(ctx, tx, fresh, sessionId, rotated.refreshToken);
    });
    return c.json(session);
  });

  app.delete('/factors/:factorId', async (c) => {
    const { user, sessionId } = await signedIn(c);
    const factor = await loadFactor(ctx.db, user.id, c.req.param('factorId'));
    if (factor.status === 'verified' && (await sessionAal(ctx.db, sessionId)) !== 'aal2') {
      throw new AuthApiError(422, 'insufficient_aal', 'AAL2 required to unenroll verified factor');
    }
    const method = factor.factor_type === 'totp' ? 'totp' : `mfa/${factor.factor_type}`;
    await ctx.db.transaction(async (tx) => {
      // GoTrue's DowngradeSessionsToAAL1: sessions raised by this factor drop to aal1.
      await tx.query(
        `delete from auth.mfa_amr_claims where authentication_method = $2
           and session_id in (select id from auth.sessions where factor_id = $1::uuid)`,
        [factor.id, method],
      );
      await tx.query(
        `update auth.sessions set aal = 'aal1', factor_id = null where factor_id = $1::uuid`,
        [factor.id],
      );
      await tx.query(`delete from auth.mfa_factors where id = $1::uuid`, [factor.id]);
    });
    return c.json({ id: factor.id });
  });
}
