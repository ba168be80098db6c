// The engine's only door to the server: a small port over the app's supabase-js client.
// All network I/O goes through supabase-js, so tests inject faults by handing it a faulty
// fetch or WebSocket, and the app's session handling stays supabase-js's own.
import { REALTIME_SUBSCRIBE_STATES, type SupabaseClient } from '@supabase/supabase-js';

import { classifyRpcError, SyncError, type SyncErrorCode } from './errors';
import type { MutationOp } from './registry';
import type { ServerRow } from './apply';

export interface WireMutation {
  seq: number;
  table: string;
  op: MutationOp;
  id: string;
  data: Record<string, unknown>;
}

export interface PushResult {
  seq: number;
  status: 'applied' | 'rejected';
  code?: string;
  message?: string;
  /** The column the database named in its refusal, when it named one. */
  column?: string;
  replayed?: boolean;
  row?: ServerRow;
}

export interface PushResponse {
  last_seq: number;
  results: PushResult[];
}

export interface PullResponse {
  rows: { table: string; row: ServerRow }[];
  cursor: string;
  has_more: boolean;
  schema_version: number;
}

/** What happened to the session: a new sign-in, a token refresh, or anything else. */
export type AuthChange = 'signed-in' | 'refreshed' | 'other';

export interface Remote {
  /**
   * The signed-in user's id, or null (local-only, or the session is gone for good). Throws a
   * transient SyncError when the session only could not be renewed right now (the network
   * failed during a token refresh): that is no reason to call the user signed out.
   */
  userId(): Promise<string | null>;
  push(clientId: string, mutations: WireMutation[]): Promise<PushResponse>;
  pull(cursor: string | null, maxRows: number): Promise<PullResponse>;
  /**
   * One session refresh after a 401: true when renewed, false when the session cannot be
   * renewed (signed out). Throws a transient SyncError when the network failed instead.
   */
  refresh(): Promise<boolean>;
  /**
   * Calls `onChange` on any realtime change of the synced tables, and each time the channel
   * is (re)subscribed: changes made while the socket was down are only found by a pull.
   * Returns unsubscribe.
   */
  subscribe(tables: readonly string[], onChange: () => void): () => void;
  /** Calls `onChange` when the session changes (sign-in, refresh, sign-out). */
  onAuthChange(onChange: (userId: string | null, change: AuthChange) => void): () => void;
  upload(bucket: string, path: string, blob: Blob): Promise<void>;
  signedUrl(bucket: string, path: string, expiresInSec: number): Promise<string>;
  /**
   * Asks the server to remove the objects of deleted attachments now. Deleting a row queues
   * its object on the server, so this is only a nudge: a failed call loses nothing (the next
   * one, or the daily scheduled run, removes it).
   */
  cleanupDeletedFiles(): Promise<void>;
}

export interface RemoteOptions {
  /**
   * A request that has not answered after this long is abandoned and counts as TIMEOUT
   * (ms); without it a hung connection would hold the engine until the page reloads.
   * The push gets twice as long: it carries up to 1 MiB and applies it in one transaction.
   */
  requestTimeoutMs?: number;
}

/** Default RemoteOptions.requestTimeoutMs (ms). */
export const REQUEST_TIMEOUT_MS = 30_000;
/** The edge function that removes deleted attachments' objects (supabase/functions). */
const CLEANUP_FUNCTION = 'attachment-cleanup';
/** An upload may take this many request timeouts (a 10 MiB photo on a slow link). */
const UPLOAD_TIMEOUT_FACTOR = 10;

/**
 * Runs `call` with an abort signal and gives up after `ms`: the request is aborted and the
 * answer is TIMEOUT, even if the request ignores the abort (supabase-js also waits for its
 * session before each request, outside the signal). A request abandoned like this may still
 * reach the server; what it carried is frozen in the outbox and replays harmlessly.
 */
