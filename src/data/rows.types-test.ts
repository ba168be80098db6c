// Compile-time check (run by `npm run typecheck`; nothing imports this file): Outpost's row
// types (rows.ts, from schema.ts) against the generated `Database` type of the migrations
// (supabase/database.types.ts, `npm run types`). A column renamed, added, dropped, made
// nullable or given another kind of type in a migration fails tsc here, naming the table.
// The device may hold narrower types than Postgres (a status picklist for text, priorities
// 0-3 for smallint): what must match is the columns, their kind and their nullability.
import type { Database, Json } from '../../supabase/database.types';
import type { OutpostRows } from './rows';

type Tables = Database['public']['Tables'];
type Functions = Database['public']['Functions'];

/**
 * Columns of the synced tables that the device's row types leave out, each for a reason:
 * `sync_xid` and `granted_xid` never leave the server (sync_pull and realtime send
 * `to_jsonb(row) - 'sync_xid' - 'granted_xid'`); `realtime_epoch` comes with a list from the
 * server and the engine reads it off the stored row (realtime.ts), but a list made on this
 * device has none until the server's copy arrives, so the app's List does not promise it.
 */
interface NotInRowTypes {
  lists: 'sync_xid' | 'realtime_epoch';
  tasks: 'sync_xid';
  memberships: 'sync_xid' | 'granted_xid';
  comments: 'sync_xid';
  attachments: 'sync_xid';
  profiles: 'sync_xid';
  checklist_items: 'sync_xid';
}

/** True when A and B are the same type (not merely assignable either way). */
type Equal<A, B> =
  (<G>() => G extends A ? 1 : 2) extends <G>() => G extends B ? 1 : 2 ? true : false;
/** Fails to compile unless T is true. */
type Expect<T extends true> = T;

/** A value's kind as Postgres types it: narrower TypeScript unions keep their kind. */
type Kind<T> = [NonNullable<T>] extends [never]
  ? 'null'
  : [NonNullable<T>] extends [string]
    ? 'string'
    : [NonNullable<T>] extends [number]
      ? 'number'
      : [NonNullable<T>] extends [boolean]
        ? 'boolean'
        : [NonNullable<T>] extends [Json]
          ? 'json'
          : 'other';

/** A row's columns, each with its kind and whether it may be null. */
type Shape<Row> = {
  [K in keyof Row]-?: [Kind<Row[K]>, null extends Row[K] ? 'null' : 'not null'];
};

/** The server's row of `T` as the device should see it. */
type ServerRow<T extends keyof NotInRowTypes> = Omit<Tables[T]['Row'], NotInRowTypes[T]>;

/** Every left-out column still exists (a renamed one must be named anew above). */
type LeftOutExist = {
  [T in keyof NotInRowTypes]: [NotInRowTypes[T]] extends [keyof Tables[T]['Row']] ? true : false;
};

/** The synced tables whose shapes differ from the migrations' (never, when all agree). */
type Mismatched = {
  [T in keyof NotInRowTypes]: Equal<Shape<OutpostRows[T]>, Shape<ServerRow<T>>> extends true
    ? never
    : T;
}[keyof NotInRowTypes];

export type RowTypesChecks = [
  // Every synced table of the library is a table of the migrations, and only those.
  Expect<Equal<keyof OutpostRows, keyof NotInRowTypes>>,
  Expect<Equal<keyof NotInRowTypes & keyof Tables, keyof NotInRowTypes>>,
  Expect<Equal<LeftOutExist[keyof LeftOutExist], true>>,
  // A failure here names the table: compare rows.ts with supabase/database.types.ts.
  Expect<Equal<Mismatched, never>>,
  // The RPCs the Remote calls (remote.ts), with the arguments it sends.
  Expect<Equal<Functions['sync_push']['Args'], { client_id: string; mutations: Json }>>,
  Expect<Equal<Functions['sync_pull']['Args'], { cursor?: string; max_rows?: number }>>,
  Expect<Equal<Functions['sync_schema_version']['Args'], never>>,
];
