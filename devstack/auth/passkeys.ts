// GoTrue's passkeys (internal/api/passkey_*.go): registration options/verify for a signed-in
// user, discoverable sign-in (authentication options/verify, a session with amr "passkey"),
// list/rename/delete of one's own passkeys and the admin list/delete, over
// auth.webauthn_credentials and one-use auth.webauthn_challenges. `[auth.passkey] enabled`
// off answers every /passkeys route 404 passkey_disabled, as GoTrue's requirePasskeyEnabled.
import { randomUUID } from 'node:crypto';

import { generateAuthenticationOptions, generateRegistrationOptions } from '@simplewebauthn/server';
import type { Context, Hono, Next } from 'hono';

import { sqlNow } from '../clock';
import type { DevstackContext } from '../context';
import type { SqlRunner } from '../sql-engine';
import { isBanned, isUuid, loadUser, requireAdmin } from './admin-auth';
import { AuthApiError, authErrors } from './errors';
import { readJsonBody, requireUser } from './route-kit';
import { createSession, sessionResponse } from './sessions';
import {
  credentialOf,
  notFound,
  ownPasskey,
  PASSKEY_COLUMNS,
  passkeyJson,
  userPasskeys,
  type PasskeyRow,
} from './passkey-store';
import type { JsonObject } from './users';
import { findUserById, isJsonObject } from './users';
import {
  parseAssertion,
  parseRegistration,
  registrationTransports,
  relyingParty,
  userHandle,
  userNames,
  verifyAssertion,
  verifyRegistration,
  WEBAUTHN_CHALLENGE_EXPIRY_SEC,
  webauthnErrors,
} from './webauthn';

/** GoTrue's Passkey.MaxPasskeysPerUser default. */
const MAX_PASSKEYS_PER_USER = 10;
const FRIENDLY_NAME_MAX = 120;

/** requirePasskeyManagementAAL: with a verified MFA factor, only an aal2 session. */
async function requireManagementAal(db: SqlRunner, userId: string, sessionId?: string) {
  const { rows } = await db.query<{ mfa: boolean; aal: string | null }>(
    `select exists (select 1 from auth.mfa_factors where user_id::text = $1
                      and status = 'verified') as mfa,
            (select aal::text from auth.sessions where id::text = $2) as aal`,
    [userId, sessionId ?? ''],
  );
  if (rows[0]?.mfa && rows[0].aal !== 'aal2') {
    throw new AuthApiError(
      403,
      'insufficient_aal',
      'AAL2 session is required to manage passkeys when MFA is enabled',
    );
  }
}

/** The challenge_id and credential of a verify body, checked as GoTrue checks them. */
function verifyParams(body: JsonObject): { challengeId: string; credential: JsonObject } {
  const challengeId = body.challenge_id;
  if (challengeId === undefined || challengeId === null || challengeId === '') {
    throw authErrors.validation('challenge_id is required');
  }
  if (typeof challengeId !== 'string') {
    throw authErrors.badJson('Could not parse request body as JSON: challenge_id must be a string');
  }
  if (body.credential === undefined || body.credential === null) {
    throw authErrors.validation('credential is required');
  }
  if (!isUuid(challengeId)) throw authErrors.validation('challenge_id must be a valid UUID');
  const credential = body.credential;
  if (!isJsonObject(credential)) throw webauthnErrors.invalidResponse();
  return { challengeId: challengeId.toLowerCase(), credential };
}

/**
 * ConsumeWebAuthnChallengeByID: the challenge is deleted as it is read, so a second verify of
 * the same challenge finds nothing (replay); expiry is checked after consuming it.
 */
async function consumeChallenge(
  ctx: DevstackContext,
  id: string,
  type: 'registration' | 'authentication',
  userId: string | null,
): Promise<string> {
  const { rows } = await ctx.db.query<{ session_data: unknown; expired: boolean }>(
    `delete from auth.webauthn_challenges
     where id::text = $1 and challenge_type = $2
       and (($3::text is null and user_id is null) or user_id::text = $3::text)
     returning session_data, expires_at <= $4::timestamptz as expired`,
    [id, type, userId, sqlNow(ctx.clock)],
  );
  const row = rows[0];
  if (!row) throw webauthnErrors.challengeNotFound();
  if (row.expired) throw webauthnErrors.challengeExpired();
  const data = isJsonObject(row.session_data) ? row.session_data : {};
  if (typeof data.challenge !== 'string') throw webauthnErrors.challengeNotFound();
  return data.challenge;
}

async function storeChallenge(
  ctx: DevstackContext,
  type: 'registration' | 'authentication',
  userId: string | null,
  challenge: string,
): Promise<{ id: string; expiresAt: number }> {
  const id = randomUUID();
  const nowMs = ctx.clock.now();
  const expiresAt = Math.floor(nowMs / 1000) + WEBAUTHN_CHALLENGE_EXPIRY_SEC;
  await ctx.db.query(
    `insert into auth.webauthn_challenges (id, user_id, challenge_type, session_data,
       created_at, expires_at)
     values ($1::uuid, $2::uuid, $3, $4::jsonb, $5::timestamptz, to_timestamp($6))`,
    [
      id,
      userId,
      type,
      JSON.stringify({ challenge, user_id: userId }),
      sqlNow(ctx.clock),
      expiresAt,
    ],
  );
  return { id, expiresAt };
}

