/* global Deno */
// Runs one edge function in a Deno worker process for the devstack. Hosted Supabase decides
// where a function's `Deno.serve(handler)` listens; so do we: this swaps Deno.serve for one
// that binds a free loopback port, reports it on stdout, then imports the function.
const entry = Deno.args[0];
if (!entry) throw new Error('usage: deno-bootstrap.js <file URL of the function index.ts>');

// The devstack holds the other end of stdin and never writes to it: EOF means the devstack
// is gone (stopped, crashed or SIGKILLed), and a worker must never outlive it.
void (async () => {
  try {
    // Nothing is ever sent: read until the pipe closes.
    const reader = Deno.stdin.readable.getReader();
    while (!(await reader.read()).done);
  } finally {
    Deno.exit(0);
  }
})();

// The devstack's one clock (devstack/clock.ts) is the auth server's time: tests move it to
// expire sessions. On hosted, a function's clock and auth's are the same wall clock, so here
// Date.now follows the devstack's: the gateway stamps each request it relays with its time
// (a header no client can set: the gateway drops any that arrives) and the function's
// Date.now (what supabase-js getClaims checks `exp` and its JWKS cache age by) moves with it.
// The stamp stays on the request (incoming headers are immutable, and a rebuilt Request
// would change the function's request.signal): one extra header, never a client's.
const CLOCK_HEADER = 'x-devstack-now';
const realNow = Date.now.bind(Date);
let offsetMs = 0;
Date.now = () => realNow() + offsetMs;

/** Takes the devstack clock's time from the gateway's stamp. */
function followDevstackClock(request) {
  const stamp = Number(request.headers.get(CLOCK_HEADER));
  if (request.headers.has(CLOCK_HEADER) && Number.isFinite(stamp)) offsetMs = stamp - realNow();
}

const serve = Deno.serve.bind(Deno);
let served = false;

Deno.serve = (...args) => {
  if (served) throw new Error('a function may call Deno.serve only once');
  served = true;
  const handler =
    args.find((arg) => typeof arg === 'function') ??
    args.find((arg) => arg && typeof arg === 'object' && typeof arg.handler === 'function')
      ?.handler;
  if (!handler) throw new Error('Deno.serve was called without a handler');
  return serve(
    {
      hostname: '127.0.0.1',
      port: 0,
      onListen({ port }) {
        console.log(`__devstack_function_listening__ ${port}`);
      },
    },
    (request, info) => {
      followDevstackClock(request);
      return handler(request, info);
    },
  );
};

await import(entry);
if (!served) throw new Error('the function did not call Deno.serve');
