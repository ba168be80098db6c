// GoTrue's POST /admin/generate_link (internal/api/mail.go) and POST /invite (invite.go): a
// link of each kind made for an admin without sending it (signup, invite, magiclink,
// recovery, email_change_current, email_change_new), and an invitation mailed through the
// devstack's mailbox. Their tokens are the ones /verify checks (email-verify.ts).
import { randomInt } from 'node:crypto';

import bcrypt from 'bcryptjs';
import type { Context, Hono } from 'hono';

import { sqlNow } from '../clock';
import type { DevstackContext } from '../context';
import type { SqlRunner } from '../sql-engine';
import {
  adminErrors,
  adminUserJson,
  findAdminUser,
  mapField,
  mergeMetadata,
  NIL_UUID,
  requestAud,
  stringField,
} from './admin-auth';
import { emailTaken } from './admin-user-store';
import { AuthApiError, authErrors } from './errors';
import {
  deliver,
  mailRedirect,
  newOtp,
  redirectAllowed,
  takeEmailAllowance,
  tokenHash,
} from './email-tokens';
import { confirmationUrl, type MailKind } from './mail-templates';
import { checkPasswordStrength, readJsonBody, validateEmail } from './route-kit';
import { EMAIL_APP_METADATA, jsonObject, type JsonObject, type UserRow } from './users';

/** The link kinds of generate_link and the /verify type each link carries. */
const LINK_VERIFY_TYPE: Readonly<Record<string, MailKind>> = {
  signup: 'signup',
  invite: 'invite',
  magiclink: 'magiclink',
  recovery: 'recovery',
  email_change_current: 'email_change',
  email_change_new: 'email_change',
};

/** The password GoTrue makes up when a magic link signs up an unknown address. */
function madeUpPassword(): string {
  const letters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
  const chars = [...Array.from({ length: 53 }, () => letters[randomInt(letters.length)] ?? 'a')];
  for (let i = 0; i < 10; i += 1) chars.push(String(randomInt(10)));
  chars.push('~!@#$%^&*()_+`-={}|[]\\:"<>?,./'[randomInt(30)] ?? '!');
  return chars.join('');
}

/** GoTrue's validateEmail, with its message for an empty address. */
function requiredEmail(raw: string): string {
  if (raw === '') throw authErrors.validation('An email address is required');
  return validateEmail(raw);
}

/** A user of the audience with this address (FindUserByEmailAndAudience). */
async function userByEmail(db: SqlRunner, email: string, aud: string) {
  const { rows } = await db.query<{ id: string }>(
    `select id::text as id from auth.users
     where lower(email) = lower($1) and aud = $2 and is_sso_user = false`,
    [email, aud],
  );
  const id = rows[0]?.id;
  return id ? findAdminUser(db, id) : undefined;
}

/** signupNewUser for an email user (no password for an invitation), with its identity. */
async function insertEmailUser(
  tx: SqlRunner,
  email: string,
  aud: string,
  hash: string | null,
  data: JsonObject,
  at: string,
): Promise<string> {
  const { rows } = await tx.query<{ id: string }>(
    `insert into auth.users (instance_id, id, aud, role, email, encrypted_password,
       raw_app_meta_data, raw_user_meta_data, created_at, updated_at, confirmation_token,
       recovery_token, email_change_token_new, email_change, is_anonymous)
     values ($1, gen_random_uuid(), $2, 'authenticated', $3, $4, $5::jsonb, $6::jsonb,
       $7::timestamptz, $7::timestamptz, '', '', '', '', false)
     returning id::text as id`,
    [NIL_UUID, aud, email, hash, JSON.stringify(EMAIL_APP_METADATA), JSON.stringify(data), at],
  );
  const id = rows[0]?.id ?? '';
  const identity = { sub: id, email, email_verified: false, phone_verified: false };
  await tx.query(
    `insert into auth.identities (provider_id, user_id, identity_data, provider,
       last_sign_in_at, created_at, updated_at)
     values ($1::text, $1::uuid, $2::jsonb, 'email', $3::timestamptz, $3::timestamptz,
             $3::timestamptz)`,
    [id, JSON.stringify(identity), at],
  );
  return id;
}

async function setConfirmationToken(tx: SqlRunner, id: string, hash: string, at: string) {
  await tx.query(
    `update auth.users set confirmation_token = $2, confirmation_sent_at = $3::timestamptz
     where id::text = $1`,
    [id, hash, at],
  );
}

async function markInvited(tx: SqlRunner, id: string, hash: string, at: string) {
  await tx.query(
    `update auth.users set confirmation_token = $2, confirmation_sent_at = $3::timestamptz,
       invited_at = $3::timestamptz where id::text = $1`,
    [id, hash, at],
  );
}

interface LinkRequest {
  type: string;
  email: string;
  newEmail: string;
  password: string;
  data: JsonObject | undefined;
  aud: string;
  otp: string;
  hash: string;
}