async function withTimeout<T>(
  ms: number,
  call: (signal: AbortSignal) => PromiseLike<T>,
): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new SyncError('TIMEOUT', `no answer in ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([call(controller.signal), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** supabase-js reports a network failure during a token refresh as this (auth-js). */
function isRetryableAuthError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AuthRetryableFetchError';
}

export function supabaseRemote(supabase: SupabaseClient, options: RemoteOptions = {}): Remote {
  const timeoutMs = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  return {
    async userId() {
      const { data, error } = await withTimeout(timeoutMs, () => supabase.auth.getSession());
      if (!data.session && isRetryableAuthError(error)) {
        throw new SyncError('OFFLINE', error?.message ?? 'session refresh failed');
      }
      return data.session?.user.id ?? null;
    },
    async push(clientId, mutations) {
      const response = await withTimeout(timeoutMs * 2, (signal) =>
        supabase.rpc('sync_push', { client_id: clientId, mutations }).abortSignal(signal),
      );
      const data: unknown = response.data; // untyped: no generated database types here
      if (response.error) throw classifyRpcError(response.error, response.status);
      return data as PushResponse;
    },
    async pull(cursor, maxRows) {
      const response = await withTimeout(timeoutMs, (signal) =>
        supabase.rpc('sync_pull', { cursor, max_rows: maxRows }).abortSignal(signal),
      );
      const data: unknown = response.data; // untyped: no generated database types here
      if (response.error) throw classifyRpcError(response.error, response.status);
      return data as PullResponse;
    },
    async refresh() {
      const { data, error } = await withTimeout(timeoutMs, () => supabase.auth.refreshSession());
      if (isRetryableAuthError(error)) {
        throw new SyncError('OFFLINE', error?.message ?? 'session refresh failed');
      }
      return !error && Boolean(data.session);
    },
    subscribe(tables, onChange) {
      const channel = supabase.channel(`outpost-sync-${Math.random().toString(36).slice(2)}`);
      for (const table of tables) {
        channel.on('postgres_changes', { event: '*', schema: 'public', table }, () => onChange());
      }
      channel.subscribe((state) => {
        if (state === REALTIME_SUBSCRIBE_STATES.SUBSCRIBED) onChange();
      });
      return () => {
        void supabase.removeChannel(channel);
      };
    },
    onAuthChange(onChange) {
      const { data } = supabase.auth.onAuthStateChange((event, session) => {
        const change: AuthChange =
          event === 'SIGNED_IN' ? 'signed-in' : event === 'TOKEN_REFRESHED' ? 'refreshed' : 'other';
        onChange(session?.user.id ?? null, change);
      });
      return () => data.subscription.unsubscribe();
    },
    async upload(bucket, path, blob) {
      // Up to 10 MiB on a slow link: ten times a request's time. Storage's upload takes no
      // signal, so only the timer ends it; a retry rewrites the same object (upsert).
      const { error } = await withTimeout(timeoutMs * UPLOAD_TIMEOUT_FACTOR, () =>
        supabase.storage.from(bucket).upload(path, blob, { upsert: true, contentType: blob.type }),
      );
      if (error) throw storageError(error);
    },
    async signedUrl(bucket, path, expiresInSec) {
      const { data, error } = await supabase.storage
        .from(bucket)
        .createSignedUrl(path, expiresInSec);
      if (error) throw storageError(error);
      return data.signedUrl;
    },
    async cleanupDeletedFiles() {
      const response = await withTimeout(timeoutMs, (signal) =>
        supabase.functions.invoke(CLEANUP_FUNCTION, { method: 'POST', signal }),
      );
      const failure: unknown = response.error; // typed `any` by functions-js
      if (failure) {
        const { message, context } = failure as { message?: unknown; context?: unknown };
        throw classifyRpcError(
          { message: String(message) },
          context instanceof Response ? context.status : undefined,
        );
      }
    },
  };
}

/** Storage refusals that are about the file itself (SPEC §8), by HTTP status. */
const FILE_REFUSALS: Readonly<Record<number, SyncErrorCode>> = {
  413: 'FILE_TOO_LARGE',
  415: 'FILE_TYPE',
};

/**
 * Storage errors carry the real status in `statusCode` (the HTTP status is often 400) or in
 * `status`, depending on the path; a refused file says so by its status or its error name.
 */
function storageError(error: Error): SyncError {
  const fields = error as Error & { status?: unknown; statusCode?: unknown; error?: unknown };
  const status = Number(fields.statusCode ?? fields.status ?? 0) || undefined;
  const name = typeof fields.error === 'string' ? fields.error : '';
  const fileCode =
    (status ? FILE_REFUSALS[status] : undefined) ??
    (/EntityTooLarge|too large/i.test(`${name} ${error.message}`)
      ? 'FILE_TOO_LARGE'
      : /mime type|InvalidMimeType/i.test(`${name} ${error.message}`)
        ? 'FILE_TYPE'
        : undefined);
  if (fileCode) return new SyncError(fileCode, error.message, status);
  return classifyRpcError({ message: error.message }, status);
}
