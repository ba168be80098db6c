// A user's identities with `[auth] enable_manual_linking = true`, on both engines: linking a
// third-party provider still ends at GoTrue's provider check (none runs here), and unlinking
// removes one of the user's identities, keeps at least one, and rewrites app_metadata's
// providers as GoTrue does. The default (linking off) is auth-identities.test.ts's.
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

describe.each(ENGINE_KINDS)('GoTrue identity linking, manual linking on (%s)', (kind) => {
  const clock = new TestClock();
  let stack: TestDevstack;

  beforeAll(async () => {
    stack = await startTestDevstack(kind, { clock, auth: { enableManualLinking: true } });
  });
  afterAll(async () => {
    await stack?.stop();
  });
  beforeEach(() => clock.advance(1_000));

  async function call(
    method: string,
    path: string,
    init: { body?: unknown; token?: string; admin?: boolean } = {},
  ): Promise<Reply> {
    const key = init.admin ? stack.secretKey : stack.publishableKey;
    const headers: Record<string, string> = { apikey: key };
    const token = init.admin ? stack.secretKey : init.token;
    if (token) headers.Authorization = `Bearer ${token}`;
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