/** The transaction of generate_link: stores the token; returns the user and the link token. */
async function storeLinkToken(
  ctx: DevstackContext,
  tx: SqlRunner,
  found: UserRow | undefined,
  req: LinkRequest,
  passwordHash: string | null,
): Promise<{ userId: string; token: string }> {
  const at = sqlNow(ctx.clock);
  const user = found;
  switch (req.type) {
    case 'magiclink':
    case 'recovery': {
      if (!user) throw adminErrors.userNotFound();
      await tx.query(
        `update auth.users set recovery_token = $2, recovery_sent_at = $3::timestamptz
         where id::text = $1`,
        [user.id, req.hash, at],
      );
      return { userId: user.id, token: req.hash };
    }
    case 'invite':
    case 'signup': {
      if (user?.email_confirmed_at) throw adminErrors.emailExists();
      let id: string;
      if (user) {
        id = user.id;
        if (req.type === 'signup' && req.data) {
          const merged = mergeMetadata(jsonObject(user.raw_user_meta_data), req.data);
          await tx.query(
            `update auth.users set raw_user_meta_data = $2::jsonb where id::text = $1`,
            [id, JSON.stringify(merged)],
          );
        }
      } else {
        id = await insertEmailUser(tx, req.email, req.aud, passwordHash, req.data ?? {}, at);
      }
      if (req.type === 'invite') await markInvited(tx, id, req.hash, at);
      else await setConfirmationToken(tx, id, req.hash, at);
      return { userId: id, token: req.hash };
    }
    case 'email_change_current':
    case 'email_change_new': {
      if (!user) throw adminErrors.userNotFound();
      if (!ctx.settings.auth.doubleConfirmChanges && req.type === 'email_change_current') {
        throw authErrors.validation(
          'Enable secure email change to generate link for current email',
        );
      }
      const newEmail = requiredEmail(req.newEmail);
      if (await emailTaken(tx, newEmail, user.aud ?? '', user.id)) throw adminErrors.emailExists();
      // The token of the new address is of that address; the answer's hashed_token is not.
      const current = req.type === 'email_change_current';
      const token = current ? req.hash : tokenHash(newEmail, req.otp);
      await tx.query(
        `update auth.users set email_change = $2, email_change_sent_at = $3::timestamptz,
           email_change_confirm_status = 0,
           email_change_token_current = case when $5 then $4 else email_change_token_current end,
           email_change_token_new = case when $5 then email_change_token_new else $4 end
         where id::text = $1`,
        [user.id, newEmail, at, token, current],
      );
      return { userId: user.id, token };
    }
    default:
      throw authErrors.validation(`Invalid email action link type requested: ${req.type}`);
  }
}

export function registerAdminLinkRoutes(app: Hono, ctx: DevstackContext): void {
  const config = ctx.settings.auth;

  app.post('/admin/generate_link', async (c: Context) => {
    const body = await readJsonBody(c);
    let type = stringField(body, 'type');
    const email = requiredEmail(stringField(body, 'email'));
    const newEmail = stringField(body, 'new_email');
    let password = stringField(body, 'password');
    const data = mapField(body, 'data');
    const bodyRedirect = stringField(body, 'redirect_to');
    const redirectTo =
      bodyRedirect !== '' && redirectAllowed(config, bodyRedirect)
        ? bodyRedirect
        : mailRedirect(config, c);
    const aud = requestAud(c);
    const found = await userByEmail(ctx.db, email, aud);
    if (!found) {
      if (type === 'magiclink') {
        // An unknown address gets a sign-up link, with a password nobody knows.
        type = 'signup';
        password = madeUpPassword();
      } else if (
        type === 'recovery' ||
        type === 'email_change_current' ||
        type === 'email_change_new'
      ) {
        throw new AuthApiError(404, 'user_not_found', 'User with this email not found');
      }
    }
    let passwordHash: string | null = null;
    if (type === 'signup' && !found) {
      if (password === '') throw authErrors.validation('Signup requires a valid password');
      checkPasswordStrength(ctx.settings.auth, password);
      passwordHash = await bcrypt.hash(password, ctx.settings.passwordHashCost);
    }
    const otp = newOtp(config.emailOtpLength);
    const hash = tokenHash(email, otp);
    const req: LinkRequest = { type, email, newEmail, password, data, aud, otp, hash };
    const result = await ctx.db.transaction(async (tx) => {
      const { userId, token } = await storeLinkToken(ctx, tx, found, req, passwordHash);
      const user = await findAdminUser(tx, userId);
      if (!user) throw adminErrors.userNotFound();
      const kind = LINK_VERIFY_TYPE[type] ?? 'signup';
      return {
        ...(await adminUserJson(tx, user)),
        action_link: confirmationUrl(ctx.url(), token, kind, redirectTo),
        email_otp: otp,
        hashed_token: hash,
        verification_type: type,
        redirect_to: redirectTo,
      };
    });
    return c.json(result);
  });

  app.post('/invite', async (c: Context) => {
    const body = await readJsonBody(c);
    const email = requiredEmail(stringField(body, 'email'));
    const data = mapField(body, 'data') ?? {};
    const aud = requestAud(c);
    const redirectTo = mailRedirect(config, c);
    const found = await userByEmail(ctx.db, email, aud);
    const json = await ctx.db.transaction(async (tx) => {
      if (found?.email_confirmed_at) throw adminErrors.emailExists();
      const at = sqlNow(ctx.clock);
      const id = found?.id ?? (await insertEmailUser(tx, email, aud, null, data, at));
      // sendInvite: the project's mail allowance, then the mail, then the token stored.
      takeEmailAllowance(ctx);
      const otp = newOtp(config.emailOtpLength);
      const hash = tokenHash(email, otp);
      const user = await findAdminUser(tx, id);
      deliver(ctx, {
        kind: 'invite',
        to: email,
        otp,
        hash,
        redirectTo,
        email,
        data: user?.raw_user_meta_data ?? data,
      });
      await markInvited(tx, id, hash, at);
      const fresh = await findAdminUser(tx, id);
      if (!fresh) throw adminErrors.userNotFound();
      return adminUserJson(tx, fresh);
    });
    return c.json(json);
  });
}
