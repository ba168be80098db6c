// The OAuth 2.1 server's client admin (/admin/oauth/clients…) as GoTrue answers it with
// `[auth.oauth_server] enabled = true`, on both engines: registering a client (defaults, the
// secret shown once and stored only as its SHA-256), reading, listing, partial updates,
// regenerating the secret, soft deletion, and GoTrue's exact validation answers. The answer
// with the server switched off (404 feature_disabled) is auth-admin.test.ts's.
import { createHash } from 'node:crypto';

import { beforeEach, describe, expect, it } from 'vitest';

import { ENGINE_KINDS } from '../support/database';
import { TestClock } from '../support/devstack';
import { authCall, devstackPerEngine, gotrueError as error, statusAndBody } from './support';

const UNKNOWN_ID = '00000000-0000-0000-0000-000000000000';

describe.each(ENGINE_KINDS)('GoTrue OAuth server client admin (%s)', (kind) => {
  const clock = new TestClock();
  const stack = devstackPerEngine(kind, {
    clock,
    auth: { oauthServerEnabled: true, oauthDynamicRegistration: true },
  });
  beforeEach(() => clock.advance(1_000));

  /** A request as the secret key (service_role), or `token` when given. */
  async function call(
    method: string,
    path: string,
    init: { body?: unknown; raw?: string; token?: string } = {},
  ) {
    const token = init.token ?? stack.secretKey;
    const reply = await authCall(stack, method, path, {
      apikey: token,
      token,
      body: init.body,
      ...(init.raw !== undefined ? { raw: init.raw } : {}),
      headers: { 'Content-Type': 'application/json' },
    });
    return statusAndBody(reply);
  }

  const create = (body: unknown) => call('POST', '/admin/oauth/clients', { body });

  it('registers, reads, lists, updates, regenerates and deletes a client', async () => {
    const created = await create({
      client_name: 'Lifecycle',
      redirect_uris: ['https://app.example.com/cb', 'myapp://callback', 'http://localhost:3000/cb'],
      client_uri: 'https://app.example.com',
    });
    expect(created.status).toBe(201);
    const id = String(created.body.client_id);
    const secret = String(created.body.client_secret);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const createdAt = new Date(clock.now()).toISOString();
    expect(created.body).toEqual({
      client_id: id,
      client_secret: secret,
      client_type: 'confidential',
      redirect_uris: ['https://app.example.com/cb', 'myapp://callback', 'http://localhost:3000/cb'],
      token_endpoint_auth_method: 'client_secret_basic',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      client_name: 'Lifecycle',
      client_uri: 'https://app.example.com',
      registration_type: 'manual',
      created_at: createdAt,
      updated_at: createdAt,
    });
    // Only the secret's SHA-256 is kept.
    const stored = await stack.db.query<{ client_secret_hash: string }>(
      `select client_secret_hash from auth.oauth_clients where id::text = $1`,
      [id],
    );
    expect(stored.rows[0]?.client_secret_hash).toBe(
      createHash('sha256').update(secret).digest('base64url'),
    );

    const read = await call('GET', `/admin/oauth/clients/${id.toUpperCase()}`);
    expect(read.status).toBe(200);
    expect(read.body.client_secret).toBeUndefined();
    expect(read.body).toMatchObject({ client_id: id, client_name: 'Lifecycle' });

    const updated = await call('PUT', `/admin/oauth/clients/${id}`, {
      body: { logo_uri: 'https://app.example.com/logo.png', client_uri: '' },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      client_name: 'Lifecycle',
      logo_uri: 'https://app.example.com/logo.png',
    });
    expect(updated.body.client_uri).toBeUndefined();
    expect(updated.body.client_secret).toBeUndefined();

    const listed = await call('GET', '/admin/oauth/clients?page=1&per_page=1');
    expect(listed.status).toBe(200);
    const clients = listed.body.clients as { client_id: string }[];
    expect(clients.map((client) => client.client_id)).toContain(id);

    const regenerated = await call('POST', `/admin/oauth/clients/${id}/regenerate_secret`);
    expect(regenerated.status).toBe(200);
    expect(String(regenerated.body.client_secret)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(regenerated.body.client_secret).not.toBe(secret);

    expect((await call('DELETE', `/admin/oauth/clients/${id}`)).status).toBe(204);
    expect(await call('GET', `/admin/oauth/clients/${id}`)).toEqual({
      status: 404,
      body: error(404, 'oauth_client_not_found', 'OAuth client not found'),
    });
    const after = await call('GET', '/admin/oauth/clients');
    const remaining = (after.body.clients ?? []) as { client_id: string }[];
    expect(remaining.map((client) => client.client_id)).not.toContain(id);
  });

  it('makes a public client from token_endpoint_auth_method none: no secret to regenerate', async () => {
    const created = await create({
      redirect_uris: ['https://app.example.com/cb'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code'],
    });
    expect(created.status).toBe(201);
    expect(created.body.client_secret).toBeUndefined();
    expect(created.body).toMatchObject({
      client_type: 'public',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code'],
    });
    const id = String(created.body.client_id);
    expect(await call('POST', `/admin/oauth/clients/${id}/regenerate_secret`)).toEqual({
      status: 400,
      body: error(400, 'validation_failed', 'Cannot regenerate secret for public client'),
    });
    expect(
      await call('PUT', `/admin/oauth/clients/${id}`, {
        body: { token_endpoint_auth_method: 'client_secret_post' },
      }),
    ).toEqual({
      status: 400,
      body: error(
        400,
        'validation_failed',
        "token_endpoint_auth_method 'client_secret_post' is not valid for client_type 'public'; valid methods: [none]",
      ),
    });
  });

  it("refuses a registration as GoTrue does, its message wrapped as '400: …'", async () => {
    const refused = (message: string) => ({
      status: 400,
      body: error(400, 'validation_failed', `400: ${message}`),
    });
    expect(await create({ client_name: 'No URIs', redirect_uris: [] })).toEqual(
      refused('redirect_uris is required'),
    );
    expect(await create({ redirect_uris: ['http://example.com/cb'] })).toEqual(
      refused(
        "invalid redirect_uri 'http://example.com/cb': HTTP scheme only allowed for localhost",
      ),
    );
    expect(await create({ redirect_uris: ['javascript://x/alert(1)'] })).toEqual(
      refused(
        "invalid redirect_uri 'javascript://x/alert(1)': scheme 'javascript' is not allowed for security reasons",
      ),
    );
    expect(await create({ redirect_uris: ['https://app.example.com/cb#frag'] })).toEqual(
      refused(
        "invalid redirect_uri 'https://app.example.com/cb#frag': fragment not allowed in redirect URI",
      ),
    );
    expect(await create({ redirect_uris: ['/relative/cb'] })).toEqual(
      refused("invalid redirect_uri '/relative/cb': must have scheme and host"),
    );
    const eleven = Array.from({ length: 11 }, (_, i) => `https://app.example.com/${i}`);
    expect(await create({ redirect_uris: eleven })).toEqual(
      refused('redirect_uris cannot exceed 10 items'),
    );
    expect(
      await create({ redirect_uris: ['https://a.example/cb'], grant_types: ['password'] }),
    ).toEqual(refused("grant_types must only contain 'authorization_code' and/or 'refresh_token'"));
    expect(
      await create({
        redirect_uris: ['https://a.example/cb'],
        client_type: 'public',
        token_endpoint_auth_method: 'client_secret_basic',
      }),
    ).toEqual(
      refused(
        "client_type 'public' is inconsistent with token_endpoint_auth_method 'client_secret_basic' (expected client_type 'confidential')",
      ),
    );
    // A body that is no JSON object, or a field of the wrong type, is bad_json, unwrapped.
    for (const raw of ['', '[1]', '{"redirect_uris": "https://a.example/cb"}']) {
      expect(await call('POST', '/admin/oauth/clients', { raw })).toEqual({
        status: 400,
        body: error(400, 'bad_json', 'Invalid JSON body'),
      });
    }
  });

  it('registers a client dynamically for any caller with the API key', async () => {
    const anon = stack.publishableKey;
    const registered = await call('POST', '/oauth/clients/register', {
      token: anon,
      body: { client_name: 'Dynamic', redirect_uris: ['myapp://cb'], client_type: 'public' },
    });
    expect(registered.status).toBe(201);
    expect(registered.body).toMatchObject({
      client_type: 'public',
      token_endpoint_auth_method: 'none',
      registration_type: 'dynamic',
      redirect_uris: ['myapp://cb'],
    });
    expect(registered.body.client_secret).toBeUndefined();
    expect(
      await call('POST', '/oauth/clients/register', { token: anon, body: { redirect_uris: [] } }),
    ).toEqual({
      status: 400,
      body: error(400, 'validation_failed', '400: redirect_uris is required'),
    });
  });

  it('answers a bad id, an empty update and an update without URIs', async () => {
    expect(await call('GET', '/admin/oauth/clients/not-a-uuid')).toEqual({
      status: 400,
      body: error(400, 'validation_failed', 'invalid client_id format'),
    });
    expect(await call('DELETE', `/admin/oauth/clients/${UNKNOWN_ID}`)).toEqual({
      status: 404,
      body: error(404, 'oauth_client_not_found', 'OAuth client not found'),
    });
    const created = await create({ redirect_uris: ['https://a.example/cb'] });
    const path = `/admin/oauth/clients/${String(created.body.client_id)}`;
    expect(await call('PUT', path, { body: { client_name: null } })).toEqual({
      status: 400,
      body: error(400, 'validation_failed', 'No fields provided for update'),
    });
    expect(await call('PUT', path, { body: { redirect_uris: [] } })).toEqual({
      status: 400,
      body: error(400, 'validation_failed', 'redirect_uris cannot be empty'),
    });
    // Behind the admin check: only an admin reads a client.
    expect(await call('GET', path, { token: stack.publishableKey })).toMatchObject({
      status: 403,
      body: error(403, 'not_admin', 'User not allowed'),
    });
  });
});
