// The channel, as hosted Realtime's channel process holds it: one joined topic on one socket
// (its role, token, bindings, presence and cached permissions) and its lifecycle on the hub
// (joined to its stream, shut down at its token's exp, left). The handlers beside it
// (join, broadcast, presence, postgres_changes, socket, access token) share what is here:
// the hub's parts and frames out to a socket.
import { randomUUID } from 'node:crypto';

import WebSocket from 'ws';

import { MAX_TIMER_MS, type DevstackClock } from '../clock';
import type { DevstackContext } from '../context';
import type { Claims } from '../keys';
import type { ApiRole } from '../request-db';
import type { AuthContext } from './authorization';
import type { ChangeCapture, ChangeSubscriber, PgBinding } from './change-capture';
import type { JoinConfig } from './channel-config';
import type { MessageRelay } from './messages';
import { encodeFrame, type Frame, type JsonObject, type Vsn } from './protocol';

/** One WebSocket and the channels joined on it. */
export interface Connection {
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

/** What every handler reaches the devstack and the hub's channels through. */
export interface Hub {
  readonly ctx: DevstackContext;
  readonly channels: Channels;
  readonly capture: ChangeCapture;
  readonly relay: MessageRelay;
}

/**
 * A private channel's permissions, cached for the session as hosted caches them: read is
 * checked at join (presence read only when presence is enabled) and on a new access token;
 * write is unknown (undefined) until the first broadcast or track checks it.
 */
export interface Policies {
  broadcastRead: boolean;
  presenceRead: boolean | undefined;
  broadcastWrite: boolean | undefined;
  presenceWrite: boolean | undefined;
}

export function errorReason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Public and private channels of one name are separate streams. */
export function streamKey(isPrivate: boolean, subTopic: string): string {
  return `${isPrivate ? 'private' : 'public'}:${subTopic}`;
}

export function subTopicOf(topic: string): string {
  return topic.replace(/^realtime:/i, '');
}

export function sendFrame(conn: Connection, frame: Frame): void {
  if (conn.ws.readyState !== WebSocket.OPEN) return;
  conn.ws.send(encodeFrame(frame, conn.vsn));
}

/** The phx_reply to `frame`. */
export function reply(
  conn: Connection,
  frame: Frame,
  status: 'ok' | 'error',
  response: JsonObject,
): void {
  sendFrame(conn, {
    joinRef: frame.joinRef,
    ref: frame.ref,
    topic: frame.topic,
    event: 'phx_reply',
    payload: { status, response },
  });
}

export class ChannelSession implements ChangeSubscriber {
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

  /** Still the socket's channel of its topic (not left, nor replaced by a second join). */
  get joined(): boolean {
    return this.conn.channels.get(this.topic) === this;
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
    sendFrame(this.conn, {
      joinRef: null,
      ref: null,
      topic: this.topic,
      event: 'postgres_changes',
      payload: { ids, data },
    });
  }
}

/** The hub's joined channels by stream, and what ends them. */
export class Channels {
  /** Joined sessions by stream (privacy and topic). */
  private readonly streams = new Map<string, Set<ChannelSession>>();

  constructor(private readonly clock: DevstackClock) {}

  /** Joins the session to its socket and its stream. */
  add(session: ChannelSession): void {
    session.conn.channels.set(session.topic, session);
    let members = this.streams.get(session.stream);
    if (!members) {
      members = new Set();
      this.streams.set(session.stream, members);
    }
    members.add(session);
  }

  members(stream: string): Iterable<ChannelSession> {
    return this.streams.get(stream) ?? [];
  }

  /** The sessions of every private stream whose topic starts with `topicPrefix`. */
  privateSessionsUnder(topicPrefix: string): ChannelSession[] {
    const prefix = streamKey(true, topicPrefix);
    const sessions: ChannelSession[] = [];
    for (const [stream, members] of this.streams) {
      if (stream.startsWith(prefix)) sessions.push(...members);
    }
    return sessions;
  }

  leave(session: ChannelSession): void {
    this.clock.clearTimeout(session.expiryTimer);
    session.expiryTimer = undefined;
    if (session.joined) session.conn.channels.delete(session.topic);
    const members = this.streams.get(session.stream);
    if (!members?.delete(session)) return;
    if (members.size === 0) this.streams.delete(session.stream);
    this.dropPresence(session);
  }

  /** Takes the session's tracked presence out of everyone's state (a leave diff). */
  dropPresence(session: ChannelSession): void {
    const left = session.presenceMeta;
    if (!left) return;
    session.presenceMeta = undefined;
    this.presenceDiff(session.stream, {}, { [session.presenceKey]: { metas: [left] } });
  }

  /** A presence_diff to every session of the stream that may read presence. */
  presenceDiff(stream: string, joins: JsonObject, leaves: JsonObject): void {
    for (const member of this.members(stream)) {
      if (!member.readsPresence) continue;
      sendFrame(member.conn, {
        joinRef: member.joinRef,
        ref: null,
        topic: member.topic,
        event: 'presence_diff',
        payload: { joins, leaves },
      });
    }
  }

  system(
    session: ChannelSession,
    payload: { extension: string; status: string; message: string },
  ): void {
    sendFrame(session.conn, {
      joinRef: session.joinRef,
      ref: null,
      topic: session.topic,
      event: 'system',
      payload: { ...payload, channel: session.subTopic },
    });
  }

  /** Hosted's shutdown: a system error, then phx_close; the client reports CLOSED. */
  shutdown(session: ChannelSession, message: string): void {
    this.system(session, { extension: 'system', status: 'error', message });
    sendFrame(session.conn, {
      joinRef: session.joinRef,
      ref: session.joinRef,
      topic: session.topic,
      event: 'phx_close',
      payload: {},
    });
    this.leave(session);
  }

  /** Shuts the channel down when its token's exp comes round on the devstack's clock. */
  armExpiry(session: ChannelSession): void {
    const clock = this.clock;
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
}
