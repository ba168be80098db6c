// GoTrue's WebAuthn as hosted answers it, on both engines: a WebAuthn MFA factor enrolled,
// registered through its "create" challenge and then verified through "request" challenges
// (the session rises to aal2 with an `mfa/webauthn` amr entry), and passkeys: registration by
// a signed-in user, discoverable sign-in (amr `passkey`), list/rename/delete, the admin list
// and delete, a replayed or expired challenge and an unregistered authenticator refused.
// A software authenticator (tests/support/webauthn-authenticator.ts) answers the ceremonies.
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';

import { ENGINE_KINDS } from '../support/database';
import { TestClock } from '../support/devstack';
import { SoftwareWebAuthnAuthenticator } from '../support/webauthn-authenticator';
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

const RP_ID = 'localhost';
const ORIGIN = 'http://localhost:5173';

type Body = Record<string, unknown> & { options?: Record<string, unknown> };

describe.each(ENGINE_KINDS)('GoTrue WebAuthn conformance (%s)', (kind) => {
  const clock = new TestClock();
  const stack = devstackPerEngine(kind, {
    clock,
    auth: {
      mfaWebAuthnEnroll: true,
      mfaWebAuthnVerify: true,
      passkeyEnabled: true,
      webauthnRpDisplayName: 'Outpost tests',
      webauthnRpId: RP_ID,
      webauthnRpOrigins: [ORIGIN],
    },
  });

  async function call(method: string, path: string, init: { token?: string; body?: unknown } = {}) {
    const reply = await authCall<Body>(stack, method, path, {
      ...init,
      // The admin API is called as the official admin client does: the secret key both ways.
      apikey: init.token === stack.secretKey ? stack.secretKey : stack.publishableKey,
      headers: AUTH_CLIENT_HEADERS,
    });
    return statusAndBody(reply);
  }

  function signUp(): Promise<Session> {
    return signUpWithPassword<Session>(
      stack,
      uniqueEmail('webauthn'),
      'webauthn-password-1',
      AUTH_CLIENT_HEADERS,
    );
  }

  function errorOf(body: Body) {
    return { code: body.code, msg: body.message };
  }

  describe('WebAuthn MFA factor', () => {
    it('enrols, registers through "create", then verifies through "request" to aal2', async () => {
      const session = await signUp();
      const token = session.access_token;
      const enrolled = await call('POST', '/factors', {
        token,
        body: { factor_type: 'webauthn', friendly_name: 'Key' },
      });
      expect(enrolled.status).toBe(200);
      expect(Object.keys(enrolled.body).sort()).toEqual(['friendly_name', 'id', 'type']);
      expect(enrolled.body.id).toMatch(UUID);
      expect(enrolled.body).toMatchObject({ type: 'webauthn', friendly_name: 'Key' });
      const factorId = enrolled.body.id as string;

      const create = await call('POST', `/factors/${factorId}/challenge`, { token, body: {} });
      expect(create.status).toBe(200);
      const webauthn = create.body.webauthn as { type: string; credential_options: Body };
      expect(webauthn.type).toBe('create');
      const publicKey = webauthn.credential_options.publicKey as {
        challenge: string;
        rp: { id: string; name: string };
        user: { id: string };
      };
      expect(publicKey.rp).toEqual({ id: RP_ID, name: 'Outpost tests' });
      // GoTrue's WebAuthnID: the user's UUID as text.
      expect(Buffer.from(publicKey.user.id, 'base64url').toString()).toBe(session.user.id);
      expect(create.body.expires_at).toBe(Math.floor(clock.now() / 1000) + 300);

      // A verify without the webauthn object is refused before the challenge is read.
      const bare = await call('POST', `/factors/${factorId}/verify`, {
        token,
        body: { challenge_id: create.body.id },
      });
      expect(bare.status).toBe(400);
      expect(errorOf(bare.body)).toEqual({
        code: 'validation_failed',
        msg: 'WebAuthn config required',
      });

      const key = new SoftwareWebAuthnAuthenticator(RP_ID, ORIGIN);
      const registered = await call('POST', `/factors/${factorId}/verify`, {
        token,
        body: {
          challenge_id: create.body.id,
          webauthn: { type: 'create', credential_response: key.create(publicKey) },
        },
      });
      expect(registered.status).toBe(200);
      const claims = decodeJwt(registered.body.access_token as string);
      expect(claims.aal).toBe('aal2');
      expect((claims.amr as { method: string }[]).map((entry) => entry.method)).toContain(
        'mfa/webauthn',
      );
      const aal2Token = registered.body.access_token as string;

      const request = await call('POST', `/factors/${factorId}/challenge`, {
        token: aal2Token,
        body: {},
      });
      expect(request.status).toBe(200);
      const requested = request.body.webauthn as { type: string; credential_options: Body };
      expect(requested.type).toBe('request');
      const options = requested.credential_options.publicKey as {
        challenge: string;
        allowCredentials: { id: string }[];
      };
      expect(options.allowCredentials.map((entry) => entry.id)).toEqual([
        key.credentialId.toString('base64url'),
      ]);

      // Another authenticator's assertion fails validation (a 500 in GoTrue).
      const stranger = new SoftwareWebAuthnAuthenticator(RP_ID, ORIGIN, key.credentialId);
      const forged = await call('POST', `/factors/${factorId}/verify`, {
        token: aal2Token,
        body: {
          challenge_id: request.body.id,
          webauthn: { type: 'request', credential_response: stranger.get(options) },
        },
      });
      expect(forged.status).toBe(500);
      expect(errorOf(forged.body)).toEqual({
        code: 'unexpected_failure',
        msg: 'Failed to validate WebAuthn MFA response',
      });

      // Nor does registering some new key against a "request" challenge pass a verified factor.
      const newKey = new SoftwareWebAuthnAuthenticator(RP_ID, ORIGIN).create({
        challenge: options.challenge,
        user: { id: Buffer.from(session.user.id).toString('base64url') },
      });
      const swapped = await call('POST', `/factors/${factorId}/verify`, {
        token: aal2Token,
        body: {
          challenge_id: request.body.id,
          webauthn: { type: 'create', credential_response: newKey },
        },
      });
      expect(swapped.status).toBe(500);
      expect(errorOf(swapped.body).code).toBe('unexpected_failure');

      const again = await call('POST', `/factors/${factorId}/challenge`, {
        token: aal2Token,
        body: {},
      });
      const againOptions = (again.body.webauthn as { credential_options: Body }).credential_options
        .publicKey as { challenge: string };
      const verified = await call('POST', `/factors/${factorId}/verify`, {
        token: aal2Token,
        body: {
          challenge_id: again.body.id,
          webauthn: { type: 'request', credential_response: key.get(againOptions) },
        },
      });
      expect(verified.status).toBe(200);
      expect(decodeJwt(verified.body.access_token as string).aal).toBe('aal2');
    });
  });

  describe('passkeys', () => {
    let owner: Session;
    const key = new SoftwareWebAuthnAuthenticator(RP_ID, ORIGIN);
    let passkeyId: string;

    async function register(session: Session, authenticator: SoftwareWebAuthnAuthenticator) {
      const options = await call('POST', '/passkeys/registration/options', {
        token: session.access_token,
        body: {},
      });
      expect(options.status).toBe(200);
      const credential = authenticator.create(
        options.body.options as { challenge: string; user: { id: string } },
      );
      return call('POST', '/passkeys/registration/verify', {
        token: session.access_token,
        body: { challenge_id: options.body.challenge_id, credential },
      });
    }

    async function signInWith(authenticator: SoftwareWebAuthnAuthenticator) {
      const options = await call('POST', '/passkeys/authentication/options', { body: {} });
      expect(options.status).toBe(200);
      const assertion = authenticator.get(options.body.options as { challenge: string });
      const body = { challenge_id: options.body.challenge_id, credential: assertion };
      return { body, result: await call('POST', '/passkeys/authentication/verify', { body }) };
    }

    beforeAll(async () => {
      owner = await signUp();
      const created = await register(owner, key);
      expect(created.status).toBe(200);
      passkeyId = created.body.id as string;
    });

    it('registration options: discoverable ES256 creation options; a session is required', async () => {
      const { status, body } = await call('POST', '/passkeys/registration/options', {
        token: owner.access_token,
        body: {},
      });
      expect(status).toBe(200);
      expect(body.challenge_id).toMatch(UUID);
      expect(body.expires_at).toBe(Math.floor(clock.now() / 1000) + 300);
      const options = body.options as Record<string, unknown> & {
        rp: { id: string };
        authenticatorSelection: { residentKey: string };
        pubKeyCredParams: { alg: number }[];
        excludeCredentials: { id: string }[];
      };
      expect(options.rp.id).toBe(RP_ID);
      expect(options.authenticatorSelection.residentKey).toBe('required');
      expect(options.pubKeyCredParams.map((param) => param.alg)).toContain(-7);
      expect(options.excludeCredentials.map((entry) => entry.id)).toEqual([
        key.credentialId.toString('base64url'),
      ]);

      const anonymous = await call('POST', '/passkeys/registration/options', { body: {} });
      expect(anonymous.status).toBe(401);
    });

    it('registration verify: the passkey, named "Passkey"; an unknown challenge refused', async () => {
      const first = await call('GET', '/passkeys', { token: owner.access_token });
      const rows = first.body as unknown as Record<string, string>[];
      expect(rows.map((row) => Object.keys(row).sort())).toEqual([
        ['created_at', 'friendly_name', 'id'],
      ]);
      expect(rows[0]).toMatchObject({ id: passkeyId, friendly_name: 'Passkey' });
      expect(Number.isNaN(Date.parse(rows[0]?.created_at ?? ''))).toBe(false);
      const other = new SoftwareWebAuthnAuthenticator(RP_ID, ORIGIN);
      const options = await call('POST', '/passkeys/registration/options', {
        token: owner.access_token,
        body: {},
      });
      const unknown = await call('POST', '/passkeys/registration/verify', {
        token: owner.access_token,
        body: {
          challenge_id: '00000000-0000-0000-0000-000000000000',
          credential: other.create(
            options.body.options as { challenge: string; user: { id: string } },
          ),
        },
      });
      expect(unknown.status).toBe(400);
      expect(errorOf(unknown.body)).toEqual({
        code: 'webauthn_challenge_not_found',
        msg: 'Challenge not found or already used',
      });
    });

    it('an expired registration challenge is refused', async () => {
      const options = await call('POST', '/passkeys/registration/options', {
        token: owner.access_token,
        body: {},
      });
      const credential = new SoftwareWebAuthnAuthenticator(RP_ID, ORIGIN).create(
        options.body.options as { challenge: string; user: { id: string } },
      );
      clock.advance(301_000);
      const late = await call('POST', '/passkeys/registration/verify', {
        token: owner.access_token,
        body: { challenge_id: options.body.challenge_id, credential },
      });
      expect(late.status).toBe(400);
      expect(errorOf(late.body)).toEqual({
        code: 'webauthn_challenge_expired',
        msg: 'Challenge has expired',
      });
    });

    it('rename: the new name answered and listed; an unknown id is a 404', async () => {
      const renamed = await call('PATCH', `/passkeys/${passkeyId}`, {
        token: owner.access_token,
        body: { friendly_name: 'Laptop' },
      });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toMatchObject({ id: passkeyId, friendly_name: 'Laptop' });
      const unknown = await call('PATCH', '/passkeys/00000000-0000-0000-0000-000000000000', {
        token: owner.access_token,
        body: { friendly_name: 'nope' },
      });
      expect(unknown.status).toBe(404);
      expect(errorOf(unknown.body)).toEqual({
        code: 'validation_failed',
        msg: 'Passkey not found',
      });
    });

    it('sign-in: discoverable options, a session with amr "passkey", last_used_at set', async () => {
      const options = await call('POST', '/passkeys/authentication/options', { body: {} });
      expect(options.status).toBe(200);
      expect(
        (options.body.options as { allowCredentials?: unknown[] }).allowCredentials ?? [],
      ).toEqual([]);
      const { body, result } = await signInWith(key);
      expect(result.status).toBe(200);
      expect((result.body.user as { id: string }).id).toBe(owner.user.id);
      const claims = decodeJwt(result.body.access_token as string);
      expect((claims.amr as { method: string }[]).map((entry) => entry.method)).toEqual([
        'passkey',
      ]);
      const listed = await call('GET', '/passkeys', { token: owner.access_token });
      expect((listed.body as unknown as { last_used_at?: string }[])[0]?.last_used_at).toEqual(
        expect.any(String),
      );

      // The same challenge again: consumed by the first verify.
      const replay = await call('POST', '/passkeys/authentication/verify', { body });
      expect(replay.status).toBe(400);
      expect(errorOf(replay.body)).toEqual({
        code: 'webauthn_challenge_not_found',
        msg: 'Challenge not found or already used',
      });
    });

    it('an authenticator never registered is refused', async () => {
      const stranger = new SoftwareWebAuthnAuthenticator(RP_ID, ORIGIN);
      stranger.userHandle = Buffer.from(owner.user.id).toString('base64url');
      const { result } = await signInWith(stranger);
      expect(result.status).toBe(400);
      expect(errorOf(result.body)).toEqual({
        code: 'webauthn_verification_failed',
        msg: 'Credential verification failed',
      });
    });

    it('admin list and delete; the user deletes the last one and can no longer sign in', async () => {
      const second = await register(owner, new SoftwareWebAuthnAuthenticator(RP_ID, ORIGIN));
      expect(second.status).toBe(200);
      const admin = { token: stack.secretKey };
      const base = `/admin/users/${owner.user.id}/passkeys`;
      const before = await call('GET', base, admin);
      expect(before.status).toBe(200);
      expect((before.body as unknown as { id: string }[]).map((row) => row.id).sort()).toEqual(
        [passkeyId, second.body.id as string].sort(),
      );
      const removed = await call('DELETE', `${base}/${second.body.id as string}`, admin);
      expect(removed.status).toBe(204);
      const byUser = await call('GET', base, { token: owner.access_token });
      expect(byUser.status).toBe(403);

      const deleted = await call('DELETE', `/passkeys/${passkeyId}`, { token: owner.access_token });
      expect(deleted.status).toBe(204);
      const listed = await call('GET', '/passkeys', { token: owner.access_token });
      expect(listed.body).toEqual([]);
      const { result } = await signInWith(key);
      expect(result.status).toBe(400);
      expect(errorOf(result.body).code).toBe('webauthn_verification_failed');
    });
  });

  // Last: restarts the devstack with the template's settings (both off, no relying party).
  describe('switched off', () => {
    it('passkeys answer 404 passkey_disabled and WebAuthn enrolment 422', async () => {
      await stack.restart({ clock, auth: {} });
      const options = await call('POST', '/passkeys/authentication/options', { body: {} });
      expect(options.status).toBe(404);
      expect(errorOf(options.body)).toEqual({
        code: 'passkey_disabled',
        msg: 'Passkeys are disabled',
      });
      const session = await signUp();
      const listed = await call('GET', '/passkeys', { token: session.access_token });
      expect(listed.status).toBe(404);
      const enrolled = await call('POST', '/factors', {
        token: session.access_token,
        body: { factor_type: 'webauthn' },
      });
      expect(enrolled.status).toBe(422);
      expect(errorOf(enrolled.body)).toEqual({
        code: 'mfa_webauthn_enroll_not_enabled',
        msg: 'MFA enroll is disabled for WebAuthn',
      });
    });
  });
});
