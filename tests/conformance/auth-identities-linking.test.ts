// A user's identities with `[auth] enable_manual_linking = true`, on both engines: linking a
// third-party provider still ends at GoTrue's provider check (none runs here), and unlinking
// removes one of the user's identities, keeps at least one, and rewrites app_metadata's
// providers as GoTrue does. The default (linking off) is auth-identities.test.ts's.
import { beforeEach, describe, expect, it } from 'vitest';

import { ENGINE_KINDS } from '../support/database';
import { TestClock } from '../support/devstack';
import { authCall, devstackPerEngine, gotrueError as error, statusAndBody } from './support';

describe.each(ENGINE_KINDS)('GoTrue identity linking, manual linking on (%s)', (kind) => {
  const clock = new TestClock();
  const stack = devstackPerEngine(kind, { clock, auth: { enableManualLinking: true } });
  beforeEach(() => clock.advance(1_000));

  /** A request as the publishable key with `token`, or as the secret key when `admin`. */
  async function call(
    method: string,
    path: string,
    init: { body?: unknown; token?: string; admin?: boolean } = {},
  ) {
    const reply = await authCall(stack, method, path, {
      apikey: init.admin ? stack.secretKey : stack.publishableKey,
      token: init.admin ? stack.secretKey : init.token,
      body: init.body,
    });
    return statusAndBody(reply);
  }

  it('refuses a provider that is not enabled, and unlinks down to one identity', async () => {
    const email = `linking-${kind}@example.com`;
    const created = await call('POST', '/admin/users', {
      admin: true,
      body: {
        email,
        phone: kind === 'pglite' ? '15550001111' : '15550002222',
        password: 'pass-word-1',
        email_confirm: true,
        phone_confirm: true,
      },
    });
    expect(created.status).toBe(200);
    const signIn = await call('POST', '/token?grant_type=password', {
      body: { email, password: 'pass-word-1' },
    });
    const token = String(signIn.body.access_token);

    expect(
      await call('GET', '/user/identities/authorize?provider=google&skip_http_redirect=true', {
        token,
      }),
    ).toEqual({
      status: 400,
      body: error(400, 'validation_failed', 'Unsupported provider: provider is not enabled'),
    });

    const before = await call('GET', '/user', { token });
    const identities = before.body.identities as { identity_id: string; provider: string }[];
    expect(identities.map((identity) => identity.provider).sort()).toEqual(['email', 'phone']);
    const phone = identities.find((identity) => identity.provider === 'phone');

    expect(await call('DELETE', '/user/identities/not-a-uuid', { token })).toEqual({
      status: 404,
      body: error(404, 'validation_failed', 'identity_id must be an UUID'),
    });
    expect(
      await call('DELETE', '/user/identities/83fd9e20-7a80-46e4-bf29-a86e3d6bbf66', { token }),
    ).toEqual({ status: 422, body: error(422, 'identity_not_found', "Identity doesn't exist") });

    expect(await call('DELETE', `/user/identities/${phone?.identity_id ?? ''}`, { token })).toEqual(
      { status: 200, body: {} },
    );
    const after = await call('GET', '/user', { token });
    expect(after.body).toMatchObject({
      email,
      phone: '',
      app_metadata: { provider: 'email', providers: ['email'] },
    });
    const [last] = after.body.identities as { identity_id: string }[];
    expect(after.body.identities).toHaveLength(1);

    expect(await call('DELETE', `/user/identities/${last?.identity_id ?? ''}`, { token })).toEqual({
      status: 422,
      body: error(
        422,
        'single_identity_not_deletable',
        'User must have at least 1 identity after unlinking',
      ),
    });
  });
});
