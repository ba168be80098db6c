// postgres_changes at join: each binding checked against the published tables (a table
// published since start-up gets its trigger now), then hosted's system message saying
// whether the channel is subscribed. Delivery itself is change-capture.ts's.
import type { TableInfo } from './captured-tables';
import { bindingMatchesTable, type PgBinding } from './change-capture';
import type { ChannelSession, Hub } from './channel';
import type { JsonObject } from './protocol';

/** Bindings on tables that are not published (or filters on unknown columns) never fire. */
export async function checkBindings(
  hub: Hub,
  bindings: PgBinding[],
  echo: JsonObject[],
): Promise<string[]> {
  const errors: string[] = [];
  for (const [i, binding] of bindings.entries()) {
    let tables = [...hub.capture.tableInfos()].filter((t) =>
      bindingMatchesTable(binding, t.schema, t.table),
    );
    const wildcard = binding.schema === '*' || binding.table === '*';
    if (tables.length === 0 && !wildcard) {
      const info = await refreshFor(hub, binding.schema, binding.table);
      tables = info ? [info] : [];
    }
    const unknownColumn = binding.conditions.some(
      (c) => !tables.some((t) => t.columnTypes.has(c.column)),
    );
    if ((tables.length === 0 && !wildcard) || (tables.length > 0 && unknownColumn)) {
      const filter = echo[i]?.filter;
      errors.push(
        'Unable to subscribe to changes with given parameters. Please check Realtime is ' +
          `enabled for the given connect parameters: [schema: ${binding.schema}, table: ` +
          `${binding.table}, filters: [${typeof filter === 'string' ? filter : ''}]]`,
      );
    }
  }
  return errors;
}

/** A table published after start-up gets its trigger on first subscription. */
async function refreshFor(hub: Hub, schema: string, table: string): Promise<TableInfo | undefined> {
  const { rows } = await hub.ctx.db.query(
    `select 1 from pg_publication_tables
     where pubname = 'supabase_realtime' and schemaname = $1 and tablename = $2`,
    [schema, table],
  );
  if (rows.length === 0) return undefined;
  await hub.capture.installTriggers();
  return hub.capture.tableInfo(schema, table);
}

/** Hosted's word after a join with bindings: subscribed, or why not. */
export function announceSubscription(
  hub: Hub,
  session: ChannelSession,
  bindingErrors: string[],
): void {
  const ok = bindingErrors.length === 0;
  hub.channels.system(session, {
    extension: 'postgres_changes',
    status: ok ? 'ok' : 'error',
    message: ok ? 'Subscribed to PostgreSQL' : bindingErrors.join('; '),
  });
}
