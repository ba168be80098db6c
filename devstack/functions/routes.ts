// /functions/v1/<name>: the edge functions of supabase/functions, each run by real Deno (the
// npm `deno` package) in its own worker process. As hosted: the gateway checks the caller's
// legacy JWT unless config.toml says `verify_jwt = false` (then nothing is checked before the
// function runs: it verifies its caller itself, as Outpost's all do), and the function gets
// SUPABASE_URL and the keys in its environment (env.ts).
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { Hono, type Context } from 'hono';
import { decodeProtectedHeader } from 'jose';

import type { DevstackContext } from '../context';
import { readFunctionsConfig } from './config';
import { functionEnv, type FunctionKeys } from './env';
import { BootError, FunctionWorkers } from './workers';

/** Hosted's wall-clock limit for one request (s). */
const REQUEST_TIMEOUT_MS = 150_000;
/** Largest request body passed on to a function. */
const MAX_BODY_BYTES = 20 * 1024 * 1024;
/** A function's folder name: what `supabase functions new` accepts; `_shared` etc. are not functions. */
const FUNCTION_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
/** Carries the devstack clock's time to the worker, whose Date.now follows it. */
const CLOCK_HEADER = 'x-devstack-now';
/** Hop-by-hop headers and those fetch() rewrites; never forwarded. */
const DROPPED_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'content-encoding',
  'upgrade',
  'expect',
  // The gateway's own time stamp for the worker (deno-bootstrap.js): never a client's.
  CLOCK_HEADER,
]);

function relayError(
  c: Context,
  status: 404 | 413 | 502 | 503 | 504,
  code: string,
  message: string,
) {
  c.header('x-relay-error', 'true');
  return c.json({ code, message }, status);
}

/**
 * Whether a token is one the platform's `verify_jwt` check can pass at all: a legacy HS256
 * JWT ("Edge Function 401" troubleshooting: a session signed with the project's asymmetric
 * key fails the check with 401 Invalid JWT, whatever its signature). With legacy keys off, no
 * HS256 token verifies either, so `verify_jwt = true` refuses every call, as on hosted.
 */
function isLegacyJwt(token: string): boolean {
  try {
    return decodeProtectedHeader(token).alg === 'HS256';
  } catch {
    return false;
  }
}

/** The keys the devstack hands its functions, from its key model. */
function functionKeys(ctx: DevstackContext): FunctionKeys {
  return {
    publishableKeys: ctx.keys.publishableKeys,
    secretKeys: ctx.keys.secretKeys,
    legacy: ctx.keys.legacy ?? undefined,
    jwks: ctx.keys.jwks(),
  };
}

export function functionsRoutes(ctx: DevstackContext): Hono {
  const config = readFunctionsConfig();
  const workers = new FunctionWorkers(ctx.settings.functionsDir, () =>
    functionEnv(ctx.url(), config.siteUrl, functionKeys(ctx)),
  );
  ctx.onStop(() => workers.stopAll());

  const app = new Hono();
  app.all('*', async (c) => {
    // The raw path, so an undecodable %-sequence is simply not a function name.
    const url = new URL(c.req.url);
    const rest = url.pathname.replace(/^.*?\/functions\/v1/, '');
    const name = rest.split('/')[1] ?? '';
    if (
      !FUNCTION_NAME.test(name) ||
      !existsSync(join(ctx.settings.functionsDir, name, 'index.ts'))
    ) {
      return c.json({ code: 'NOT_FOUND', message: 'Requested function was not found' }, 404);
    }

    if (config.verifyJwt(name)) {
      const header = c.req.header('authorization');
      const token = header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
      if (!header) {
        return c.json(
          { code: 'UNAUTHORIZED_NO_AUTH_HEADER', message: 'Missing authorization header' },
          401,
        );
      }
      const verified = token && isLegacyJwt(token) ? await ctx.keys.verify(token) : undefined;
      if (!verified?.ok) {
        return c.json(
          {
            code: token ? 'UNAUTHORIZED_INVALID_JWT' : 'UNAUTHORIZED_INVALID_JWT_FORMAT',
            message: verified?.reason === 'expired' ? 'JWT expired' : 'Invalid JWT',
          },
          401,
        );
      }
    }

    let body: ArrayBuffer | undefined;
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      const declared = Number(c.req.header('content-length') ?? 0);
      if (declared > MAX_BODY_BYTES) {
        return relayError(c, 413, 'PAYLOAD_TOO_LARGE', 'The request body is too large.');
      }
      body = await c.req.arrayBuffer();
      if (body.byteLength > MAX_BODY_BYTES) {
        return relayError(c, 413, 'PAYLOAD_TOO_LARGE', 'The request body is too large.');
      }
    }

    let port: number;
    try {
      port = await workers.port(name);
    } catch (error) {
      if (!(error instanceof BootError)) throw error;
      console.error(`[functions] ${error.message}`);
      return relayError(c, 503, 'BOOT_ERROR', 'Function failed to start (please check logs)');
    }

    const headers = new Headers();
    for (const [key, value] of c.req.raw.headers) {
      if (!DROPPED_HEADERS.has(key.toLowerCase())) headers.set(key, value);
    }
    headers.set(CLOCK_HEADER, String(ctx.clock.now()));
    try {
      const response = await fetch(`http://127.0.0.1:${port}${rest}${url.search}`, {
        method: c.req.method,
        headers,
        ...(body === undefined ? {} : { body }),
        redirect: 'manual',
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const out = new Headers(response.headers);
      // fetch() has already decoded the body; its length and encoding no longer apply.
      out.delete('content-encoding');
      out.delete('content-length');
      out.delete('transfer-encoding');
      return new Response(response.body, { status: response.status, headers: out });
    } catch (error) {
      if (error instanceof DOMException && error.name === 'TimeoutError') {
        return relayError(c, 504, 'WORKER_TIMEOUT', 'The function did not answer in time.');
      }
      workers.discard(name);
      console.error(`[functions] ${name}:`, error);
      return relayError(c, 502, 'WORKER_ERROR', 'The function crashed while handling the request.');
    }
  });
  return app;
}
