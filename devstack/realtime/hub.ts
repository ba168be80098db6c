// Connections, joined channels, presence and broadcast: the Phoenix channel layer of the
// Realtime service, as realtime-js drives it (wire reference §4).
import { randomBytes, randomUUID } from 'node:crypto';

import { decodeJwt } from 'jose';
import WebSocket from 'ws';

import { MAX_TIMER_MS, type DevstackClock } from '../clock';
import type { DevstackContext } from '../context';
import type { Claims } from '../keys';
import { isApiRole, type ApiRole } from '../request-db';
import {
  bindingMatchesTable,
  ChangeCapture,
  type ChangeSubscriber,
  type PgBinding,
} from './changes';
import { parseJoinPayload, type JoinConfig } from './channel-config';
import {
  decodeMessage,
  encodeBinaryBroadcast,
  encodeFrame,
  isJsonObject,
  type BroadcastPush,
  type Frame,
  type Json,
  type JsonObject,
  type Vsn,
} from './protocol';

interface Connection {
  readonly ws: WebSocket;
  readonly vsn: Vsn;
  /** The apikey the socket connected with: the token of joins that bring none. */
  readonly apikey: string;
  readonly channels: Map<string, ChannelSession>;
  /** Messages are handled one after another, so a join finishes before the next push. */
  queue: Promise<void>;
}

type Verified = { ok: true; role: ApiRole; claims: Claims } | { ok: false; reason: string };

class ChannelSession implements ChangeSubscriber {
  role: ApiRole;
  claims: Claims;
  token: string;
  bindings: PgBinding[];
  presenceMeta: JsonObject | undefined;
  /** The clock's handle for the shutdown at the token's exp. */
  expiryTimer: unknown;
  readonly presenceKey: string;

  constructor(
    readonly conn: Connection,
    readonly topic: string,
    readonly joinRef: string | null,
    readonly config: JoinConfig,
    auth: { role: ApiRole; claims: Claims; token: string },
    private readonly send: (frame: Frame) => void,
  ) {
    this.role = auth.role;
    this.claims = auth.claims;
    this.token = auth.token;
    this.bindings = config.bindings;
    this.presenceKey = config.presenceKey === '' ? randomUUID() : config.presenceKey;
  }

  get subTopic(): string {
    return this.topic.replace(/^realtime:/i, '');
  }

  deliver(ids: number[], data: JsonObject): void {
    this.send({
      joinRef: null,
      ref: null,
      topic: this.topic,
      event: 'postgres_changes',
      payload: { ids, data },
    });
  }
}

function errorReason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Seconds since a token's `exp`, read without verifying (it already failed verification). */
function secondsSinceExpiry(token: string, clock: DevstackClock): number {
  try {
    const { exp } = decodeJwt(token);
    return typeof exp === 'number' ? Math.max(0, Math.floor(clock.now() / 1000 - exp)) : 0;
  } catch {
    return 0;
  }
}

export class RealtimeHub {
  private readonly connections = new Set<Connection>();
  private readonly topics = new Map<string, Set<ChannelSession>>();
  readonly capture: ChangeCapture;

  constructor(private readonly ctx: DevstackContext) {
    this.capture = new ChangeCapture(ctx.db, () => this.changeSubscribers());
    this.capture.ready.catch((error: unknown) => {
      console.error('[realtime] change capture failed to start:', error);
    });
  }

  /** Verifies a token as hosted Realtime does for a join or an access_token update. */
  async verify(token: string): Promise<Verified> {
    const verified = await this.ctx.keys.verify(token);
    if (!verified.ok) {
      if (verified.reason === 'expired') {
        const ago = secondsSinceExpiry(token, this.ctx.clock);
        return { ok: false, reason: `InvalidJWTToken: Token has expired ${ago} seconds ago` };
      }
      return { ok: false, reason: `InvalidJWTToken: ${verified.message}` };
    }
    const role = verified.claims.role;
    if (!isApiRole(role)) {
      return { ok: false, reason: `InvalidJWTToken: role "${String(role)}" does not exist` };
    }
    return { ok: true, role, claims: verified.claims };
  }

