// The one-time tokens of GoTrue's mails (internal/api/mail.go, verify.go): a mailed code
// (`otp_length` digits) and the hash `sha224(email + code)` that the mail's link carries and
// auth.users keeps (confirmation_token, recovery_token, email_change_token_new/current), each
// with its *_sent_at. A token is good until `otp_expiry` after it was sent, on the devstack's
// clock, and is cleared when used, so it works once. Sending is limited per user
// (`max_frequency`) and, while confirmations are on, for the whole project (`email_sent`).
import { createHash, randomInt, timingSafeEqual } from 'node:crypto';

import type { Context } from 'hono';

import { sqlNow } from '../clock';
import type { DevstackContext } from '../context';
import type { SqlRunner } from '../sql-engine';
import type { AuthConfig } from './config';
import { AuthApiError } from './errors';
import { mailboxFor } from './mailbox';
import { confirmationUrl, renderMail, type MailKind } from './mail-templates';
import { RateLimiter } from './rate-limit';
import { jsonObject } from './users';

const ONE_HOUR_MS = 60 * 60 * 1000;

export const emailErrors = {
  rateLimited: () =>
    new AuthApiError(429, 'over_email_send_rate_limit', 'Email rate limit exceeded'),
  tooSoon: (seconds: number) =>
    new AuthApiError(
      429,
      'over_email_send_rate_limit',
      `For security purposes, you can only request this after ${seconds} seconds.`,
    ),
  linkInvalid: () => new AuthApiError(403, 'otp_expired', 'Email link is invalid or has expired'),
  tokenInvalid: () => new AuthApiError(403, 'otp_expired', 'Token has expired or is invalid'),
  banned: () => new AuthApiError(403, 'user_banned', 'User is banned'),
} as const;

/** What the mail columns of auth.users hold for one user. */
export interface MailUserRow {
  id: string;
  email: string | null;
  email_confirmed_at: Date | string | null;
  raw_user_meta_data: unknown;
  confirmation_token: string | null;
  confirmation_sent_at: Date | string | null;
  recovery_token: string | null;
  recovery_sent_at: Date | string | null;
  email_change: string | null;
  email_change_token_new: string | null;
  email_change_token_current: string | null;
  email_change_sent_at: Date | string | null;
  email_change_confirm_status: number | null;
  banned: boolean;
  is_anonymous: boolean;
  [key: string]: unknown;
}

export const MAIL_USER_COLUMNS = `id::text as id, email, email_confirmed_at, raw_user_meta_data,
  confirmation_token, confirmation_sent_at, recovery_token, recovery_sent_at, email_change,
  email_change_token_new, email_change_token_current, email_change_sent_at,
  email_change_confirm_status, is_anonymous,
  coalesce(banned_until > $NOW::timestamptz, false) as banned`;

/** `MAIL_USER_COLUMNS` with the clock's time as parameter `$n`. */
export function mailUserColumns(nowParam: number): string {
  return MAIL_USER_COLUMNS.replace('$NOW', `$${nowParam}`);
}

export async function mailUserById(
  ctx: DevstackContext,
  db: SqlRunner,
  id: string,
): Promise<MailUserRow | undefined> {
  const { rows } = await db.query<MailUserRow>(
    `select ${mailUserColumns(2)} from auth.users where id::text = $1 and deleted_at is null`,
    [id, sqlNow(ctx.clock)],
  );
  return rows[0];
}

export async function mailUserByEmail(
  ctx: DevstackContext,
  db: SqlRunner,
  email: string,
): Promise<MailUserRow | undefined> {
  const { rows } = await db.query<MailUserRow>(
    `select ${mailUserColumns(2)} from auth.users
     where lower(email) = lower($1) and is_sso_user = false and deleted_at is null`,
    [email, sqlNow(ctx.clock)],
  );
  return rows[0];
}

/** GoTrue's crypto.GenerateTokenHash: the hex SHA-224 of address + code. */
export function tokenHash(address: string, otp: string): string {
  return createHash('sha224')
    .update(address + otp)
    .digest('hex');
}

/** A random code of `length` digits (crypto.GenerateOtp). */
export function newOtp(length: number): string {
  let otp = '';
  for (let i = 0; i < length; i += 1) otp += String(randomInt(10));
  return otp;
}

