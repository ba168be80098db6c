// Broadcast, hosted's BroadcastHandler: a client's push (JSON, or binary with raw bytes) to
// every session of its stream that may read it, and a committed realtime.messages row from
// the database (messages.ts) to the same, both on the permissions cached at join.
import WebSocket from 'ws';

import {
  reply,
  sendFrame,
  streamKey,
  type Channels,
  type ChannelSession,
  type Hub,
} from './channel';
import { mayWrite } from './channel-policies';
import type { DbMessage } from './messages';
import {
  encodeBinaryBroadcast,
  encodeFrame,
  type BroadcastPush,
  type Frame,
  type JsonObject,
} from './protocol';

/** A `broadcast` push in a JSON frame. */
export function handleBroadcastJson(
  hub: Hub,
  session: ChannelSession,
  frame: Frame,
): Promise<void> {
  const { event, payload } = frame.payload;
  return handleBroadcast(hub, session, {
    joinRef: frame.joinRef,
    ref: frame.ref,
    topic: frame.topic,
    event: typeof event === 'string' ? event : '',
    payload: payload ?? null,
    meta: undefined,
  });
}

export async function handleBroadcast(
  hub: Hub,
  sender: ChannelSession,
  push: BroadcastPush,
): Promise<void> {
  // Hosted drops a private broadcast without write permission silently: no ack, no error.
  if (sender.isPrivate && !(await mayWrite(hub.ctx.db, sender, 'broadcast'))) return;
  if (!sender.joined) return; // left meanwhile
  for (const member of hub.channels.members(sender.stream)) {
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
    sendFrame(conn, {
      joinRef: null,
      ref: null,
      topic: member.topic,
      event: 'broadcast',
      payload,
    });
  }
  if (sender.config.broadcastAck && push.ref) {
    reply(
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
 * frame is encoded once per topic spelling and protocol version.
 */
export function deliverDatabaseMessage(channels: Channels, message: DbMessage): void {
  const encoded = new Map<string, string>();
  for (const member of channels.members(streamKey(message.private, message.topic))) {
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
