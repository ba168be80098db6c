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
import {
  readAuthorizations,
  writeAuthorization,
  type AuthContext,
  type Extension,
} from './authorization';
import { parseJoinPayload, type JoinConfig } from './channel-config';
import { ListRechecks, listTopicPrefix, membershipChangeOf } from './reauth';
import { MessageRelay, type DbMessage } from './messages';
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
  /** The upgrade request's headers (`request.headers` in authorisation probes). */
  readonly headers: Record<string, string>;
  readonly channels: Map<string, ChannelSession>;
  /** Messages are handled one after another, so a join finishes before the next push. */
  queue: Promise<void>;
}

type Verified = { ok: true; role: ApiRole; claims: Claims } | { ok: false; reason: string };

/**
 * A private channel's permissions, cached for the session as hosted caches them: read is
 * checked at join (presence read only when presence is enabled) and on a new access token;
 * write is unknown (undefined) until the first broadcast or track checks it.
 */
interface Policies {
  broadcastRead: boolean;
  presenceRead: boolean | undefined;
  broadcastWrite: boolean | undefined;
  presenceWrite: boolean | undefined;
}

/** Public channels need no permission for anything. */
const PUBLIC_POLICIES: Readonly<Policies> = {
  broadcastRead: true,
  presenceRead: true,
  broadcastWrite: true,
  presenceWrite: true,
};

function unauthorized(subTopic: string): string {
  return `Unauthorized: You do not have permissions to read from this Channel topic: ${subTopic}`;
}

/** Whether a read the session had is gone (`after` undefined: it may read nothing now). */
function lostRead(before: Policies, after: Policies | undefined): boolean {
  return (
    (before.broadcastRead && after?.broadcastRead !== true) ||
    (before.presenceRead === true && after?.presenceRead !== true)
  );
}

/** Public and private channels of one name are separate streams. */
function streamKey(isPrivate: boolean, subTopic: string): string {
  return `${isPrivate ? 'private' : 'public'}:${subTopic}`;
}

function subTopicOf(topic: string): string {
  return topic.replace(/^realtime:/i, '');
}

class ChannelSession implements ChangeSubscriber {
  role: ApiRole;
  claims: Claims;
  token: string;
  bindings: PgBinding[];
  presenceMeta: JsonObject | undefined;
  /** The clock's handle for the shutdown at the token's exp. */
  expiryTimer: unknown;
  readonly presenceKey: string;
  policies: Policies;

  constructor(
    readonly conn: Connection,
    readonly topic: string,
    readonly joinRef: string | null,
    readonly config: JoinConfig,
    auth: { role: ApiRole; claims: Claims; token: string },
    policies: Policies,
    private readonly send: (frame: Frame) => void,
  ) {
    this.role = auth.role;
    this.claims = auth.claims;
    this.token = auth.token;
    this.bindings = config.bindings;
    this.presenceKey = config.presenceKey === '' ? randomUUID() : config.presenceKey;
    this.policies = { ...policies };
  }

  get subTopic(): string {
    return subTopicOf(this.topic);
  }

  get isPrivate(): boolean {
    return this.config.isPrivate;
  }

  get stream(): string {
    return streamKey(this.config.isPrivate, this.subTopic);
  }

  get readsBroadcast(): boolean {
    return this.policies.broadcastRead;
  }

  get readsPresence(): boolean {
    return this.policies.presenceRead === true;
  }