/** Equal in constant time (a stored hash against the one asked for). */
export function sameToken(expected: string | null | undefined, actual: string): boolean {
  if (!expected) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(actual);
  return a.length === b.length && timingSafeEqual(a, b);
}

function ms(value: Date | string | null | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  const time = (value instanceof Date ? value : new Date(value)).getTime();
  return Number.isNaN(time) ? undefined : time;
}

/** Whether a token sent at `sentAt` is past `otp_expiry` (or was never sent). */
export function tokenExpired(
  ctx: DevstackContext,
  sentAt: Date | string | null | undefined,
): boolean {
  const sent = ms(sentAt);
  return sent === undefined || ctx.clock.now() > sent + ctx.settings.auth.emailOtpExpirySec * 1000;
}

/** GoTrue's validateSentWithinFrequencyLimit: one mail of a kind per `max_frequency`. */
export function checkFrequency(
  ctx: DevstackContext,
  sentAt: Date | string | null | undefined,
): void {
  const sent = ms(sentAt);
  const gapMs = ctx.settings.auth.emailMaxFrequencySec * 1000;
  if (sent !== undefined && sent + gapMs > ctx.clock.now()) {
    throw emailErrors.tooSoon(Math.floor((sent + gapMs - ctx.clock.now()) / 1000));
  }
}

// ---- redirect_to (utilities.GetReferrer / IsRedirectURLValid) ----

