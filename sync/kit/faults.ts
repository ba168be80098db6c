// Fault injection for sync tests: a fetch wrapper for supabase-js that can drop a request,
// drop the response after the server applied it, duplicate, delay, answer 500/503/429 or an
// expired JWT (as the service asked would: PostgREST's 401, storage's refusal) instead of the
// server, or be offline; scripted per path or at random from a seeded PRNG, or hang (never
// answer: only the client's own timeout ends it) or stall (never settle at all, even when
// aborted). Counts what it forwarded and what fired, per path (and per method and path).
// Plus a WebSocket class for realtime whose sockets a test can cut.
import WebSocket from 'ws';

import type { Clock } from '../platform';

/** Every fault a FaultyNetwork can inject (`script` one, or `chaos` among some). */
export const FAULTS = [
  'drop-request',
  'drop-response',
  'duplicate',
  'delay',
  'status-500',
  'status-503',
  'status-429',
  'expire-token',
  'hang',
  'stall',
] as const;
/**
 * A fault: `drop-request` (never reaches the server), `drop-response` (the server applies it,
 * the answer is lost), `duplicate` (sent twice), `delay` (50–250 ms on the network's clock),
 * `status-500`/`-503`/`-429` (answered instead of the server), `expire-token` (the answer to
 * an expired JWT), `hang` (no answer until the client's own timeout), `stall` (never settles).
 */
export type Fault = (typeof FAULTS)[number];

/** mulberry32: a small seeded PRNG, so a failing schedule can be replayed from its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function networkError(): TypeError {
  return new TypeError('fetch failed (injected)');
}

/** How a FaultyNetwork waits and draws. */
export interface FaultyNetworkOptions {
  /** Whose time a delay takes (default: real time); the engine's manual clock in tests. */
  clock?: Pick<Clock, 'setTimeout'>;
  /** Draws a delay's length; default a PRNG seeded with 1 (chaos() brings its own). */
  random?: () => number;
}

/**
 * A fetch for supabase-js (`network.fetch`) that injects faults: scripted per path, at
 * random, or all requests failing while `offline`. Counts what reached the server.
 */
export class FaultyNetwork {
  /** Every request fails as a network error (the engine still believes it is online). */
  offline = false;
  /** Requests forwarded to the server whose answer has not come back yet. */
  inFlight = 0;
  /** Nothing forwarded is waiting for its answer (a ManualClock's `quiet`). */
  readonly idle = (): boolean => this.inFlight === 0;
  /**
   * Requests a fault holds back on the clock (a delay not yet over, a hang its caller has not
   * given up on): only moving the clock ends them.
   */
  held = 0;
  /** Requests that reached the server, per path (e.g. /rest/v1/rpc/sync_push). */
  readonly forwarded = new Map<string, number>();
  /** The same, per method and path (e.g. "POST /storage/v1/object/attachments/…"). */
  readonly forwardedByMethod = new Map<string, number>();
  /** Faults that fired, by kind. */
  readonly fired = new Map<Fault, number>();
  private readonly scripted: { path: RegExp; fault: Fault }[] = [];
  private randomFaults:
    { rate: number; random: () => number; faults: readonly Fault[]; paths: RegExp } | undefined;
  private readonly clock: Pick<Clock, 'setTimeout'>;
  private readonly random: () => number;

  constructor(options: FaultyNetworkOptions = {}) {
    this.clock = options.clock ?? { setTimeout: (fn, ms) => setTimeout(fn, ms) };
    this.random = options.random ?? seededRandom(1);
  }

  /** The next request whose path matches gets `fault` (queued in order). */
  script(path: RegExp, ...faults: Fault[]): void {
    for (const fault of faults) this.scripted.push({ path, fault });
  }

  /** From now on, each matching request suffers a random fault with probability `rate`. */
  chaos(
    rate: number,
    random: () => number,
    faults: readonly Fault[] = FAULTS,
    paths = /\/rest\/v1\/rpc\/|\/storage\/v1\//,
  ): void {
    this.randomFaults = { rate, random, faults, paths };
  }

  /** Stops all faults (scripted and random) and goes online. */
  heal(): void {
    this.randomFaults = undefined;
    this.scripted.splice(0);
    this.offline = false;
  }

  /** Requests to `path` that reached the server (a lost answer's included). */
  count(path: string): number {
    return this.forwarded.get(path) ?? 0;
  }

  /** Requests with `method` to `path` that reached the server (a lost answer's included). */
  countRequests(method: string, path: string): number {
    return this.forwardedByMethod.get(`${method.toUpperCase()} ${path}`) ?? 0;
  }

