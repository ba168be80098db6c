// Robustness: thousands of random malformed HTTP requests and WebSocket frames. The devstack
// must answer every request fetch can send with a well-formed HTTP answer: a status the
// services document (never a 5xx) and a JSON or empty body. A dropped connection, a reset or
// a hang is a failure (hosted answers), reported with the request that caused it. Only raw,
// broken HTTP may be refused by closing the socket. It must still serve a normal request
// afterwards. Seeded: the seed is printed, SEED=<n> replays a run.
import { connect } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';

import { ENGINE_KINDS } from '../support/database';
import { SEED, startTestDevstack, type TestDevstack } from '../support/devstack';

const HTTP_CASES = 2000;
const WS_FRAMES = 600;
/** First seed; each engine and part derives its own from it (SEED=<n> replays a run). */
const FIRST_SEED = Number(process.env.SEED ?? 1);
/** How long one request may take before it counts as a hang (a busy 2-core machine). */
const REQUEST_TIMEOUT_MS = 30_000;
/**
 * Requests in flight at once. The cases and their order are the seed's alone; running a few
 * at a time keeps the database and the Deno workers busy while the event loop parses.
 */
const CONCURRENCY = 4;
/**
 * The HTTP part's own time limit: ~10 s on an idle 2-core machine, but over a minute when
 * the whole suite shares it (the base run hit the default 60 s).
 */
const HTTP_TEST_TIMEOUT_MS = 240_000;

/**
 * Every status the devstack's services document for a request they refuse or answer:
 * PostgREST's, GoTrue's, storage's and the functions gateway's 2xx and 4xx (no 5xx: a
 * malformed request is never the server's fault).
 */
const DOCUMENTED_STATUSES = new Set([
  200, 201, 204, 206, 400, 401, 403, 404, 405, 406, 409, 413, 415, 416, 422, 429,
]);

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

/**
 * Sends raw bytes, then stops sending (half of the raw cases are truncated mid-request), and
 * resolves with the status line's code, 0 if the server closed the socket, or -1 if it
 * neither answered nor closed in time (a hang).
 */
function rawRequest(port: number, payload: Buffer): Promise<number> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    const done = (code: number) => {
      socket.destroy();
      resolve(code);
    };
    socket.setTimeout(REQUEST_TIMEOUT_MS, () => done(-1));
    socket.on('data', (chunk) => {
      data += chunk.toString('latin1');
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(data);
      if (match) done(Number(match[1]));
    });
    socket.on('error', () => done(0));
    socket.on('close', () => done(0));
    socket.end(payload);
  });
}

