// Change capture for postgres_changes without logical replication (PGlite has none): at
// start-up the devstack (never the migrations) puts an AFTER ROW trigger on every table in
// the `supabase_realtime` publication (captured-tables.ts). It NOTIFYs only schema, table,
// operation, time and primary key (NOTIFY payloads stop at 8000 bytes); each subscriber's
// copy of the row is then read under that subscriber's role and claims, so RLS decides who
// hears what.
import { isPlainObject } from '../json';
import type { Claims } from '../keys';
import { runAsCaller, type ApiRole } from '../request-db';
import type { SqlEngine } from '../sql-engine';
import { BatchQueue } from './batch-queue';
import {
  installCaptureTriggers,
  isString,
  keyString,
  NOTIFY_CHANNEL,
  parseJsonValue,
  qualified,
  readRows,
  tableKey,
  type TableInfo,
} from './captured-tables';
import { rowMatches, type Condition } from './filters';
import type { JsonObject } from './protocol';

/** Changes handled per round of reads; bigger bursts are taken in several rounds. */
const MAX_BATCH_CHANGES = 500;

export type ChangeType = 'INSERT' | 'UPDATE' | 'DELETE';

export interface Change {
  schema: string;
  table: string;
  type: ChangeType;
  commitTimestamp: string;
  /** Primary key of the new row (INSERT, UPDATE). */
  key: JsonObject | undefined;
  /** Primary key of the old row (UPDATE, DELETE). */
  oldKey: JsonObject | undefined;
}

export interface PgBinding {
  id: number;
  event: '*' | ChangeType;
  schema: string;
  /** '*' for every published table of the schema. */
  table: string;
  conditions: Condition[];
}

/** A joined channel with postgres_changes bindings, as the dispatcher sees it. */
export interface ChangeSubscriber {
  readonly role: ApiRole;
  readonly claims: Claims;
  /** Identifies role + claims: subscribers with the same token share their reads. */
  readonly token: string;
  readonly bindings: readonly PgBinding[];
  deliver(ids: number[], data: JsonObject): void;
}

function parseChange(payload: string): Change | undefined {
  const value = parseJsonValue(payload);
  if (!isPlainObject(value)) return undefined;
  const { s, t, o, ts, k, ok } = value;
  if (!isString(s) || !isString(t) || !isString(ts)) return undefined;
  if (o !== 'INSERT' && o !== 'UPDATE' && o !== 'DELETE') return undefined;
  return {
    schema: s,
    table: t,
    type: o,
    commitTimestamp: ts,
    key: isPlainObject(k) ? k : undefined,
    oldKey: isPlainObject(ok) ? ok : undefined,
  };
}

export function bindingMatchesTable(binding: PgBinding, schema: string, table: string): boolean {
  return (
    (binding.schema === '*' || binding.schema === schema) &&
    (binding.table === '*' || binding.table === table)
  );
}

function bindingMatchesChange(binding: PgBinding, change: Change): boolean {
  return (
    (binding.event === '*' || binding.event === change.type) &&
    bindingMatchesTable(binding, change.schema, change.table)
  );
}

/** What one subscriber group (same token) may see of one round of changes. */
interface GroupReads {
  /** tableKey → key string → row as the group's role reads it. */
  rows: Map<string, Map<string, Record<string, unknown>>>;
  /** tableKey → whether the role may SELECT from it (a DELETE has no row left to test). */
  selectable: Map<string, boolean>;
}

export class ChangeCapture {
  /** Resolves once triggers are in place and the listener runs. */
  readonly ready: Promise<void>;
  private tables = new Map<string, TableInfo>();
  private readonly queue = new BatchQueue<Change>(
    MAX_BATCH_CHANGES,
    (batch) => this.dispatch(batch),
    'delivering changes',
  );
  private unlisten: (() => Promise<void>) | undefined;
  private closed = false;

  constructor(
    private readonly db: SqlEngine,
    private readonly subscribers: () => Iterable<ChangeSubscriber>,
  ) {
    this.ready = this.start();
  }

  private async start(): Promise<void> {
    this.unlisten = await this.db.listen(NOTIFY_CHANNEL, (payload) => this.onNotify(payload));
    await this.installTriggers();
  }

  /** (Re)installs the capture function and one trigger per published table. */
  async installTriggers(): Promise<void> {
    this.tables = await installCaptureTriggers(this.db);
  }

  /** Published, captured tables. */
  tableInfos(): Iterable<TableInfo> {
    return this.tables.values();
  }

  tableInfo(schema: string, table: string): TableInfo | undefined {
    return this.tables.get(tableKey(schema, table));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.ready.catch(() => undefined);
    await this.queue.close();
    await this.unlisten?.();
    this.unlisten = undefined;
  }

