// What the server sends and receives, as data (sync-design.md "Push", "Pull"): the wire
// shapes of sync_push, sync_pull and realtime's row messages, with the valibot schemas every
// answer is checked against before the engine reads it (remote.ts checks them at its edge).
import * as v from 'valibot';

import type { MutationOp } from './registry';

/** One outbox entry as sync_push receives it (sync-design.md "Push"). */
export interface WireMutation {
  /** The device's sequence number: the server applies each (client, seq) once. */
  seq: number;
  /** The synced table. */
  table: string;
  /** insert, patch or delete. */
  op: MutationOp;
  /** The row's id. */
  id: string;
  /** The columns sent: the whole row of an insert, the changed fields of a patch. */
  data: Record<string, unknown>;
}

// What the server answers is checked at the edge (remote.ts) against the schemas below; the types
// the engine reads are made from them, so the check and the type cannot drift apart. A
// malformed answer is a SERVER_ERROR now (retried with backoff), never a crash later.

/**
 * A synced row as the server sends it (sync_pull, sync_push, realtime): its id and its
 * version (a positive integer) are checked, its other columns go on as they came (the
 * repositories' schemas judge those).
 */
const RowSchema = v.looseObject({
  id: v.string(),
  version: v.pipe(
    v.number(),
    v.check((n) => Number.isInteger(n) && n > 0),
  ),
});

/**
 * One changed row with its table, as sync_pull lists it and a realtime `row` message carries
 * it (sync-design.md "When sync runs"). A realtime message's own `id` and `xid` are not used.
 */
export const RowMessageSchema = v.object({
  /** The synced table. */
  table: v.string(),
  /** The row with its version, as sync_pull returns it. */
  row: RowSchema,
});

/** One realtime delta: a synced table's row, as sync_pull would return it. */
export type RowMessage = v.InferOutput<typeof RowMessageSchema>;

/** A text the server may leave out of a result. */
const maybeText = v.optional(v.string());

/** What sync_push says of one mutation. */
const PushResultSchema = v.object({
  /** The mutation's seq. */
  seq: v.number(),
  /** Applied (now, or before: a replay), or refused by the database. */
  status: v.picklist(['applied', 'rejected']),
  /** The SQLSTATE of a refusal ('DUPLICATE' for a replayed insert). */
  code: maybeText,
  /** The database's message of a refusal. */
  message: maybeText,
  /** The column the database named in its refusal, when it named one. */
  column: maybeText,
  /** The rule code a database trigger raised with its refusal (HINT: LAST_OWNER…). */
  hint: maybeText,
  /** The constraint the database named in its refusal (tasks_title_check, tasks_pkey…). */
  constraint: maybeText,
  /** True when the server had applied this seq already (a lost response's replay). */
  replayed: v.optional(v.boolean()),
  /** The row as the server now has it (applied), or as it stays (refused); none if unseen. */
  row: v.nullish(RowSchema),
});

/** What sync_push says of one mutation. */
export type PushResult = v.InferOutput<typeof PushResultSchema>;

/** sync_push's answer: one result per mutation sent. */
export const PushResponseSchema = v.object({
  /** The highest seq of this client the server has applied. */
  last_seq: v.number(),
  /** One result per mutation, in seq order. */
  results: v.array(PushResultSchema),
});

/** sync_push's answer: one result per mutation sent. */
export type PushResponse = v.InferOutput<typeof PushResponseSchema>;

/** One sync_pull page (sync-design.md "Pull"). */
export const PullResponseSchema = v.object({
  /** Changed rows (tombstones included) the caller may see, in the server's order. */
  rows: v.array(RowMessageSchema),
  /** Where the next pull starts; stored once the page is applied. */
  cursor: v.string(),
  /** More rows wait past this page. */
  has_more: v.boolean(),
  /** The server's sync contract version: newer than the app's means APP_OUTDATED. */
  schema_version: v.number(),
  /**
   * On the first page of a pull from scratch (no cursor) only: how many rows all its pages
   * deliver, for the progress of a first sync.
   */
  expected: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
});

/** One sync_pull page (sync-design.md "Pull"). */
export type PullResponse = v.InferOutput<typeof PullResponseSchema>;
