// The key model's rules that need no server: what a signing-keys file may hold, what counts
// as a browser, which strings are API keys, and the signing-key states (rotate, revoke).
import { decodeProtectedHeader, exportJWK, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';

import { createKeys, LOCAL_PUBLISHABLE_KEY, LOCAL_SECRET_KEY } from './keys';
import { ApiKeySet, isBrowserUserAgent } from './keys-api';
import { createProjectKeys, legacyKeysFromEnv } from './keys-config';
import { parseSigningKeysFile } from './keys-signing';

async function privateJwk(kid: string) {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid, alg: 'ES256' };
}

describe('signing-keys file', () => {
  it('takes a JSON array of private ES256 JWKs with distinct kids, nothing else', async () => {
    const a = await privateJwk('a');
    expect(parseSigningKeysFile(JSON.stringify([a]), 'f').map((k) => k.kid)).toEqual(['a']);
    const publicOnly = { ...a, d: undefined };
    for (const [text, error] of [
      ['{', /not JSON/],
      ['[]', /non-empty/],
      [JSON.stringify({ keys: [a] }), /non-empty JSON array/],
      [JSON.stringify([{ ...a, kid: '' }]), /needs a kid/],
      [JSON.stringify([{ ...a, alg: 'RS256' }]), /only ES256/],
      [JSON.stringify([{ ...a, alg: 'none' }]), /only ES256/],
      [JSON.stringify([publicOnly]), /no private part/],
      [JSON.stringify([a, a]), /share a kid/],
    ] as const) {
      expect(() => parseSigningKeysFile(text, 'f')).toThrow(error);
    }
  });
});

describe('API keys', () => {
  it('knows the CLI keys by kind, and no near miss', () => {
    const set = new ApiKeySet([LOCAL_PUBLISHABLE_KEY], [LOCAL_SECRET_KEY]);
    expect(set.find(LOCAL_PUBLISHABLE_KEY)).toEqual({ kind: 'publishable', role: 'anon' });
    expect(set.find(LOCAL_SECRET_KEY)).toEqual({ kind: 'secret', role: 'service_role' });
    expect(set.find(`${LOCAL_SECRET_KEY}x`)).toBeUndefined();
    expect(set.find(LOCAL_SECRET_KEY.slice(0, -1))).toBeUndefined();
    expect(set.find('')).toBeUndefined();
    expect(() => new ApiKeySet(['sb_secret_abcdefghijklmnopqrstuvwxyz'], [])).toThrow(
      /sb_publishable_/,
    );
    expect(() => new ApiKeySet([], ['sb_secret_short'])).toThrow(/sb_secret_/);
  });

  it('tells a browser by its User-Agent', () => {
    expect(isBrowserUserAgent('Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) Safari/605.1.15')).toBe(
      true,
    );
    for (const ua of ['node', 'curl/8.5.0', 'Deno/2.1.4', 'undici', '', undefined, 'mozilla']) {
      expect([ua, isBrowserUserAgent(ua)]).toEqual([ua, false]);
    }
  });

  it('reads DEVSTACK_LEGACY_KEYS strictly', () => {
    expect(legacyKeysFromEnv({})).toBe(false);
    expect(legacyKeysFromEnv({ DEVSTACK_LEGACY_KEYS: 'false' })).toBe(false);
    expect(legacyKeysFromEnv({ DEVSTACK_LEGACY_KEYS: 'true' })).toBe(true);
    expect(() => legacyKeysFromEnv({ DEVSTACK_LEGACY_KEYS: '1' })).toThrow(/true or false/);
  });
});

describe('signing keys', () => {
  it("signs with the config's key, rotates through standby, and never revokes the current key", async () => {
    const keys = await createProjectKeys();
    const [first] = keys.signingKeys();
    expect(first?.state).toBe('current');
    const token = await keys.sign({ role: 'anon' }, 60);
    expect(decodeProtectedHeader(token).kid).toBe(first?.kid);

    const standby = await keys.addStandbyKey();
    await expect(keys.addStandbyKey()).rejects.toThrow(/already a standby/);
    // Published ahead of the rotation, but it verifies nothing yet.
    expect(keys.jwks().keys.map((k) => k.kid)).toEqual([first?.kid, standby]);
    expect(await keys.rotate()).toBe(standby);
    expect((await keys.verify(token)).ok).toBe(true);
    expect(() => keys.revoke(standby)).toThrow(/current/);
    expect(() => keys.revoke('nope')).toThrow(/no signing key/);
    keys.revoke(first?.kid ?? '');
    expect(await keys.verify(token)).toMatchObject({ ok: false, kind: 'no-key' });
    expect(keys.jwks().keys.map((k) => k.kid)).toEqual([standby]);
  });

  it('refuses a legacy secret shorter than GoTrue allows', async () => {
    await expect(
      createKeys({ signingKeys: [await privateJwk('k')], legacy: { jwtSecret: 'short' } }),
    ).rejects.toThrow(/at least 32/);
  });
});
