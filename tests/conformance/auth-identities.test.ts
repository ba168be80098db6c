// A user's identities as GoTrue answers them with `[auth] enable_manual_linking = false` (the
// CLI's default), on both engines: GET /user lists the email identity a sign-up made, and the
// linking endpoints (GET /user/identities/authorize, DELETE /user/identities/:id) answer 404
// manual_linking_disabled once the caller is authenticated (authentication is checked first).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { ENGINE_KINDS } from '../support/database';
import { startTestDevstack, TestClock, type TestDevstack } from '../support/devstack';

interface Reply {
  status: number;
  body: Record<string, unknown>;
}

const error = (status: number, code: string, msg: string) => ({
  code: status,
  error_code: code,
  msg,
});

let counter = 0;

describe.each(ENGINE_KINDS)('GoTrue identity linking, manual linking off (%s)', (kind) => {
  const clock = new TestClock();
  let stack: TestDevstack;

  beforeAll(async () => {
    stack = await startTestDevstack(kind, { clock, auth: { enableConfirmations: false } });
  });
  afterAll(async () => {
    await stack?.stop();
  });
  beforeEach(() => clock.advance(1_000));

  async function call(
    method: string,
    path: string,
    init: { body?: unknown; token?: string } = {},
  ): Promise<Reply> {
    const headers: Record<string, string> = { apikey: stack.publishableKey };
    if (init.token) headers.Authorization = `Bearer ${init.token}`;
    if (init.body !== undefined) headers['Content-Type'] = 'application/json';
    const response = await fetch(`${stack.url}/auth/v1${path}`, {
      method,
      headers,
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      redirect: 'manual',
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
    };
  }

  /** A fresh user signed up with a password: its access token and email. */
  async function signUp(): Promise<{ token: string; email: string }> {
    counter += 1;
    const email = `identity-${counter}-${kind}@example.com`;
    const reply = await call('POST', '/signup', { body: { email, password: 'pass-word-1' } });
    expect(reply.status).toBe(200);
    return { token: String(reply.body.access_token), email };
  }

  it('lists the email identity, and refuses linking a provider', async () => {
    const { token, email } = await signUp();
    const user = await call('GET', '/user', { token });
    expect(user.status).toBe(200);
    const identities = user.body.identities as Record<string, unknown>[];
    expect(identities).toHaveLength(1);
    expect(identities[0]).toMatchObject({
      provider: 'email',
      identity_data: { email, sub: user.body.id },
    });

    const link = await call(
      'GET',
      '/user/identities/authorize?provider=google&skip_http_redirect=true&scopes=openid',
      { token },
    );
    expect(link).toEqual({
      status: 404,
      body: error(404, 'manual_linking_disabled', 'Manual linking is disabled'),
    });
  });

  it('refuses unlinking, whatever the id', async () => {
    const { token } = await signUp();
    const user = await call('GET', '/user', { token });
    const [identity] = user.body.identities as { identity_id: string }[];
    for (const id of [identity?.identity_id ?? '', 'not-a-uuid']) {
      expect(await call('DELETE', `/user/identities/${id}`, { token })).toEqual({
        status: 404,
        body: error(404, 'manual_linking_disabled', 'Manual linking is disabled'),
      });
    }
    // Nothing was unlinked.
    const after = await call('GET', '/user', { token });
    expect(after.body.identities).toHaveLength(1);
  });

  it('asks for a session first', async () => {
    expect(await call('GET', '/user/identities/authorize?provider=google')).toEqual({
      status: 401,
      body: error(401, 'no_authorization', 'This endpoint requires a valid Bearer token'),
    });
    expect(await call('DELETE', '/user/identities/83fd9e20-7a80-46e4-bf29-a86e3d6bbf66')).toEqual({
      status: 401,
      body: error(401, 'no_authorization', 'This endpoint requires a valid Bearer token'),
    });
  });
});