  accept(ws: WebSocket, vsn: Vsn, apikey: string): void {
    const conn: Connection = { ws, vsn, apikey, channels: new Map(), queue: Promise.resolve() };
    this.connections.add(conn);
    ws.on('message', (data, isBinary) => {
      const buffer = Array.isArray(data)
        ? Buffer.concat(data)
        : data instanceof ArrayBuffer
          ? Buffer.from(data)
          : data;
      conn.queue = conn.queue
        .then(() => this.onMessage(conn, buffer, isBinary))
        .catch((error: unknown) => console.error('[realtime] message failed:', error));
    });
    ws.on('close', () => this.disconnect(conn));
    ws.on('error', () => ws.terminate());
  }

  /** Closes every socket (clients reconnect on their own) and stops change capture. */
  async close(): Promise<void> {
    const closing = [...this.connections].map(
      (conn) =>
        new Promise<void>((resolve) => {
          if (conn.ws.readyState === WebSocket.CLOSED) return resolve();
          const timer = setTimeout(() => conn.ws.terminate(), 500);
          conn.ws.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
          conn.ws.close(1001, 'server shutting down');
        }),
    );
    await Promise.all(closing);
    for (const conn of this.connections) this.disconnect(conn);
    await this.capture.close();
  }

  private *changeSubscribers(): Iterable<ChangeSubscriber> {
    for (const conn of this.connections) {
      for (const session of conn.channels.values()) {
        if (session.bindings.length > 0) yield session;
      }
    }
  }

  private send(conn: Connection, frame: Frame): void {
    if (conn.ws.readyState !== WebSocket.OPEN) return;
    conn.ws.send(encodeFrame(frame, conn.vsn));
  }

  private reply(conn: Connection, frame: Frame, status: 'ok' | 'error', response: JsonObject) {
    this.send(conn, {
      joinRef: frame.joinRef,
      ref: frame.ref,
      topic: frame.topic,
      event: 'phx_reply',
      payload: { status, response },
    });
  }

  private async onMessage(conn: Connection, data: Buffer, isBinary: boolean): Promise<void> {
    const incoming = decodeMessage(data, isBinary, conn.vsn);
    if (incoming.kind === 'invalid') {
      console.warn(`[realtime] ignoring malformed frame: ${incoming.reason}`);
      return;
    }
    if (incoming.kind === 'broadcast') {
      const session = conn.channels.get(incoming.push.topic);
      if (!session) {
        if (incoming.push.ref) {
          this.reply(conn, { ...incoming.push, event: 'broadcast', payload: {} }, 'error', {
            reason: 'unmatched topic',
          });
        }
        return;
      }
      this.broadcast(session, incoming.push);
      return;
    }
    const frame = incoming.frame;
    if (frame.topic === 'phoenix' && frame.event === 'heartbeat') {
      this.reply(conn, frame, 'ok', {});
      return;
    }
    if (frame.event === 'phx_join') {
      await this.join(conn, frame);
      return;
    }
    const session = conn.channels.get(frame.topic);
    if (!session) {
      this.reply(conn, frame, 'error', { reason: 'unmatched topic' });
      return;
    }
    switch (frame.event) {
      case 'phx_leave':
        this.reply(conn, frame, 'ok', {});
        this.send(conn, { ...frame, ref: frame.joinRef, event: 'phx_close', payload: {} });
        this.leave(session);
        return;
      case 'access_token':
        await this.updateToken(session, frame.payload.access_token);
        return;
      case 'broadcast':
        this.broadcastJson(session, frame);
        return;
      case 'presence':
        this.presence(session, frame);
        return;
      default:
        // Hosted Realtime ignores events it does not know.
        return;
    }
  }

