// A synced app declares its tables once; the Dexie schema, the repositories' outbox and the
// engine's pull are generic over this declaration (Outpost's is in src/data/tables.ts).

/** How one synced table is declared: its scope, indexes and the columns a client may write. */
export interface TableSpec<Name extends string = string> {
  /** Server table name (public schema) and local Dexie table name. */
  readonly name: Name;
  /** How rows are scoped: by a list column, or profiles shared by co-membership. */
  readonly scope: { kind: 'list'; column: string } | { kind: 'peer' };
  /** Extra Dexie indexes (Dexie syntax: 'list_id', '[list_id+position]'). */
  readonly indexes: readonly string[];
  /** Columns a client may send on insert (the server registry's insert_columns). */
  readonly insertColumns: readonly string[];
  /** Columns a client may patch (the server registry's patch_columns). */
  readonly patchColumns: readonly string[];
  /** Purge order on revocation: higher depth first (children before parents). */
  readonly depth: number;
  /**
   * Whether clients may delete (tombstone) its rows: the server registry's `deletable`
   * (sync/sql/generate.ts). Default: true for list-scoped tables, false for peer tables.
   */
  readonly deletable?: boolean;
}

/** Every synced table of an app, in the order their Dexie tables are declared. */
export type Registry<Name extends string = string> = readonly TableSpec<Name>[];

/**
 * What the library needs of every synced row: its id, and its tombstone once deleted. (A
 * type, not an interface, so rows stay assignable to `Record<string, unknown>`.)
 */
export type SyncedRow = {
  id: string;
  deleted_at?: string | null;
};

/**
 * An app's synced rows by table name (Outpost's: src/data/rows.ts), so the store's writes
 * and the reader's tables take and give each table's own row type. A `type`, not an
 * `interface`, declares it (an interface has no index signature to satisfy this).
 */
export type RowTypes = Record<string, SyncedRow>;

/** The rows of an app that does not declare them: any columns (the notes example's). */
export type AnyRows = Record<string, LocalRow>;

/** The names of an app's synced tables. */
export type TableName<Rows> = keyof Rows & string;

/** What the device keeps beside a row's own columns (a type, as SyncedRow). */
export type DeviceFields = {
  /** Server version this row is based on; 0 while it has never been on the server. */
  _v: number;
  /** The mark of the last resync from scratch that delivered this row (apply.ts). */
  _r?: number;
};

/** A row of an app's table as the device keeps it: its columns plus the device's fields. */
export type Stored<Row> = Row & DeviceFields;

/** A row as kept on the device: the server's columns plus `_v`, the server version it is based on. */
export type LocalRow = Record<string, unknown> & SyncedRow & DeviceFields;

/** What an outbox entry does: a full row, changed columns, or a soft delete. */
export type MutationOp = 'insert' | 'patch' | 'delete';

/** A queued change, in the order it was made. */
export interface OutboxEntry {
  /** Autoincremented: the mutation's seq on the wire. */
  seq?: number;
  /** The synced table the change is for. */
  table: string;
  /** The changed row's id. */
  rowId: string;
  /** Insert, patch or (soft) delete. */
  op: MutationOp;
  /** Full row (insert), changed columns (patch), nothing (delete). */
  data: Record<string, unknown>;
  /** When it was queued (ms since epoch): deletes wait UNDO_WINDOW_MS from here. */
  createdAt: number;
  /** 1 once it has been sent: never changed again (the server may have applied it). */
  sent: 0 | 1;
  /** How many pushes carried it. */
  attempts: number;
  /** The last failure while sending it, if any. */
  lastError?: string;
  /** The list the row belongs to (for per-list pending badges and revocation purges). */
  listId?: string;
}

