// A supabase-js client over a scripted fetch and in-memory auth storage, for unit tests of
// what the app and the sync library do with the auth client's session without a server:
// every answer the server could give is played from a script, and nothing reaches a network.
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import WebSocket from 'ws';

/** Where the scripted auth server "lives"; never contacted. */
export const AUTH_TEST_URL = 'http://auth.test';

/** localStorage's shape over a Map, with the Map exposed for assertions. */
export interface MemoryStorage {
  items: Map<string, string>;
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export function memoryStorage(): MemoryStorage {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  };
}

/** One scripted answer: a response, or a failed fetch as when offline. */
export type ScriptedAnswer = Response | 'network-error';

/** What the code under test asked the "server". */
export interface ScriptedRequest {
  path: string;
  body: string | undefined;
  authorization: string | null;
}

/** A fetch that answers from a script, records what was asked, and fails when it runs dry. */
export function scriptedFetch(answers: ScriptedAnswer[] = []) {
  const requests: ScriptedRequest[] = [];
  const fetchImpl: typeof fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    requests.push({
      path: `${url.pathname}${url.search}`,
      body: typeof init?.body === 'string' ? init.body : undefined,
      authorization: new Headers(init?.headers).get('Authorization'),
    });
    const answer = answers.shift() ?? 'network-error';
    return answer === 'network-error'
      ? Promise.reject(new TypeError('fetch failed (offline)'))
      : Promise.resolve(answer);
  };
  return { fetch: fetchImpl, requests };
}

/** A JSON answer with a status. */
export function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json' },
  });
}

/** A supabase-js client persisting its session in `storage` under `storageKey`. */
export function authTestClient(
  storage: Pick<MemoryStorage, 'getItem' | 'setItem' | 'removeItem'>,
  fetchImpl: typeof fetch,
  storageKey: string,
): SupabaseClient {
  return createClient<unknown>(AUTH_TEST_URL, 'anon-key', {
    global: { fetch: fetchImpl },
    // Node 20 has no WebSocket of its own; realtime is never connected here.
    realtime: { transport: WebSocket as unknown as typeof globalThis.WebSocket },
    auth: {
      storage,
      storageKey,
      persistSession: true,
      autoRefreshToken: false,
      detectSessionInUrl: false,
    },
  });
}
