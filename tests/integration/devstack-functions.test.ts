// /functions/v1 through unmodified supabase-js: the three edge functions of product.md §7 running in
// real Deno workers (create-invite, accept-invite, export-list) with every error code, the
// gateway's JWT check, unknown functions, and no Deno process left after stop(). Both engines.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { FunctionsHttpError, type SupabaseClient } from '@supabase/supabase-js';
import { Hono } from 'hono';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { AUTH_DEFAULTS } from '../../devstack/auth/config';
import { BCRYPT_MIN_COST } from '../../devstack/auth/routes';
import { realClock } from '../../devstack/clock';
import type { DevstackContext } from '../../devstack/context';
import { functionsRoutes } from '../../devstack/functions/routes';
import { LOCAL_PUBLISHABLE_KEY, type Keys, type LegacyKeys } from '../../devstack/keys';
import { createProjectKeys } from '../../devstack/keys-config';
import { REPO_ROOT } from '../../devstack/schema-files';

import { ENGINE_KINDS } from '../support/database';
import {
  SEED,
  signedInDemoClient,
  startTestDevstack,
  TestClock,
  type TestDevstack,
} from '../support/devstack';

/** The legacy keys of a key model made with them on. */
function legacyKeys(keys: Keys): LegacyKeys {
  if (!keys.legacy) throw new Error('legacy keys should be on');
  return keys.legacy;
}

/** expect.stringContaining, typed (vitest declares it as returning any). */
const stringContaining = (text: string): unknown => expect.stringContaining(text) as unknown;

/** The body and status of a function call, error or not. */
async function call(
  client: SupabaseClient,
  name: string,
  body: unknown,
): Promise<{ status: number; body: unknown; text?: string; headers: Headers | undefined }> {
  const result = await client.functions.invoke<unknown>(name, {
    body: body as Record<string, unknown>,
  });
  const { data, response } = result;
  const error: unknown = result.error; // typed any by functions-js
  if (error) {
    if (!(error instanceof FunctionsHttpError)) {
      throw error instanceof Error ? error : new Error(JSON.stringify(error));
    }
    const res = error.context as Response;
    return { status: res.status, body: (await res.json()) as unknown, headers: res.headers };
  }
  const status = response?.status ?? 0;
  if (typeof data === 'string')
    return { status, body: undefined, text: data, headers: response?.headers };
  return { status, body: data, headers: response?.headers };
}

/** Deno worker processes (running `pattern`, a path of this test's own) alive now. */
function denoWorkers(pattern: string): number {
  return denoPids(pattern).length;
}

/**
 * The function each Deno worker started by this process runs (its own children only: other
 * test files may run devstacks with workers at the same time).
 */
function ownDenoWorkers(): string[] {
  // -ww: full command lines whatever COLUMNS says (ps cuts them to its width otherwise).
  const out = execFileSync('ps', ['-ww', '-o', 'args=', '--ppid', String(process.pid)], {
    encoding: 'utf8',
  });
  return out
    .split('\n')
    .filter((line) => line.includes('deno-bootstrap.js'))
    .map((line) => /\/functions\/([^/\s]+)\/index\.ts/.exec(line)?.[1] ?? line);
}

