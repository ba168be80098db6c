// The edge functions verify their callers themselves (supabase/functions/_shared/auth.ts,
// verify_jwt = false), on both key models: a user's ES256 session is let in; an HS256 token
// while legacy keys are off, an unknown kid, a revoked key, alg none, a forged signature, an
// expired token and API keys posing as sessions are refused with the functions' 401; the
// project's secret key is the scheduler's way into attachment-cleanup. Both engines.
import { randomUUID } from 'node:crypto';

import type { SupabaseClient } from '@supabase/supabase-js';
import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { DEMO_JWT_SECRET } from '../../devstack/keys';

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

/** supabase-js caches a project's JWKS this long (auth-js JWKS_TTL). */
const JWKS_TTL_MS = 10 * 60 * 1000;

/** expect.any, typed (vitest declares it as returning any). */
const anyString = expect.any(String) as unknown;
const anyNumber = expect.any(Number) as unknown;

/** The functions' refusal: 401 with the app's AUTH_EXPIRED (product.md §8). */
const REFUSED = { status: 401, body: { error: { code: 'AUTH_EXPIRED' } } };

async function post(
  stack: TestDevstack,
  name: string,
  headers: Record<string, string>,
  body: unknown = {},
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${stack.url}/functions/v1/${name}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}

/** export-list of the seeded list, as `token` (apikey: the publishable key, as the app sends). */
function exportAs(stack: TestDevstack, token: string) {
  return post(
    stack,
    'export-list',
    { apikey: stack.publishableKey, Authorization: `Bearer ${token}` },
    { list_id: SEED.list },
  );
}

async function accessToken(client: SupabaseClient): Promise<string> {
  const { data } = await client.auth.getSession();
  if (!data.session) throw new Error('not signed in');
  return data.session.access_token;
}

/**
 * The claims of a real session of Alice's (auth checks that its session_id exists), issued
 * again at `nowSec` for an hour: re-signed any other way, only the signature differs.
 */
async function aliceClaims(alice: SupabaseClient, nowSec: number): Promise<JWTPayload> {
  const session = decodeJwt(await accessToken(alice));
  return { ...session, iat: nowSec, exp: nowSec + 3600 };
}

function hs256(claims: JWTPayload, secret = DEMO_JWT_SECRET): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(new TextEncoder().encode(secret));
}

