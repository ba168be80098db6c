// The socket, hosted's UserSocket: each connection's messages decoded and handled in order,
// the heartbeat answered, `phx_leave` closed, and every other push routed to its channel's
// handler (join, broadcast, presence, access token). A socket that closes leaves its channels.
import WebSocket from 'ws';

import { handleAccessToken } from './access-token';
import { handleBroadcast, handleBroadcastJson } from './broadcast-handler';
import { reply, sendFrame, type Connection, type Hub } from './channel';
import type { ChangeSubscriber } from './change-capture';
import { handleJoin } from './join-handler';
import { handlePresence } from './presence-handler';
import { decodeMessage, type Vsn } from './protocol';

export class RealtimeSockets {
  private readonly connections = new Set<Connection>();

  constructor(private readonly hub: Hub) {}

  accept(ws: WebSocket, vsn: Vsn, apikey: string, headers: Record<string, string>): void {
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

  /** Closes every socket (clients reconnect on their own) and leaves their channels. */
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
  }

  /** Every joined channel with postgres_changes bindings. */
  *changeSubscribers(): Iterable<ChangeSubscriber> {
    for (const conn of this.connections) {
      for (const session of conn.channels.values()) {
        if (session.bindings.length > 0) yield session;
      }
    }
  }

  private async onMessage(conn: Connection, data: Buffer, isBinary: boolean): Promise<void> {
    const hub = this.hub;
    const incoming = decodeMessage(data, isBinary, conn.vsn);
    if (incoming.kind === 'invalid') {
      console.warn(`[realtime] ignoring malformed frame: ${incoming.reason}`);
      return;
    }
    if (incoming.kind === 'broadcast') {
      const session = conn.channels.get(incoming.push.topic);
      if (!session) {
        if (incoming.push.ref) {
          reply(conn, { ...incoming.push, event: 'broadcast', payload: {} }, 'error', {
            reason: 'unmatched topic',
          });
        }
        return;
      }
      await handleBroadcast(hub, session, incoming.push);
      return;
    }
    const frame = incoming.frame;
    if (frame.topic === 'phoenix' && frame.event === 'heartbeat') {
      reply(conn, frame, 'ok', {});
      return;
    }
    if (frame.event === 'phx_join') {
      await handleJoin(hub, conn, frame);
      return;
    }
    const session = conn.channels.get(frame.topic);
    if (!session) {
      reply(conn, frame, 'error', { reason: 'unmatched topic' });
      return;
    }
    switch (frame.event) {
      case 'phx_leave':
        reply(conn, frame, 'ok', {});
        sendFrame(conn, { ...frame, ref: frame.joinRef, event: 'phx_close', payload: {} });
        hub.channels.leave(session);
        return;
      case 'access_token':
        await handleAccessToken(hub, session, frame.payload.access_token);
        return;
      case 'broadcast':
        await handleBroadcastJson(hub, session, frame);
        return;
      case 'presence':
        await handlePresence(hub, session, frame);
        return;
      default:
        // Hosted Realtime ignores events it does not know.
        return;
    }
  }

  private disconnect(conn: Connection): void {
    for (const session of [...conn.channels.values()]) this.hub.channels.leave(session);
    this.connections.delete(conn);
  }
}