/** Resolves once `done()` holds, checked every 20 ms; rejects after `timeoutMs`. */
async function waitFor(done: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function denoPids(pattern: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', pattern], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

let counter = 0;
async function newUser(stack: TestDevstack): Promise<{ client: SupabaseClient; id: string }> {
  counter += 1;
  const client = stack.client();
  const { data, error } = await client.auth.signUp({
    email: `fn-${Date.now().toString(36)}-${counter}@example.com`,
    password: 'secret-123',
  });
  if (error || !data.user) throw error ?? new Error('sign-up returned no user');
  return { client, id: data.user.id };
}

describe.each(ENGINE_KINDS)('edge functions (%s)', (kind) => {
  /** The devstack's clock: the gateway's expiry check is reached by moving it. */
  const clock = new TestClock();
  let stack: TestDevstack;
  let keys: Keys;
  let alice: SupabaseClient;
  let bob: SupabaseClient;

  beforeAll(async () => {
    stack = await startTestDevstack(kind, { clock });
    keys = stack.keys;
    [alice, bob] = await Promise.all([
      signedInDemoClient(stack, 'alice'),
      signedInDemoClient(stack, 'bob'),
    ]);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('creates an invite for an owner: a link with a single-use token, 7 days', async () => {
    const started = performance.now();
    const res = await call(alice, 'create-invite', { list_id: SEED.list, role: 'viewer' });
    const coldMs = performance.now() - started;
    expect(res.status).toBe(200);
    const invite = res.body as { url: string; token: string; expires_at: string; role: string };
    expect(invite.role).toBe('viewer');
    expect(invite.token).toMatch(/^[0-9a-f]{64}$/);
    expect(invite.url).toBe(`http://localhost:4173/invite/${invite.token}`);
    const days = (Date.parse(invite.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThan(7.01);

    const warmStarted = performance.now();
    expect(
      (await call(alice, 'create-invite', { list_id: SEED.list, role: 'editor' })).status,
    ).toBe(200);
    const warmMs = performance.now() - warmStarted;
    console.log(
      `create-invite on ${kind}: first call ${coldMs.toFixed(0)} ms, warm ${warmMs.toFixed(0)} ms`,
    );
  });

  it('refuses invites from non-owners and bad input', async () => {
    expect(await call(bob, 'create-invite', { list_id: SEED.list, role: 'viewer' })).toMatchObject({
      status: 403,
      body: { error: { code: 'PERMISSION_DENIED' } },
    });
    expect(await call(alice, 'create-invite', { list_id: SEED.list, role: 'owner' })).toMatchObject(
      {
        status: 400,
        body: { error: { code: 'VALIDATION_FAILED' } },
      },
    );
    expect(
      await call(alice, 'create-invite', { list_id: 'not-a-uuid', role: 'viewer' }),
    ).toMatchObject({
      status: 400,
      body: { error: { code: 'VALIDATION_FAILED', message: stringContaining('list_id') } },
    });
    const missing = await call(alice, 'create-invite', {
      list_id: '00000000-0000-4000-8000-00000000dead',
      role: 'viewer',
    });
    expect(missing).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
  });

  it('accepts an invite once; then INVITE_USED, ALREADY_MEMBER, INVITE_INVALID, INVITE_EXPIRED', async () => {
    const invite = (await call(alice, 'create-invite', { list_id: SEED.list, role: 'viewer' }))
      .body as { token: string; invite_id: string };
    const carol = await newUser(stack);
    const before = await carol.client.from('lists').select('id').eq('id', SEED.list);
    expect(before.data).toEqual([]);

    expect(await call(carol.client, 'accept-invite', { token: invite.token })).toMatchObject({
      status: 200,
      body: { list_id: SEED.list, role: 'viewer' },
    });
    const after = await carol.client.from('lists').select('id').eq('id', SEED.list);
    expect(after.data).toEqual([{ id: SEED.list }]);

    const dave = await newUser(stack);
    expect(await call(dave.client, 'accept-invite', { token: invite.token })).toMatchObject({
      status: 409,
      body: { error: { code: 'INVITE_USED' } },
    });

    const second = (await call(alice, 'create-invite', { list_id: SEED.list, role: 'editor' }))
      .body as { token: string; invite_id: string };
    expect(await call(bob, 'accept-invite', { token: second.token })).toMatchObject({
      status: 409,
      body: { error: { code: 'ALREADY_MEMBER', list_id: SEED.list } },
    });

    expect(await call(dave.client, 'accept-invite', { token: 'f'.repeat(64) })).toMatchObject({
      status: 404,
      body: { error: { code: 'INVITE_INVALID' } },
    });
    expect(await call(dave.client, 'accept-invite', { token: 42 })).toMatchObject({
      status: 400,
      body: { error: { code: 'VALIDATION_FAILED' } },
    });

    await stack.db.query(
      `update public.invites
          set created_at = now() - interval '8 days', expires_at = now() - interval '1 day'
        where id = $1`,
      [second.invite_id],
    );
    expect(await call(dave.client, 'accept-invite', { token: second.token })).toMatchObject({
      status: 410,
      body: { error: { code: 'INVITE_EXPIRED' } },
    });
    // Nothing changed for dave.
    expect((await dave.client.from('lists').select('id')).data).toEqual([]);
  });

  it('exports a list as JSON for a member, with tasks, their checklists and comments', async () => {
    const res = await call(bob, 'export-list', { list_id: SEED.list, format: 'json' });
    expect(res.status).toBe(200);
    const exported = res.body as {
      list: { id: string; name: string };
      members: { user_id: string; role: string }[];
      tasks: {
        id: string;
        list_id: string;
        comments: unknown[];
        checklist: { text: string; done: boolean }[];
        repeat: string | null;
      }[];
    };
    expect(exported.list).toMatchObject({ id: SEED.list, name: 'Site inspection — Block C' });
    const { count } = await bob
      .from('tasks')
      .select('id', { count: 'exact', head: true })
      .eq('list_id', SEED.list)
      .is('deleted_at', null);
    expect(exported.tasks).toHaveLength(count ?? -1);
    expect(exported.tasks.every((t) => t.list_id === SEED.list && Array.isArray(t.comments))).toBe(
      true,
    );
    expect(exported.members.map((m) => m.role).sort()).toEqual(
      expect.arrayContaining(['editor', 'owner']),
    );
    // The seed's checklist (in order) and repeating task (supabase/seed.sql).
    const fireExits = exported.tasks.find((t) => t.id === '7a5c0000-0000-4000-8000-000000000000');
    expect(fireExits?.checklist.map((item) => [item.text, item.done])).toEqual([
      ['North stair, level 1', true],
      ['South stair, level 1', true],
      ['Exit signs lit', false],
      ['Doors open freely and are not blocked', false],
    ]);
    const meters = exported.tasks.find((t) => t.id === '7a5c0000-0000-4000-8000-000000000004');
    expect(meters?.repeat).toBe('weekly:1');
  });

  it('exports CSV with RFC 4180 quoting and formula cells defused', async () => {
    const tricky = 'He said "hi", then\nleft';
    const formula = '=HYPERLINK("http://evil")';
    const { error } = await alice.from('tasks').insert([
      { id: crypto.randomUUID(), list_id: SEED.list, title: tricky, position: 'zz0' },
      { id: crypto.randomUUID(), list_id: SEED.list, title: formula, position: 'zz1' },
    ]);
    expect(error).toBeNull();

    const res = await call(alice, 'export-list', { list_id: SEED.list, format: 'csv' });
    expect(res.status).toBe(200);
    expect(res.headers?.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers?.get('content-disposition')).toBe(
      'attachment; filename="Site-inspection-Block-C.csv"',
    );
    const csv = res.text ?? '';
    expect(csv.split('\r\n')[0]).toBe(
      'id,title,status,priority,due_on,repeat,checklist,assignee,notes,completed_at,created_at,updated_at',
    );
    expect(csv).toContain('7a5c0000-0000-4000-8000-000000000000,Check fire exits on level 1,');
    expect(csv).toMatch(/7a5c0000-0000-4000-8000-000000000000,[^\r]*,2\/4,/);
    expect(csv).toMatch(/7a5c0000-0000-4000-8000-000000000004,[^\r]*,weekly:1,/);
    expect(csv).toContain('"He said ""hi"", then\nleft"');
    expect(csv).toContain(`"'=HYPERLINK(""http://evil"")"`);
    expect(csv).toContain(',Bob,'); // assignees by display name
  });

  it('refuses an export to a non-member as if the list did not exist', async () => {
    const outsider = await newUser(stack);
    expect(await call(outsider.client, 'export-list', { list_id: SEED.list })).toMatchObject({
      status: 404,
      body: { error: { code: 'NOT_FOUND' } },
    });
    expect(
      await call(outsider.client, 'export-list', { list_id: SEED.list, format: 'xml' }),
    ).toMatchObject({
      status: 400,
      body: { error: { code: 'VALIDATION_FAILED' } },
    });
  });

  it('refuses callers without a valid session in the function itself (verify_jwt = false)', async () => {
    // No gateway check runs for these functions (config.toml): each answers its own 401
    // AUTH_EXPIRED (supabase/functions/_shared/auth.ts; tests/integration/functions-auth.test.ts
    // goes through every kind of bad token).
    const url = `${stack.url}/functions/v1/export-list`;
    const refused = { status: 401, body: { error: { code: 'AUTH_EXPIRED' } } };
    const post = async (headers: Record<string, string>) => {
      const res = await fetch(url, {
        method: 'POST',
        headers: { apikey: stack.publishableKey, 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify({ list_id: SEED.list }),
      });
      return { status: res.status, body: (await res.json()) as unknown };
    };
    expect(await post({})).toMatchObject(refused);
    expect(await post({ Authorization: 'Bearer not.a.jwt' })).toMatchObject(refused);
    expect(await post({ Authorization: 'Basic YWxpY2U6c2VjcmV0' })).toMatchObject(refused);
    const nowSec = Math.floor(clock.now() / 1000);
    const expiredToken = await keys.sign({
      role: 'authenticated',
      aud: 'authenticated',
      sub: SEED.alice,
      iat: nowSec - 7200,
      exp: nowSec - 3600,
    });
    expect(await post({ Authorization: `Bearer ${expiredToken}` })).toMatchObject(refused);

    // Expiry is on the devstack's clock (the worker's Date.now follows it): good a second
    // before exp, refused at exp.
    const expiring = await keys.sign(
      { role: 'authenticated', aud: 'authenticated', sub: SEED.alice },
      60,
    );
    clock.advance(59_000);
    const fresh = await post({ Authorization: `Bearer ${expiring}` });
    expect(fresh.status).toBe(200);
    expect(fresh.body).toMatchObject({ list: { id: SEED.list } });
    clock.advance(1_000);
    expect(await post({ Authorization: `Bearer ${expiring}` })).toMatchObject(refused);

    // A signed-out client sends the publishable key as its Bearer: it names nobody.
    const anon = stack.client();
    expect(await call(anon, 'export-list', { list_id: SEED.list })).toMatchObject(refused);
  });

  it('answers unknown functions and shared folders with 404', async () => {
    for (const name of ['nope', '_shared', '..%2f..', 'create-invite%zz']) {
      const res = await fetch(`${stack.url}/functions/v1/${name}`, {
        method: 'POST',
        headers: { apikey: stack.publishableKey, Authorization: `Bearer ${stack.publishableKey}` },
      });
      expect(res.status, name).toBe(404);
      expect(await res.json()).toEqual({
        code: 'NOT_FOUND',
        message: 'Requested function was not found',
      });
    }
  });

  // Last: it stops the stack.
  it('runs one worker per function and leaves no Deno process behind after stop()', async () => {
    for (let i = 0; i < 2; i += 1) {
      await call(alice, 'create-invite', { list_id: SEED.list, role: 'viewer' });
      await call(alice, 'export-list', { list_id: SEED.list });
    }
    const workers = ownDenoWorkers();
    expect(workers).toEqual(expect.arrayContaining(['create-invite', 'export-list']));
    expect(new Set(workers).size).toBe(workers.length);
    await stack.stop();
    expect(ownDenoWorkers()).toEqual([]);
  });
});

describe('edge function workers: boot failures, crashes and restarts', () => {
  // The real routes over a throwaway functions folder, so broken functions can be made.
  const dir = mkdtempSync(join(tmpdir(), 'outpost-functions-'));
  const stops: (() => Promise<void> | void)[] = [];
  let app: Hono;
  let auth: Record<string, string>;
  let keys: Keys;

  function writeFunction(name: string, source: string): void {
    mkdirSync(join(dir, name), { recursive: true });
    writeFileSync(join(dir, name, 'index.ts'), source);
  }

  /** The real routes over the throwaway folder with `keys`; their workers stop with `stops`. */
  function routesWith(projectKeys: Keys): Hono {
    const ctx: DevstackContext = {
      db: undefined as never, // the functions service never touches the database
      keys: projectKeys,
      settings: {
        accessTokenTtlSec: 3600,
        storageDir: dir,
        functionsDir: dir,
        auth: AUTH_DEFAULTS,
        maxRows: 1000,
        passwordHashCost: BCRYPT_MIN_COST,
      },
      url: () => 'http://127.0.0.1:1',
      clock: realClock,
      onStop: (fn) => stops.push(fn),
    };
    return new Hono().route('/functions/v1', functionsRoutes(ctx));
  }

  beforeAll(async () => {
    // Legacy keys on: the throwaway functions are not in config.toml, so the gateway checks
    // their caller (verify_jwt defaults to true), and that check passes legacy JWTs only.
    keys = await createProjectKeys({ legacy: true });
    app = routesWith(keys);
    auth = { Authorization: `Bearer ${legacyKeys(keys).anonKey}` };
    writeFunction(
      'echo',
      `Deno.serve(async (req) => {
        const url = new URL(req.url);
        if (url.pathname.endsWith('/exit')) Deno.exit(3);
        return Response.json({
          method: req.method,
          path: url.pathname,
          query: url.search,
          body: await req.text(),
          header: req.headers.get('x-test'),
          pid: Deno.pid,
          url: Deno.env.get('SUPABASE_URL'),
          env: Object.fromEntries(
            ['SUPABASE_PUBLISHABLE_KEYS', 'SUPABASE_SECRET_KEYS', 'SUPABASE_JWKS',
             'SUPABASE_ANON_KEY', 'SUPABASE_SERVICE_ROLE_KEY', 'SITE_URL']
              .map((name) => [name, Deno.env.get(name) ?? null]),
          ),
          now: Date.now(),
          clockHeader: req.headers.get('x-devstack-now'),
        });
      });`,
    );
    writeFunction('broken', `throw new Error('broken on purpose');\n`);
  });
  afterAll(async () => {
    for (const stop of stops) await stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('proxies method, sub-path, query, headers and body; hands the function its env', async () => {
    const res = await app.request('/functions/v1/echo/sub/path?x=1', {
      method: 'PUT',
      headers: { ...auth, 'x-test': 'yes' },
      body: 'payload',
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      method: 'PUT',
      path: '/echo/sub/path',
      query: '?x=1',
      body: 'payload',
      header: 'yes',
      url: 'http://127.0.0.1:1',
    });
  });

  it("hands a function hosted's variables: key dictionaries, the JWKS, legacy keys while on", async () => {
    const res = await app.request('/functions/v1/echo', { headers: auth });
    const { env } = (await res.json()) as { env: Record<string, string | null> };
    expect(JSON.parse(env.SUPABASE_PUBLISHABLE_KEYS ?? 'null')).toEqual({
      default: keys.publishableKey,
    });
    expect(JSON.parse(env.SUPABASE_SECRET_KEYS ?? 'null')).toEqual({ default: keys.secretKey });
    expect(JSON.parse(env.SUPABASE_JWKS ?? 'null')).toEqual(keys.jwks());
    expect(env.SUPABASE_ANON_KEY).toBe(legacyKeys(keys).anonKey);
    expect(env.SUPABASE_SERVICE_ROLE_KEY).toBe(legacyKeys(keys).serviceRoleKey);
  });

  it("verify_jwt's gateway check passes legacy JWTs only, as on hosted", async () => {
    const echo = (headers: Record<string, string>) =>
      app.request('/functions/v1/echo', { headers });
    expect((await echo(auth)).status).toBe(200);
    const none = await echo({});
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({
      code: 'UNAUTHORIZED_NO_AUTH_HEADER',
      message: 'Missing authorization header',
    });
    // A session signed with the project's asymmetric key fails the check ("Edge Function
    // 401" troubleshooting), valid as it is: why Outpost's functions turn it off.
    const es256 = await keys.sign({ role: 'authenticated', sub: SEED.alice }, 3600);
    for (const token of [es256, keys.publishableKey, keys.secretKey, 'not.a.jwt']) {
      const res = await echo({ Authorization: `Bearer ${token}` });
      expect(res.status, token).toBe(401);
      expect(await res.json()).toEqual({
        code: 'UNAUTHORIZED_INVALID_JWT',
        message: 'Invalid JWT',
      });
    }
    const basic = await echo({ Authorization: 'Basic YWxpY2U6c2VjcmV0' });
    expect(await basic.json()).toMatchObject({ code: 'UNAUTHORIZED_INVALID_JWT_FORMAT' });
    const nowSec = Math.floor(Date.now() / 1000);
    const expired = await new SignJWT({ role: 'authenticated', sub: SEED.alice })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt(nowSec - 7200)
      .setExpirationTime(nowSec - 3600)
      .sign(new TextEncoder().encode(legacyKeys(keys).jwtSecret));
    const stale = await echo({ Authorization: `Bearer ${expired}` });
    expect(stale.status).toBe(401);
    expect(await stale.json()).toEqual({
      code: 'UNAUTHORIZED_INVALID_JWT',
      message: 'JWT expired',
    });
  });

  it('with legacy keys off, verify_jwt refuses every call: no token can pass it', async () => {
    const projectKeys = await createProjectKeys();
    const off = routesWith(projectKeys);
    const session = await projectKeys.sign({ role: 'authenticated', sub: SEED.alice }, 3600);
    for (const token of [session, legacyKeys(keys).anonKey, legacyKeys(keys).serviceRoleKey]) {
      const res = await off.request('/functions/v1/echo', {
        headers: { Authorization: `Bearer ${token}` },
      });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({
        code: 'UNAUTHORIZED_INVALID_JWT',
        message: 'Invalid JWT',
      });
    }
  });

  it("gives the worker the devstack's time, never a client's", async () => {
    const res = await app.request('/functions/v1/echo', {
      headers: { ...auth, 'x-devstack-now': '0' },
    });
    const seen = (await res.json()) as { now: number; clockHeader: string | null };
    // The gateway's own stamp replaced the forged one; realClock here, so the worker's
    // Date.now is the wall clock, not the forged epoch.
    expect(Math.abs(Number(seen.clockHeader) - Date.now())).toBeLessThan(60_000);
    expect(Math.abs(seen.now - Date.now())).toBeLessThan(60_000);
  });

  it('answers a crash mid-request with a relay error; the next call runs a fresh worker', async () => {
    const first = (await (await app.request('/functions/v1/echo', { headers: auth })).json()) as {
      pid: number;
    };
    const crashed = await app.request('/functions/v1/echo/exit', { headers: auth });
    expect(crashed.status).toBe(502);
    expect(crashed.headers.get('x-relay-error')).toBe('true');
    expect(await crashed.json()).toMatchObject({ code: 'WORKER_ERROR' });
    const again = await app.request('/functions/v1/echo', { headers: auth });
    expect(again.status).toBe(200);
    const second = (await again.json()) as { pid: number };
    expect(second.pid).not.toBe(first.pid);
    expect(denoPids(join(dir, 'echo'))).toEqual([second.pid]);
  });

  it('restarts a worker that was killed between calls', async () => {
    const [pid] = denoPids(join(dir, 'echo'));
    expect(pid).toBeGreaterThan(0);
    process.kill(pid ?? 0, 'SIGKILL');
    // Reaped (its /proc entry gone) means the devstack has seen it exit.
    await waitFor(() => !existsSync(`/proc/${pid}`), `worker ${pid} to be reaped`);
    const res = await app.request('/functions/v1/echo', { headers: auth });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { pid: number }).pid).not.toBe(pid);
  });

  it('answers a function that fails to boot with 503 BOOT_ERROR, and retries it next call', async () => {
    const res = await app.request('/functions/v1/broken', { method: 'POST', headers: auth });
    expect(res.status).toBe(503);
    expect(res.headers.get('x-relay-error')).toBe('true');
    expect(await res.json()).toEqual({
      code: 'BOOT_ERROR',
      message: 'Function failed to start (please check logs)',
    });
    expect(denoWorkers(join(dir, 'broken'))).toBe(0);

    writeFunction('broken', `Deno.serve(() => new Response('fixed'));\n`);
    const fixed = await app.request('/functions/v1/broken', { method: 'POST', headers: auth });
    expect(fixed.status).toBe(200);
    expect(await fixed.text()).toBe('fixed');
  });

  it('stops every worker it started', async () => {
    expect(denoWorkers(dir)).toBe(2);
    for (const stop of stops.splice(0)) await stop();
    expect(denoWorkers(dir)).toBe(0);
  });
});

describe('edge function workers outlive no devstack', () => {
  /** Whether a pid is gone (no such process, or a zombie nobody has reaped yet). */
  function gone(pid: number): boolean {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return / Z /.test(stat.slice(stat.lastIndexOf(')')));
    } catch {
      return true;
    }
  }

  function childPids(parent: number): number[] {
    const out = execFileSync('ps', ['-o', 'pid=', '--ppid', String(parent)], {
      encoding: 'utf8',
    }).trim();
    return out === '' ? [] : out.split(/\s+/).map(Number);
  }

  it('exits when the devstack is SIGKILLed', async () => {
    // The CLI itself, in one process (node --import tsx), as `npm run backend` runs it.
    const cli = spawn(process.execPath, ['--import', 'tsx', 'devstack/cli.ts'], {
      cwd: REPO_ROOT,
      env: { ...process.env, DEVSTACK_MEMORY: 'true', DEVSTACK_PORT: '0', DEVSTACK_SEED: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let output = '';
        cli.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const match = /API URL:\s+(\S+)/.exec(output);
          if (match?.[1]) resolve(match[1]);
        });
        cli.once('exit', (code) => reject(new Error(`devstack exited (${code}): ${output}`)));
      });
      // Any answer from the function means its worker is up.
      const res = await fetch(`${url}/functions/v1/export-list`, {
        method: 'POST',
        headers: {
          apikey: LOCAL_PUBLISHABLE_KEY,
          Authorization: `Bearer ${LOCAL_PUBLISHABLE_KEY}`,
        },
        body: '{}',
      });
      await res.arrayBuffer();
      expect(res.headers.get('x-relay-error')).toBeNull();
      const workers = childPids(cli.pid ?? -1);
      expect(workers.length).toBeGreaterThan(0);

      cli.kill('SIGKILL');
      await waitFor(() => workers.every(gone), 'the workers to exit').catch(() => undefined);
      expect(workers.filter((pid) => !gone(pid))).toEqual([]);
    } finally {
      cli.kill('SIGKILL');
    }
  });
});