  authContext(): AuthContext {
    return {
      topic: this.subTopic,
      role: this.role,
      claims: this.claims,
      headers: this.conn.headers,
    };
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
  /** Joined sessions by stream (privacy and topic). */
  private readonly topics = new Map<string, Set<ChannelSession>>();
  readonly capture: ChangeCapture;
  readonly relay: MessageRelay;
  /** Membership changes re-authorise the channels of their list (reauth.ts). */
  private readonly rechecks = new ListRechecks((list) => this.recheckList(list));

  constructor(private readonly ctx: DevstackContext) {
    this.capture = new ChangeCapture(ctx.db, () => this.changeSubscribers());
    this.capture.ready.catch((error: unknown) => {
      console.error('[realtime] change capture failed to start:', error);
    });
    this.relay = new MessageRelay(ctx.db, ctx.clock, (message) => this.fanOut(message));
    this.relay.ready.catch((error: unknown) => {
      console.error('[realtime] broadcast from the database failed to start:', error);
    });
  }

  /** Verifies a token as hosted Realtime does for a join or an access_token update. */
  async verify(token: string): Promise<Verified> {
    // An API key stands for its role here (the socket's apikey, a join without a user token).
    const verified = await this.ctx.keys.verifyCredential(token);
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

  accept(ws: WebSocket, vsn: Vsn, apikey: string, headers: Record<string, string> = {}): void {
    const conn: Connection = {
      ws,
      vsn,
      apikey,
      headers,
      channels: new Map(),
      queue: Promise.resolve(),
    };
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
    await this.relay.close();
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
      await this.broadcast(session, incoming.push);
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
        await this.broadcastJson(session, frame);
        return;
      case 'presence':
        await this.presence(session, frame);
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
    let policies: Policies = PUBLIC_POLICIES;
    if (config.isPrivate) {
      const subTopic = subTopicOf(frame.topic);
      const reads = await this.readPolicies(
        { topic: subTopic, role: verified.role, claims: verified.claims, headers: conn.headers },
        config.presenceEnabled,
      );
      if (!reads) {
        this.reply(conn, frame, 'error', { reason: unauthorized(subTopic) });
        return;
      }
      policies = reads;
    }
    let bindingErrors: string[] = [];
    try {
      // A joined channel hears every message committed after its join's reply: the relay's
      // trigger and listener must be in place first (a devstack just started may still be
      // installing them).
      await this.relay.ready;
      if (config.bindings.length > 0) {
        await this.capture.ready;
        bindingErrors = await this.checkBindings(config.bindings, config.echo);
      }
    } catch (error) {
      this.reply(conn, frame, 'error', {
        reason: `Realtime was unable to connect to the project database: ${errorReason(error)}`,
      });
      return;
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
      policies,
      (f) => this.send(conn, f),
    );
    conn.channels.set(frame.topic, session);
    let members = this.topics.get(session.stream);
    if (!members) {
      members = new Set();
      this.topics.set(session.stream, members);
    }
    members.add(session);
    this.armExpiry(session);

    this.reply(conn, frame, 'ok', { postgres_changes: config.echo });
    // The client buffers presence diffs until it has a state, so send one to every session
    // that may read presence (on a private channel without presence read, none comes).
    if (session.readsPresence) {
      this.send(conn, {
        joinRef: frame.joinRef,
        ref: null,
        topic: frame.topic,
        event: 'presence_state',
        payload: this.presenceState(session.stream),
      });
    }
    if (config.bindings.length > 0) {
      const ok = bindingErrors.length === 0;
      this.system(session, {
        extension: 'postgres_changes',
        status: ok ? 'ok' : 'error',
        message: ok ? 'Subscribed to PostgreSQL' : bindingErrors.join('; '),
      });
    }
  }

  /**
   * A private channel's read permissions, or undefined when it may read neither broadcast nor
   * presence. A policy that fails counts as a refusal, as hosted's RlsPolicyError does.
   */
  private async readPolicies(
    auth: AuthContext,
    presenceEnabled: boolean,
  ): Promise<Policies | undefined> {
    const extensions: Extension[] = presenceEnabled ? ['broadcast', 'presence'] : ['broadcast'];
    let reads: Map<Extension, boolean>;
    try {
      reads = await readAuthorizations(this.ctx.db, auth, extensions);
    } catch (error) {
      console.warn(`[realtime] RlsPolicyError on ${auth.topic}: ${errorReason(error)}`);
      return undefined;
    }
    const policies: Policies = {
      broadcastRead: reads.get('broadcast') === true,
      presenceRead: presenceEnabled ? reads.get('presence') === true : undefined,
      broadcastWrite: undefined,
      presenceWrite: undefined,
    };
    return policies.broadcastRead || policies.presenceRead === true ? policies : undefined;
  }

  /** Whether the session may write `extension`: checked once, then cached (hosted's way). */
  private async mayWrite(session: ChannelSession, extension: Extension): Promise<boolean> {
    const key = extension === 'broadcast' ? 'broadcastWrite' : 'presenceWrite';
    const cached = session.policies[key];
    if (cached !== undefined) return cached;
    const policies = session.policies;
    let allowed: boolean;
    try {
      allowed = await writeAuthorization(this.ctx.db, session.authContext(), extension);
    } catch (error) {
      // Logged and refused this once; the next attempt checks again.
      console.warn(`[realtime] ${extension} write check failed: ${errorReason(error)}`);
      return false;
    }
    // A new token meanwhile reset the cache: this answer was for the old one.
    if (session.policies === policies) policies[key] = allowed;
    return allowed;
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
    if (session.isPrivate) {
      // Read is checked again under the new token; write goes back to unknown, except a
      // presence already tracked, whose track is asked again now: one no longer allowed
      // closes the channel, and leave() takes the presence out of everyone's state.
      const before = session.policies;
      const after = await this.currentPolicies(session, {
        ...session.authContext(),
        role: verified.role,
        claims: verified.claims,
      });
      if (session.conn.channels.get(session.topic) !== session) return;
      const lost = lostRead(before, after) || (session.presenceMeta !== undefined && !after);
      if (lost) {
        this.shutdown(
          session,
          `You no longer have permission to read from this Channel topic: ${session.subTopic}`,
        );
        return;
      }
      if (!after) {
        this.shutdown(session, unauthorized(session.subTopic));
        return;
      }
      session.policies = after;
    }
    session.role = verified.role;
    session.claims = verified.claims;
    session.token = token;
    this.armExpiry(session);
  }

  /**
   * Every private channel joined to a topic of `list` (data at any epoch, presence),
   * authorised again as a new join would be; those no longer allowed are shut down with
   * the refused join's reason (reauth.ts says why the devstack does this and hosted does
   * not). Their tracked presence leaves first, to everyone still on the topic, the refused
   * included: no client's last state of a channel that closes keeps someone who was dropped.
   */
  private async recheckList(list: string): Promise<void> {
    const prefix = streamKey(true, listTopicPrefix(list));
    const sessions: ChannelSession[] = [];
    for (const [stream, members] of this.topics) {
      if (stream.startsWith(prefix)) sessions.push(...members);
    }
    const refused: ChannelSession[] = [];
    for (const session of sessions) {
      if (!(await this.recheck(session))) refused.push(session);
    }
    // No await from here on: the verdicts still hold.
    for (const session of refused) if (this.isJoined(session)) this.dropPresence(session);
    for (const session of refused) {
      if (this.isJoined(session)) this.shutdown(session, unauthorized(session.subTopic));
    }
  }

  /** Asks again whether `session` may stay; false when it may not (it is left joined). */
  private async recheck(session: ChannelSession): Promise<boolean> {
    for (;;) {
      if (!this.isJoined(session)) return true;
      const token = session.token;
      const before = session.policies;
      const after = await this.currentPolicies(session, session.authContext());
      if (!this.isJoined(session)) return true;
      // A new token meanwhile: its own check may predate the change, so ask again under it.
      if (session.token !== token) continue;
      if (!after || lostRead(before, after)) return false;
      session.policies = after;
      return true;
    }
  }

  /**
   * A private session's permissions asked afresh under `auth` (read as at join, writes
   * unknown again), or undefined when it may no longer read anything or no longer track
   * the presence it has tracked.
   */
  private async currentPolicies(
    session: ChannelSession,
    auth: AuthContext,
  ): Promise<Policies | undefined> {
    const presenceEnabled =
      session.config.presenceEnabled || session.policies.presenceRead !== undefined;
    const after = await this.readPolicies(auth, presenceEnabled);
    if (!after || !session.presenceMeta) return after;
    let mayTrack: boolean;
    try {
      mayTrack = await writeAuthorization(this.ctx.db, auth, 'presence');
    } catch (error) {
      console.warn(`[realtime] presence write check failed: ${errorReason(error)}`);
      mayTrack = false;
    }
    if (!mayTrack) return undefined;
    after.presenceWrite = true;
    return after;
  }

  private isJoined(session: ChannelSession): boolean {
    return session.conn.channels.get(session.topic) === session;
  }

  private leave(session: ChannelSession): void {
    this.ctx.clock.clearTimeout(session.expiryTimer);
    session.expiryTimer = undefined;
    if (session.conn.channels.get(session.topic) === session) {
      session.conn.channels.delete(session.topic);
    }
    const members = this.topics.get(session.stream);
    if (!members?.delete(session)) return;
    if (members.size === 0) this.topics.delete(session.stream);
    this.dropPresence(session);
  }

  /** Takes the session's tracked presence out of everyone's state (a leave diff). */
  private dropPresence(session: ChannelSession): void {
    const left = session.presenceMeta;
    if (!left) return;
    session.presenceMeta = undefined;
    this.presenceDiff(session.stream, {}, { [session.presenceKey]: { metas: [left] } });
  }

  private disconnect(conn: Connection): void {
    for (const session of [...conn.channels.values()]) this.leave(session);
    this.connections.delete(conn);
  }

  // ---- broadcast --------------------------------------------------------------------------

  private broadcastJson(session: ChannelSession, frame: Frame): Promise<void> {
    const { event, payload } = frame.payload;
    return this.broadcast(session, {
      joinRef: frame.joinRef,
      ref: frame.ref,
      topic: frame.topic,
      event: typeof event === 'string' ? event : '',
      payload: payload ?? null,
      meta: undefined,
    });
  }

  private async broadcast(sender: ChannelSession, push: BroadcastPush): Promise<void> {
    // Hosted drops a private broadcast without write permission silently: no ack, no error.
    if (sender.isPrivate && !(await this.mayWrite(sender, 'broadcast'))) return;
    if (sender.conn.channels.get(sender.topic) !== sender) return; // left meanwhile
    const members = this.topics.get(sender.stream) ?? new Set<ChannelSession>();
    for (const member of members) {
      if (member === sender && !sender.config.broadcastSelf) continue;
      if (!member.readsBroadcast) continue;
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

  /**
   * A committed realtime.messages row to every session of its stream that may read
   * broadcast (the cached answer: nothing is asked of the database per subscriber). The
   * frame is encoded once per topic spelling and protocol version. A membership change
   * then re-authorises its list's channels, and the relay waits for that before the next
   * message, so nothing committed after the change reaches a channel it shut down.
   */
  private fanOut(message: DbMessage): Promise<void> | undefined {
    this.deliverMessage(message);
    const change = membershipChangeOf(message.payload);
    return change === undefined ? undefined : this.rechecks.request(change);
  }

  private deliverMessage(message: DbMessage): void {
    const members = this.topics.get(streamKey(message.private, message.topic));
    if (!members) return;
    const encoded = new Map<string, string>();
    for (const member of members) {
      const conn = member.conn;
      if (!member.readsBroadcast || conn.ws.readyState !== WebSocket.OPEN) continue;
      const cacheKey = `${conn.vsn} ${member.topic}`;
      let text = encoded.get(cacheKey);
      if (text === undefined) {
        const payload: JsonObject = {
          type: 'broadcast',
          event: message.event,
          payload: message.payload,
          meta: { id: message.id },
        };
        text = encodeFrame(
          { joinRef: null, ref: null, topic: member.topic, event: 'broadcast', payload },
          conn.vsn,
        );
        encoded.set(cacheKey, text);
      }
      conn.ws.send(text);
    }
  }

  // ---- presence ---------------------------------------------------------------------------

  private presenceState(stream: string): JsonObject {
    const state: Record<string, { metas: JsonObject[] }> = {};
    for (const member of this.topics.get(stream) ?? []) {
      if (!member.presenceMeta) continue;
      const entry = (state[member.presenceKey] ??= { metas: [] });
      entry.metas.push(member.presenceMeta);
    }
    return state;
  }

  private presenceDiff(stream: string, joins: JsonObject, leaves: JsonObject): void {
    for (const member of this.topics.get(stream) ?? []) {
      if (!member.readsPresence) continue;
      this.send(member.conn, {
        joinRef: member.joinRef,
        ref: null,
        topic: member.topic,
        event: 'presence_diff',
        payload: { joins, leaves },
      });
    }
  }

  private async presence(session: ChannelSession, frame: Frame): Promise<void> {
    const { event, payload } = frame.payload;
    const key = session.presenceKey;
    if (event === 'track' && session.isPrivate) {
      if (session.policies.presenceRead === undefined) {
        // Presence was not enabled at join: its read is checked now, as hosted does.
        const reads = await this.readPolicies(session.authContext(), true);
        session.policies.presenceRead = reads?.presenceRead === true;
      }
      const allowed = await this.mayWrite(session, 'presence');
      if (session.conn.channels.get(session.topic) !== session) return;
      if (!allowed) {
        // Hosted's {:reply, :error, socket}: an error with an empty response, nothing tracked.
        this.reply(session.conn, frame, 'error', {});
        return;
      }
    }
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
      if (previous) this.presenceDiff(session.stream, {}, { [key]: { metas: [previous] } });
      this.presenceDiff(session.stream, { [key]: { metas: [meta] } }, {});
      return;
    }
    if (event === 'untrack') {
      session.presenceMeta = undefined;
      this.reply(session.conn, frame, 'ok', {});
      if (previous) this.presenceDiff(session.stream, {}, { [key]: { metas: [previous] } });
      return;
    }
    this.reply(session.conn, frame, 'error', { reason: 'unknown presence event' });
  }
}
