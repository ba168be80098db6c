// The devstack's key model as a current Supabase project has it (issue 36), on both engines:
// publishable/secret API keys, user sessions signed ES256 by the current signing key (its kid
// in the header) and published as a JWKS, one verifier for REST, RPC, storage, realtime and
// auth that refuses what the project cannot have signed (HS256 with legacy off, unknown or
// revoked kid, alg none, expired) in each service's own words, rotation on the devstack's
// clock, a secret key refused from a browser, supabase-js getClaims() against the JWKS, and
// the legacy keys working only when turned on.
import { randomUUID } from 'node:crypto';

import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import {
  createRemoteJWKSet,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  jwtVerify,
  SignJWT,
  UnsecuredJWT,
} from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';

import {
  createKeys,
  DEMO_JWT_SECRET,
  LOCAL_PUBLISHABLE_KEY,
  LOCAL_SECRET_KEY,
} from '../../devstack/keys';
import { legacyKeysFromEnv } from '../../devstack/keys-config';
import { ENGINE_KINDS } from '../support/database';
import {
  devstackPerEngine,
  forgedKeys,
  SEED,
  signedInDemoClient,
  startTestDevstack,
  TestClock,
  type TestDevstack,
} from '../support/devstack';
import { rawSocket, privateJoin } from '../support/realtime';

const BROWSER_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
/** The API version header that makes auth answer `{ code, message }` (supabase-js sends it). */
const API_VERSION = { 'X-Supabase-Api-Version': '2024-01-01' };

function currentKid(stack: TestDevstack): string | undefined {
  return stack.keys.signingKeys().find((key) => key.state === 'current')?.kid;
}

async function sessionToken(client: SupabaseClient): Promise<string> {
  const { data } = await client.auth.getSession();
  if (!data.session) throw new Error('no session');
  return data.session.access_token;
}

