// GoTrue's user flows besides MFA as hosted answers them, on both engines: /settings, the
// sign-in methods a project has switched off (OAuth /authorize, id_token and web3 grants,
// SAML SSO, phone sign-ups and phone OTP), and reauthentication before a password change
// when secure password change is on (nonce mailed, then PUT /user with it).
import { decodeJwt } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';

import { ENGINE_KINDS } from '../support/database';
import { TestClock } from '../support/devstack';
import {
  AUTH_CLIENT_HEADERS,
  authCall,
  devstackPerEngine,
  statusAndBody,
  uniqueEmail,
  type Reply,
} from './support';

const DAY_MS = 24 * 60 * 60 * 1000;

describe.each(ENGINE_KINDS)('GoTrue user flows conformance (%s)', (kind) => {
  const clock = new TestClock();
  const stack = devstackPerEngine(kind, {
    clock,
    auth: {
      securePasswordChange: true,
      enableConfirmations: false,
      enableAnonymousSignIns: false,
      emailMaxFrequencySec: 60,
    },
  });
  beforeEach(() => clock.advance(120_000));

  /** A request as supabase-js's auth client sends it (the publishable key unless `key`). */
  async function call(
    method: string,
    path: string,
    init: { token?: string; body?: unknown; key?: string | null } = {},
  ): Promise<Omit<Reply, 'headers'>> {
    const reply = await authCall(stack, method, path, {
      apikey: init.key,
      token: init.token,
      body: init.body,
      headers: AUTH_CLIENT_HEADERS,
    });
    return statusAndBody(reply);
  }

  /** The newest mail to `address`, from the devstack's mail viewer (Mailpit's API). */
  async function lastMailTo(address: string): Promise<{ Subject: string; HTML: string }> {
    const query = encodeURIComponent(`to:${address}`);
    const search = await fetch(`${stack.url}/_devstack/mail/api/v1/search?query=${query}`);
    const { messages } = (await search.json()) as { messages: { ID: string }[] };
    const message = await fetch(`${stack.url}/_devstack/mail/api/v1/message/${messages[0]?.ID}`);
    return (await message.json()) as { Subject: string; HTML: string };
  }

  it('/settings names every provider GoTrue reports, all off but email', async () => {
    const off = (names: string[]) => Object.fromEntries(names.map((name) => [name, false]));
    expect(await call('GET', '/settings')).toEqual({
      status: 200,
      body: {
        external: {
          ...off(['anonymous_users', 'apple', 'azure', 'bitbucket', 'discord', 'facebook']),
          ...off(['snapchat', 'figma', 'fly', 'github', 'gitlab', 'google', 'keycloak']),
          ...off(['kakao', 'linkedin', 'linkedin_oidc', 'notion', 'spotify', 'slack']),
          ...off(['slack_oidc', 'workos', 'twitch', 'twitter', 'phone', 'zoom']),
          email: true,
        },
        disable_signup: false,
        mailer_autoconfirm: true,
        phone_autoconfirm: false,
        sms_provider: '',
        saml_enabled: false,
        saml_private_key_next_configured: false,
        passkeys_enabled: false,
      },
    });
  });

  it('/authorize for a disabled or unknown OAuth provider: 400 validation_failed, no key needed', async () => {
    expect(await call('GET', '/authorize?provider=google', { key: null })).toEqual({
      status: 400,
      body: {
        code: 'validation_failed',
        message: 'Unsupported provider: provider is not enabled',
      },
    });
    expect(await call('GET', '/authorize?provider=nope', { key: null })).toEqual({
      status: 400,
      body: {
        code: 'validation_failed',
        message: 'Unsupported provider: Provider nope could not be found',
      },
    });
    const client = stack.client();
    const { data } = await client.auth.signInWithOAuth({
      provider: 'github',
      options: { skipBrowserRedirect: true },
    });
    const response = await fetch(data.url ?? '');
    expect(response.status).toBe(400);
  });

  it('id_token and web3 grants, SSO: answered as providers that are off', async () => {
    expect(
      await call('POST', '/token?grant_type=id_token', {
        body: { provider: 'google', id_token: 'header.payload.signature' },
      }),
    ).toEqual({
      status: 400,
      body: {
        code: 'provider_disabled',
        message: 'Provider (issuer "https://accounts.google.com") is not enabled',
      },
    });
    expect(
      await call('POST', '/token?grant_type=id_token', { body: { provider: 'google' } }),
    ).toEqual({
      status: 400,
      body: { error: 'invalid request', error_description: 'id_token required' },
    });
    expect(await call('POST', '/token?grant_type=web3', { body: { chain: 'solana' } })).toEqual({
      status: 422,
      body: { code: 'web3_provider_disabled', message: 'Web3 provider is disabled' },
    });
    expect(await call('POST', '/sso', { body: { domain: 'example.com' } })).toEqual({
      status: 404,
      body: { code: 'saml_provider_disabled', message: 'SAML 2.0 is disabled' },
    });

    const client = stack.client();
    const idToken = await client.auth.signInWithIdToken({ provider: 'google', token: 'x.y.z' });
    expect(idToken.error).toMatchObject({ status: 400, code: 'provider_disabled' });
    const sso = await client.auth.signInWithSSO({ domain: 'example.com' });
    expect(sso.error).toMatchObject({ status: 404, code: 'saml_provider_disabled' });
  });

  it('phone sign-ups and phone OTP: 400 phone_provider_disabled, as with no SMS provider', async () => {
    expect(
      await call('POST', '/signup', { body: { phone: '+15555550100', password: 'secret-123' } }),
    ).toEqual({
      status: 400,
      body: { code: 'phone_provider_disabled', message: 'Phone signups are disabled' },
    });
    expect(await call('POST', '/otp', { body: { phone: '+15555550100' } })).toEqual({
      status: 400,
      body: { code: 'phone_provider_disabled', message: 'Unsupported phone provider' },
    });
    expect(
      await call('POST', '/otp', {
        body: { phone: '+15555550100', email: uniqueEmail('both') },
      }),
    ).toEqual({
      status: 400,
      body: {
        code: 'validation_failed',
        message: 'Only an email address or phone number should be provided',
      },
    });
  });

  it('verify: an emailed code signs in with amr "otp"; an SMS code finds no user (403 otp_expired)', async () => {
    const email = uniqueEmail('otp');
    expect(await call('POST', '/otp', { body: { email } })).toEqual({ status: 200, body: {} });
    const code = /<code>(\d{6})<\/code>/.exec((await lastMailTo(email)).HTML)?.[1] ?? '';
    const verified = await call('POST', '/verify', { body: { type: 'email', email, token: code } });
    expect(verified.status).toBe(200);
    const claims = decodeJwt((verified.body as { access_token: string }).access_token);
    expect(claims.amr).toEqual([{ method: 'otp', timestamp: Math.floor(clock.now() / 1000) }]);

    const sms = { type: 'sms', phone: '+15555550100', token: '123456' };
    expect(await call('POST', '/verify', { body: sms })).toEqual({
      status: 403,
      body: { code: 'otp_expired', message: 'Token has expired or is invalid' },
    });
    expect(await call('POST', '/verify', { body: { ...sms, phone: 'not a phone' } })).toEqual({
      status: 400,
      body: { code: 'validation_failed', message: 'Invalid phone number format (E.164 required)' },
    });
  });

  it('secure password change: a day after sign-in the password changes only with the mailed nonce, once', async () => {
    const email = uniqueEmail('reauth');
    const signup = await call('POST', '/signup', { body: { email, password: 'first-pass-1' } });
    expect(signup.status).toBe(200);
    const first = signup.body as { access_token: string; refresh_token: string };
    // A recent sign-in changes the password without a nonce.
    expect(
      (await call('PUT', '/user', { token: first.access_token, body: { password: 'second-2' } }))
        .status,
    ).toBe(200);

    clock.advance(DAY_MS + 60_000);
    const refreshed = await call('POST', '/token?grant_type=refresh_token', {
      body: { refresh_token: first.refresh_token },
    });
    const token = (refreshed.body as { access_token: string }).access_token;
    expect(await call('PUT', '/user', { token, body: { password: 'third-pass-3' } })).toEqual({
      status: 400,
      body: {
        code: 'reauthentication_needed',
        message: 'Password update requires reauthentication',
      },
    });

    expect(await call('GET', '/reauthenticate', { token })).toEqual({ status: 200, body: {} });
    const mail = await lastMailTo(email);
    expect(mail.Subject).toBe('Confirm reauthentication');
    const nonce = /Enter the code: (\d{6})/.exec(mail.HTML)?.[1];
    expect(nonce).toMatch(/^\d{6}$/);
    // One mail per max_frequency.
    expect(await call('GET', '/reauthenticate', { token })).toMatchObject({
      status: 429,
      body: { code: 'over_email_send_rate_limit' },
    });

    const wrong = nonce === '000000' ? '111111' : '000000';
    const invalid = {
      status: 422,
      body: { code: 'reauthentication_not_valid', message: 'Nonce has expired or is invalid' },
    };
    expect(
      await call('PUT', '/user', { token, body: { password: 'third-pass-3', nonce: wrong } }),
    ).toEqual(invalid);
    expect(
      (await call('PUT', '/user', { token, body: { password: 'third-pass-3', nonce } })).status,
    ).toBe(200);
    expect(
      await call('PUT', '/user', { token, body: { password: 'fourth-pass-4', nonce } }),
    ).toEqual(invalid);
    const signedIn = await call('POST', '/token?grant_type=password', {
      body: { email, password: 'third-pass-3' },
    });
    expect(signedIn.status).toBe(200);
  });
});
