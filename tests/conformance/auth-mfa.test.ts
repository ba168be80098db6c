// GoTrue's MFA as hosted answers it, on both engines: enrolling a TOTP factor, challenging and
// verifying it (the session rises to aal2 with a `totp` amr entry), unenrolling, the AAL
// rules around them, the factor limits and names, and the factor types switched off. Codes
// are computed from the enrolled secret at the devstack's (injected) time.
import { decodeJwt } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';

import { totpCode } from '../../devstack/auth/totp';
import { ENGINE_KINDS } from '../support/database';
import { TestClock } from '../support/devstack';
import {
  AUTH_CLIENT_HEADERS,
  authCall,
  devstackPerEngine,
  signUpWithPassword,
  statusAndBody,
  uniqueEmail,
  UUID,
  type Session,
} from './support';

const MAX_FACTORS = 3;

describe.each(ENGINE_KINDS)('GoTrue MFA conformance (%s)', (kind) => {
  const clock = new TestClock();
  const stack = devstackPerEngine(kind, {
    clock,
    auth: {
      mfaTotpEnroll: true,
      mfaTotpVerify: true,
      mfaMaxEnrolledFactors: MAX_FACTORS,
      enableAnonymousSignIns: true,
      siteUrl: 'http://127.0.0.1:3000',
    },
  });
  beforeEach(() => clock.advance(60_000));

  /** A request as supabase-js's auth client sends it, with the publishable key. */
  async function call(method: string, path: string, init: { token?: string; body?: unknown } = {}) {
    const reply = await authCall(stack, method, path, { ...init, headers: AUTH_CLIENT_HEADERS });
    return statusAndBody(reply);
  }

  async function signUp(): Promise<Session & { email: string }> {
    const email = uniqueEmail('mfa');
    const session = await signUpWithPassword<Session>(
      stack,
      email,
      'mfa-password-1',
      AUTH_CLIENT_HEADERS,
    );
    return { ...session, email };
  }

  async function signIn(email: string): Promise<Session> {
    const { status, body } = await call('POST', '/token?grant_type=password', {
      body: { email, password: 'mfa-password-1' },
    });
    expect(status).toBe(200);
    return body as unknown as Session;
  }

  async function enrollTotp(token: string, friendlyName?: string) {
    const { status, body } = await call('POST', '/factors', {
      token,
      body: { factor_type: 'totp', ...(friendlyName ? { friendly_name: friendlyName } : {}) },
    });
    expect(status).toBe(200);
    const totp = body.totp as { secret: string; uri: string };
    return { id: body.id as string, secret: totp.secret, body };
  }

  /** Enrols, challenges and verifies a factor: the session answered is aal2. */
  async function verifiedFactor(token: string) {
    const factor = await enrollTotp(token, 'first');
    const challenge = await call('POST', `/factors/${factor.id}/challenge`, { token });
    const verified = await call('POST', `/factors/${factor.id}/verify`, {
      token,
      body: { challenge_id: challenge.body.id, code: totpCode(factor.secret, clock.now()) },
    });
    expect(verified.status).toBe(200);
    return { factor, session: verified.body as unknown as Session };
  }

  it('enroll totp: 200 with the factor id, an unverified factor, the secret, its otpauth URI and its QR code', async () => {
    const user = await signUp();
    const { id, secret, body } = await enrollTotp(user.access_token, 'phone app');
    expect(body).toEqual({
      id: expect.stringMatching(UUID) as unknown,
      type: 'totp',
      friendly_name: 'phone app',
      totp: {
        // A bare SVG (supabase-js adds the data: prefix), as GoTrue sends it.
        qr_code: expect.stringMatching(
          /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]* viewBox="0 0 \d+ \d+"/,
        ) as unknown,
        secret: expect.stringMatching(/^[A-Z2-7]{32}$/) as unknown,
        uri: `otpauth://totp/127.0.0.1:3000:${user.email}?algorithm=SHA1&digits=6&issuer=127.0.0.1%3A3000&period=30&secret=${secret}`,
      },
    });
    const me = await call('GET', '/user', { token: user.access_token });
    expect(me.body.factors).toEqual([
      {
        id,
        created_at: expect.any(String) as unknown,
        updated_at: expect.any(String) as unknown,
        status: 'unverified',
        friendly_name: 'phone app',
        factor_type: 'totp',
        phone: '',
        last_challenged_at: null,
      },
    ]);
  });

  it('enroll refuses: no Bearer (401), anonymous (403), unknown type (400), phone and webauthn off (422), a taken name (422)', async () => {
    expect(await call('POST', '/factors', { body: { factor_type: 'totp' } })).toEqual({
      status: 401,
      body: { code: 'no_authorization', message: 'This endpoint requires a valid Bearer token' },
    });
    const user = await signUp();
    const token = user.access_token;
    expect(await call('POST', '/factors', { token, body: { factor_type: 'sms' } })).toEqual({
      status: 400,
      body: {
        code: 'validation_failed',
        message: 'factor_type needs to be totp, phone, or webauthn',
      },
    });
    expect(
      await call('POST', '/factors', {
        token,
        body: { factor_type: 'phone', phone: '+15555550100' },
      }),
    ).toEqual({
      status: 422,
      body: { code: 'mfa_phone_enroll_not_enabled', message: 'MFA enroll is disabled for Phone' },
    });
    expect(await call('POST', '/factors', { token, body: { factor_type: 'webauthn' } })).toEqual({
      status: 422,
      body: {
        code: 'mfa_webauthn_enroll_not_enabled',
        message: 'MFA enroll is disabled for WebAuthn',
      },
    });
    await enrollTotp(token, 'twin');
    expect(
      await call('POST', '/factors', {
        token,
        body: { factor_type: 'totp', friendly_name: 'twin' },
      }),
    ).toEqual({
      status: 422,
      body: {
        code: 'mfa_factor_name_conflict',
        message: 'A factor with the friendly name "twin" for this user already exists',
      },
    });
  });

  it('an anonymous user may not enroll (403), nor set a password without an email (422)', async () => {
    const anonymous = await call('POST', '/signup', { body: {} });
    expect(anonymous.status).toBe(200);
    const token = (anonymous.body as unknown as Session).access_token;
    expect(await call('POST', '/factors', { token, body: { factor_type: 'totp' } })).toEqual({
      status: 403,
      body: {
        code: 'no_authorization',
        message: 'Anonymous user not allowed to perform these actions',
      },
    });
    expect(await call('PUT', '/user', { token, body: { password: 'anon-password-1' } })).toEqual({
      status: 422,
      body: {
        code: 'validation_failed',
        message: 'Updating password of an anonymous user without an email or phone is not allowed',
      },
    });
  });

  it('at most max_enrolled_factors factors (422 too_many_enrolled_mfa_factors)', async () => {
    const { access_token: token } = await signUp();
    for (let i = 0; i < MAX_FACTORS; i += 1) await enrollTotp(token, `factor ${i}`);
    expect(await call('POST', '/factors', { token, body: { factor_type: 'totp' } })).toEqual({
      status: 422,
      body: {
        code: 'too_many_enrolled_mfa_factors',
        message: 'Maximum number of verified factors reached, unenroll to continue',
      },
    });
  });

  it('challenge: 200 with id, type and expiry in 300 s; a bad or foreign factor id is 404', async () => {
    const owner = await signUp();
    const { id } = await enrollTotp(owner.access_token);
    const challenge = await call('POST', `/factors/${id}/challenge`, { token: owner.access_token });
    expect(challenge).toEqual({
      status: 200,
      body: {
        id: expect.stringMatching(UUID) as unknown,
        type: 'totp',
        expires_at: Math.floor(clock.now() / 1000) + 300,
      },
    });
    const stranger = await signUp();
    expect(
      await call('POST', `/factors/${id}/challenge`, { token: stranger.access_token }),
    ).toEqual({ status: 404, body: { code: 'mfa_factor_not_found', message: 'Factor not found' } });
    expect(
      await call('POST', '/factors/not-a-uuid/challenge', { token: owner.access_token }),
    ).toEqual({
      status: 404,
      body: { code: 'validation_failed', message: 'factor_id must be an UUID' },
    });
  });

  it('verify: a wrong code is 422, the right one answers an aal2 session with a totp amr entry, once', async () => {
    const user = await signUp();
    const token = user.access_token;
    const factor = await enrollTotp(token);
    const challenge = await call('POST', `/factors/${factor.id}/challenge`, { token });
    const challengeId = challenge.body.id as string;
    // The second factor comes a moment after the password (amr lists the newest first).
    clock.advance(1_000);
    const good = totpCode(factor.secret, clock.now());
    const wrong = good === '000000' ? '111111' : '000000';

    expect(
      await call('POST', `/factors/${factor.id}/verify`, {
        token,
        body: { challenge_id: challengeId, code: wrong },
      }),
    ).toEqual({
      status: 422,
      body: { code: 'mfa_verification_failed', message: 'Invalid TOTP code entered' },
    });
    expect(
      await call('POST', `/factors/${factor.id}/verify`, {
        token,
        body: { challenge_id: challengeId, code: '' },
      }),
    ).toEqual({
      status: 400,
      body: { code: 'validation_failed', message: 'Code needs to be non-empty' },
    });

    const verified = await call('POST', `/factors/${factor.id}/verify`, {
      token,
      body: { challenge_id: challengeId, code: good },
    });
    expect(verified.status).toBe(200);
    const session = verified.body as unknown as Session;
    expect(session).toMatchObject({ token_type: 'bearer', expires_in: 3600 });
    expect(session.refresh_token).not.toBe(user.refresh_token);
    const claims = decodeJwt(session.access_token);
    expect(claims.aal).toBe('aal2');
    expect(claims.session_id).toBe(decodeJwt(token).session_id);
    expect((claims.amr as { method: string }[]).map((entry) => entry.method)).toEqual([
      'totp',
      'password',
    ]);
    expect(session.user.factors).toMatchObject([{ id: factor.id, status: 'verified' }]);

    // A challenge is good for one verification.
    expect(
      await call('POST', `/factors/${factor.id}/verify`, {
        token: session.access_token,
        body: { challenge_id: challengeId, code: good },
      }),
    ).toEqual({
      status: 422,
      body: {
        code: 'mfa_ip_address_mismatch',
        message: 'Challenge and verify IP addresses mismatch.',
      },
    });
    // The refresh token of the aal2 session keeps it at aal2.
    const refreshed = await call('POST', '/token?grant_type=refresh_token', {
      body: { refresh_token: session.refresh_token },
    });
    expect(decodeJwt((refreshed.body as unknown as Session).access_token).aal).toBe('aal2');
  });

  it('a challenge expires after 300 s (422 mfa_challenge_expired)', async () => {
    const { access_token: token } = await signUp();
    const factor = await enrollTotp(token);
    const challenge = await call('POST', `/factors/${factor.id}/challenge`, { token });
    clock.advance(301_000);
    expect(
      await call('POST', `/factors/${factor.id}/verify`, {
        token,
        body: { challenge_id: challenge.body.id, code: totpCode(factor.secret, clock.now()) },
      }),
    ).toEqual({
      status: 422,
      body: {
        code: 'mfa_challenge_expired',
        message: `MFA challenge ${String(challenge.body.id)} has expired, verify against another challenge or create a new challenge.`,
      },
    });
  });

  it('with a verified factor an aal1 session may not enroll, unenroll, or change the password', async () => {
    const user = await signUp();
    const { factor, session } = await verifiedFactor(user.access_token);
    // A new sign-in is aal1 until it verifies a factor.
    const aal1 = await signIn(user.email);
    expect(decodeJwt(aal1.access_token).aal).toBe('aal1');
    const token = aal1.access_token;
    expect(await call('POST', '/factors', { token, body: { factor_type: 'totp' } })).toEqual({
      status: 403,
      body: { code: 'insufficient_aal', message: 'AAL2 required to enroll a new factor' },
    });
    expect(await call('DELETE', `/factors/${factor.id}`, { token })).toEqual({
      status: 422,
      body: { code: 'insufficient_aal', message: 'AAL2 required to unenroll verified factor' },
    });
    expect(await call('PUT', '/user', { token, body: { password: 'another-password-2' } })).toEqual(
      {
        status: 401,
        body: {
          code: 'insufficient_aal',
          message: 'AAL2 session is required to update email or password when MFA is enabled.',
        },
      },
    );

    // From the aal2 session: unenrolled, and the session is aal1 again.
    expect(await call('DELETE', `/factors/${factor.id}`, { token: session.access_token })).toEqual({
      status: 200,
      body: { id: factor.id },
    });
    const refreshed = await call('POST', '/token?grant_type=refresh_token', {
      body: { refresh_token: session.refresh_token },
    });
    const after = refreshed.body as unknown as Session;
    expect(decodeJwt(after.access_token).aal).toBe('aal1');
    expect(after.user.factors).toBeUndefined();
  });

  it('supabase-js: getAuthenticatorAssuranceLevel reads aal1 → aal2 before the factor is verified, aal2 after', async () => {
    const user = await signUp();
    const client = stack.client();
    await client.auth.signInWithPassword({ email: user.email, password: 'mfa-password-1' });
    const enrolled = await client.auth.mfa.enroll({ factorType: 'totp' });
    expect(enrolled.error).toBeNull();
    const factorId = enrolled.data?.id ?? '';
    const secret = enrolled.data?.totp.secret ?? '';
    const verified = await client.auth.mfa.challengeAndVerify({
      factorId,
      code: totpCode(secret, clock.now()),
    });
    expect(verified.error).toBeNull();
    const levels = await client.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(levels.data).toMatchObject({ currentLevel: 'aal2', nextLevel: 'aal2' });
    const listed = await client.auth.mfa.listFactors();
    expect(listed.data?.totp.map((f) => f.id)).toEqual([factorId]);

    const other = stack.client();
    await other.auth.signInWithPassword({ email: user.email, password: 'mfa-password-1' });
    const before = await other.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(before.data).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal2' });
  });
});