/** GET /rest/v1/lists as the holder of `token` (the publishable key in apikey). */
async function restAs(stack: TestDevstack, token: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${stack.url}/rest/v1/lists?select=id`, {
    headers: { apikey: stack.publishableKey, Authorization: `Bearer ${token}`, ...headers },
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

async function userAs(stack: TestDevstack, token: string) {
  const res = await fetch(`${stack.url}/auth/v1/user`, {
    headers: { apikey: stack.publishableKey, Authorization: `Bearer ${token}`, ...API_VERSION },
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

async function storageAs(stack: TestDevstack, token: string) {
  const res = await fetch(`${stack.url}/storage/v1/bucket`, {
    headers: { apikey: stack.publishableKey, Authorization: `Bearer ${token}` },
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

describe.each(ENGINE_KINDS)('devstack keys, legacy off (%s)', (kind) => {
  const clock = new TestClock();
  let stack: TestDevstack;
  let alice: SupabaseClient;
  const sockets: WebSocket[] = [];

  /** A private join of alice's own topic with `token`; the reply's status and reason. */
  async function joinAs(token: string) {
    const socket = await rawSocket(stack, sockets);
    const reply = await socket.push(`user:${SEED.alice}`, 'phx_join', privateJoin(token));
    const response = (reply?.response ?? {}) as { reason?: string };
    return { status: reply?.status, reason: response.reason };
  }

  beforeAll(async () => {
    stack = await startTestDevstack(kind, { clock });
    alice = await signedInDemoClient(stack, 'alice');
  });
  afterEach(() => {
    for (const ws of sockets.splice(0)) ws.close();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('runs with the legacy keys off by default', () => {
    expect(legacyKeysFromEnv({})).toBe(false);
    expect(stack.legacyKeys).toBeNull();
    expect(stack.publishableKey).toBe(LOCAL_PUBLISHABLE_KEY);
    expect(stack.secretKey).toBe(LOCAL_SECRET_KEY);
  });

  it('signs a session ES256 with the current kid, with GoTrue claims, verifiable through the JWKS', async () => {
    const token = await sessionToken(alice);
    const header = decodeProtectedHeader(token);
    expect(header).toEqual({ alg: 'ES256', typ: 'JWT', kid: currentKid(stack) });

    // The JWKS is open to anyone (no apikey) and holds public halves only.
    const jwksUrl = `${stack.url}/auth/v1/.well-known/jwks.json`;
    const res = await fetch(jwksUrl);
    expect(res.status).toBe(200);
    const jwks = (await res.json()) as { keys: Record<string, unknown>[] };
    expect(jwks.keys).toEqual([
      expect.objectContaining({
        kty: 'EC',
        crv: 'P-256',
        alg: 'ES256',
        use: 'sig',
        key_ops: ['verify'],
        kid: currentKid(stack),
      }),
    ]);
    expect(jwks.keys[0]).not.toHaveProperty('d');

    const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(jwksUrl)), {
      issuer: `${stack.url}/auth/v1`,
      audience: 'authenticated',
      algorithms: ['ES256'],
      currentDate: new Date(clock.now()),
    });
    expect(payload).toMatchObject({
      sub: SEED.alice,
      role: 'authenticated',
      email: 'alice@example.com',
      aal: 'aal1',
      is_anonymous: false,
    });
    expect(typeof payload.session_id).toBe('string');
    expect(payload.exp).toBe(Number(payload.iat) + 3600);
  });

  it('accepts the ES256 session in REST, RPC, storage, realtime and auth', async () => {
    const token = await sessionToken(alice);
    expect(decodeProtectedHeader(token).kid).toBe(currentKid(stack));
    const lists = await alice.from('lists').select('id');
    expect(lists.error).toBeNull();
    expect(lists.data).toContainEqual({ id: SEED.list });
    const pull = await alice.rpc('sync_pull', { cursor: null, max_rows: 10 });
    expect(pull.error).toBeNull();
    const buckets = await alice.storage.from('attachments').list(SEED.list);
    expect(buckets.error).toBeNull();
    expect(await joinAs(token)).toEqual({ status: 'ok', reason: undefined });
    expect((await userAs(stack, token)).status).toBe(200);
  });

  it("refuses tokens the project cannot have signed, in each service's words", async () => {
    const now = Math.floor(clock.now() / 1000);
    const claims = { sub: SEED.alice, role: 'authenticated', aud: 'authenticated' };
    const hs256 = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt(now)
      .setExpirationTime(now + 3600)
      .sign(new TextEncoder().encode(DEMO_JWT_SECRET));
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const strangerKid = randomUUID();
    const stranger = await createKeys({
      signingKeys: [{ ...(await exportJWK(privateKey)), kid: strangerKid }],
      clock,
    });
    const unknownKid = await stranger.sign(claims, 3600);
    const none = new UnsecuredJWT(claims)
      .setIssuedAt(now)
      .setExpirationTime(now + 3600)
      .encode();
    const expired = await stack.keys.sign({ ...claims, iat: now - 3600, exp: now - 10 });
    const forged = await (await forgedKeys(stack)).sign(claims, 3600);

    const noKey = {
      code: 'PGRST301',
      message: 'No suitable key or wrong key type',
      details: 'No suitable key was found to decode the JWT',
      hint: null,
    };
    expect(await restAs(stack, hs256)).toEqual({ status: 401, body: noKey });
    expect(await restAs(stack, unknownKid)).toEqual({ status: 401, body: noKey });
    expect(await restAs(stack, none)).toEqual({
      status: 401,
      body: {
        code: 'PGRST301',
        message: 'Wrong or unsupported encoding algorithm',
        details: "JWT is unsecured but expected 'alg' was not 'none'",
        hint: null,
      },
    });
    expect(await restAs(stack, expired)).toEqual({
      status: 401,
      body: { code: 'PGRST303', message: 'JWT expired', details: null, hint: null },
    });
    expect(await restAs(stack, forged)).toEqual({
      status: 401,
      body: {
        code: 'PGRST301',
        message: 'JWT cryptographic operation failed',
        details: null,
        hint: null,
      },
    });

    const badJwt = (detail: string) => ({
      status: 403,
      body: {
        code: 'bad_jwt',
        message: `invalid JWT: unable to parse or verify signature, ${detail}`,
      },
    });
    expect(await userAs(stack, hs256)).toEqual(
      badJwt('token signature is invalid: signing method HS256 is invalid'),
    );
    expect(await userAs(stack, unknownKid)).toEqual(
      badJwt(`token is unverifiable: error while executing keyfunc: invalid kid: ${strangerKid}`),
    );
    expect(await userAs(stack, none)).toEqual(
      badJwt("token is unverifiable: 'none' signature type is not allowed"),
    );
    expect(await userAs(stack, expired)).toEqual(
      badJwt('token has invalid claims: token is expired'),
    );

    const accessDenied = (message: string) => ({
      status: 400,
      body: { statusCode: '403', code: 'AccessDenied', error: 'Unauthorized', message },
    });
    expect(await storageAs(stack, hs256)).toEqual(
      accessDenied('no applicable key found in the JSON Web Key Set'),
    );
    expect(await storageAs(stack, unknownKid)).toEqual(
      accessDenied('no applicable key found in the JSON Web Key Set'),
    );
    expect(await storageAs(stack, none)).toEqual(
      accessDenied('"alg" (Algorithm) Header Parameter value not allowed'),
    );
    expect(await storageAs(stack, expired)).toEqual(accessDenied('jwt expired'));

    expect(await joinAs(hs256)).toEqual({
      status: 'error',
      reason: 'InvalidJWTToken: token signature is invalid: signing method HS256 is invalid',
    });
    expect((await joinAs(unknownKid)).reason).toMatch(/^InvalidJWTToken: .*invalid kid/);
    expect((await joinAs(none)).reason).toMatch(/^InvalidJWTToken: .*'none'/);
    expect(await joinAs(expired)).toEqual({
      status: 'error',
      reason: 'InvalidJWTToken: Token has expired 10 seconds ago',
    });
  });

  it('refuses a secret key sent by a browser, and takes it from a server as service_role', async () => {
    const refused = { message: 'Forbidden use of secret API key in browser' };
    const asBrowser = await fetch(`${stack.url}/rest/v1/lists?select=id`, {
      headers: { apikey: stack.secretKey, 'User-Agent': BROWSER_UA },
    });
    expect(asBrowser.status).toBe(401);
    expect(await asBrowser.json()).toEqual(refused);
    // As the Bearer, to auth and storage too, and on the realtime socket.
    for (const path of ['/auth/v1/admin/users', '/storage/v1/bucket']) {
      const res = await fetch(`${stack.url}${path}`, {
        headers: {
          apikey: stack.publishableKey,
          Authorization: `Bearer ${stack.secretKey}`,
          'User-Agent': BROWSER_UA,
        },
      });
      expect([path, res.status, await res.json()]).toEqual([path, 401, refused]);
    }
    const socket = new WebSocket(
      `${stack.url.replace(/^http/, 'ws')}/realtime/v1/websocket?apikey=${stack.secretKey}&vsn=2.0.0`,
      { headers: { 'User-Agent': BROWSER_UA } },
    );
    socket.on('error', () => undefined); // the refused handshake
    const status = await new Promise<number>((resolve) => {
      socket.once('unexpected-response', (req, res) => {
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      socket.once('open', () => {
        resolve(101);
        socket.close();
      });
    });
    expect(status).toBe(401);

    // From a server (curl, Node, Deno): the service role, which sees every list.
    const asServer = await fetch(`${stack.url}/rest/v1/lists?select=id`, {
      headers: {
        apikey: stack.secretKey,
        Authorization: `Bearer ${stack.secretKey}`,
        'User-Agent': 'node',
      },
    });
    expect(asServer.status).toBe(200);
    const all = (await asServer.json()) as unknown[];
    const { rows } = await stack.db.query<{ n: number }>(
      'select count(*)::int as n from public.lists',
    );
    expect(all).toHaveLength(rows[0]?.n ?? -1);
    // The publishable key from a browser is what browsers are for.
    const anon = await fetch(`${stack.url}/rest/v1/lists?select=id`, {
      headers: { apikey: stack.publishableKey, 'User-Agent': BROWSER_UA },
    });
    expect(anon.status).toBe(200);
    expect(await anon.json()).toEqual([]);
  });

  it('treats an sb_ key as the Bearer as its role only when it is the apikey itself', async () => {
    // supabase-js with nobody signed in: apikey and Bearer both the publishable key.
    expect(await restAs(stack, stack.publishableKey)).toEqual({ status: 200, body: [] });
    // Another key as the Bearer is no JWT.
    expect(await restAs(stack, stack.secretKey)).toEqual({
      status: 401,
      body: {
        code: 'PGRST301',
        message: 'Expected 3 parts in JWT; got 1',
        details: null,
        hint: null,
      },
    });
    // Auth sees the gateway's token of the key's role: no user in it.
    expect(await userAs(stack, stack.publishableKey)).toEqual({
      status: 403,
      body: { code: 'bad_jwt', message: 'invalid claim: missing sub claim' },
    });
    // Unknown keys, and the legacy anon key while legacy is off, are no API keys.
    for (const apikey of [
      'sb_publishable_AAAAAAAAAAAAAAAAAAAAAA_BBBBBBBB',
      'sb_secret_AAAAAAAAAAAAAAAAAAAAAA_BBBBBBBBBB',
      await legacyDemoAnonKey(),
    ]) {
      const res = await fetch(`${stack.url}/rest/v1/lists?select=id`, { headers: { apikey } });
      expect([apikey.slice(0, 12), res.status, await res.json()]).toEqual([
        apikey.slice(0, 12),
        401,
        { message: 'Invalid API key' },
      ]);
    }
  });

  it('lets supabase-js getClaims() verify a session against the JWKS, without asking /user', async () => {
    const seen: string[] = [];
    const client = createClient(stack.url, stack.publishableKey, {
      auth: {
        persistSession: false,
        autoRefreshToken: false,
        detectSessionInUrl: false,
        // Its own JWKS cache (supabase-js keys the cache by storage key).
        storageKey: `claims-${randomUUID()}`,
      },
      realtime: { transport: WebSocket as unknown as typeof globalThis.WebSocket },
      global: {
        fetch: (input, init) => {
          seen.push(new URL(input instanceof Request ? input.url : String(input)).pathname);
          return fetch(input, init);
        },
      },
    });
    const token = await sessionToken(alice);
    const { data, error } = await client.auth.getClaims(token);
    expect(error).toBeNull();
    expect(data?.claims).toMatchObject({ sub: SEED.alice, role: 'authenticated' });
    expect(data?.header).toMatchObject({ alg: 'ES256', kid: currentKid(stack) });
    expect(seen).toEqual(['/auth/v1/.well-known/jwks.json']);

    const forged = await (
      await forgedKeys(stack)
    ).sign({ sub: SEED.alice, role: 'authenticated' }, 3600);
    const refused = await client.auth.getClaims(forged);
    expect(refused.data).toBeNull();
    expect(refused.error?.message).toBe('Invalid JWT signature');
  });

  // Last: it moves the stack's signing keys on for good.
  it('keeps sessions of the previous key working after a rotation until it is revoked', async () => {
    const before = await sessionToken(alice);
    const oldKid = decodeProtectedHeader(before).kid;
    expect(oldKid).toBe(currentKid(stack));

    clock.advance(60_000);
    const newKid = await stack.keys.rotate();
    expect(newKid).not.toBe(oldKid);
    expect(stack.keys.signingKeys()).toEqual([
      { kid: oldKid, algorithm: 'ES256', state: 'previous', since: clock.now() },
      { kid: newKid, algorithm: 'ES256', state: 'current', since: clock.now() },
    ]);
    const jwks = (await (await fetch(`${stack.url}/auth/v1/.well-known/jwks.json`)).json()) as {
      keys: { kid: string }[];
    };
    expect(jwks.keys.map((k) => k.kid)).toEqual([newKid, oldKid]);

    // The old session still works everywhere; a new one carries the new kid.
    expect((await restAs(stack, before)).status).toBe(200);
    expect((await userAs(stack, before)).status).toBe(200);
    expect(await joinAs(before)).toEqual({ status: 'ok', reason: undefined });
    const again = await signedInDemoClient(stack, 'alice');
    const after = await sessionToken(again);
    expect(decodeProtectedHeader(after).kid).toBe(newKid);
    expect((await restAs(stack, after)).status).toBe(200);

    // Revoked: the old key's tokens are refused at once, and it leaves the JWKS.
    stack.keys.revoke(String(oldKid));
    expect((await restAs(stack, before)).body).toMatchObject({
      code: 'PGRST301',
      message: 'No suitable key or wrong key type',
    });
    expect((await userAs(stack, before)).status).toBe(403);
    expect((await joinAs(before)).status).toBe('error');
    const left = (await (await fetch(`${stack.url}/auth/v1/.well-known/jwks.json`)).json()) as {
      keys: { kid: string }[];
    };
    expect(left.keys.map((k) => k.kid)).toEqual([newKid]);
    expect((await restAs(stack, after)).status).toBe(200);
    // The current key cannot be revoked: rotate away from it first.
    expect(() => stack.keys.revoke(newKid)).toThrow(/current/);
  });
});

/** The CLI's legacy anon key (an HS256 JWT with the demo secret), made here for the test. */
async function legacyDemoAnonKey(): Promise<string> {
  return new SignJWT({ iss: 'supabase-demo', role: 'anon', exp: 1983812996 })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(new TextEncoder().encode(DEMO_JWT_SECRET));
}

describe.each(ENGINE_KINDS)('devstack keys, legacy on (%s)', (kind) => {
  const stack = devstackPerEngine(kind, { legacyKeys: true });

  it("keeps an existing project's anon/service_role keys and HS256 tokens working", async () => {
    const legacy = stack.legacyKeys;
    if (!legacy) throw new Error('the devstack reports no legacy keys');
    expect(legacy.anonKey).toBe(await legacyDemoAnonKey());
    expect(legacyKeysFromEnv({ DEVSTACK_LEGACY_KEYS: 'true' })).toBe(true);

    // The old anon key, as supabase-js sends it: apikey and Bearer.
    const anon = await fetch(`${stack.url}/rest/v1/lists?select=id`, {
      headers: { apikey: legacy.anonKey, Authorization: `Bearer ${legacy.anonKey}` },
    });
    expect(anon.status).toBe(200);
    expect(await anon.json()).toEqual([]);
    // The old service_role key is no sb_secret key: the browser rule is the new keys'.
    const fromBrowser = await fetch(`${stack.url}/rest/v1/lists?select=id`, {
      headers: {
        apikey: legacy.serviceRoleKey,
        Authorization: `Bearer ${legacy.serviceRoleKey}`,
        'User-Agent': BROWSER_UA,
      },
    });
    expect(await fromBrowser.json()).toContainEqual({ id: SEED.list });
    // And it sees everything, through supabase-js.
    const service = createClient(stack.url, legacy.serviceRoleKey, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      realtime: { transport: WebSocket as unknown as typeof globalThis.WebSocket },
    });
    const all = await service.from('lists').select('id');
    expect(all.error).toBeNull();
    expect(all.data).toContainEqual({ id: SEED.list });

    // An HS256 user token made with the JWT secret (a session from before the switch).
    const now = Math.floor(Date.now() / 1000);
    const hs256 = await new SignJWT({
      sub: SEED.alice,
      role: 'authenticated',
      aud: 'authenticated',
      email: 'alice@example.com',
    })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt(now)
      .setExpirationTime(now + 3600)
      .sign(new TextEncoder().encode(legacy.jwtSecret));
    const lists = await fetch(`${stack.url}/rest/v1/lists?select=id`, {
      headers: { apikey: legacy.anonKey, Authorization: `Bearer ${hs256}` },
    });
    expect(await lists.json()).toContainEqual({ id: SEED.list });
    const user = await fetch(`${stack.url}/auth/v1/user`, {
      headers: { apikey: legacy.anonKey, Authorization: `Bearer ${hs256}` },
    });
    expect(user.status).toBe(200);

    // New sessions are still ES256 with the current kid, and the new keys work alongside.
    const alice = await signedInDemoClient(stack, 'alice');
    const token = await sessionToken(alice);
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'ES256', kid: currentKid(stack) });
    const mixed = await fetch(`${stack.url}/rest/v1/lists?select=id`, {
      headers: { apikey: stack.publishableKey, Authorization: `Bearer ${token}` },
    });
    expect(await mixed.json()).toContainEqual({ id: SEED.list });
  });
});