/** A request, as a failure report names it: method, URL, headers and the body's start. */
function describeRequest(
  method: string,
  url: string,
  headers: Record<string, string>,
  body: string | Buffer | undefined,
): string {
  const shown = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value.length > 80 ? `${value.slice(0, 80)}…` : value}`)
    .join('; ');
  const text =
    body === undefined
      ? '(none)'
      : typeof body === 'string'
        ? JSON.stringify(body.slice(0, 120)) + (body.length > 120 ? `… (${body.length} chars)` : '')
        : `${body.length} random bytes ${body.subarray(0, 24).toString('hex')}…`;
  return `${method} ${url.length > 200 ? `${url.slice(0, 200)}…` : url} [${shown}] body ${text}`;
}

/** Why an answer is not a well-formed one, or undefined when it is. */
function malformedAnswer(method: string, status: number, type: string, body: string) {
  if (!DOCUMENTED_STATUSES.has(status)) return `status ${status}`;
  if (body === '') return undefined;
  if (method === 'HEAD' || status === 204) return `a ${status} to ${method} with a body`;
  try {
    JSON.parse(body);
  } catch {
    return `status ${status} with a body that is not JSON (${type}): ${JSON.stringify(body.slice(0, 120))}`;
  }
  return undefined;
}

describe.each(ENGINE_KINDS)('devstack under random malformed input on %s', (kind) => {
  let stack: TestDevstack;
  beforeAll(async () => {
    stack = await startTestDevstack(kind);
  });
  afterAll(() => stack.stop());

  it(
    `answers ${HTTP_CASES} malformed HTTP requests well-formed and keeps serving`,
    async () => {
      const seed = FIRST_SEED + (kind === 'pglite' ? 0 : 1);
      const replay = `SEED=${FIRST_SEED} npx vitest run tests/integration/devstack-fuzz.test.ts`;
      console.info(`[fuzz ${kind}] HTTP cases from seed ${seed} (replay: ${replay})`);
      const r = rng(seed);
      const keys = [
        stack.publishableKey,
        stack.secretKey,
        'garbage',
        '',
        'eyJhbGciOiJIUzI1NiJ9.e30.x',
      ];
      /** Each case, drawn from the seed up front; run, it names its failure or says nothing. */
      const cases: (() => Promise<string | undefined>)[] = [];
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
          const payload = Buffer.concat([Buffer.from(header), r.bytes(r.int(64))]);
          cases.push(async () => {
            const code = await rawRequest(stack.port, payload);
            if (code < 500 && code >= 0) return undefined;
            const what = code < 0 ? `no answer in ${REQUEST_TIMEOUT_MS} ms` : `status ${code}`;
            return `${label} raw ${JSON.stringify(payload.toString('latin1', 0, 160))} → ${what}`;
          });
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
        const url = `${stack.url}${encodeURI(path).replace(/%25/g, '%')}${query}`;
        cases.push(async () => {
          // Build the request first: what the client itself refuses to send is not a case.
          let request: Request;
          try {
            request = new Request(url, {
              method,
              headers,
              ...(body === undefined ? {} : { body }),
              signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
            });
          } catch {
            return undefined;
          }
          const sent = `#${i} ${describeRequest(method, url, headers, body)}`;
          try {
            const res = await fetch(request);
            const text = await res.text();
            const type = res.headers.get('content-type') ?? '';
            const wrong = malformedAnswer(method, res.status, type, text);
            return wrong ? `${sent} → ${wrong}` : undefined;
          } catch (error) {
            // A connection dropped mid-request (a crash, a reset, a socket hang up) or a hang is
            // an answer hosted never gives.
            const cause = (error as { cause?: unknown }).cause;
            return `${sent} → threw ${String(error)} (cause: ${String(cause)})`;
          }
        });
      }
      const failures: string[] = [];
      let next = 0;
      const worker = async () => {
        while (next < cases.length) {
          const run = cases[next];
          next += 1;
          const failure = await run?.();
          if (failure) failures.push(failure);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      failures.sort((a, b) => Number(/^#(\d+)/.exec(a)?.[1]) - Number(/^#(\d+)/.exec(b)?.[1]));
      expect(failures, `seed ${seed}; replay: ${replay}`).toEqual([]);
      const alive = await fetch(`${stack.url}/rest/v1/tasks?select=id&limit=1`, {
        headers: { apikey: stack.publishableKey },
      });
      expect(alive.status).toBe(200);
    },
    HTTP_TEST_TIMEOUT_MS,
  );

  it(`survives ${WS_FRAMES} malformed WebSocket frames and keeps serving`, async () => {
    const seed = FIRST_SEED + (kind === 'pglite' ? 2 : 3);
    console.info(`[fuzz ${kind}] WebSocket frames from seed ${seed}`);
    const r = rng(seed);
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
      const vsn = r.pick(['1.0.0', '2.0.0']);
      const socket = new WebSocket(
        `${stack.url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${stack.publishableKey}&vsn=${vsn}`,
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
      // The server handles a socket's frames in order: the reply to a heartbeat sent last
      // means it has been through every frame before it (or the socket closed).
      let timer: NodeJS.Timeout | undefined;
      const settled = new Promise<void>((resolve, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no heartbeat reply in ${REQUEST_TIMEOUT_MS} ms (seed ${seed})`)),
          REQUEST_TIMEOUT_MS,
        );
        socket.on('message', (data: Buffer, isBinary: boolean) => {
          if (isBinary) return;
          const frame: unknown = JSON.parse(data.toString());
          const ref: unknown = Array.isArray(frame) ? frame[1] : (frame as { ref?: unknown }).ref;
          if (ref === 'fuzz-end') resolve();
        });
        socket.once('close', () => resolve());
      }).finally(() => clearTimeout(timer));
      for (let i = 0; i < 50 && socket.readyState === WebSocket.OPEN; i += 1) {
        socket.send(r.pick(frames)());
        sent += 1;
      }
      socket.send(
        vsn === '1.0.0'
          ? JSON.stringify({ topic: 'phoenix', event: 'heartbeat', payload: {}, ref: 'fuzz-end' })
          : JSON.stringify([null, 'fuzz-end', 'phoenix', 'heartbeat', {}]),
      );
      await settled;
      socket.terminate();
    }
    expect(sent).toBeGreaterThanOrEqual(WS_FRAMES);
    const alive = await fetch(`${stack.url}/rest/v1/tasks?select=id&limit=1`, {
      headers: { apikey: stack.publishableKey },
    });
    expect(alive.status).toBe(200);
  });
});
