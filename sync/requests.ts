// How the library's requests to Supabase are made: each given up on after a time, a storage
// refusal believed only once a renewed session gets it too, every answer checked before use.
// The Supabase port (remote.ts), the session (session.ts), attachments (files.ts) and the
// app's own calls beside them (index.ts exports these) share it, so they time out alike.
import * as v from 'valibot';

import { classifyStorageError, SyncError, type StorageFailure } from './errors';
import { realClock, type Clock } from './platform';

/** Default RequestOptions.requestTimeoutMs (ms). */
export const REQUEST_TIMEOUT_MS = 30_000;

/**
 * A file transfer (an upload, or an attachment's download) may take this many request
 * timeouts: a 10 MiB photo on a slow link.
 */
export const TRANSFER_TIMEOUT_FACTOR = 10;

/** The timers withTimeout sets: the platform's, or an injected clock's. */
export type Timers = Pick<Clock, 'setTimeout' | 'clearTimeout'>;

/** How the session's and the port's requests behave (supabaseSession, supabaseRemote). */
export interface RequestOptions {
  /**
   * A request that has not answered after this long is abandoned and counts as TIMEOUT
   * (ms); without it a hung connection would hold the engine until the page reloads.
   * The push gets twice as long: it carries up to 1 MiB and applies it in one transaction.
   */
  requestTimeoutMs?: number;
  /** Whose timers end a request (the engine's clock; tests move a manual one). */
  clock?: Timers;
}

/**
 * Runs `call` with an abort signal and gives up after `ms`: the request is aborted and the
 * answer is TIMEOUT, even if the request ignores the abort (supabase-js also waits for its
 * session before each request, outside the signal). A request abandoned like this may still
 * reach the server; what it carried is frozen in the outbox and replays harmlessly. Pass
 * `controller` to have the timer abort a request started earlier (a download's body).
 */
export async function withTimeout<T>(
  ms: number,
  call: (signal: AbortSignal) => PromiseLike<T>,
  controller = new AbortController(),
  timers: Timers = realClock,
): Promise<T> {
  let timer: unknown;
  const expired = new Promise<never>((_, reject) => {
    timer = timers.setTimeout(() => {
      controller.abort();
      reject(new SyncError('TIMEOUT', `no answer in ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([call(controller.signal), expired]);
  } finally {
    timers.clearTimeout(timer);
  }
}

/**
 * A network failure during a token refresh, as supabase-js reports it (auth-js
 * AuthRetryableFetchError), is thrown as OFFLINE: the session could not be renewed right
 * now, which is no reason to call the user signed out.
 */
export function throwIfNetworkFailed(error: unknown): void {
  if (error instanceof Error && error.name === 'AuthRetryableFetchError') {
    throw new SyncError('OFFLINE', error.message);
  }
}

/** What storage-js answers a call: its data, or its error. */
export type StorageAnswer<T> = { data: T; error: null } | { data: unknown; error: StorageFailure };

/**
 * Makes a storage request (`send`), believing a refusal only when a renewed token gets it.
 * Storage refuses a token it cannot verify (expired by its clock, or signed with a retired
 * key) with the very answer of a policy's refusal: hosted storage-api throws its AccessDenied
 * for both (HTTP 400 with statusCode "403", code "AccessDenied", error "Unauthorized"), and
 * storage-js keeps only the statusCode of those, so the two differ in English only. After a
 * 403 the session is renewed once (`refresh`: false when it cannot be) and the request sent
 * again; a second 403 is the policy's. Resolves to the answer's data; throws the SyncError of
 * a failure, AUTH_EXPIRED when the session could not be renewed.
 */
export async function storageRequest<T>(
  send: () => PromiseLike<StorageAnswer<T>>,
  refresh: () => Promise<boolean>,
): Promise<T> {
  let answer = await send();
  if (answer.error) {
    const failure = classifyStorageError(answer.error);
    if (failure.code !== 'PERMISSION_DENIED') throw failure;
    if (!(await refresh())) {
      throw new SyncError('AUTH_EXPIRED', failure.message, failure.status, failure.serverCode);
    }
    answer = await send();
  }
  if (answer.error) throw classifyStorageError(answer.error);
  return answer.data;
}

/**
 * `answer` as `schema` describes it, or a SERVER_ERROR naming `what` answered and where it did
 * not fit: whatever the server sends, the engine gets either the shape it reads or an error.
 */
export function checked<S extends v.GenericSchema>(
  schema: S,
  answer: unknown,
  what: string,
): v.InferOutput<S> {
  const result = v.safeParse(schema, answer);
  if (result.success) return result.output;
  const [issue] = result.issues;
  // Where it did not fit, as a dotted path (rows.3.row.version); the whole answer has none.
  const where = issue.path?.map((item) => String(item.key)).join('.') ?? 'answer';
  throw new SyncError(
    'SERVER_ERROR',
    `${what} answered in an unexpected shape (${where}: ${issue.message})`,
  );
}
