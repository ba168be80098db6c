// The devstack's email flows as GoTrue has them, through unmodified supabase-js and raw
// requests, on both engines: /recover, /otp, /resend, /verify (links by GET, codes and token
// hashes by POST), email change with confirmation, sign-up confirmation, the per-user and
// project-wide mail limits, expiry on the injected clock, single use, and the mail viewer
// (Mailpit's JSON shape, its page, and that no other origin can read it).
import { request as httpRequest } from 'node:http';

import type { SupabaseClient } from '@supabase/supabase-js';
import { beforeEach, describe, expect, it } from 'vitest';

import { parseAuthConfig, type AuthConfigOverrides } from '../../devstack/auth/config';
import { ENGINE_KINDS } from '../support/database';
import {
  devstackPerEngine,
  TEST_RATE_LIMITS,
  TestClock,
  type TestDevstack,
  uniqueEmail,
} from '../support/devstack';

/** Where the app's reset screen is; loopback, so any port is an allowed redirect. */
const APP_RESET = 'http://localhost:4283/reset-password';
const OTP_EXPIRY_SEC = 3600;

interface Mail {
  ID: string;
  Subject: string;
  To: { Address: string }[];
  HTML: string;
  Text: string;
  /** The /verify link of the mail (unescaped). */
  link: string;
  /** The mailed code. */
  code: string;
}

function mailTools(getStack: () => TestDevstack) {
  const viewer = () => `${getStack().url}/_devstack/mail`;

  async function mailsTo(address: string): Promise<{ ID: string; Subject: string }[]> {
    const query = encodeURIComponent(`to:${address}`);
    const response = await fetch(`${viewer()}/api/v1/search?query=${query}`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { messages: { ID: string; Subject: string }[] };
    return body.messages;
  }

  /** The newest mail to `address`. */
  async function lastMail(address: string): Promise<Mail> {
    const [summary] = await mailsTo(address);
    if (!summary) throw new Error(`no mail to ${address}`);
    const response = await fetch(`${viewer()}/api/v1/message/${summary.ID}`);
    const mail = (await response.json()) as Omit<Mail, 'link' | 'code'>;
    const href = /href="([^"]*)"/.exec(mail.HTML)?.[1] ?? '';
    return {
      ...mail,
      link: href.replace(/&amp;/g, '&'),
      code: /<code>(\d+)<\/code>/.exec(mail.HTML)?.[1] ?? '',
    };
  }

  return { viewer, mailsTo, lastMail };
}

/** Opens a mail's link as a browser would: no API key, the redirect not followed. */
async function open(link: string): Promise<{ status: number; location: string }> {
  const response = await fetch(link, { redirect: 'manual' });
  return { status: response.status, location: response.headers.get('location') ?? '' };
}

function fragment(location: string): URLSearchParams {
  return new URLSearchParams(location.split('#')[1] ?? '');
}

async function signUp(client: SupabaseClient, email: string, password = 'old-password') {
  const { data, error } = await client.auth.signUp({
    email,
    password,
    options: { data: { display_name: 'Mailee' } },
  });
  expect(error).toBeNull();
  return data;
}

