// What every Outpost edge function shares: CORS (the browser app calls them directly), JSON
// answers with the error codes of product.md §8, input validation, and serving a function
// whose caller is verified first (the caller and the clients live in auth.ts).
import { z } from 'zod';

import { serviceClient, verifyCaller, type UserCaller } from './auth.ts';

export { serviceClient, z };

/** CORS as the app needs it; the gateway handles its own preflight, this covers direct calls. */
export const corsHeaders: Record<string, string> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'authorization, x-client-info, apikey, content-type',
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
};

/** A JSON response with CORS headers. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { ...corsHeaders, 'Content-Type': 'application/json', ...headers },
  });
}

/** The one error shape of every function: `{ error: { code, message } }`. */
export function fail(status: number, code: string, message: string): Response {
  return json({ error: { code, message } }, status);
}

/** Answers the CORS preflight, or a 405 for a method the function does not take. */
export function preflightOrMethod(req: Request, allowed: readonly string[]): Response | undefined {
  if (req.method === 'OPTIONS') return new Response('ok', { headers: corsHeaders });
  if (!allowed.includes(req.method)) {
    return fail(405, 'METHOD_NOT_ALLOWED', `Use ${allowed.join(' or ')}.`);
  }
  return undefined;
}

/**
 * The input of a call: the query string of a GET, else the JSON body, checked against a
 * schema; or a 400 VALIDATION_FAILED answer naming the field.
 */
export async function readInput<T>(req: Request, schema: z.ZodType<T>): Promise<T | Response> {
  if (req.method === 'GET') {
    return parse(Object.fromEntries(new URL(req.url).searchParams), schema);
  }
  let raw: unknown;
  try {
    raw = await req.json();
  } catch {
    return fail(400, 'VALIDATION_FAILED', 'The request body must be JSON.');
  }
  return parse(raw, schema);
}

/** Validates input against a schema, or answers 400 VALIDATION_FAILED naming the field. */
export function parse<T>(raw: unknown, schema: z.ZodType<T>): T | Response {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.join('.') || 'body';
  return fail(400, 'VALIDATION_FAILED', `${field}: ${issue?.message ?? 'invalid'}`);
}

/** A uuid in any version (seeded ids are not all RFC 4122 v4). */
export const uuid = z.guid();

/** Answers what an invite_* SQL function returned as `{ error, message, list_id? }`. */
export function sqlError(result: { error: string; message?: string; list_id?: string }): Response {
  const status = ERROR_STATUS[result.error] ?? 400;
  const error = { code: result.error, message: result.message ?? result.error };
  // ALREADY_MEMBER names the list, so the app can open it instead of showing a dead end.
  return json({ error: result.list_id ? { ...error, list_id: result.list_id } : error }, status);
}

const ERROR_STATUS: Record<string, number> = {
  VALIDATION_FAILED: 400,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  INVITE_INVALID: 404,
  INVITE_USED: 409,
  ALREADY_MEMBER: 409,
  INVITE_EXPIRED: 410,
};

/** Turns an unexpected failure into a 500 without leaking internals. */
export function serverError(error: unknown): Response {
  console.error(error);
  return fail(500, 'SERVER_ERROR', 'Something went wrong on the server. Try again.');
}

/**
 * Serves a function the way all of Outpost's do: CORS preflight, the allowed methods, a
 * signed-in caller whose session the function verified itself (auth.ts), and anything
 * unexpected as a 500 SERVER_ERROR without internals.
 */
export function serveAuthenticated(
  methods: readonly string[],
  handle: (req: Request, who: UserCaller) => Promise<Response>,
): void {
  Deno.serve(async (req) => {
    const early = preflightOrMethod(req, methods);
    if (early) return early;
    try {
      const who = await verifyCaller(req);
      if (who instanceof Response) return who;
      // verifyCaller names a service caller only when asked to (allowService).
      if (who.kind !== 'user') return fail(401, 'AUTH_EXPIRED', 'Sign in to do this.');
      return await handle(req, who);
    } catch (error) {
      return serverError(error);
    }
  });
}
