// Robustness: thousands of random malformed HTTP requests and WebSocket frames. The devstack
// must answer every well-formed request below 500 (a dropped connection is a failure too:
// hosted answers), never crash, and still serve a normal request afterwards; only raw,
// broken HTTP may be refused by closing the socket. Seeded, so a failure names a
// reproducible case.
import { connect } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';

import { ENGINE_KINDS } from '../support/database';
import { SEED, startTestDevstack, type TestDevstack } from '../support/devstack';

const HTTP_CASES = 2000;
const WS_FRAMES = 600;

function rng(seed: number) {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => int(256)));
  return { next, int, pick, bytes };
}

const PREFIXES = [
  '/rest/v1/tasks',
  '/rest/v1/lists',
  '/rest/v1/nope',
  '/rest/v1/rpc/sync_pull',
  '/rest/v1/rpc/sync_push',
  '/rest/v1/rpc/missing_fn',
  '/auth/v1/signup',
  '/auth/v1/token?grant_type=password',
  '/auth/v1/token?grant_type=refresh_token',
  '/auth/v1/user',
  '/auth/v1/logout',
  '/storage/v1/object/attachments/',
  '/storage/v1/object/list/attachments',
  '/storage/v1/object/sign/attachments/x',
  '/storage/v1/bucket',
  '/functions/v1/create-invite',
  '/functions/v1/accept-invite',
  '/functions/v1/export-list',
  '/functions/v1/nope',
  '/realtime/v1/websocket',
  '/',
  '/%00',
  '/../../etc/passwd',
];

const FILTERS = [
  'select=*',
  'select=id,title',
  'select=(((',
  'id=eq.',
  'id=eq.not-a-uuid',
  'title=like.*x*',
  'or=(a.eq.1,b',
  'order=title.sideways',
  'limit=-1',
  'offset=abc',
  'priority=in.(1,2,',
  'status=zz.done',
  `list_id=eq.${SEED.list}`,
  'x'.repeat(5000),
];

const BODIES = [
  '',
  '{',
  '{"seq":',
  'null',
  '[]',
  '[1,2,3]',
  '{"email":123,"password":[]}',
  '{"cursor":{"a":1},"max_rows":"many"}',
  '{"client_id":"x","mutations":"y"}',
  '{"title":"' + 'x'.repeat(20000) + '"}',
  '"\\ud800"',
  '{"a":1e999999}',
  // Deep nesting: a stack overflow in a parser or serialiser must not become a 500.
  '{"client_id":"00000000-0000-4000-8000-000000000000","mutations":' +
    '['.repeat(50_000) +
    ']'.repeat(50_000) +
    '}',
  '{"title":' + '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000) + '}',
  '{"email":"deep@example.com","password":"secret-123","data":' +
    '{"a":'.repeat(20_000) +
    '1' +
    '}'.repeat(20_000) +
    '}',
  '--boundary\r\nContent-Disposition: form-data; name=""; filename="a.png"\r\nContent-Type: image/png\r\n\r\nPNG',
];

const CONTENT_TYPES = [
  'application/json',
  'text/plain',
  'multipart/form-data; boundary=boundary',
  'multipart/form-data',
  'application/octet-stream',
  'application/x-www-form-urlencoded',
  '',
];

/** Sends raw bytes and resolves with the status line's code, or 0 if the socket closed. */
function rawRequest(port: number, payload: Buffer): Promise<number> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    const done = (code: number) => {
      socket.destroy();
      resolve(code);
    };
    socket.setTimeout(5000, () => done(0));
    socket.on('data', (chunk) => {
      data += chunk.toString('latin1');
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(data);
      if (match) done(Number(match[1]));
    });
    socket.on('error', () => done(0));
    socket.on('close', () => done(0));
    socket.write(payload);
    // Half the raw cases are truncated mid-request: the client just stops sending.
    setTimeout(() => socket.end(), 50);
  });
}