describe.each(ENGINE_KINDS)('devstack auth email, confirmations off (%s)', (kind) => {
  const clock = new TestClock();
  const { viewer, mailsTo, lastMail } = mailTools(() => stack);
  const auth: AuthConfigOverrides = {
    enableConfirmations: false,
    emailMaxFrequencySec: 60,
    emailOtpExpirySec: OTP_EXPIRY_SEC,
    doubleConfirmChanges: true,
  };

  const stack = devstackPerEngine(kind, { clock, auth });
  beforeEach(() => clock.advance(1_000));

  function raw(path: string, body: unknown, init: { key?: string | null } = {}) {
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'X-Supabase-Api-Version': '2024-01-01',
    };
    if (init.key !== null) headers.apikey = init.key ?? stack.publishableKey;
    return fetch(`${stack.url}/auth/v1${path}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });
  }

  it('recovery: the link signs in once, redirects with type=recovery, and the new password works', async () => {
    const email = uniqueEmail('reset');
    await signUp(stack.client(), email);

    const asked = await stack.client().auth.resetPasswordForEmail(email, { redirectTo: APP_RESET });
    expect(asked).toEqual({ data: {}, error: null });

    const mail = await lastMail(email);
    expect(mail.Subject).toBe('Reset your password');
    expect(mail.To[0]?.Address).toBe(email);
    expect(mail.link).toMatch(
      new RegExp(
        `^${stack.url}/auth/v1/verify\\?token=[0-9a-f]{56}&type=recovery&redirect_to=${APP_RESET}$`,
      ),
    );
    expect(mail.code).toMatch(/^\d{6}$/);

    // No API key: the link opens from a mail.
    const first = await open(mail.link);
    expect(first.status).toBe(303);
    expect(first.location.startsWith(`${APP_RESET}#`)).toBe(true);
    const params = fragment(first.location);
    expect(params.get('type')).toBe('recovery');
    expect(params.get('token_type')).toBe('bearer');
    const accessToken = params.get('access_token') ?? '';
    const refreshToken = params.get('refresh_token') ?? '';

    // Used once: the second opening is GoTrue's error redirect.
    const second = await open(mail.link);
    expect(second.status).toBe(303);
    expect(second.location).toBe(
      `${APP_RESET}#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired&sb=`,
    );

    const client = stack.client();
    const set = await client.auth.setSession({
      access_token: accessToken,
      refresh_token: refreshToken,
    });
    expect(set.error).toBeNull();
    expect(set.data.user?.email).toBe(email);
    const updated = await client.auth.updateUser({ password: 'new-password' });
    expect(updated.error).toBeNull();

    const old = await stack.client().auth.signInWithPassword({ email, password: 'old-password' });
    expect(old.error?.code).toBe('invalid_credentials');
    const fresh = await stack.client().auth.signInWithPassword({ email, password: 'new-password' });
    expect(fresh.error).toBeNull();
  });

  it('recovery for an unknown address answers the same and sends nothing; bad input is refused', async () => {
    const ghost = uniqueEmail('ghost');
    const response = await raw('/recover', { email: ghost });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({});
    expect(await mailsTo(ghost)).toEqual([]);

    const bad = await raw('/recover', { email: 'not-an-email' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      code: 'validation_failed',
      message: 'Unable to validate email address: invalid format',
    });
    const missing = await raw('/recover', {});
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({
      code: 'validation_failed',
      message: 'Password recovery requires an email',
    });
    // Only /verify is open to requests without a key.
    const keyless = await raw('/recover', { email: ghost }, { key: null });
    expect(keyless.status).toBe(401);
  });

  it('one mail of a kind per user per max_frequency: 429 with the seconds left', async () => {
    const email = uniqueEmail('often');
    await signUp(stack.client(), email);
    expect((await raw('/recover', { email })).status).toBe(200);
    clock.advance(10_000);
    const again = await raw('/recover', { email });
    expect(again.status).toBe(429);
    expect(await again.json()).toEqual({
      code: 'over_email_send_rate_limit',
      message: 'For security purposes, you can only request this after 50 seconds.',
    });
    expect(await mailsTo(email)).toHaveLength(1);
    clock.advance(50_000);
    expect((await raw('/recover', { email })).status).toBe(200);
    expect(await mailsTo(email)).toHaveLength(2);
  });

  it('a link or code past otp_expiry is refused; codes and token hashes verify by POST, once', async () => {
    const email = uniqueEmail('expiry');
    await signUp(stack.client(), email);
    await stack.client().auth.resetPasswordForEmail(email, { redirectTo: APP_RESET });
    const expired = await lastMail(email);
    clock.advance(OTP_EXPIRY_SEC * 1000 + 1_000);
    const late = await open(expired.link);
    expect(fragment(late.location).get('error_code')).toBe('otp_expired');
    const lateCode = await stack
      .client()
      .auth.verifyOtp({ email, token: expired.code, type: 'recovery' });
    expect(lateCode.error?.status).toBe(403);
    expect(lateCode.error?.code).toBe('otp_expired');
    expect(lateCode.error?.message).toBe('Token has expired or is invalid');

    // A fresh code (the old one's time is long past max_frequency).
    await stack.client().auth.resetPasswordForEmail(email, { redirectTo: APP_RESET });
    const mail = await lastMail(email);
    const wrong = await stack.client().auth.verifyOtp({ email, token: '000000', type: 'recovery' });
    expect(wrong.error?.code).toBe('otp_expired');
    const client = stack.client();
    const byCode = await client.auth.verifyOtp({ email, token: mail.code, type: 'recovery' });
    expect(byCode.error).toBeNull();
    expect(byCode.data.session?.user.email).toBe(email);
    const reused = await stack
      .client()
      .auth.verifyOtp({ email, token: mail.code, type: 'recovery' });
    expect(reused.error?.code).toBe('otp_expired');

    // By token hash (the link's token), as an app with its own confirm route verifies.
    clock.advance(60_000);
    await stack.client().auth.resetPasswordForEmail(email, { redirectTo: APP_RESET });
    const hashed = await lastMail(email);
    const hash = new URL(hashed.link).searchParams.get('token') ?? '';
    const byHash = await stack.client().auth.verifyOtp({ token_hash: hash, type: 'recovery' });
    expect(byHash.error).toBeNull();
    const hashAgain = await raw('/verify', { token_hash: hash, type: 'recovery' });
    expect(hashAgain.status).toBe(403);
    expect(await hashAgain.json()).toEqual({
      code: 'otp_expired',
      message: 'Email link is invalid or has expired',
    });
  });

  it('/verify: missing parameters are 400s, an unknown type is refused, a bad token redirects', async () => {
    const noType = await fetch(`${stack.url}/auth/v1/verify?token=abc`, { redirect: 'manual' });
    expect(noType.status).toBe(400);
    expect(await noType.json()).toMatchObject({
      error_code: 'validation_failed',
      msg: 'Verify requires a verification type',
    });
    const both = await raw('/verify', { type: 'recovery', token: '123456', token_hash: 'abc' });
    expect(both.status).toBe(400);
    const unknown = await open(`${stack.url}/auth/v1/verify?token=abc&type=recovery`);
    expect(unknown.status).toBe(303);
    // No redirect_to: the site URL (config.toml's site_url).
    expect(fragment(unknown.location).get('error_code')).toBe('otp_expired');
    expect(unknown.location).not.toContain('evil.example');
    const foreign = await open(
      `${stack.url}/auth/v1/verify?token=abc&type=recovery&redirect_to=https://evil.example/x`,
    );
    expect(foreign.location.startsWith('https://evil.example')).toBe(false);
  });

  it('magic link and email OTP: existing users get a sign-in link; create_user=false refuses strangers', async () => {
    const email = uniqueEmail('magic');
    await signUp(stack.client(), email);
    const sent = await stack.client().auth.signInWithOtp({
      email,
      options: { shouldCreateUser: false, emailRedirectTo: APP_RESET },
    });
    expect(sent.error).toBeNull();
    const mail = await lastMail(email);
    expect(mail.Subject).toBe('Your sign-in link');
    expect(mail.link).toContain('&type=magiclink&');
    const client = stack.client();
    const verified = await client.auth.verifyOtp({ email, token: mail.code, type: 'email' });
    expect(verified.error).toBeNull();
    expect(verified.data.user?.email).toBe(email);

    const stranger = uniqueEmail('stranger');
    const refused = await stack
      .client()
      .auth.signInWithOtp({ email: stranger, options: { shouldCreateUser: false } });
    expect(refused.error?.status).toBe(422);
    expect(refused.error?.code).toBe('otp_disabled');
    expect(await mailsTo(stranger)).toEqual([]);

    // With create_user (the default) a new address becomes a user and gets a link.
    const newcomer = uniqueEmail('newcomer');
    expect((await stack.client().auth.signInWithOtp({ email: newcomer })).error).toBeNull();
    const welcome = await lastMail(newcomer);
    const opened = await open(welcome.link);
    expect(fragment(opened.location).get('access_token')).toBeTruthy();
  });

  it('email change: both addresses are mailed and the address changes only once a link is opened', async () => {
    const email = uniqueEmail('before');
    const next = uniqueEmail('after');
    const client = stack.client();
    await signUp(client, email);
    // A taken address is refused before any mail.
    const taken = uniqueEmail('taken');
    await signUp(stack.client(), taken);
    const refused = await client.auth.updateUser({ email: taken });
    expect(refused.error?.code).toBe('email_exists');
    expect(await mailsTo(taken)).toEqual([]);

    const asked = await client.auth.updateUser({ email: next }, { emailRedirectTo: APP_RESET });
    expect(asked.error).toBeNull();
    expect(asked.data.user?.email).toBe(email);
    expect(asked.data.user?.new_email).toBe(next);
    expect(asked.data.user?.email_change_sent_at).toEqual(expect.any(String));
    const toNew = await lastMail(next);
    const toOld = await lastMail(email);
    expect(toNew.Subject).toBe('Confirm your new email address');
    expect(toNew.Text).toContain(`confirm ${next} as your new email address`);
    expect(toOld.link).not.toBe(toNew.link);

    // Not yet: the old address still signs in, the new one does not.
    expect((await client.auth.getUser()).data.user?.email).toBe(email);
    const early = await stack
      .client()
      .auth.signInWithPassword({ email: next, password: 'old-password' });
    expect(early.error?.code).toBe('invalid_credentials');

    // Confirmations off: one link completes it (GoTrue's autoconfirm).
    const opened = await open(toNew.link);
    expect(fragment(opened.location).get('type')).toBe('email_change');
    expect((await client.auth.getUser()).data.user?.email).toBe(next);
    const after = await stack
      .client()
      .auth.signInWithPassword({ email: next, password: 'old-password' });
    expect(after.error).toBeNull();
    expect(after.data.user?.identities?.[0]?.identity_data?.email).toBe(next);
    // The other link is spent with the change.
    expect(fragment((await open(toOld.link)).location).get('error_code')).toBe('otp_expired');
  });

  it('/resend: a confirmed sign-up gets nothing, an unknown type is a 400', async () => {
    const email = uniqueEmail('resend');
    await signUp(stack.client(), email);
    const nothing = await stack.client().auth.resend({ type: 'signup', email });
    expect(nothing.error).toBeNull();
    expect(await mailsTo(email)).toEqual([]);
    const bad = await raw('/resend', { type: 'nope', email });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      code: 'validation_failed',
      message: 'Missing one of these types: signup, email_change, sms, phone_change',
    });
  });

  it('the mail viewer: Mailpit-shaped JSON, a page of clickable links, loopback only, no CORS', async () => {
    const email = uniqueEmail('viewer');
    await signUp(stack.client(), email);
    await stack.client().auth.resetPasswordForEmail(email, { redirectTo: APP_RESET });
    const list = (await (await fetch(`${viewer()}/api/v1/messages`)).json()) as {
      total: number;
      messages: { ID: string; To: { Address: string }[]; Subject: string; Created: string }[];
    };
    expect(list.total).toBeGreaterThan(0);
    expect(list.messages[0]).toMatchObject({
      To: [{ Name: '', Address: email }],
      Subject: 'Reset your password',
      From: { Name: 'Admin', Address: 'admin@email.com' },
    });
    expect(list.messages[0]?.Created).toBe(new Date(clock.now()).toISOString());

    const mail = await lastMail(email);
    const page = await fetch(`${viewer()}/`, { headers: { Origin: 'https://evil.example' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('access-control-allow-origin')).toBeNull();
    const html = await page.text();
    expect(html).toContain(`<a href="${mail.link.replace(/&/g, '&amp;')}">`);

    const api = await fetch(`${viewer()}/api/v1/messages`, {
      headers: { Origin: 'https://evil.example' },
    });
    expect(api.headers.get('access-control-allow-origin')).toBeNull();
    // fetch may not set Host; a raw request does (a DNS-rebound page's request looks so).
    const rebound = await new Promise<{ status: number }>((resolve, reject) => {
      const url = new URL(`${viewer()}/api/v1/messages`);
      const request = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          headers: { Host: 'evil.example' },
        },
        (response) => {
          response.resume();
          resolve({ status: response.statusCode ?? 0 });
        },
      );
      request.on('error', reject);
      request.end();
    });
    expect(rebound.status).toBe(403);
    expect((await fetch(`${viewer()}/api/v1/message/999999`)).status).toBe(404);
  });
});