/** A change the server refused, kept so the user can see what was reverted and why. */
export interface Rejection {
  /** Autoincremented log id. */
  id?: number;
  /** The table of the refused change. */
  table: string;
  /** The row it was for. */
  rowId: string;
  /** What was tried: insert, patch or delete. */
  op: MutationOp;
  /** What was sent (the full row, or the changed columns). */
  data: Record<string, unknown>;
  /** The product.md §8 code (PERMISSION_DENIED, VALIDATION_FAILED, NOT_FOUND, FILE_*…). */
  code: string;
  /** The server's SQLSTATE, when the database refused it. */
  sqlState?: string;
  /** The column the database named, when it named one (the UI explains by its rule). */
  column?: string;
  /** The rule code a database trigger raised (LAST_OWNER, MEMBER_LIMIT…). */
  rule?: string;
  /** The constraint the database named (tasks_title_check…). */
  constraint?: string;
  /** The server's own words (never shown as is: the UI explains by code and field). */
  message: string;
  /** When it was refused (ms since epoch). */
  at: number;
  /** The list it belonged to, when it belonged to one. */
  listId?: string;
}

/**
 * How rows reach users: through containers (Outpost's lists) that users are members of. A
 * table scoped `{ kind: 'list', column }` belongs to the container its `column` names; the
 * server (sync_pull, realtime's topics, RLS) sends a row to the live members of its
 * container, and a member who loses the container loses its rows (purge).
 */
export interface AccessModel<Name extends string = string> {
  /** The container table (Outpost: lists); its rows may carry `realtime_epoch`. */
  readonly scopes: Name;
  /** The membership table (Outpost: memberships): a row per user and container. */
  readonly members: Name;
  /** The membership's container column (list_id). */
  readonly memberScope: string;
  /** The membership's user column (user_id). */
  readonly memberUser: string;
  /** Profiles shared by co-membership (a `peer` table: Outpost's profiles), if any. */
  readonly peers?: Name;
  /**
   * The membership's role column, read by the server's helpers `my_list_ids(roles)` and
   * `has_list_role(list, roles)` (sync/sql/generate.ts). Default 'role'; null when
   * memberships have no roles (a roles filter then matches nothing).
   */
  readonly memberRole?: string | null;
}

/** A table whose rows each stand for a file in a Storage bucket (Outpost: attachments). */
export interface FileTable<Name extends string = string> {
  readonly table: Name;
  /** The column holding the file's object path in the bucket. */
  readonly path: string;
  /** The private bucket the files are in. */
  readonly bucket: string;
}

/**
 * Everything the library needs to know of an app's synced data (Outpost's: src/data/tables.ts),
 * for its rows `Rows`: every table named here is one of theirs.
 */
export interface SyncSchema<Rows extends RowTypes = AnyRows> {
  /**
   * The app's short name ([a-z_][a-z0-9_]*), for names on the server (sync/sql/generate.ts):
   * its realtime policies are called "<app>: …" and an epoch move is marked by the setting
   * `<app>.realtime_epoch_bump`. Default 'sync'.
   */
  readonly app?: string;
  /** The synced tables, in the order their Dexie tables are declared. */
  readonly tables: Registry<TableName<Rows>>;
  /** The sync contract version the app is built for (public.sync_schema_version()). */
  readonly version: number;
  /** Who sees which rows. */
  readonly access: AccessModel<TableName<Rows>>;
  /** Columns naming the user who made a row: local-only rows are claimed through them. */
  readonly ownerColumns: readonly string[];
  /** The table of rows with files, if the app has one. */
  readonly files?: FileTable<TableName<Rows>>;
  /**
   * What a row's delete reaches (mirroring the server's ON DELETE CASCADE): per parent
   * table, each child table and its column naming the parent.
   */
  readonly cascades: Readonly<
    Partial<Record<TableName<Rows>, readonly (readonly [table: TableName<Rows>, column: string])[]>>
  >;
  /**
   * Device indexes added after the first version (whose indexes are the tables' `indexes`),
   * append-only, in version order: each a Dexie schema version (2, 3, …) adding indexes to
   * some tables. A device upgrades when it opens, its data intact.
   */
  readonly deviceVersions?: readonly DeviceVersion<TableName<Rows>>[];
}

/** A Dexie schema version of the device database: the indexes it adds, by table. */
export interface DeviceVersion<Name extends string = string> {
  readonly version: number;
  readonly indexes: Readonly<Partial<Record<Name, readonly string[]>>>;
  /**
   * Tables this version brings to a device (an app's new entity): version 1 and those before
   * it leave them out, so an upgraded device gets them created. A table's own `indexes` come
   * with it; `indexes` here adds to the tables that were there before.
   */
  readonly tables?: readonly Name[];
}
