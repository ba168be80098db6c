// The engine's only door to the server: a small port over the app's supabase-js client.
// All network I/O goes through supabase-js, so tests inject faults by handing it a faulty
// fetch or WebSocket, and the app's session handling stays supabase-js's own.
// Types only: the app may load supabase-js after its first paint (SupabaseSource), so nothing
// here needs its code before the client itself has come. Only the engine and attachments use
// it, so it is loaded with them (core.ts); the session, which the account follows from the
// start, is its own module (session.ts).
import type { SupabaseClient } from '@supabase/supabase-js';
import * as v from 'valibot';

import { classifyRpcError } from './errors';
import {
  checked,
  REQUEST_TIMEOUT_MS,
  storageRequest,
  throwIfNetworkFailed,
  TRANSFER_TIMEOUT_FACTOR,
  withTimeout,
  type RequestOptions,
} from './requests';
import { supabaseSession, type Session } from './session';
import {
  PullResponseSchema,
  PushResponseSchema,
  RowMessageSchema,
  type PullResponse,
  type PushResponse,
  type RowMessage,
  type WireMutation,
} from './wire-schemas';

// The wire shapes are the port's own vocabulary: its users import them from here.
export type {
  PullResponse,
  PushResponse,
  PushResult,
  RowMessage,
  WireMutation,
} from './wire-schemas';

/** What a topic subscription reports (Remote.subscribeTopic). */
export interface TopicListener {
  /** A well-formed row message on the topic. */
  onRow(message: RowMessage): void;
  /**
   * The channel joined, or joined again after the socket or the join was lost: messages sent
   * meanwhile are gone, so the caller pulls.
   */
  onSubscribed(): void;
  /** The channel was closed, failed or timed out: messages may be lost until it rejoins. */
  onLost(): void;
}

/**
 * The engine's port to the server: session, push, pull, realtime topics and storage.
 * Every failure is thrown as a SyncError with its product.md §8 code.
 */
export interface Remote extends Session {
  push(clientId: string, mutations: WireMutation[]): Promise<PushResponse>;
  pull(cursor: string | null, maxRows: number): Promise<PullResponse>;
  /**
   * One session refresh after a 401: true when renewed, false when the session cannot be
   * renewed (signed out). Throws a transient SyncError when the network failed instead.
   */
  refresh(): Promise<boolean>;
  /**
   * Joins the private realtime topic `topic` (`user:<id>`, `list:<id>`: the database
   * broadcasts each committed change of a synced row there as a `row` message, and RLS on
   * realtime.messages lets only members join) and reports its row messages and each
   * (re)join to `listener`. A payload that does not fit RowMessage is dropped, logged and
   * counted (`malformed`). Returns leave, after which nothing more is reported; joining the
   * same topic again waits for the leave.
   */
  subscribeTopic(topic: string, listener: TopicListener): () => void;
  /** Realtime messages dropped at the edge as malformed, since this Remote was made. */
  malformed?(): number;
  /**
   * Renews the session and hands the new access token to the realtime socket, which sends it
   * on every joined channel (`access_token`): the server then checks each channel again and
   * closes those the user may no longer hear. Realtime authorises a channel at its join and
   * again only on a new token (hosted Supabase, and the devstack alike), so the engine calls
   * this when a membership of the user changes. Throws a transient SyncError when the network
   * failed; resolves without a new token when the session cannot be renewed (signed out).
   */
  refreshRealtimeAuth?(): Promise<void>;
  /**
   * Writes a file to `bucket/path`, replacing what is there (a retry rewrites the same object).
   * A refusal (403) is believed only once a renewed session gets it too (storageRequest).
   */
  upload(bucket: string, path: string, blob: Blob): Promise<void>;
  /**
   * A URL that fetches `bucket/path` without a session for `expiresInSec` seconds; a refusal
   * is believed as upload's is.
   */
  signedUrl(bucket: string, path: string, expiresInSec: number): Promise<string>;
  /**
   * Asks the server to remove the objects of deleted attachments now. Deleting a row queues
   * its object on the server, so this is only a nudge: a failed call loses nothing (the next
   * one, or the daily scheduled run, removes it).
   */
  cleanupDeletedFiles(): Promise<void>;
}

/**
 * The app's supabase-js client, or the promise of it: an app that loads supabase-js after
 * its first paint (Outpost's main.tsx imports it then) hands the promise over at once, and
 * nothing that reads or writes the device waits for it. Every request waits for the client
 * first; a subscription made before it has come starts when it comes. Any app's client:
 * `SupabaseClient` with its default (untyped) Database takes a `createClient<Database>` one,
 * so the library needs no app's generated types (src/data/rows.types-test.ts holds Outpost's
 * to the RPCs called here).
 */
export type SupabaseSource = SupabaseClient | PromiseLike<SupabaseClient>;

/** The edge function that removes deleted attachments' objects (supabase/functions). */
const CLEANUP_FUNCTION = 'attachment-cleanup';

/**
 * realtime-js's REALTIME_SUBSCRIBE_STATES.SUBSCRIBED, by value: the enum is code, and this
 * module must not need supabase-js's code before the client has come.
 */
const SUBSCRIBED = 'SUBSCRIBED';

/**
 * The failure functions-js reports (FunctionsHttpError, FunctionsRelayError,
 * FunctionsFetchError, all a FunctionsError with a `context`): its Response, or the failed
 * fetch's error. Told by shape rather than by class, for the reason SUBSCRIBED is.
 */
function functionsContext(failure: unknown): unknown {
  return failure instanceof Error && 'context' in failure ? failure.context : undefined;
}

/**
 * The Remote over the app's supabase-js client (or the promise of it: SupabaseSource): its
 * session is the engine's session, and every request goes through its fetch (tests hand it a
 * faulty one).
 */