describe.each(ENGINE_KINDS)('devstack auth email, confirmations on (%s)', (kind) => {
  const clock = new TestClock();
  const { lastMail } = mailTools(() => stack);
  const auth: AuthConfigOverrides = {
    enableConfirmations: true,
    emailMaxFrequencySec: 60,
    doubleConfirmChanges: true,
  };

  const stack = devstackPerEngine(kind, { clock, auth });
  beforeEach(() => clock.advance(1_000));

  it('sign-up waits for the confirmation link: no session, email_not_confirmed, then signed in', async () => {
    const email = uniqueEmail('confirm');
    const data = await signUp(stack.client(), email);
    expect(data.session).toBeNull();
    expect(data.user?.email_confirmed_at).toBeUndefined();
    const mail = await lastMail(email);
    expect(mail.Subject).toBe('Confirm your email address');
    expect(mail.link).toContain('&type=signup&');

    const early = await stack.client().auth.signInWithPassword({ email, password: 'old-password' });
    expect(early.error?.code).toBe('email_not_confirmed');

    // A resend within max_frequency is refused; after it, a new link replaces the old one.
    const soon = await stack.client().auth.resend({ type: 'signup', email });
    expect(soon.error?.code).toBe('over_email_send_rate_limit');
    clock.advance(60_000);
    expect((await stack.client().auth.resend({ type: 'signup', email })).error).toBeNull();
    const resent = await lastMail(email);
    expect(fragment((await open(mail.link)).location).get('error_code')).toBe('otp_expired');

    const opened = await open(resent.link);
    expect(fragment(opened.location).get('type')).toBe('signup');
    const signedIn = await stack
      .client()
      .auth.signInWithPassword({ email, password: 'old-password' });
    expect(signedIn.error).toBeNull();
    expect(signedIn.data.user?.email_confirmed_at).toEqual(expect.any(String));
  });

  it('email change with double confirmation: the first link is only accepted, the second changes it', async () => {
    const email = uniqueEmail('double');
    const next = uniqueEmail('double-new');
    await signUp(stack.client(), email);
    await open((await lastMail(email)).link);
    const client = stack.client();
    expect(
      (await client.auth.signInWithPassword({ email, password: 'old-password' })).error,
    ).toBeNull();
    expect((await client.auth.updateUser({ email: next })).error).toBeNull();

    const first = await open((await lastMail(email)).link);
    expect(fragment(first.location).get('message')).toBe(
      'Confirmation link accepted. Please proceed to confirm link sent to the other email',
    );
    expect((await client.auth.getUser()).data.user?.email).toBe(email);

    const second = await open((await lastMail(next)).link);
    expect(fragment(second.location).get('type')).toBe('email_change');
    expect((await client.auth.getUser()).data.user?.email).toBe(next);
  });
});