  private async join(conn: Connection, frame: Frame): Promise<void> {
    const parsed = parseJoinPayload(frame.payload);
    if (!parsed.ok) {
      this.reply(conn, frame, 'error', { reason: parsed.reason });
      return;
    }
    const config = parsed.config;
    const token = config.accessToken ?? conn.apikey;
    const verified = await this.verify(token);
    if (!verified.ok) {
      this.reply(conn, frame, 'error', { reason: verified.reason });
      return;
    }
    if (config.isPrivate && verified.role !== 'service_role') {
      // Private channels authorise through realtime.messages policies, which this stack lacks.
      const topic = frame.topic.replace(/^realtime:/i, '');
      this.reply(conn, frame, 'error', {
        reason: `Unauthorized: You do not have permissions to read from this Channel topic: ${topic}`,
      });
      return;
    }
    let bindingErrors: string[] = [];
    if (config.bindings.length > 0) {
      try {
        await this.capture.ready;
        bindingErrors = await this.checkBindings(config.bindings, config.echo);
      } catch (error) {
        this.reply(conn, frame, 'error', {
          reason: `Realtime was unable to connect to the project database: ${errorReason(error)}`,
        });
        return;
      }
    }
    if (conn.ws.readyState !== WebSocket.OPEN) return;

    // A second join of the same topic on one socket replaces the first, as in Phoenix.
    const previous = conn.channels.get(frame.topic);
    if (previous) this.leave(previous);

    const session = new ChannelSession(
      conn,
      frame.topic,
      frame.joinRef,
      config,
      { role: verified.role, claims: verified.claims, token },
      (f) => this.send(conn, f),
    );
    conn.channels.set(frame.topic, session);
    let members = this.topics.get(frame.topic);
    if (!members) {
      members = new Set();
      this.topics.set(frame.topic, members);
    }
    members.add(session);
    this.armExpiry(session);

    this.reply(conn, frame, 'ok', { postgres_changes: config.echo });
    // The client buffers presence diffs until it has a state, so always send one.
    this.send(conn, {
      joinRef: frame.joinRef,
      ref: null,
      topic: frame.topic,
      event: 'presence_state',
      payload: this.presenceState(frame.topic),
    });
    if (config.bindings.length > 0) {
      const ok = bindingErrors.length === 0;
      this.system(session, {
        extension: 'postgres_changes',
        status: ok ? 'ok' : 'error',
        message: ok ? 'Subscribed to PostgreSQL' : bindingErrors.join('; '),
      });
    }
  }