/** `alg: none`: a header and payload with no signature at all. */
function unsigned(header: Record<string, unknown>, claims: JWTPayload): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part(header)}.${part(claims)}.`;
}

describe.each(ENGINE_KINDS)('functions verify their callers, legacy keys off (%s)', (kind) => {
  const clock = new TestClock();
  let stack: TestDevstack;
  let alice: SupabaseClient;

  const now = () => Math.floor(clock.now() / 1000);

  beforeAll(async () => {
    stack = await startTestDevstack(kind, { clock, legacyKeys: false });
    alice = await signedInDemoClient(stack, 'alice');
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("lets a user's ES256 session in (no gateway check: verify_jwt = false)", async () => {
    const token = await accessToken(alice);
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'ES256', kid: anyString });
    const res = await exportAs(stack, token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ list: { id: SEED.list } });
    // The control for the refusals below: the same claims, signed by the project's key.
    const resigned = await stack.keys.sign(await aliceClaims(alice, now()));
    expect((await exportAs(stack, resigned)).status).toBe(200);
    // Through supabase-js as the app calls it, and a function that acts for the user by id.
    const invite = await alice.functions.invoke('create-invite', {
      body: { list_id: SEED.list, role: 'viewer' },
    });
    expect(invite.error).toBeNull();
    expect(invite.data).toMatchObject({ role: 'viewer', list_id: SEED.list });
  });

  it('refuses an HS256 token: legacy keys are off', async () => {
    const token = await hs256(await aliceClaims(alice, now()));
    expect(await exportAs(stack, token)).toMatchObject(REFUSED);
  });

  it('refuses a token signed by a key the project never had (unknown kid)', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const token = await new SignJWT(await aliceClaims(alice, now()))
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid: randomUUID() })
      .sign(privateKey);
    expect(await exportAs(stack, token)).toMatchObject(REFUSED);
  });

  it("refuses a forged signature under the current key's kid", async () => {
    const forged = await forgedKeys(stack);
    const token = await forged.sign(await aliceClaims(alice, now()));
    expect(await exportAs(stack, token)).toMatchObject(REFUSED);
  });

  it('refuses alg none, with or without a kid', async () => {
    const claims = await aliceClaims(alice, now());
    const kid = stack.keys.signingKeys().find((key) => key.state === 'current')?.kid;
    for (const header of [
      { alg: 'none', typ: 'JWT' },
      { alg: 'none', typ: 'JWT', kid },
    ]) {
      expect(await exportAs(stack, unsigned(header, claims)), JSON.stringify(header)).toMatchObject(
        REFUSED,
      );
    }
  });

  it("checks exp on the devstack's clock: good a second before, refused at exp", async () => {
    const token = await stack.keys.sign(
      { role: 'authenticated', aud: 'authenticated', sub: SEED.alice },
      60,
    );
    clock.advance(59_000);
    expect((await exportAs(stack, token)).status).toBe(200);
    clock.advance(1_000);
    expect(await exportAs(stack, token)).toMatchObject(REFUSED);
  });

  it('refuses API keys posing as a session, and no Authorization at all', async () => {
    expect(await exportAs(stack, stack.publishableKey)).toMatchObject(REFUSED);
    expect(await exportAs(stack, stack.secretKey)).toMatchObject(REFUSED);
    expect(
      await post(stack, 'export-list', { apikey: stack.publishableKey }, { list_id: SEED.list }),
    ).toMatchObject(REFUSED);
    // A signed-out supabase-js client sends the publishable key as its Bearer.
    const signedOut = await stack.client().functions.invoke('export-list', {
      body: { list_id: SEED.list },
    });
    expect(signedOut.response?.status).toBe(401);
    // An API key is no service caller where the function takes none.
    expect(
      await post(
        stack,
        'create-invite',
        { apikey: stack.secretKey, Authorization: `Bearer ${stack.secretKey}` },
        { list_id: SEED.list, role: 'viewer' },
      ),
    ).toMatchObject(REFUSED);
  });

  it('lets the secret key drain attachment-cleanup (in apikey, or via supabase-js)', async () => {
    const byApikey = await post(stack, 'attachment-cleanup', { apikey: stack.secretKey });
    expect(byApikey).toMatchObject({ status: 200, body: { removed: anyNumber } });
    const server = stack.client({ key: stack.secretKey, persistSession: false });
    const viaClient = await server.functions.invoke('attachment-cleanup', { body: {} });
    expect(viaClient.error).toBeNull();
    expect(viaClient.data).toMatchObject({ removed: anyNumber });
    // Any signed-in user may poke it too.
    expect((await alice.functions.invoke('attachment-cleanup', { body: {} })).error).toBeNull();
    // Not the publishable key, nor a secret key of another project.
    for (const key of [stack.publishableKey, `${stack.secretKey}x`, 'sb_secret_somebody-else']) {
      expect(await post(stack, 'attachment-cleanup', { apikey: key }), key).toMatchObject(REFUSED);
      expect(
        await post(stack, 'attachment-cleanup', { Authorization: `Bearer ${key}` }),
        key,
      ).toMatchObject(REFUSED);
    }
  });

  // Last: it rotates the project's signing key.
  it('after a rotation: old sessions work until their key is revoked, new ones carry the new kid', async () => {
    const before = await accessToken(alice);
    const oldKid = decodeProtectedHeader(before).kid;
    expect((await exportAs(stack, before)).status).toBe(200); // the worker caches the JWKS
    const newKid = await stack.keys.rotate();
    expect((await exportAs(stack, before)).status).toBe(200);
    const bob = await signedInDemoClient(stack, 'bob');
    const after = await accessToken(bob);
    expect(decodeProtectedHeader(after).kid).toBe(newKid);
    // A kid the cached set lacks is fetched at once: the new key verifies straight away.
    expect((await exportAs(stack, after)).status).toBe(200); // Bob shares the seeded list

    stack.keys.revoke(String(oldKid));
    // supabase-js trusts the JWKS it fetched for 10 minutes (as on hosted); once that passes,
    // the revoked key is gone from the fetched set and its tokens are refused.
    clock.advance(JWKS_TTL_MS + 1_000);
    const stale = await stack.keys.sign(await aliceClaims(alice, now()));
    expect(decodeProtectedHeader(stale).kid).toBe(newKid);
    expect((await exportAs(stack, stale)).status).toBe(200);
    // Alice's session, signed by the revoked key, unexpired on the clock.
    expect(await exportAs(stack, before)).toMatchObject(REFUSED);
  });
});

describe.each(ENGINE_KINDS)('functions on an existing project, legacy keys on (%s)', (kind) => {
  const nowSec = () => Math.floor(Date.now() / 1000);

  const stack = devstackPerEngine(kind, { legacyKeys: true });

  it('still lets in an HS256 session signed with the legacy secret', async () => {
    const legacy = stack.legacyKeys;
    if (!legacy) throw new Error('legacy keys should be on');
    const alice = await signedInDemoClient(stack, 'alice');
    const token = await hs256(await aliceClaims(alice, nowSec()), legacy.jwtSecret);
    const res = await exportAs(stack, token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ list: { id: SEED.list } });
    // …and the ES256 one, side by side.
    expect((await exportAs(stack, await accessToken(alice))).status).toBe(200);
  });

  it('refuses the legacy anon key as a session, and the legacy service_role key as a service', async () => {
    const legacy = stack.legacyKeys;
    if (!legacy) throw new Error('legacy keys should be on');
    expect(await exportAs(stack, legacy.anonKey)).toMatchObject(REFUSED);
    // The project has secret keys: the service caller is one of them, not the legacy key.
    expect(
      await post(stack, 'attachment-cleanup', {
        apikey: legacy.serviceRoleKey,
        Authorization: `Bearer ${legacy.serviceRoleKey}`,
      }),
    ).toMatchObject(REFUSED);
    expect((await post(stack, 'attachment-cleanup', { apikey: stack.secretKey })).status).toBe(200);
  });

  it("refuses a legacy token signed with another project's secret", async () => {
    const alice = await signedInDemoClient(stack, 'alice');
    const claims = await aliceClaims(alice, nowSec());
    const token = await hs256(claims, 'another-projects-secret-of-at-least-32-chars');
    expect(await exportAs(stack, token)).toMatchObject(REFUSED);
  });
});
