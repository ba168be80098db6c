// /auth/v1 through unmodified supabase-js (and a few raw requests for what the client hides):
// sign-up, sign-in, errors, refresh-token rotation and reuse detection, user updates,
// sign-out scopes, anonymous sign-in, the access-token claims and their expiry, on both
// engines. Time is the devstack's injected clock: expiry and the reuse interval are reached by
// moving it, never by waiting.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { SupabaseClient } from '@supabase/supabase-js';
import { decodeJwt } from 'jose';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { parseAuthConfig } from '../../devstack/auth/config';
import { REPO_ROOT } from '../../devstack/schema-files';
import { ENGINE_KINDS } from '../support/database';
import {
  devstackPerEngine,
  SEED,
  signedInDemoClient,
  TestClock,
  uniqueEmail,
} from '../support/devstack';

/** supabase/config.toml's [auth] settings, which the devstack runs with. */
const CONFIG = parseAuthConfig(readFileSync(join(REPO_ROOT, 'supabase', 'config.toml'), 'utf8'));
const REUSE_INTERVAL_MS = CONFIG.refreshTokenReuseIntervalSec * 1000;
const ACCESS_TOKEN_TTL_MS = CONFIG.jwtExpirySec * 1000;

describe.each(ENGINE_KINDS)('devstack auth (%s)', (kind) => {
  const clock = new TestClock();

  const stack = devstackPerEngine(kind, { clock });
  // Each test starts a second later: a clock that stood still would never refill the sign-in
  // rate-limit bucket, which holds 30 requests (GoTrue's burst).
  beforeEach(() => clock.advance(1_000));

  /** A raw request to /auth/v1 with the anon key, as supabase-js would send it. */
  function raw(
    path: string,
    init: { method?: string; body?: string; token?: string; apiVersion?: boolean } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = {
      apikey: stack.publishableKey,
      Authorization: `Bearer ${init.token ?? stack.publishableKey}`,
      'Content-Type': 'application/json',
    };
    if (init.apiVersion !== false) headers['X-Supabase-Api-Version'] = '2024-01-01';
    return fetch(`${stack.url}/auth/v1${path}`, {
      method: init.method ?? 'GET',
      headers,
      ...(init.body === undefined ? {} : { body: init.body }),
    });
  }

  async function signUp(client: SupabaseClient, email: string, password = 'secret-123') {
    const { data, error } = await client.auth.signUp({
      email,
      password,
      options: { data: { display_name: 'Tester' } },
    });
    expect(error).toBeNull();
    if (!data.session || !data.user) throw new Error('sign-up returned no session');
    return { session: data.session, user: data.user };
  }

  it('signs up with autoconfirm: a session, metadata and a profile row', async () => {
    const client = stack.client();
    const email = uniqueEmail('signup');
    const { session, user } = await signUp(client, email);
    expect(user.email).toBe(email);
    expect(user.user_metadata).toEqual({ display_name: 'Tester' });
    expect(user.app_metadata).toEqual({ provider: 'email', providers: ['email'] });
    expect(user.email_confirmed_at).toEqual(expect.any(String));
    expect(user.identities?.[0]).toMatchObject({ provider: 'email', user_id: user.id });
    expect(user.is_anonymous).toBe(false);
    expect(session.token_type).toBe('bearer');
    expect(session.expires_in).toBe(CONFIG.jwtExpirySec);
    expect(session.refresh_token.length).toBeGreaterThanOrEqual(12);

    const { rows } = await stack.db.query<{ display_name: string }>(
      'select display_name from public.profiles where id = $1',
      [user.id],
    );
    expect(rows[0]?.display_name).toBe('Tester');

    const { data: me } = await client.auth.getUser();
    expect(me.user?.id).toBe(user.id);
  });

  it('signs in with a password; a wrong password or unknown email is invalid_credentials', async () => {
    const email = uniqueEmail('signin');
    await signUp(stack.client(), email, 'right-password');

    const client = stack.client();
    const ok = await client.auth.signInWithPassword({ email, password: 'right-password' });
    expect(ok.error).toBeNull();
    expect(ok.data.user?.email).toBe(email);

    const wrong = await stack.client().auth.signInWithPassword({ email, password: 'nope-nope' });
    expect(wrong.error?.code).toBe('invalid_credentials');
    expect(wrong.error?.status).toBe(400);
    expect(wrong.error?.message).toBe('Invalid login credentials');

    const unknown = await stack
      .client()
      .auth.signInWithPassword({ email: uniqueEmail('ghost'), password: 'whatever' });
    expect(unknown.error?.code).toBe('invalid_credentials');
  });

  it('refuses weak passwords, duplicates and invalid input with GoTrue errors', async () => {
    const client = stack.client();
    const weak = await client.auth.signUp({ email: uniqueEmail('weak'), password: '12345' });
    expect(weak.error?.name).toBe('AuthWeakPasswordError');
    expect(weak.error?.status).toBe(422);
    expect(weak.error?.code).toBe('weak_password');
    expect(weak.error && 'reasons' in weak.error ? weak.error.reasons : undefined).toEqual([
      'length',
    ]);

    const email = uniqueEmail('dup');
    await signUp(stack.client(), email);
    const dup = await stack.client().auth.signUp({ email, password: 'secret-123' });
    expect(dup.error?.code).toBe('user_already_exists');
    expect(dup.error?.status).toBe(422);

    const badEmail = await stack
      .client()
      .auth.signUp({ email: 'not-an-email', password: 'x1234567' });
    expect(badEmail.error?.code).toBe('validation_failed');
    expect(badEmail.error?.status).toBe(400);

    const noPassword = await raw('/signup', {
      method: 'POST',
      body: JSON.stringify({ email: uniqueEmail('nopw') }),
    });
    expect(noPassword.status).toBe(400);
    expect(await noPassword.json()).toEqual({
      code: 'validation_failed',
      message: 'Signup requires a valid password',
    });
  });

  it('answers errors in the 2024-01-01 shape with its header, or the old shape without', async () => {
    const body = JSON.stringify({ email: 'nobody@example.com', password: 'wrong-one' });
    const modern = await raw('/token?grant_type=password', { method: 'POST', body });
    expect(modern.status).toBe(400);
    expect(modern.headers.get('x-supabase-api-version')).toBe('2024-01-01');
    expect(await modern.json()).toEqual({
      code: 'invalid_credentials',
      message: 'Invalid login credentials',
    });

    const old = await raw('/token?grant_type=password', {
      method: 'POST',
      body,
      apiVersion: false,
    });
    expect(old.status).toBe(400);
    expect(old.headers.get('x-supabase-api-version')).toBeNull();
    expect(await old.json()).toEqual({
      code: 400,
      error_code: 'invalid_credentials',
      msg: 'Invalid login credentials',
    });

    const weak = await raw('/signup', {
      method: 'POST',
      body: JSON.stringify({ email: uniqueEmail('weak2'), password: 'abc' }),
      apiVersion: false,
    });
    expect(weak.status).toBe(422);
    expect(await weak.json()).toMatchObject({
      error_code: 'weak_password',
      weak_password: { reasons: ['length'] },
    });
  });

  it('applies the gateway key rule and survives malformed bodies', async () => {
    const none = await fetch(`${stack.url}/auth/v1/settings`);
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({ message: 'No API key found in request' });

    const bad = await fetch(`${stack.url}/auth/v1/settings`, { headers: { apikey: 'nope' } });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toEqual({ message: 'Invalid API key' });

    const settings = await raw('/settings');
    expect(settings.status).toBe(200);
    expect(await settings.json()).toMatchObject({
      mailer_autoconfirm: true,
      disable_signup: false,
      // supabase/config.toml: enable_anonymous_sign_ins = false
      external: { email: true, anonymous_users: false },
    });
    const health = await raw('/health');
    expect(health.status).toBe(200);

    for (const body of ['{not json', '[1,2]', '"text"', '{"email": 5, "password": []}']) {
      const res = await raw('/signup', { method: 'POST', body });
      expect(res.status).toBe(400);
      const json: unknown = await res.json();
      expect(json).toMatchObject({
        code: expect.stringMatching(/^(bad_json|validation_failed)$/) as unknown,
      });
    }
    // Postgres text and jsonb cannot hold NUL: a 400, not a 500.
    const nul = await raw('/signup', {
      method: 'POST',
      body: JSON.stringify({
        email: uniqueEmail('nul'),
        password: 'secret-123',
        data: { a: '\u0000' },
      }),
    });
    expect(nul.status).toBe(400);
    const nulLogin = await raw('/token?grant_type=password', {
      method: 'POST',
      body: JSON.stringify({ email: 'a\u0000@example.com', password: 'secret-123' }),
    });
    expect(nulLogin.status).toBe(400);
    const unknownRoute = await raw('/nope');
    expect(unknownRoute.status).toBe(404);
    const grant = await raw('/token?grant_type=magic', { method: 'POST', body: '{}' });
    expect(grant.status).toBe(400);
    const huge = await raw('/token?grant_type=password', {
      method: 'POST',
      body: JSON.stringify({ email: `${'a'.repeat(100_000)}@example.com`, password: 'x' }),
    });
    expect(huge.status).toBe(400);
  });

  it('rotates refresh tokens and detects reuse after the reuse interval', async () => {
    const client = stack.client();
    const { session: first } = await signUp(client, uniqueEmail('refresh'));
    const tokenA = first.refresh_token;

    const refreshed = await client.auth.refreshSession();
    expect(refreshed.error).toBeNull();
    const tokenB = refreshed.data.session?.refresh_token;
    expect(tokenB).toBeDefined();
    expect(tokenB).not.toBe(tokenA);
    const claimsA = decodeJwt(first.access_token);
    const claimsB = decodeJwt(refreshed.data.session?.access_token ?? '');
    expect(claimsB.session_id).toBe(claimsA.session_id);

    // A is the parent of the active token: a client that lost the answer gets B back (GoTrue).
    const retry = await raw('/token?grant_type=refresh_token', {
      method: 'POST',
      body: JSON.stringify({ refresh_token: tokenA }),
    });
    expect(retry.status).toBe(200);
    expect(((await retry.json()) as { refresh_token: string }).refresh_token).toBe(tokenB);

    const again = await client.auth.refreshSession();
    expect(again.error).toBeNull();
    const tokenC = again.data.session?.refresh_token ?? '';
    expect(tokenC).not.toBe(tokenB);

    // Past the reuse interval, A (no longer the active token's parent) is refused, and the
    // whole session's tokens are revoked.
    clock.advance(REUSE_INTERVAL_MS + 1_000);
    const reuse = await stack.client().auth.refreshSession({ refresh_token: tokenA });
    expect(reuse.error?.code).toBe('refresh_token_already_used');
    expect(reuse.error?.status).toBe(400);
    clock.advance(REUSE_INTERVAL_MS + 1_000);
    const afterRevoke = await stack.client().auth.refreshSession({ refresh_token: tokenC });
    expect(afterRevoke.error?.code).toBe('refresh_token_already_used');

    const unknown = await stack.client().auth.refreshSession({ refresh_token: 'no-such-token' });
    expect(unknown.error?.code).toBe('refresh_token_not_found');
  });

  it('accepts an older revoked token within the reuse interval', async () => {
    const client = stack.client();
    const { session } = await signUp(client, uniqueEmail('reuse'));
    const tokenB = (await client.auth.refreshSession()).data.session?.refresh_token;
    const tokenC = (await client.auth.refreshSession()).data.session?.refresh_token;
    // A was revoked when B was issued: a second short of the interval, it still works.
    clock.advance(REUSE_INTERVAL_MS - 1_000);
    const reuse = await stack
      .client()
      .auth.refreshSession({ refresh_token: session.refresh_token });
    expect(reuse.error).toBeNull();
    const issued = reuse.data.session?.refresh_token;
    expect(issued).toBeDefined();
    expect([session.refresh_token, tokenB, tokenC]).not.toContain(issued);
  });

  it('GET /user needs a valid bearer: no_authorization, bad_jwt', async () => {
    const missing = await fetch(`${stack.url}/auth/v1/user`, {
      headers: { apikey: stack.publishableKey, 'X-Supabase-Api-Version': '2024-01-01' },
    });
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ code: 'no_authorization' });

    const forged = await raw('/user', { token: 'eyJhbGciOiJIUzI1NiJ9.e30.bad' });
    expect(forged.status).toBe(403);
    expect(await forged.json()).toMatchObject({ code: 'bad_jwt' });
  });

  it('updates metadata and password; the new password signs in, the old does not', async () => {
    const email = uniqueEmail('update');
    const client = stack.client();
    await signUp(client, email, 'first-pass');

    const meta = await client.auth.updateUser({ data: { theme: 'dark', display_name: 'Renamed' } });
    expect(meta.error).toBeNull();
    expect(meta.data.user?.user_metadata).toEqual({ theme: 'dark', display_name: 'Renamed' });
    const dropped = await client.auth.updateUser({ data: { theme: null } });
    expect(dropped.data.user?.user_metadata).toEqual({ display_name: 'Renamed' });

    const pw = await client.auth.updateUser({ password: 'second-pass' });
    expect(pw.error).toBeNull();
    const weak = await client.auth.updateUser({ password: 'abc' });
    expect(weak.error?.code).toBe('weak_password');

    const withNew = await stack
      .client()
      .auth.signInWithPassword({ email, password: 'second-pass' });
    expect(withNew.error).toBeNull();
    expect(withNew.data.user?.user_metadata).toEqual({ display_name: 'Renamed' });
    const withOld = await stack.client().auth.signInWithPassword({ email, password: 'first-pass' });
    expect(withOld.error?.code).toBe('invalid_credentials');

    const newEmail = uniqueEmail('moved');
    const moved = await client.auth.updateUser({ email: newEmail });
    expect(moved.error).toBeNull();
    // As GoTrue: a permanent user's new address waits for its confirmation link
    // (devstack-auth-email.test.ts follows it through).
    expect(moved.data.user?.email).toBe(email);
    expect(moved.data.user?.new_email).toBe(newEmail);
  });

  it('signs out: the old access token gets session_not_found and the refresh token dies', async () => {
    const client = stack.client();
    const { session } = await signUp(client, uniqueEmail('signout'));
    const { error } = await client.auth.signOut();
    expect(error).toBeNull();

    const user = await raw('/user', { token: session.access_token });
    expect(user.status).toBe(403);
    expect(await user.json()).toEqual({
      code: 'session_not_found',
      message: 'Session from session_id claim in JWT does not exist',
    });
    const refresh = await stack
      .client()
      .auth.refreshSession({ refresh_token: session.refresh_token });
    expect(refresh.error?.code).toBe('refresh_token_not_found');
  });

  it('logout scopes: local keeps other sessions, others keeps only this one', async () => {
    const email = uniqueEmail('scopes');
    await signUp(stack.client(), email);
    const sessions = await Promise.all(
      [1, 2, 3].map(async () => {
        const c = stack.client();
        const { data, error } = await c.auth.signInWithPassword({ email, password: 'secret-123' });
        expect(error).toBeNull();
        return { client: c, token: data.session?.access_token ?? '' };
      }),
    );
    const [one, two, three] = sessions as [
      (typeof sessions)[0],
      (typeof sessions)[0],
      (typeof sessions)[0],
    ];
    const status = async (token: string) => (await raw('/user', { token })).status;

    expect((await one.client.auth.signOut({ scope: 'local' })).error).toBeNull();
    expect(await status(one.token)).toBe(403);
    expect(await status(two.token)).toBe(200);

    expect((await two.client.auth.signOut({ scope: 'others' })).error).toBeNull();
    expect(await status(two.token)).toBe(200);
    expect(await status(three.token)).toBe(403);

    const badScope = await raw('/logout?scope=everyone', { method: 'POST', token: two.token });
    expect(badScope.status).toBe(400);
  });

  it('refuses anonymous sign-in: config.toml disables it', async () => {
    const { data, error } = await stack.client().auth.signInAnonymously();
    expect(data.session).toBeNull();
    expect(error).toMatchObject({ status: 422, code: 'anonymous_provider_disabled' });
  });

  it('signs in the seeded demo users (pgcrypto bcrypt hashes)', async () => {
    const alice = await signedInDemoClient(stack, 'alice');
    const { data } = await alice.auth.getUser();
    expect(data.user?.id).toBe(SEED.alice);
    expect(data.user?.user_metadata).toEqual({ display_name: 'Alice' });
    const bob = await signedInDemoClient(stack, 'bob');
    expect((await bob.auth.getUser()).data.user?.id).toBe(SEED.bob);
    // The token works for PostgREST-style RLS too (role authenticated, sub = alice).
    const { data: session } = await alice.auth.getSession();
    const claims = decodeJwt(session.session?.access_token ?? '');
    expect(claims.sub).toBe(SEED.alice);
  });

  it('issues access tokens with the claims GoTrue uses', async () => {
    const client = stack.client();
    const email = uniqueEmail('claims');
    const { session, user } = await signUp(client, email);
    const claims = decodeJwt(session.access_token);
    expect(claims).toMatchObject({
      iss: `${stack.url}/auth/v1`,
      sub: user.id,
      aud: 'authenticated',
      role: 'authenticated',
      email,
      phone: '',
      aal: 'aal1',
      is_anonymous: false,
      app_metadata: { provider: 'email', providers: ['email'] },
      user_metadata: { display_name: 'Tester' },
      amr: [{ method: 'password', timestamp: expect.any(Number) as unknown }],
    });
    expect(claims.session_id).toEqual(expect.stringMatching(/^[0-9a-f-]{36}$/));
    // Issued on the devstack's clock, not the wall clock.
    expect(claims.iat).toBe(Math.floor(clock.now() / 1000));
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(CONFIG.jwtExpirySec);
    expect(session.expires_at).toBe(claims.exp);
    const { rows } = await stack.db.query('select 1 from auth.sessions where id = $1', [
      String(claims.session_id),
    ]);
    expect(rows).toHaveLength(1);
  });

  // An access token that outlives its lifetime is refused by REST with PostgREST's PGRST303,
  // and one refresh through supabase-js cures it (the path the sync engine takes on a 401).
  it('gets PGRST303 from REST once the token expires, and works again after a refresh', async () => {
    const client = await signedInDemoClient(stack, 'alice');
    const first = (await client.auth.getSession()).data.session;
    if (!first) throw new Error('no session after sign-in');
    const select = (token: string) =>
      fetch(`${stack.url}/rest/v1/lists?select=id`, {
        headers: { apikey: stack.publishableKey, Authorization: `Bearer ${token}` },
      });
    expect((await select(first.access_token)).status).toBe(200);

    // A second before exp it still works; at exp it does not.
    clock.advance(ACCESS_TOKEN_TTL_MS - 1_000);
    expect((await select(first.access_token)).status).toBe(200);
    clock.advance(1_000);
    const stale = await select(first.access_token);
    expect(stale.status).toBe(401);
    expect(await stale.json()).toMatchObject({ code: 'PGRST303', message: 'JWT expired' });
    // GoTrue refuses it too.
    const user = await raw('/user', { token: first.access_token });
    expect(user.status).toBe(403);
    expect(await user.json()).toMatchObject({
      code: 'bad_jwt',
      message:
        'invalid JWT: unable to parse or verify signature, token has invalid claims: token is expired',
    });

    const { data, error } = await client.auth.refreshSession();
    expect(error).toBeNull();
    const renewed = data.session?.access_token;
    expect(renewed).toBeDefined();
    expect(renewed).not.toBe(first.access_token);
    expect((await select(renewed ?? '')).status).toBe(200);
  });

  // Last: the same database, restarted with anonymous sign-ins on.
  describe('with anonymous sign-ins enabled', () => {
    beforeAll(async () => {
      await stack.restart({ auth: { enableAnonymousSignIns: true } });
    });

    it('signs in anonymously', async () => {
      const client = stack.client();
      const { data, error } = await client.auth.signInAnonymously();
      expect(error).toBeNull();
      expect(data.user?.is_anonymous).toBe(true);
      expect(data.user?.email).toBe('');
      const claims = decodeJwt(data.session?.access_token ?? '');
      expect(claims.is_anonymous).toBe(true);
      expect(claims.role).toBe('authenticated');
      expect(claims.amr).toEqual([
        { method: 'anonymous', timestamp: expect.any(Number) as unknown },
      ]);
      const { data: me } = await client.auth.getUser();
      expect(me.user?.id).toBe(data.user?.id);
    });
  });
});
