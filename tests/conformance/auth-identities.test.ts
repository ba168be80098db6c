// A user's identities as GoTrue answers them with `[auth] enable_manual_linking = false` (the
// CLI's default), on both engines: GET /user lists the email identity a sign-up made, and the
// linking endpoints (GET /user/identities/authorize, DELETE /user/identities/:id) answer 404
// manual_linking_disabled once the caller is authenticated (authentication is checked first).
import { beforeEach, describe, expect, it } from 'vitest';

import { ENGINE_KINDS } from '../support/database';
import { TestClock } from '../support/devstack';
import {
  authCall,
  devstackPerEngine,
  gotrueError as error,
  signUpWithPassword,
  statusAndBody,
} from './support';

let counter = 0;

describe.each(ENGINE_KINDS)('GoTrue identity linking, manual linking off (%s)', (kind) => {
  const clock = new TestClock();
  const stack = devstackPerEngine(kind, { clock, auth: { enableConfirmations: false } });
  beforeEach(() => clock.advance(1_000));

  async function call(method: string, path: string, init: { body?: unknown; token?: string } = {}) {
    return statusAndBody(await authCall(stack, method, path, init));
  }

  /** A fresh user signed up with a password: its access token and email. */
  async function signUp(): Promise<{ token: string; email: string }> {
    counter += 1;
    const email = `identity-${counter}-${kind}@example.com`;
    const session = await signUpWithPassword(stack, email, 'pass-word-1');
    return { token: String(session.access_token), email };
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