export function registerPasskeyRoutes(app: Hono, ctx: DevstackContext): void {
  const config = ctx.settings.auth;
  const rp = relyingParty(config);

  for (const path of ['/passkeys', '/passkeys/*']) {
    app.use(path, async (_c: Context, next: Next) => {
      if (!config.passkeyEnabled) {
        throw new AuthApiError(404, 'passkey_disabled', 'Passkeys are disabled');
      }
      await next();
    });
  }

  /** requireAuthentication + requireNotAnonymous. */
  async function signedIn(c: Context) {
    const found = await requireUser(ctx, c);
    if (found.user.is_anonymous) {
      throw new AuthApiError(
        403,
        'no_authorization',
        'Anonymous user not allowed to perform these actions',
      );
    }
    return found;
  }

  app.post('/passkeys/registration/options', async (c) => {
    const { user, sessionId } = await signedIn(c);
    await requireManagementAal(ctx.db, user.id, sessionId);
    const existing = await userPasskeys(ctx.db, user.id);
    if (existing.length >= MAX_PASSKEYS_PER_USER) {
      throw new AuthApiError(422, 'too_many_passkeys', 'Maximum number of passkeys reached');
    }
    const names = userNames(user);
    const options = await generateRegistrationOptions({
      rpName: rp.name,
      rpID: rp.id,
      userID: userHandle(user),
      userName: names.name,
      userDisplayName: names.displayName,
      timeout: WEBAUTHN_CHALLENGE_EXPIRY_SEC * 1000,
      attestationType: 'none',
      excludeCredentials: existing.map((row) => ({ id: credentialOf(row).id })),
      // Passkeys are discoverable credentials.
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    });
    const { id, expiresAt } = await storeChallenge(ctx, 'registration', user.id, options.challenge);
    return c.json({ challenge_id: id, options, expires_at: expiresAt });
  });

  app.post('/passkeys/registration/verify', async (c) => {
    const { user, sessionId } = await signedIn(c);
    await requireManagementAal(ctx.db, user.id, sessionId);
    const { challengeId, credential } = verifyParams(await readJsonBody(c));
    const challenge = await consumeChallenge(ctx, challengeId, 'registration', user.id);
    const response = parseRegistration(credential);
    const created = await verifyRegistration(rp, response, challenge);
    const id = randomUUID();
    const at = sqlNow(ctx.clock);
    const row = await ctx.db.transaction(async (tx) => {
      const count = await userPasskeys(tx, user.id);
      if (count.length >= MAX_PASSKEYS_PER_USER) {
        throw new AuthApiError(422, 'too_many_passkeys', 'Maximum number of passkeys reached');
      }
      const credentialHex = Buffer.from(created.credential.id, 'base64url').toString('hex');
      const taken = await tx.query(
        `select 1 from auth.webauthn_credentials where credential_id = decode($1, 'hex')`,
        [credentialHex],
      );
      if (taken.rows.length > 0) {
        throw new AuthApiError(
          422,
          'webauthn_credential_exists',
          'This credential is already registered',
        );
      }
      const aaguid = /^0{8}-0{4}-0{4}-0{4}-0{12}$/.test(created.aaguid) ? null : created.aaguid;
      const { rows } = await tx.query<PasskeyRow>(
        `insert into auth.webauthn_credentials (id, user_id, credential_id, public_key,
           attestation_type, aaguid, sign_count, transports, backup_eligible, backed_up,
           friendly_name, created_at, updated_at)
         values ($1::uuid, $2::uuid, decode($3, 'hex'), decode($4, 'hex'), $5, $6::uuid, $7,
           $8::jsonb, $9, $10, 'Passkey', $11::timestamptz, $11::timestamptz)
         returning ${PASSKEY_COLUMNS}`,
        [
          id,
          user.id,
          credentialHex,
          Buffer.from(created.credential.publicKey).toString('hex'),
          created.fmt,
          aaguid,
          created.credential.counter,
          JSON.stringify(registrationTransports(credential)),
          created.backupEligible,
          created.backedUp,
          at,
        ],
      );
      return rows[0];
    });
    if (!row) throw new Error('passkey insert returned no row');
    const out = passkeyJson(row);
    delete out.last_used_at;
    return c.json(out);
  });

  app.post('/passkeys/authentication/options', async (c) => {
    await readJsonBody(c);
    // Discoverable login: no allowCredentials, no user bound to the challenge.
    const options = await generateAuthenticationOptions({
      rpID: rp.id,
      timeout: WEBAUTHN_CHALLENGE_EXPIRY_SEC * 1000,
      userVerification: 'preferred',
    });
    const { id, expiresAt } = await storeChallenge(ctx, 'authentication', null, options.challenge);
    return c.json({ challenge_id: id, options, expires_at: expiresAt });
  });

  app.post('/passkeys/authentication/verify', async (c) => {
    const { challengeId, credential } = verifyParams(await readJsonBody(c));
    const challenge = await consumeChallenge(ctx, challengeId, 'authentication', null);
    const response = parseAssertion(credential);
    // ValidatePasskeyLogin: the userHandle names the user, whose passkeys must hold rawId.
    const handle = response.response.userHandle;
    const userId = handle ? Buffer.from(handle, 'base64url').toString('utf8') : '';
    if (!isUuid(userId)) throw webauthnErrors.failed();
    const user = await findUserById(ctx.db, userId.toLowerCase());
    if (!user) throw webauthnErrors.failed();
    const rawHex = Buffer.from(response.rawId, 'base64url').toString('hex');
    const passkey = (await userPasskeys(ctx.db, user.id)).find(
      (row) => row.credential_id === rawHex,
    );
    if (!passkey) throw webauthnErrors.failed();
    const counter = await verifyAssertion(rp, response, challenge, credentialOf(passkey));

    if (user.email && !user.email_confirmed_at) {
      throw new AuthApiError(403, 'email_not_confirmed', 'Email not confirmed');
    }
    const phone = await ctx.db.query<{ confirmed: boolean }>(
      `select phone_confirmed_at is not null as confirmed from auth.users where id::text = $1`,
      [user.id],
    );
    if (user.phone && !phone.rows[0]?.confirmed) {
      throw new AuthApiError(403, 'phone_not_confirmed', 'Phone not confirmed');
    }
    if (await isBanned(ctx, user.id)) throw new AuthApiError(403, 'user_banned', 'User is banned');

    const session = await ctx.db.transaction(async (tx) => {
      const at = sqlNow(ctx.clock);
      await tx.query(
        `update auth.webauthn_credentials set sign_count = $2, last_used_at = $3::timestamptz,
           updated_at = $3::timestamptz where id::text = $1`,
        [passkey.id, counter, at],
      );
      await tx.query(
        `update auth.users set last_sign_in_at = $2::timestamptz, updated_at = $2::timestamptz
         where id::text = $1`,
        [user.id, at],
      );
      const fresh = await findUserById(tx, user.id);
      if (!fresh) throw authErrors.userNotFound();
      const { sessionId, refreshToken } = await createSession(ctx, tx, user.id, 'passkey');
      return sessionResponse(ctx, tx, fresh, sessionId, refreshToken);
    });
    return c.json(session);
  });

  app.get('/passkeys', async (c) => {
    const { user } = await requireUser(ctx, c);
    return c.json((await userPasskeys(ctx.db, user.id)).map(passkeyJson));
  });

  app.patch('/passkeys/:passkeyId', async (c) => {
    const { user } = await requireUser(ctx, c);
    const rawId = c.req.param('passkeyId');
    if (!isUuid(rawId)) throw notFound();
    const body = await readJsonBody(c);
    const name = body.friendly_name;
    if (name !== undefined && name !== null && typeof name !== 'string') {
      throw authErrors.badJson(
        'Could not parse request body as JSON: friendly_name must be a string',
      );
    }
    if (!name) throw authErrors.validation('friendly_name is required');
    // Go's len() counts bytes.
    if (Buffer.byteLength(name, 'utf8') > FRIENDLY_NAME_MAX) {
      throw authErrors.validation('friendly_name must be 120 characters or less');
    }
    const passkey = await ownPasskey(ctx.db, user.id, rawId);
    const { rows } = await ctx.db.query<PasskeyRow>(
      `update auth.webauthn_credentials set friendly_name = $2, updated_at = $3::timestamptz
       where id::text = $1 returning ${PASSKEY_COLUMNS}`,
      [passkey.id, name, sqlNow(ctx.clock)],
    );
    return c.json(passkeyJson(rows[0] ?? passkey));
  });

  app.delete('/passkeys/:passkeyId', async (c) => {
    const { user, sessionId } = await requireUser(ctx, c);
    await requireManagementAal(ctx.db, user.id, sessionId);
    const passkey = await ownPasskey(ctx.db, user.id, c.req.param('passkeyId'));
    await ctx.db.query(`delete from auth.webauthn_credentials where id::text = $1`, [passkey.id]);
    return c.body(null, 204);
  });

  // Admin (not behind [auth.passkey] enabled, as in GoTrue). Registered before the admin
  // group's middleware, so the admin check is made here.
  app.get('/admin/users/:userId/passkeys', async (c) => {
    await requireAdmin(ctx, c);
    const user = await loadUser(ctx.db, c.req.param('userId'));
    return c.json((await userPasskeys(ctx.db, user.id)).map(passkeyJson));
  });

  app.delete('/admin/users/:userId/passkeys/:passkeyId', async (c) => {
    await requireAdmin(ctx, c);
    const user = await loadUser(ctx.db, c.req.param('userId'));
    const passkey = await ownPasskey(ctx.db, user.id, c.req.param('passkeyId'));
    await ctx.db.query(`delete from auth.webauthn_credentials where id::text = $1`, [passkey.id]);
    return c.body(null, 204);
  });
}