  private onNotify(payload: string): void {
    if (this.closed) return;
    const change = parseChange(payload);
    if (change) this.queue.push(change);
  }

  private async dispatch(batch: Change[]): Promise<void> {
    // Who cares about what, grouped by token so each group's reads happen once.
    const groups = new Map<string, { subscribers: ChangeSubscriber[]; needs: Change[] }>();
    for (const subscriber of this.subscribers()) {
      const needs = batch.filter((c) =>
        subscriber.bindings.some((b) => bindingMatchesChange(b, c)),
      );
      if (needs.length === 0) continue;
      const group = groups.get(subscriber.token);
      if (group) {
        group.subscribers.push(subscriber);
        for (const c of needs) if (!group.needs.includes(c)) group.needs.push(c);
      } else {
        groups.set(subscriber.token, { subscribers: [subscriber], needs });
      }
    }
    const wanted = [...groups.values()].flatMap((g) => g.needs);
    if (wanted.some((c) => !this.tables.has(tableKey(c.schema, c.table)))) {
      await this.installTriggers(); // a table joined the publication since start-up
    }
    for (const group of groups.values()) {
      if (this.closed) return;
      const first = group.subscribers[0];
      if (!first) continue;
      let reads: GroupReads;
      try {
        reads = await this.readAs(first.role, first.claims, group.needs);
      } catch (error) {
        // E.g. a role without SELECT on a column: that group hears nothing of this round.
        console.warn('[realtime] reading changed rows failed:', error);
        continue;
      }
      for (const change of batch) {
        if (!group.needs.includes(change)) continue;
        for (const subscriber of group.subscribers) this.deliver(subscriber, change, reads);
      }
    }
  }

  /** Reads the changed rows of one round under one role and claims (one transaction). */
  private readAs(role: ApiRole, claims: Claims, changes: Change[]): Promise<GroupReads> {
    const keysByTable = new Map<string, { info: TableInfo; keys: JsonObject[] }>();
    for (const change of changes) {
      const info = this.tableInfo(change.schema, change.table);
      if (!info) continue;
      const entry = keysByTable.get(tableKey(change.schema, change.table)) ?? { info, keys: [] };
      if (change.type !== 'DELETE' && change.key) entry.keys.push(change.key);
      keysByTable.set(tableKey(change.schema, change.table), entry);
    }
    return runAsCaller(this.db, role, claims, undefined, async (tx) => {
      const reads: GroupReads = { rows: new Map(), selectable: new Map() };
      // A role without SELECT hears nothing of a table (and would abort the reads below).
      const { rows: privileges } = await tx.query(
        `select name, has_table_privilege(current_user, name, 'SELECT') as ok
         from jsonb_array_elements_text($1::jsonb) as name`,
        [JSON.stringify([...keysByTable.values()].map(({ info }) => qualified(info)))],
      );
      const allowed = new Set(privileges.filter((p) => p.ok === true).map((p) => p.name));
      for (const [name, { info, keys }] of keysByTable) {
        const ok = allowed.has(qualified(info));
        reads.selectable.set(name, ok);
        if (ok && keys.length > 0) reads.rows.set(name, await readRows(tx, info, keys));
      }
      return reads;
    });
  }

  private deliver(subscriber: ChangeSubscriber, change: Change, reads: GroupReads): void {
    const info = this.tableInfo(change.schema, change.table);
    if (!info) return;
    const name = tableKey(change.schema, change.table);
    let record: Record<string, unknown> | undefined;
    let tested: Record<string, unknown>;
    if (change.type === 'DELETE') {
      // The row is gone: only its key is sent (as hosted does with RLS on).
      if (!change.oldKey || reads.selectable.get(name) !== true) return;
      tested = change.oldKey;
    } else {
      if (!change.key) return;
      record = reads.rows.get(name)?.get(keyString(info, change.key));
      if (!record) return; // not visible to this subscriber
      tested = record;
    }
    const ids = subscriber.bindings
      .filter(
        (b) =>
          bindingMatchesChange(b, change) && rowMatches(b.conditions, tested, info.columnTypes),
      )
      .map((b) => b.id);
    if (ids.length === 0) return;
    const data: JsonObject = {
      schema: change.schema,
      table: change.table,
      commit_timestamp: change.commitTimestamp,
      type: change.type,
      columns: info.columns.map((c) => ({ name: c.name, type: c.type })),
      errors: null,
    };
    if (record) data.record = record as JsonObject;
    if (change.type !== 'INSERT' && change.oldKey) data.old_record = change.oldKey;
    subscriber.deliver([...new Set(ids)], data);
  }
}
