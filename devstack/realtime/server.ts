// Realtime at /realtime/v1/websocket: the WebSocket upgrade (apikey checked first, as the
// hosted gateway does) in front of the Phoenix channel hub in hub.ts.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';

import { WebSocketServer } from 'ws';

import { isSecretApiKey, type DevstackContext } from '../context';
import { isBrowserUserAgent, SECRET_KEY_IN_BROWSER } from '../keys-api';
import { RealtimeHub } from './hub';
import type { Vsn } from './protocol';

export interface RealtimeService {
  /** Rows of realtime.messages read for delivery so far (once per message). */
  messagesRead(): number;
  close(): Promise<void>;
}

/** An upgrade request's headers as one string each (`request.headers` in probes). */
function headerRecord(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

const WEBSOCKET_PATH = '/realtime/v1/websocket';
/** Largest frame accepted; hosted caps broadcast payloads well below this. */
const MAX_PAYLOAD_BYTES = 3 * 1024 * 1024;

/** Answers a refused upgrade with an HTTP error, then drops the socket. */
function refuse(socket: Duplex, status: number, statusText: string, message: string): void {
  const body = JSON.stringify({ message });
  socket.end(
    `HTTP/1.1 ${status} ${statusText}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  socket.destroy();
}

function vsnOf(value: string | null): Vsn | undefined {
  // Phoenix's default when the client names none.
  if (value === null || value === '1.0.0') return '1.0.0';
  if (value === '2.0.0') return '2.0.0';
  return undefined;
}

export function attachRealtime(ctx: DevstackContext, server: Server): RealtimeService {
  const hub = new RealtimeHub(ctx);
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_PAYLOAD_BYTES });
  let closing = false;

  const upgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (closing || url.pathname.replace(/\/+$/, '') !== WEBSOCKET_PATH) {
      socket.destroy();
      return;
    }
    const header = req.headers['x-api-key'];
    const apikey = url.searchParams.get('apikey') ?? (typeof header === 'string' ? header : null);
    if (!apikey) return refuse(socket, 401, 'Unauthorized', 'No API key found in request');
    // The gateway's browser rule holds for the socket too.
    if (isBrowserUserAgent(req.headers['user-agent']) && isSecretApiKey(ctx, apikey)) {
      return refuse(socket, 401, 'Unauthorized', SECRET_KEY_IN_BROWSER);
    }
    const vsn = vsnOf(url.searchParams.get('vsn'));
    if (!vsn) return refuse(socket, 400, 'Bad Request', 'Unsupported serializer version');
    const verified = await hub.verify(apikey);
    if (!verified.ok) return refuse(socket, 403, 'Forbidden', verified.reason);
    if (closing || socket.destroyed) {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => hub.accept(ws, vsn, apikey, headerRecord(req)));
  };

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // A client that vanishes mid-handshake must not take the server down.
    socket.on('error', () => socket.destroy());
    upgrade(req, socket, head).catch((error: unknown) => {
      console.error('[realtime] upgrade failed:', error);
      socket.destroy();
    });
  };
  server.on('upgrade', onUpgrade);

  return {
    messagesRead: () => hub.relay.messagesRead,
    async close() {
      closing = true;
      server.off('upgrade', onUpgrade);
      await hub.close();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