  /** Bindings on tables that are not published (or filters on unknown columns) never fire. */
  private async checkBindings(bindings: PgBinding[], echo: JsonObject[]): Promise<string[]> {
    const errors: string[] = [];
    for (const [i, binding] of bindings.entries()) {
      let tables = [...this.capture.tableInfos()].filter((t) =>
        bindingMatchesTable(binding, t.schema, t.table),
      );
      const wildcard = binding.schema === '*' || binding.table === '*';
      if (tables.length === 0 && !wildcard) {
        const info = await this.refreshFor(binding.schema, binding.table);
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
  private async refreshFor(schema: string, table: string) {
    const { rows } = await this.ctx.db.query(
      `select 1 from pg_publication_tables
       where pubname = 'supabase_realtime' and schemaname = $1 and tablename = $2`,
      [schema, table],
    );
    if (rows.length === 0) return undefined;
    await this.capture.installTriggers();
    return this.capture.tableInfo(schema, table);
  }

  private system(
    session: ChannelSession,
    payload: { extension: string; status: string; message: string },
  ) {
    this.send(session.conn, {
      joinRef: session.joinRef,
      ref: null,
      topic: session.topic,
      event: 'system',
      payload: { ...payload, channel: session.subTopic },
    });
  }

  /** Hosted's shutdown: a system error, then phx_close; the client reports CLOSED. */
  private shutdown(session: ChannelSession, message: string): void {
    this.system(session, { extension: 'system', status: 'error', message });
    this.send(session.conn, {
      joinRef: session.joinRef,
      ref: session.joinRef,
      topic: session.topic,
      event: 'phx_close',
      payload: {},
    });
    this.leave(session);
  }

  /** Shuts the channel down when its token's exp comes round on the devstack's clock. */
  private armExpiry(session: ChannelSession): void {
    const clock = this.ctx.clock;
    clock.clearTimeout(session.expiryTimer);
    session.expiryTimer = undefined;
    const exp = session.claims.exp;
    if (typeof exp !== 'number') return;
    const check = () => {
      const remaining = exp * 1000 - clock.now();
      if (remaining > 0) {
        session.expiryTimer = clock.setTimeout(check, Math.min(remaining, MAX_TIMER_MS));
        return;
      }
      const ago = Math.floor(-remaining / 1000);
      this.shutdown(session, `Token has expired ${ago} seconds ago`);
    };
    check();
  }

  private async updateToken(session: ChannelSession, token: Json | undefined): Promise<void> {
    if (typeof token !== 'string' || token === '' || token === session.token) return;
    const verified = await this.verify(token);
    if (session.conn.channels.get(session.topic) !== session) return; // left meanwhile
    if (!verified.ok) {
      this.shutdown(session, verified.reason);
      return;
    }
    session.role = verified.role;
    session.claims = verified.claims;
    session.token = token;
    this.armExpiry(session);
  }

  private leave(session: ChannelSession): void {
    this.ctx.clock.clearTimeout(session.expiryTimer);
    session.expiryTimer = undefined;
    if (session.conn.channels.get(session.topic) === session) {
      session.conn.channels.delete(session.topic);
    }
    const members = this.topics.get(session.topic);
    if (!members?.delete(session)) return;
    if (members.size === 0) this.topics.delete(session.topic);
    if (session.presenceMeta) {
      const left = session.presenceMeta;
      session.presenceMeta = undefined;
      this.presenceDiff(session.topic, {}, { [session.presenceKey]: { metas: [left] } });
    }
  }

  private disconnect(conn: Connection): void {
    for (const session of [...conn.channels.values()]) this.leave(session);
    this.connections.delete(conn);
  }

  // ---- broadcast --------------------------------------------------------------------------

  private broadcastJson(session: ChannelSession, frame: Frame): void {
    const { event, payload } = frame.payload;
    this.broadcast(session, {
      joinRef: frame.joinRef,
      ref: frame.ref,
      topic: frame.topic,
      event: typeof event === 'string' ? event : '',
      payload: payload ?? null,
      meta: undefined,
    });
  }

  private broadcast(sender: ChannelSession, push: BroadcastPush): void {
    const members = this.topics.get(sender.topic) ?? new Set<ChannelSession>();
    for (const member of members) {
      if (member === sender && !sender.config.broadcastSelf) continue;
      const conn = member.conn;
      if (push.payload instanceof Uint8Array) {
        // Raw bytes only travel in binary frames, which vsn 1.0.0 clients cannot read.
        if (conn.vsn !== '2.0.0' || conn.ws.readyState !== WebSocket.OPEN) continue;
        const bytes = encodeBinaryBroadcast(member.topic, push.event, push.payload, push.meta);
        if (bytes) conn.ws.send(bytes);
        continue;
      }
      const payload: JsonObject = { type: 'broadcast', event: push.event, payload: push.payload };
      if (push.meta) payload.meta = push.meta;
      this.send(conn, {
        joinRef: null,
        ref: null,
        topic: member.topic,
        event: 'broadcast',
        payload,
      });
    }
    if (sender.config.broadcastAck && push.ref) {
      this.reply(
        sender.conn,
        {
          joinRef: push.joinRef,
          ref: push.ref,
          topic: sender.topic,
          event: 'broadcast',
          payload: {},
        },
        'ok',
        {},
      );
    }
  }

  // ---- presence ---------------------------------------------------------------------------

  private presenceState(topic: string): JsonObject {
    const state: Record<string, { metas: JsonObject[] }> = {};
    for (const member of this.topics.get(topic) ?? []) {
      if (!member.presenceMeta) continue;
      const entry = (state[member.presenceKey] ??= { metas: [] });
      entry.metas.push(member.presenceMeta);
    }
    return state;
  }

  private presenceDiff(topic: string, joins: JsonObject, leaves: JsonObject): void {
    for (const member of this.topics.get(topic) ?? []) {
      this.send(member.conn, {
        joinRef: member.joinRef,
        ref: null,
        topic,
        event: 'presence_diff',
        payload: { joins, leaves },
      });
    }
  }

  private presence(session: ChannelSession, frame: Frame): void {
    const { event, payload } = frame.payload;
    const key = session.presenceKey;
    const previous = session.presenceMeta;
    if (event === 'track') {
      const meta: JsonObject = {
        ...(isJsonObject(payload) ? payload : {}),
        phx_ref: randomBytes(9).toString('base64url'),
      };
      if (previous) meta.phx_ref_prev = previous.phx_ref ?? null;
      session.presenceMeta = meta;
      this.reply(session.conn, frame, 'ok', {});
      // Hosted sends one diff with both the join and the leave, but realtime-js's onJoin
      // strips phx_ref from the metas it already holds, so the leave then misses and the
      // old meta lingers. A leave followed by a join leaves every client with one meta.
      if (previous) this.presenceDiff(session.topic, {}, { [key]: { metas: [previous] } });
      this.presenceDiff(session.topic, { [key]: { metas: [meta] } }, {});
      return;
    }
    if (event === 'untrack') {
      session.presenceMeta = undefined;
      this.reply(session.conn, frame, 'ok', {});
      if (previous) this.presenceDiff(session.topic, {}, { [key]: { metas: [previous] } });
      return;
    }
    this.reply(session.conn, frame, 'error', { reason: 'unknown presence event' });
  }
}