  private pick(path: string): Fault | undefined {
    const index = this.scripted.findIndex((s) => s.path.test(path));
    if (index >= 0) return this.scripted.splice(index, 1)[0]?.fault;
    const chaos = this.randomFaults;
    if (chaos && chaos.paths.test(path) && chaos.random() < chaos.rate) {
      return chaos.faults[Math.floor(chaos.random() * chaos.faults.length)];
    }
    return undefined;
  }

  private async forward(request: Request, path: string): Promise<Response> {
    this.forwarded.set(path, this.count(path) + 1);
    const key = `${request.method.toUpperCase()} ${path}`;
    this.forwardedByMethod.set(key, (this.forwardedByMethod.get(key) ?? 0) + 1);
    this.inFlight++;
    try {
      return await globalThis.fetch(request);
    } finally {
      this.inFlight--;
    }
  }

  /** The fetch to give supabase-js (`global.fetch`). */
  readonly fetch: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const path = new URL(request.url).pathname;
    if (this.offline) throw networkError();
    const fault = this.pick(path);
    if (fault) this.fired.set(fault, (this.fired.get(fault) ?? 0) + 1);
    switch (fault) {
      case 'drop-request':
        throw networkError();
      case 'drop-response': {
        const response = await this.forward(request, path);
        await response.arrayBuffer(); // the server finished; the client never hears of it
        throw networkError();
      }
      case 'duplicate': {
        const first = await this.forward(request.clone(), path);
        await first.arrayBuffer();
        return this.forward(request, path);
      }
      case 'delay': {
        // 50–250 ms on the network's clock, drawn from the schedule's seeded random.
        const random = this.randomFaults?.random ?? this.random;
        const ms = 50 + Math.floor(random() * 200);
        this.held++;
        try {
          await new Promise((resolve) => this.clock.setTimeout(() => resolve(undefined), ms));
        } finally {
          this.held--;
        }
        return this.forward(request, path);
      }
      case 'status-500':
      case 'status-503':
      case 'status-429': {
        const status = Number(fault.slice('status-'.length));
        return new Response(JSON.stringify({ message: `injected ${status}` }), {
          status,
          headers: { 'Content-Type': 'application/json' },
        });
      }
      case 'hang':
        // The connection stays open and silent until the client gives up on it. Listens on
        // the caller's own signal: the copy a Request makes follows it only through a weak
        // reference in Node, and once that is collected the abort never arrives.
        this.held++;
        return new Promise<Response>((_, reject) => {
          const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
          const abort = () => {
            this.held--;
            reject(new DOMException('The request was aborted', 'AbortError'));
          };
          if (signal?.aborted) abort();
          else signal?.addEventListener('abort', abort, { once: true });
        });
      case 'stall':
        // Never settles, abort or not (a stuck connection that ignores its signal).
        return new Promise<Response>(() => undefined);
      case 'expire-token':
        return expiredTokenAnswer(path);
      default:
        return this.forward(request, path);
    }
  };
}

/**
 * What the service at `path` answers a request whose JWT has expired. Storage (hosted, and
 * devstack/storage/routes.ts copying it) answers HTTP 400 with the real status in the body:
 * a 403 AccessDenied saying "jwt expired", the same status as a row-level security refusal.
 * PostgREST answers 401 PGRST303.
 */
function expiredTokenAnswer(path: string): Response {
  const headers = { 'Content-Type': 'application/json' };
  if (path.startsWith('/storage/v1/')) {
    return new Response(
      JSON.stringify({
        statusCode: '403',
        code: 'AccessDenied',
        error: 'Unauthorized',
        message: 'jwt expired',
      }),
      { status: 400, headers },
    );
  }
  return new Response(
    JSON.stringify({ code: 'PGRST303', details: null, hint: null, message: 'JWT expired' }),
    { status: 401, headers },
  );
}

/** Where a socket opened while the server is kept away goes: nothing listens there. */
const UNREACHABLE = 'ws://127.0.0.1:1/';

/**
 * A realtime transport whose open sockets can be cut at once (the server vanishing), and
 * whose server can be kept away: after `cutAndHold()` every socket opened fails to connect
 * until `restore()`, so a test knows what happened while the device could not hear.
 */
export function cuttableWebSocket(): {
  transport: typeof WebSocket;
  cut(): number;
  cutAndHold(): number;
  restore(): void;
} {
  const open = new Set<WebSocket>();
  let held = false;
  class Cuttable extends WebSocket {
    constructor(address: string | URL, protocols?: string | string[]) {
      super(held ? UNREACHABLE : address, protocols);
      open.add(this);
      this.on('close', () => open.delete(this));
    }
  }
  const cut = () => {
    const n = open.size;
    for (const socket of open) socket.terminate();
    return n;
  };
  return {
    transport: Cuttable as unknown as typeof WebSocket,
    cut,
    cutAndHold() {
      held = true;
      return cut();
    },
    restore() {
      held = false;
    },
  };
}
