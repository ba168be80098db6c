// The `phx_join` payload realtime-js sends, checked field by field: broadcast / presence /
// postgres_changes / private config and the access token.
import { isPlainObject } from '../json';
import type { ChangeType, PgBinding } from './change-capture';
import { parseFilter } from './filters';
import type { Json, JsonObject } from './protocol';

export interface JoinConfig {
  broadcastSelf: boolean;
  broadcastAck: boolean;
  presenceKey: string;
  presenceEnabled: boolean;
  isPrivate: boolean;
  bindings: PgBinding[];
  /** The bindings as the client sent them, echoed in the join reply with their ids. */
  echo: JsonObject[];
  accessToken: string | undefined;
}

export type JoinConfigResult = { ok: true; config: JoinConfig } | { ok: false; reason: string };

const EVENTS = new Set<string>(['*', 'INSERT', 'UPDATE', 'DELETE']);

/** A stable id per binding (hosted hashes the params too), so a rejoin keeps its ids. */
function bindingId(parts: readonly (string | undefined)[]): number {
  let hash = 0x811c9dc5;
  for (const ch of JSON.stringify(parts)) {
    hash ^= ch.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % 100_000_000;
}

function optionalString(value: Json | undefined): string | undefined | null {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : null;
}

export function parseJoinPayload(payload: JsonObject): JoinConfigResult {
  const config = isPlainObject(payload.config) ? payload.config : {};
  const broadcast = isPlainObject(config.broadcast) ? config.broadcast : {};
  const presence = isPlainObject(config.presence) ? config.presence : {};
  const token = payload.access_token;
  if (token !== undefined && token !== null && typeof token !== 'string') {
    return { ok: false, reason: 'access_token must be a string' };
  }
  const rawChanges = config.postgres_changes ?? [];
  if (!Array.isArray(rawChanges)) {
    return { ok: false, reason: 'postgres_changes must be a list' };
  }
  const bindings: PgBinding[] = [];
  const echo: JsonObject[] = [];
  for (const raw of rawChanges) {
    if (!isPlainObject(raw)) return { ok: false, reason: 'invalid postgres_changes binding' };
    const event = raw.event;
    const schema = raw.schema;
    const table = optionalString(raw.table);
    const filter = optionalString(raw.filter);
    if (typeof event !== 'string' || !EVENTS.has(event.toUpperCase())) {
      return { ok: false, reason: `invalid postgres_changes event ${JSON.stringify(event)}` };
    }
    if (typeof schema !== 'string' || schema === '') {
      return { ok: false, reason: 'postgres_changes binding needs a schema' };
    }
    if (table === null || filter === null) {
      return { ok: false, reason: 'postgres_changes table and filter must be strings' };
    }
    const parsed = parseFilter(filter);
    if (!parsed.ok) return { ok: false, reason: parsed.message };
    const id = bindingId([event, schema, table, filter]);
    bindings.push({
      id,
      event: event.toUpperCase() as '*' | ChangeType,
      schema,
      table: table === undefined || table === '' ? '*' : table,
      conditions: parsed.conditions,
    });
    const echoed: JsonObject = { id, event, schema };
    if (table !== undefined) echoed.table = table;
    if (filter !== undefined) echoed.filter = filter;
    echo.push(echoed);
  }
  return {
    ok: true,
    config: {
      broadcastSelf: broadcast.self === true,
      broadcastAck: broadcast.ack === true,
      presenceKey: typeof presence.key === 'string' ? presence.key : '',
      presenceEnabled: presence.enabled === true,
      isPrivate: config.private === true,
      bindings,
      echo,
      accessToken: typeof token === 'string' && token !== '' ? token : undefined,
    },
  };
}