export function supabaseRemote(source: SupabaseSource, options: RequestOptions = {}): Remote {
  const session = supabaseSession(source, options);
  // The client once here: used at once (no extra turn) when it was handed over itself.
  const { now: loaded, ready } = session.client;
  const timeoutMs = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const timed = <T>(ms: number, call: (signal: AbortSignal) => PromiseLike<T>) =>
    withTimeout(ms, call, undefined, options.clock);
  /** Topics being left: realtime-js keeps one channel per topic until its leave is done. */
  const leaving = new Map<string, Promise<unknown>>();
  let malformed = 0;

  /**
   * Calls the database function `name` and checks its answer against `schema`. A failed
   * request is classified by its status and PostgREST code. (A request this Remote gives up
   * on is TIMEOUT already: withTimeout answers before the aborted fetch does.)
   */
  async function rpc<S extends v.GenericSchema>(
    name: string,
    args: Record<string, unknown>,
    ms: number,
    schema: S,
  ): Promise<v.InferOutput<S>> {
    const supabase = loaded() ?? (await ready);
    const response = await timed(ms, (signal) => supabase.rpc(name, args).abortSignal(signal));
    if (response.error) throw classifyRpcError(response.error, response.status);
    const data: unknown = response.data; // untyped: the library knows no app's Database
    return checked(schema, data, name);
  }

  async function refresh(): Promise<boolean> {
    const supabase = loaded() ?? (await ready);
    const { data, error } = await timed(timeoutMs, () => supabase.auth.refreshSession());
    throwIfNetworkFailed(error);
    return !error && Boolean(data.session);
  }

  return {
    userId: session.userId,
    onAuthChange: session.onAuthChange,
    // The push carries up to 1 MiB and applies it in one transaction: twice a request's time.
    push: (clientId, mutations) =>
      rpc('sync_push', { client_id: clientId, mutations }, timeoutMs * 2, PushResponseSchema),
    pull: (cursor, maxRows) =>
      rpc('sync_pull', { cursor, max_rows: maxRows }, timeoutMs, PullResponseSchema),
    refresh,
    subscribeTopic(topic, listener) {
      let left = false;
      let channel: ReturnType<SupabaseClient['channel']> | undefined;
      let supabase: SupabaseClient | undefined;
      // The join must carry the user's JWT, not the anon key (private channels).
      void Promise.resolve(leaving.get(topic))
        .then(() => loaded() ?? ready)
        .then((here) => {
          supabase = here;
          return here.realtime.setAuth();
        })
        .then(() => {
          if (left || !supabase) return;
          channel = supabase
            .channel(topic, { config: { private: true } })
            .on('broadcast', { event: 'row' }, (message: { payload?: unknown }) => {
              const payload = message.payload;
              // Checked, not copied: the row goes on with every column it came with.
              if (v.is(RowMessageSchema, payload)) listener.onRow(payload);
              else {
                malformed += 1;
                console.warn('[sync] malformed realtime message ignored', topic);
              }
            })
            .subscribe((state) => {
              if (left) return;
              // The enum's value; compared as text (see SUBSCRIBED).
              if (String(state) === SUBSCRIBED) listener.onSubscribed();
              else listener.onLost();
            });
        })
        .catch((error: unknown) => console.warn('[sync] realtime join failed', topic, error));
      return () => {
        left = true;
        if (!channel || !supabase) return;
        const done = supabase.removeChannel(channel).finally(() => {
          if (leaving.get(topic) === done) leaving.delete(topic);
        });
        leaving.set(topic, done);
      };
    },
    malformed: () => malformed,
    async refreshRealtimeAuth() {
      const supabase = loaded() ?? (await ready);
      // A new access token, not the one held: realtime-js sends `access_token` only when the
      // token changes. supabase-js hands a refreshed token to realtime itself (on its
      // TOKEN_REFRESHED event); setAuth() here makes sure it has before this resolves (it
      // sends nothing a second time for the same token).
      const renewed = await refresh();
      if (renewed) await supabase.realtime.setAuth();
    },
    async upload(bucket, path, blob) {
      const supabase = loaded() ?? (await ready);
      // Up to 10 MiB on a slow link: ten times a request's time. Storage's upload takes no
      // signal, so only the timer ends it; a retry rewrites the same object (upsert).
      await storageRequest(
        () =>
          timed(timeoutMs * TRANSFER_TIMEOUT_FACTOR, () =>
            supabase.storage
              .from(bucket)
              .upload(path, blob, { upsert: true, contentType: blob.type }),
          ),
        refresh,
      );
    },
    async signedUrl(bucket, path, expiresInSec) {
      const supabase = loaded() ?? (await ready);
      // Takes no signal either: only the timer ends a request that never answers. (storage-js
      // makes the URL itself from the answer's path.)
      const data = await storageRequest<{ signedUrl: string }>(
        () =>
          timed(timeoutMs, () => supabase.storage.from(bucket).createSignedUrl(path, expiresInSec)),
        refresh,
      );
      return data.signedUrl;
    },
    async cleanupDeletedFiles() {
      const supabase = loaded() ?? (await ready);
      const response = await timed(timeoutMs, (signal) =>
        supabase.functions.invoke(CLEANUP_FUNCTION, { method: 'POST', signal }),
      );
      const failure: unknown = response.error; // typed `any` by functions-js
      if (!failure) return;
      // An HTTP or relay error carries the function's Response; a failed fetch, its error.
      const context = functionsContext(failure);
      throw classifyRpcError(
        { message: failure instanceof Error ? failure.message : 'request failed' },
        context instanceof Response ? context.status : undefined,
        context,
      );
    },
  };
}