describe.each(ENGINE_KINDS)('devstack under random malformed input on %s', (kind) => {
  let stack: TestDevstack;
  beforeAll(async () => {
    stack = await startTestDevstack(kind);
  });
  afterAll(() => stack.stop());

  it(`answers ${HTTP_CASES} malformed HTTP requests below 500 and keeps serving`, async () => {
    const r = rng(kind === 'pglite' ? 1 : 2);
    const failures: string[] = [];
    const keys = [stack.anonKey, stack.serviceRoleKey, 'garbage', '', 'eyJhbGciOiJIUzI1NiJ9.e30.x'];
    for (let i = 0; i < HTTP_CASES; i += 1) {
      const method = r.pick(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);
      const path =
        r.pick(PREFIXES) + (r.next() < 0.3 ? r.pick(['x', '%zz', '..%2f..', 'é', '\u0000']) : '');
      const query = r.next() < 0.6 ? `${path.includes('?') ? '&' : '?'}${r.pick(FILTERS)}` : '';
      const label = `#${i} ${method} ${path}${query.slice(0, 60)}`;
      if (r.next() < 0.15) {
        // Raw bytes: broken request lines, huge headers, truncated bodies.
        const header = r.pick([
          `${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"a":`,
          `${method} ${path} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(70000)}\r\n\r\n`,
          `GARBAGE\r\n\r\n`,
          `${method} ${path} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`,
        ]);
        const code = await rawRequest(
          stack.port,
          Buffer.concat([Buffer.from(header), r.bytes(r.int(64))]),
        );
        if (code >= 500) failures.push(`${label} raw → ${code}`);
        continue;
      }
      const headers: Record<string, string> = {};
      const key = r.pick(keys);
      if (key) headers.apikey = key;
      if (r.next() < 0.5) headers.authorization = `Bearer ${r.pick(keys)}`;
      const ct = r.pick(CONTENT_TYPES);
      if (ct) headers['content-type'] = ct;
      if (r.next() < 0.2)
        headers.prefer = r.pick([
          'return=representation',
          'count=exact',
          'resolution=bogus',
          'x'.repeat(3000),
        ]);
      if (r.next() < 0.1) headers.accept = 'application/vnd.pgrst.object+json';
      const body =
        method === 'GET' || method === 'HEAD'
          ? undefined
          : r.next() < 0.2
            ? r.bytes(r.int(512))
            : r.pick(BODIES);
      // Build the request first: what the client itself refuses to send is not a case.
      let request: Request;
      try {
        request = new Request(`${stack.url}${encodeURI(path).replace(/%25/g, '%')}${query}`, {
          method,
          headers,
          ...(body === undefined ? {} : { body }),
          signal: AbortSignal.timeout(10000),
        });
      } catch {
        continue;
      }
      try {
        const res = await fetch(request);
        await res.arrayBuffer();
        if (res.status >= 500) failures.push(`${label} → ${res.status}`);
      } catch (error) {
        // A connection dropped mid-request (a crash, a reset) is an answer hosted never gives.
        const cause = (error as { cause?: unknown }).cause;
        failures.push(`${label} threw ${String(error)} (${String(cause)})`);
      }
    }
    expect(failures).toEqual([]);
    const alive = await fetch(`${stack.url}/rest/v1/tasks?select=id&limit=1`, {
      headers: { apikey: stack.anonKey },
    });
    expect(alive.status).toBe(200);
  });

  it(`survives ${WS_FRAMES} malformed WebSocket frames and keeps serving`, async () => {
    const r = rng(kind === 'pglite' ? 3 : 4);
    const frames = [
      () => 'not json',
      () => '[',
      () => JSON.stringify([null, null, null, null, null]),
      () => JSON.stringify(['1', '1', 'realtime:x', 'phx_join', 'not an object']),
      () =>
        JSON.stringify(['1', '1', 'realtime:x', 'phx_join', { config: { postgres_changes: 'x' } }]),
      () =>
        JSON.stringify([
          '1',
          '2',
          'realtime:x',
          'phx_join',
          { config: { postgres_changes: [{ event: 5, table: {} }] } },
        ]),
      () => JSON.stringify({ topic: 'phoenix', event: 'heartbeat', payload: {}, ref: 1 }),
      () =>
        JSON.stringify([
          '1',
          '3',
          'realtime:x',
          'broadcast',
          { type: 'broadcast', event: 'e', payload: 'x'.repeat(10000) },
        ]),
      () => JSON.stringify(['1', '4', 'realtime:x', 'access_token', { access_token: 'garbage' }]),
      () =>
        JSON.stringify([
          '1',
          '5',
          'realtime:x',
          'presence',
          { type: 'presence', event: 'track', payload: null },
        ]),
      () => r.bytes(1 + r.int(200)),
      () => Buffer.from([3, 200, 1, 1, 0]),
    ];
    let sent = 0;
    while (sent < WS_FRAMES) {
      const socket = new WebSocket(
        `${stack.url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${stack.anonKey}&vsn=${r.pick(['1.0.0', '2.0.0'])}`,
      );
      const opened = await new Promise<boolean>((resolve) => {
        socket.once('open', () => resolve(true));
        socket.once('error', () => resolve(false));
        socket.once('close', () => resolve(false));
      });
      if (!opened) {
        sent += 1;
        continue;
      }
      socket.on('error', () => undefined);
      for (let i = 0; i < 50 && socket.readyState === WebSocket.OPEN; i += 1) {
        socket.send(r.pick(frames)());
        sent += 1;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
      socket.terminate();
    }
    expect(sent).toBeGreaterThanOrEqual(WS_FRAMES);
    const alive = await fetch(`${stack.url}/rest/v1/tasks?select=id&limit=1`, {
      headers: { apikey: stack.anonKey },
    });
    expect(alive.status).toBe(200);
  });
});