describe.each(ENGINE_KINDS)('devstack auth email, email_sent limit (%s)', (kind) => {
  const clock = new TestClock();
  const { mailsTo } = mailTools(() => stack);

  const stack = devstackPerEngine(kind, {
    clock,
    auth: { enableConfirmations: true, rateLimits: { ...TEST_RATE_LIMITS, emailSent: 2 } },
  });

  it('email_sent: the project-wide hourly mail limit answers 429 once spent', async () => {
    const emails = [uniqueEmail('quota-1'), uniqueEmail('quota-2'), uniqueEmail('quota-3')];
    expect(
      (await stack.client().auth.signUp({ email: emails[0] ?? '', password: 'pw-123456' })).error,
    ).toBeNull();
    expect(
      (await stack.client().auth.signUp({ email: emails[1] ?? '', password: 'pw-123456' })).error,
    ).toBeNull();
    const third = await stack
      .client()
      .auth.signUp({ email: emails[2] ?? '', password: 'pw-123456' });
    expect(third.error?.status).toBe(429);
    expect(third.error?.code).toBe('over_email_send_rate_limit');
    expect(third.error?.message).toBe('Email rate limit exceeded');
    expect(await mailsTo(emails[2] ?? '')).toEqual([]);
    // The bucket refills over the hour: one mail's worth after half of it.
    clock.advance(31 * 60 * 1000);
    const later = await stack
      .client()
      .auth.signUp({ email: emails[2] ?? '', password: 'pw-123456' });
    expect(later.error).toBeNull();
  });
});

