// The edge functions' auth helper (supabase/functions/_shared/auth.ts) and the keys it takes
// from the platform's variables, run here under Node with a stand-in for Deno.env: the new
// key dictionaries first, the legacy keys only when a project hands functions no new ones,
// a malformed dictionary failing closed, and the service caller an exact secret key. (The
// helper against a running devstack, both key models: functions-auth.test.ts.)
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import ws from 'ws';

import { REPO_ROOT } from '../../devstack/schema-files';

interface AuthModule {
  keyDictionary(name: string): { default?: string; all: string[] };
  secretKeys(): string[];
  publishableKey(): string;
  serviceClient(): object;
  verifyCaller(
    req: Request,
    options?: { allowService?: boolean },
  ): Promise<{ kind: 'user' | 'service' } | Response>;
}

const SECRET = 'sb_secret_N7UND0UgjKTVK-Uodkm0Hg_xSvEMPvz';
const SECOND_SECRET = 'sb_secret_second-key-for-the-scheduler000';
const PUBLISHABLE = 'sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH';
const LEGACY_ANON = 'legacy.anon.jwt';
const LEGACY_SERVICE = 'legacy.service-role.jwt';

/** The variables the stand-in Deno.env answers with. */
let vars: Record<string, string> = {};
let auth: AuthModule;

beforeAll(async () => {
  Object.assign(globalThis, { Deno: { env: { get: (name: string) => vars[name] } } });
  // supabase-js makes its realtime client up front, which needs a WebSocket (Deno has one;
  // Node 20 has none); nothing here connects.
  if (typeof globalThis.WebSocket === 'undefined') Object.assign(globalThis, { WebSocket: ws });
  // A path the type checker does not follow: the module is Deno code (tsc knows no Deno).
  const path = `${REPO_ROOT}/supabase/functions/_shared/auth.ts`;
  auth = (await import(/* @vite-ignore */ path)) as AuthModule;
});
afterEach(() => {
  vars = {};
});

function newKeys(secrets: Record<string, string> = { default: SECRET }) {
  return {
    SUPABASE_URL: 'http://127.0.0.1:1',
    SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ default: PUBLISHABLE }),
    SUPABASE_SECRET_KEYS: JSON.stringify(secrets),
  };
}
const legacy = { SUPABASE_ANON_KEY: LEGACY_ANON, SUPABASE_SERVICE_ROLE_KEY: LEGACY_SERVICE };

/** The key a supabase-js client was made with. */
function keyOf(client: object): unknown {
  return Reflect.get(client, 'supabaseKey');
}

async function callerOf(headers: Record<string, string>): Promise<string> {
  const who = await auth.verifyCaller(
    new Request('http://fn.test/attachment-cleanup', { method: 'POST', headers }),
    { allowService: true },
  );
  return who instanceof Response ? `refused ${who.status}` : who.kind;
}

describe("the functions' keys", () => {
  it('takes the new keys when the platform hands them, the legacy ones beside them unused', () => {
    vars = { ...newKeys({ default: SECRET, scheduler: SECOND_SECRET }), ...legacy };
    expect(auth.publishableKey()).toBe(PUBLISHABLE);
    expect(auth.secretKeys()).toEqual([SECRET, SECOND_SECRET]);
    expect(keyOf(auth.serviceClient())).toBe(SECRET);
  });

  it('falls back to the legacy keys only on a project with no new ones', () => {
    vars = { SUPABASE_URL: 'http://127.0.0.1:1', ...legacy };
    expect(auth.publishableKey()).toBe(LEGACY_ANON);
    expect(auth.secretKeys()).toEqual([LEGACY_SERVICE]);
    expect(keyOf(auth.serviceClient())).toBe(LEGACY_SERVICE);
  });

  it("uses a dictionary's default key, else its first", () => {
    vars = { SUPABASE_SECRET_KEYS: JSON.stringify({ ops: SECOND_SECRET, default: SECRET }) };
    expect(auth.keyDictionary('SUPABASE_SECRET_KEYS')).toEqual({
      default: SECRET,
      all: [SECOND_SECRET, SECRET],
    });
    vars = { SUPABASE_SECRET_KEYS: JSON.stringify({ ops: SECOND_SECRET, empty: '', n: 1 }) };
    expect(auth.keyDictionary('SUPABASE_SECRET_KEYS')).toEqual({
      default: SECOND_SECRET,
      all: [SECOND_SECRET],
    });
  });

  it('fails closed on a malformed dictionary: no fallback to the legacy key', () => {
    for (const raw of ['{not json', '["sb_secret_x"]', '"sb_secret_x"', 'null']) {
      vars = { SUPABASE_SECRET_KEYS: raw, ...legacy };
      expect(() => auth.secretKeys(), raw).toThrow();
    }
  });

  it('throws when a function has no key at all to work with', () => {
    vars = { SUPABASE_URL: 'http://127.0.0.1:1' };
    expect(() => auth.publishableKey()).toThrow('SUPABASE_ANON_KEY is not set');
    expect(() => auth.serviceClient()).toThrow('SUPABASE_SERVICE_ROLE_KEY is not set');
  });
});

describe('the service caller', () => {
  it('is any of the secret keys, exactly, in apikey or as the Bearer', async () => {
    vars = newKeys({ default: SECRET, scheduler: SECOND_SECRET });
    expect(await callerOf({ apikey: SECRET })).toBe('service');
    expect(await callerOf({ apikey: SECOND_SECRET })).toBe('service');
    expect(await callerOf({ Authorization: `Bearer ${SECRET}` })).toBe('service');
    for (const key of [`${SECRET}x`, SECRET.slice(0, -1), SECRET.toUpperCase(), PUBLISHABLE]) {
      expect(await callerOf({ apikey: key }), key).toBe('refused 401');
    }
  });

  it('is the legacy service_role key only on a project with no secret keys', async () => {
    vars = { ...newKeys(), ...legacy };
    expect(await callerOf({ apikey: LEGACY_SERVICE })).toBe('refused 401');
    vars = { SUPABASE_URL: 'http://127.0.0.1:1', ...legacy };
    expect(await callerOf({ apikey: LEGACY_SERVICE })).toBe('service');
    expect(await callerOf({ Authorization: `Bearer ${LEGACY_SERVICE}` })).toBe('service');
  });

  it('is never let in where a function takes users only', async () => {
    vars = newKeys();
    const who = await auth.verifyCaller(
      new Request('http://fn.test/export-list', { method: 'POST', headers: { apikey: SECRET } }),
    );
    expect(who).toBeInstanceOf(Response);
    expect(await (who as Response).json()).toEqual({
      error: { code: 'AUTH_EXPIRED', message: 'Sign in to do this.' },
    });
  });
});
