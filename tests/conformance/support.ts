// What every conformance suite (tests/conformance/*.test.ts) does the same way: one devstack
// per engine with the suite's fixture, requests to /auth/v1 and /rest/v1 shaped for
// assertions, fresh addresses, sign-ups, and the error bodies GoTrue and PostgREST answer.
// Each suite keeps only what is its own (its defaults: which key, which headers).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { expect } from 'vitest';

import type { TestDevstack } from '../support/devstack';

// One devstack per engine and fresh addresses are what the integration suites use too.
export { devstackPerEngine, uniqueEmail } from '../support/devstack';

/** The text of tests/conformance/fixtures/<name>. */
export function fixture(name: string): string {
  return readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8');
}

/** GoTrue's error body (the original shape, which the admin and most user endpoints send). */
export const gotrueError = (status: number, code: string, msg: string) => ({
  code: status,
  error_code: code,
  msg,
});

/** PostgREST's error body. */
export const pgrstError = (
  code: string,
  message: string,
  details: string | null = null,
  hint: string | null = null,
) => ({ code, details, hint, message });

/** A UUID as GoTrue writes one (lower-case hex). */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The session fields these suites read from a sign-up, sign-in or verify. */
export interface Session {
  access_token: string;
  refresh_token: string;
  user: { id: string; factors?: { id: string; status: string; factor_type: string }[] };
}

/** The headers supabase-js's auth client sends on every request. */
export const AUTH_CLIENT_HEADERS = {
  'Content-Type': 'application/json',
  'X-Supabase-Api-Version': '2024-01-01',
} as const;

export interface Reply<B = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: B;
}

export interface AuthCallInit {
  /** The apikey header: the publishable key unless given; null sends none. */
  apikey?: string | null | undefined;
  /** The bearer; none when absent, null or empty. */
  token?: string | null | undefined;
  /** Sent as JSON (with its Content-Type). */
  body?: unknown;
  /** Sent as it is, with a JSON Content-Type (for bodies that are not valid JSON). */
  raw?: string | undefined;
  headers?: Record<string, string> | undefined;
}

/** One request to /auth/v1, redirects not followed; the body parsed ({} when empty). */
export async function authCall<B = Record<string, unknown>>(
  stack: TestDevstack,
  method: string,
  path: string,
  init: AuthCallInit = {},
): Promise<Reply<B>> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.apikey !== null) headers.apikey = init.apikey ?? stack.publishableKey;
  if (init.token) headers.Authorization = `Bearer ${init.token}`;
  const body = init.raw ?? (init.body !== undefined ? JSON.stringify(init.body) : undefined);
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${stack.url}/auth/v1${path}`, {
    method,
    headers,
    ...(body !== undefined ? { body } : {}),
    redirect: 'manual',
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: (text === '' ? {} : JSON.parse(text)) as B,
  };
}

/** A reply without its headers, for suites that compare whole replies with toEqual. */
export function statusAndBody<B>({ status, body }: Reply<B>): { status: number; body: B } {
  return { status, body };
}

/** POST /signup with a password (200 expected): the session answered. */
export async function signUpWithPassword<B = Record<string, unknown>>(
  stack: TestDevstack,
  email: string,
  password: string,
  headers?: Record<string, string>,
): Promise<B> {
  const reply = await authCall<B>(stack, 'POST', '/signup', {
    body: { email, password },
    ...(headers ? { headers } : {}),
  });
  expect(reply.status).toBe(200);
  return reply.body;
}

/** A request to /rest/v1 as the publishable key, JSON unless `init.headers` says else. */
export function rest(stack: TestDevstack, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${stack.url}/rest/v1/${path}`, {
    ...init,
    headers: {
      apikey: stack.publishableKey,
      'Content-Type': 'application/json',
      ...(init.headers as Record<string, string> | undefined),
    },
  });
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON; `empty` when there is none. */
  json: unknown;
}

/** A REST response read for assertions. */
export async function answerOf(response: Response, empty: unknown = undefined): Promise<Answer> {
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    json: text === '' ? empty : (JSON.parse(text) as unknown),
  };
}