describe('config.toml: the email settings the devstack honours', () => {
  it('reads [auth] site_url and redirects, [auth.email] expiry, length, frequency and double confirm', () => {
    const config = parseAuthConfig(`
[auth]
site_url = "https://app.example.com"
additional_redirect_urls = ["https://*.example.com/**"]
[auth.email]
enable_confirmations = true
double_confirm_changes = false
otp_expiry = 900
otp_length = 8
max_frequency = "1m30s"
`);
    expect(config).toMatchObject({
      siteUrl: 'https://app.example.com',
      additionalRedirectUrls: ['https://*.example.com/**'],
      enableConfirmations: true,
      doubleConfirmChanges: false,
      emailOtpExpirySec: 900,
      emailOtpLength: 8,
      emailMaxFrequencySec: 90,
    });
    // GoTrue's defaults where the file is silent.
    expect(parseAuthConfig('')).toMatchObject({
      emailOtpExpirySec: 3600,
      emailOtpLength: 6,
      emailMaxFrequencySec: 60,
      doubleConfirmChanges: true,
    });
    expect(() => parseAuthConfig('[auth.email]\nmax_frequency = "soon"')).toThrow(
      /auth\.email\.max_frequency must be a duration/,
    );
    expect(() => parseAuthConfig('[auth.email]\notp_length = 4')).toThrow(/otp_length/);
  });
});
