// The production build refuses a missing, local or secret Supabase setting; a local build
// (`--mode devstack`) goes on. The rules (checkBuildEnv), and `vite build` itself stopping
// with the message before it bundles anything.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { REPO_ROOT } from '../devstack/schema-files';
import { buildEnvMessage, checkBuildEnv, LOCAL_BUILD_MODE } from './build-env';

const URL_OK = 'https://abcdefghijklmnop.supabase.co';
const KEY_OK = 'sb_publishable_Zx8f3kq9W2mYbT4nLpR7vA_1cDeFgHi';
const LOCAL_KEY = 'sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH';
/** The Supabase CLI's demo anon key (legacy, HS256, iss supabase-demo). */
const DEMO_ANON_KEY =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9.CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0';

/** A legacy JWT key of a real project (its payload is all that is read). */
function legacyKey(role: string): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ iss: 'supabase', ref: 'abcdefghijklmnop', role })}.c2lnbmF0dXJl`;
}

/** The production build's errors for a URL and publishable key. */
function productionErrors(url: string, publishableKey: string): string[] {
  return checkBuildEnv(
    { VITE_SUPABASE_URL: url, VITE_SUPABASE_PUBLISHABLE_KEY: publishableKey },
    'production',
  ).errors;
}

describe('checkBuildEnv: the production build', () => {
  it("accepts a project's URL and publishable key", () => {
    expect(
      checkBuildEnv(
        { VITE_SUPABASE_URL: URL_OK, VITE_SUPABASE_PUBLISHABLE_KEY: KEY_OK },
        'production',
      ),
    ).toEqual({ errors: [], warnings: [] });
  });

  it('refuses a missing URL and key, naming both', () => {
    const check = checkBuildEnv({}, 'production');
    expect(check.errors).toEqual([
      expect.stringContaining('VITE_SUPABASE_URL is not set'),
      expect.stringContaining('VITE_SUPABASE_PUBLISHABLE_KEY is not set'),
    ]);
    expect(productionErrors('', '')).toHaveLength(2);
  });

  it('refuses the local devstack: a loopback URL, the local or demo key', () => {
    for (const url of [
      'http://127.0.0.1:54321',
      'http://localhost:54321',
      'http://[::1]:54321',
      'http://0.0.0.0:54321',
    ]) {
      expect(productionErrors(url, KEY_OK), url).toEqual([
        expect.stringContaining('points at this machine'),
      ]);
    }
    expect(productionErrors(URL_OK, LOCAL_KEY)).toEqual([
      expect.stringContaining("local devstack's publishable key"),
    ]);
    expect(
      checkBuildEnv(
        { VITE_SUPABASE_URL: URL_OK, VITE_SUPABASE_ANON_KEY: DEMO_ANON_KEY },
        'production',
      ).errors,
    ).toEqual([expect.stringContaining('demo anon key')]);
  });

  it('refuses what is not an http(s) URL', () => {
    for (const url of [
      'abcdefghijklmnop.supabase.co',
      'ftp://example.com',
      'javascript:alert(1)',
    ]) {
      expect(productionErrors(url, KEY_OK), url).toHaveLength(1);
    }
  });

  it('refuses a secret key in any build, local ones too', () => {
    for (const mode of ['production', LOCAL_BUILD_MODE]) {
      for (const env of [
        { VITE_SUPABASE_PUBLISHABLE_KEY: 'sb_secret_N7UND0UgjKTVK-Uodkm0Hg_xSvEMPvz' },
        { VITE_SUPABASE_ANON_KEY: legacyKey('service_role') },
      ]) {
        const check = checkBuildEnv({ VITE_SUPABASE_URL: URL_OK, ...env }, mode);
        expect(check.errors, `${mode} ${JSON.stringify(env)}`).toEqual([
          expect.stringContaining('readable by every visitor'),
        ]);
      }
    }
  });

  it('still reads VITE_SUPABASE_ANON_KEY, with a warning', () => {
    expect(
      checkBuildEnv(
        { VITE_SUPABASE_URL: URL_OK, VITE_SUPABASE_ANON_KEY: legacyKey('anon') },
        'production',
      ),
    ).toEqual({
      errors: [],
      warnings: [expect.stringContaining('rename it to VITE_SUPABASE_PUBLISHABLE_KEY')],
    });
    expect(
      checkBuildEnv(
        {
          VITE_SUPABASE_URL: URL_OK,
          VITE_SUPABASE_PUBLISHABLE_KEY: KEY_OK,
          VITE_SUPABASE_ANON_KEY: LOCAL_KEY,
        },
        'production',
      ),
    ).toEqual({ errors: [], warnings: [expect.stringContaining('is ignored')] });
  });
});

describe('checkBuildEnv: a local build (--mode devstack)', () => {
  it('goes on with nothing set, or with the devstack', () => {
    expect(checkBuildEnv({}, LOCAL_BUILD_MODE)).toEqual({ errors: [], warnings: [] });
    expect(
      checkBuildEnv(
        { VITE_SUPABASE_URL: 'http://127.0.0.1:54321', VITE_SUPABASE_PUBLISHABLE_KEY: LOCAL_KEY },
        LOCAL_BUILD_MODE,
      ),
    ).toEqual({ errors: [], warnings: [] });
  });
});

describe('vite build', () => {
  const OUT_DIR = mkdtempSync(join(tmpdir(), 'outpost-build-env-'));
  afterAll(() => rmSync(OUT_DIR, { recursive: true, force: true }));

  /** Runs `vite build` with only these Supabase settings; stops before writing anything. */
  function viteBuild(env: Record<string, string>) {
    const clean = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('VITE_SUPABASE_')),
    );
    return spawnSync(
      process.execPath,
      // A throwaway outDir: were the check gone, the build would run to its end there.
      [
        join(REPO_ROOT, 'node_modules/vite/bin/vite.js'),
        'build',
        '--outDir',
        OUT_DIR,
        '--emptyOutDir',
      ],
      { cwd: REPO_ROOT, env: { ...clean, ...env }, encoding: 'utf8' },
    );
  }

  it('fails with the message when the project is not named', () => {
    const result = viteBuild({});
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(
      'This production build cannot be made with these Supabase settings',
    );
    expect(result.stderr).toContain('VITE_SUPABASE_URL is not set');
    expect(result.stderr).toContain('npm run build:local');
  });

  it('fails when it names the local devstack', () => {
    const result = viteBuild({
      VITE_SUPABASE_URL: 'http://127.0.0.1:54321',
      VITE_SUPABASE_PUBLISHABLE_KEY: LOCAL_KEY,
    });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('points at this machine');
    expect(result.stderr).toContain("local devstack's publishable key");
  });
});

describe('buildEnvMessage', () => {
  it('lists every problem and how to build locally', () => {
    const message = buildEnvMessage({ errors: ['one', 'two'], warnings: [] });
    expect(message).toContain('  - one\n  - two');
    expect(message).toContain('--mode devstack');
  });
});