function globToRegExp(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i += 1) {
    const ch = pattern[i] ?? '';
    if (ch === '*' && pattern[i + 1] === '*') {
      source += '.*';
      i += 1;
    } else if (ch === '*') source += '[^./]*';
    else if (ch === '?') source += '[^./]';
    else source += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** GoTrue's IsRedirectURLValid: the site's origin (any port on loopback) or an allowed glob. */
export function redirectAllowed(config: AuthConfig, candidate: string): boolean {
  let base: URL;
  let target: URL;
  try {
    base = new URL(config.siteUrl);
    target = new URL(candidate);
  } catch {
    return false;
  }
  if (
    base.hostname === target.hostname &&
    base.protocol === target.protocol &&
    (base.port === target.port || LOOPBACK_NAMES.has(target.hostname))
  ) {
    return true;
  }
  const host = target.hostname;
  if (/^\d+$/.test(host)) return false;
  if (/^[\d.]+$/.test(host) || host.startsWith('[')) {
    return host === '127.0.0.1' || host === '[::1]' || /^127\./.test(host);
  }
  const withoutFragment = candidate.split('#')[0] ?? candidate;
  return config.additionalRedirectUrls.some((pattern) =>
    globToRegExp(pattern).test(withoutFragment),
  );
}

/** Where a mail's link leads back to: `redirect_to` if allowed, else Referer, else site_url. */
export function mailRedirect(config: AuthConfig, c: Context, bodyRedirect?: string): string {
  for (const candidate of [c.req.query('redirect_to'), bodyRedirect, c.req.header('referer')]) {
    if (candidate && redirectAllowed(config, candidate)) return candidate;
  }
  return config.siteUrl;
}

// ---- sending ----

/** The project-wide `email_sent` bucket of a devstack. */
const EMAIL_LIMITERS = new WeakMap<DevstackContext, RateLimiter>();

export function takeEmailAllowance(ctx: DevstackContext): void {
  const config = ctx.settings.auth;
  if (config.rateLimits.emailSent === 0) throw emailErrors.rateLimited();
  // GoTrue counts mails against the limit only while confirmations are on (sendEmail).
  if (!config.enableConfirmations) return;
  let limiter = EMAIL_LIMITERS.get(ctx);
  if (!limiter) {
    limiter = new RateLimiter(config.rateLimits.emailSent, ONE_HOUR_MS, () => ctx.clock.now());
    EMAIL_LIMITERS.set(ctx, limiter);
  }
  if (!limiter.take('project')) throw emailErrors.rateLimited();
}

export interface MailToSend {
  readonly kind: MailKind;
  readonly to: string;
  readonly otp: string;
  readonly hash: string;
  readonly redirectTo: string;
  readonly email: string;
  readonly newEmail?: string;
  readonly data: unknown;
}

/** Renders a mail from its template into the devstack's mailbox (admin-links.ts too). */
export function deliver(ctx: DevstackContext, mail: MailToSend): void {
  const rendered = renderMail(mail.kind, {
    ConfirmationURL: confirmationUrl(ctx.url(), mail.hash, mail.kind, mail.redirectTo),
    Token: mail.otp,
    TokenHash: mail.hash,
    SiteURL: ctx.settings.auth.siteUrl,
    RedirectTo: mail.redirectTo,
    Email: mail.email,
    ...(mail.newEmail !== undefined ? { NewEmail: mail.newEmail } : {}),
    Data: jsonObject(mail.data),
  });
  mailboxFor(ctx).deliver({
    to: [{ Name: '', Address: mail.to }],
    kind: mail.kind,
    ...rendered,
  });
}

/**
 * Mails `user` a confirmation (`signup`), a `recovery` or a `magiclink` token and stores its
 * hash. `fresh`: a sign-up of this very request (its confirmation_sent_at is not a resend).
 */
export async function sendUserToken(
  ctx: DevstackContext,
  tx: SqlRunner,
  user: MailUserRow,
  kind: 'signup' | 'recovery' | 'magiclink',
  redirectTo: string,
  fresh = false,
): Promise<void> {
  const email = user.email ?? '';
  const confirmation = kind === 'signup';
  // GoTrue: a magic link shares the recovery token and its timer.
  if (!fresh) {
    checkFrequency(ctx, confirmation ? user.confirmation_sent_at : user.recovery_sent_at);
  }
  takeEmailAllowance(ctx);
  const otp = newOtp(ctx.settings.auth.emailOtpLength);
  const hash = tokenHash(email, otp);
  const column = confirmation ? 'confirmation' : 'recovery';
  await tx.query(
    `update auth.users set ${column}_token = $2, ${column}_sent_at = $3::timestamptz
     where id::text = $1`,
    [user.id, hash, sqlNow(ctx.clock)],
  );
  deliver(ctx, { kind, to: email, otp, hash, redirectTo, email, data: user.raw_user_meta_data });
}

/**
 * GoTrue's sendEmailChange: a token to the new address and, with `double_confirm_changes`,
 * one to the current address; the change waits in email_change until confirmed.
 */
export async function sendEmailChange(
  ctx: DevstackContext,
  tx: SqlRunner,
  user: MailUserRow,
  newEmail: string,
  redirectTo: string,
): Promise<void> {
  checkFrequency(ctx, user.email_change_sent_at);
  const config = ctx.settings.auth;
  const current = user.email ?? '';
  const otpNew = newOtp(config.emailOtpLength);
  const hashNew = tokenHash(newEmail, otpNew);
  const both = config.doubleConfirmChanges && current !== '';
  const otpCurrent = both ? newOtp(config.emailOtpLength) : '';
  const hashCurrent = both ? tokenHash(current, otpCurrent) : '';
  takeEmailAllowance(ctx);
  await tx.query(
    `update auth.users set email_change = $2, email_change_token_new = $3,
       email_change_token_current = $4, email_change_confirm_status = 0,
       email_change_sent_at = $5::timestamptz
     where id::text = $1`,
    [user.id, newEmail, hashNew, hashCurrent, sqlNow(ctx.clock)],
  );
  const common = { kind: 'email_change' as const, redirectTo, email: current, newEmail };
  const data = user.raw_user_meta_data;
  deliver(ctx, { ...common, to: newEmail, otp: otpNew, hash: hashNew, data });
  if (both) deliver(ctx, { ...common, to: current, otp: otpCurrent, hash: hashCurrent, data });
}

/** GoTrue's user JSON fields about mails in flight (omitted when empty, as there). */
export async function withMailFields(
  ctx: DevstackContext,
  db: SqlRunner,
  json: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const id = json.id;
  const user = typeof id === 'string' ? await mailUserById(ctx, db, id) : undefined;
  if (!user) return json;
  const extra: Record<string, unknown> = {};
  const iso = (value: Date | string | null) => {
    const time = ms(value);
    return time === undefined ? undefined : new Date(time).toISOString();
  };
  const sent: [string, string | undefined][] = [
    ['confirmation_sent_at', iso(user.confirmation_sent_at)],
    ['recovery_sent_at', iso(user.recovery_sent_at)],
    ['email_change_sent_at', user.email_change ? iso(user.email_change_sent_at) : undefined],
  ];
  for (const [key, value] of sent) if (value) extra[key] = value;
  if (user.email_change) extra.new_email = user.email_change;
  return { ...json, ...extra };
}
