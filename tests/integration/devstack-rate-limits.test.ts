// GoTrue's rate limits are per caller address (issue 35): a script that exhausts the
// sign-in/sign-up bucket from one address must not lock out a caller at another. Requests
// leave from distinct loopback addresses (127.0.0.2, 127.0.0.3: the whole 127/8 is this
// machine) to the devstack listening on 127.0.0.1, so the server sees them as the socket
// gives them. The devstack's clock stands still: no bucket refills during a test.
import { request } from 'node:http';
import { randomUUID } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { BCRYPT_MIN_COST } from '../../devstack/auth/routes';
import type { PgCluster } from '../../devstack/pg-cluster';
import { startDevstack, type Devstack } from '../../devstack/server';
import { ENGINE_KINDS } from '../support/database';
import { TestClock } from '../support/devstack';
import { freshPostgres } from '../support/pg-databases';

/** GoTrue's burst: a bucket holds 30 requests (config.toml allows 30 per 5 minutes). */
const BURST = 30;

/** POSTs JSON to the devstack's auth API from `localAddress`; resolves with the status. */
function postFrom(
  stack: Devstack,
  localAddress: string,
  path: string,
  body: unknown,
): Promise<{ status: number; body: string }> {
  const url = new URL(`${stack.url}/auth/v1${path}`);
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        localAddress,
        agent: false,
        headers: {
          apikey: stack.publishableKey,
          // As supabase-js sends it: errors then come in GoTrue's current shape.
          'X-Supabase-Api-Version': '2024-01-01',
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(data),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

describe.each(ENGINE_KINDS)('devstack auth rate limits per address (%s)', (kind) => {
  let cluster: PgCluster | undefined;
  let stack: Devstack;
  const clock = new TestClock();

  beforeAll(async () => {
    cluster = kind === 'postgres' ? await freshPostgres() : undefined;
    // config.toml's limits as they are; only the clock is injected, and bcrypt's least cost
    // for the sign-ups' hashes: the buckets count requests, whatever a hash costs, and 64
    // hashes at GoTrue's cost 10 were most of this file's time.
    stack = await startDevstack({
      port: 0,
      databaseUrl: cluster?.url,
      clock,
      passwordHashCost: BCRYPT_MIN_COST,
    });
  });
  afterAll(async () => {
    await stack?.stop();
    await cluster?.stop();
  });

  it('one address exhausted by sign-ups, another still served', async () => {
    clock.advance(60 * 60 * 1000); // full buckets
    const signUp = (from: string) =>
      postFrom(stack, from, '/signup', {
        email: `rl-${randomUUID()}@example.com`,
        password: 'secret-123',
      });
    for (let i = 0; i < BURST; i += 1) {
      const res = await signUp('127.0.0.2');
      expect({ i, status: res.status }).toEqual({ i, status: 200 });
    }
    const refused = await signUp('127.0.0.2');
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toEqual({
      code: 'over_request_rate_limit',
      message: 'Request rate limit reached',
    });
    // Another caller is served, for sign-ups and sign-ins (the two share a bucket per address).
    expect((await signUp('127.0.0.3')).status).toBe(200);
    const signIn = await postFrom(stack, '127.0.0.3', '/token?grant_type=password', {
      email: 'alice@example.com',
      password: 'outpost-demo',
    });
    expect(signIn.status).toBe(200);
    // And the exhausted one stays refused for both.
    const stillRefused = await postFrom(stack, '127.0.0.2', '/token?grant_type=password', {
      email: 'alice@example.com',
      password: 'outpost-demo',
    });
    expect(stillRefused.status).toBe(429);
  });

  it('password sign-ins exhausted at one address leave another address its own bucket', async () => {
    clock.advance(60 * 60 * 1000);
    // A user of this test, hashed at the least cost (the seeded users' hashes cost 10 to
    // compare), signed up from an address of its own so no bucket below is touched.
    const email = `rl-${randomUUID()}@example.com`;
    expect(
      (await postFrom(stack, '127.0.0.6', '/signup', { email, password: 'secret-123' })).status,
    ).toBe(200);
    const wrong = (from: string) =>
      postFrom(stack, from, '/token?grant_type=password', {
        email,
        password: 'not-the-password',
      });
    for (let i = 0; i < BURST; i += 1) expect((await wrong('127.0.0.4')).status).toBe(400);
    expect((await wrong('127.0.0.4')).status).toBe(429);
    expect((await wrong('127.0.0.5')).status).toBe(400);
  });
});
