// The engine's only door to the server: a small port over the app's supabase-js client.
// All network I/O goes through supabase-js, so tests inject faults by handing it a faulty
// fetch or WebSocket, and the app's session handling stays supabase-js's own.
import type { SupabaseClient } from '@supabase/supabase-js';

import { classifyRpcError, SyncError } from './errors';
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

export interface Remote {
  /** The signed-in user's id, or null (local-only or signed out). */
  userId(): Promise<string | null>;
  push(clientId: string, mutations: WireMutation[]): Promise<PushResponse>;
  pull(cursor: string | null, maxRows: number): Promise<PullResponse>;
  /** One session refresh after a 401; false when the session cannot be renewed. */
  refresh(): Promise<boolean>;
  /** Calls `onChange` on any realtime change of the synced tables; returns unsubscribe. */
  subscribe(tables: readonly string[], onChange: () => void): () => void;
  /** Calls `onChange` when the session changes (sign-in, refresh, sign-out). */
  onAuthChange(onChange: (userId: string | null) => void): () => void;
  upload(bucket: string, path: string, blob: Blob): Promise<void>;
  signedUrl(bucket: string, path: string, expiresInSec: number): Promise<string>;
  download(bucket: string, path: string): Promise<Blob>;
}

export function supabaseRemote(supabase: SupabaseClient): Remote {
  return {
    async userId() {
      const { data } = await supabase.auth.getSession();
      return data.session?.user.id ?? null;
    },
    async push(clientId, mutations) {
      const response = await supabase.rpc('sync_push', {
        client_id: clientId,
        mutations,
      });
      const data: unknown = response.data; // untyped: no generated database types here
      if (response.error) throw classifyRpcError(response.error, response.status);
      return data as PushResponse;
    },
    async pull(cursor, maxRows) {
      const response = await supabase.rpc('sync_pull', {
        cursor,
        max_rows: maxRows,
      });
      const data: unknown = response.data; // untyped: no generated database types here
      if (response.error) throw classifyRpcError(response.error, response.status);
      return data as PullResponse;
    },
    async refresh() {
      const { data, error } = await supabase.auth.refreshSession();
      return !error && Boolean(data.session);
    },
    subscribe(tables, onChange) {
      const channel = supabase.channel(`outpost-sync-${Math.random().toString(36).slice(2)}`);
      for (const table of tables) {
        channel.on('postgres_changes', { event: '*', schema: 'public', table }, () => onChange());
      }
      channel.subscribe();
      return () => {
        void supabase.removeChannel(channel);
      };
    },
    onAuthChange(onChange) {
      const { data } = supabase.auth.onAuthStateChange((_event, session) => {
        onChange(session?.user.id ?? null);
      });
      return () => data.subscription.unsubscribe();
    },
    async upload(bucket, path, blob) {
      const { error } = await supabase.storage.from(bucket).upload(path, blob, {
        upsert: true,
        contentType: blob.type,
      });
      if (error) throw storageError(error);
    },
    async signedUrl(bucket, path, expiresInSec) {
      const { data, error } = await supabase.storage
        .from(bucket)
        .createSignedUrl(path, expiresInSec);
      if (error) throw storageError(error);
      return data.signedUrl;
    },
    async download(bucket, path) {
      const { data, error } = await supabase.storage.from(bucket).download(path);
      if (error) throw storageError(error);
      return data;
    },
  };
}

/** Storage errors carry their HTTP status as `status` or `statusCode` depending on the path. */
function storageError(error: Error): SyncError {
  const fields = error as Error & { status?: unknown; statusCode?: unknown };
  const status = Number(fields.status ?? fields.statusCode ?? 0) || undefined;
  return classifyRpcError({ message: error.message }, status);
}
