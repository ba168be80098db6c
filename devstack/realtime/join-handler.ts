// `phx_join`, hosted's RealtimeChannel.join: the config parsed, the token verified, a private
// channel's read permissions asked, the database side made ready, then the session joined
// and the reply, the presence state and the postgres_changes verdict sent.
import WebSocket from 'ws';

import { verifyToken } from './access-token';
import {
  ChannelSession,
  errorReason,
  reply,
  sendFrame,
  subTopicOf,
  type Connection,
  type Hub,
  type Policies,
} from './channel';
import { parseJoinPayload } from './channel-config';
import { PUBLIC_POLICIES, readPolicies, unauthorized } from './channel-policies';
import { announceSubscription, checkBindings } from './postgres-changes-handler';
import { presenceState } from './presence-handler';
import type { Frame } from './protocol';

export async function handleJoin(hub: Hub, conn: Connection, frame: Frame): Promise<void> {
  const parsed = parseJoinPayload(frame.payload);
  if (!parsed.ok) {
    reply(conn, frame, 'error', { reason: parsed.reason });
    return;
  }
  const config = parsed.config;
  const token = config.accessToken ?? conn.apikey;
  const verified = await verifyToken(hub.ctx, token);
  if (!verified.ok) {
    reply(conn, frame, 'error', { reason: verified.reason });
    return;
  }
  let policies: Policies = PUBLIC_POLICIES;
  if (config.isPrivate) {
    const subTopic = subTopicOf(frame.topic);
    const reads = await readPolicies(
      hub.ctx.db,
      { topic: subTopic, role: verified.role, claims: verified.claims, headers: conn.headers },
      config.presenceEnabled,
    );
    if (!reads) {
      reply(conn, frame, 'error', { reason: unauthorized(subTopic) });
      return;
    }
    policies = reads;
  }
  let bindingErrors: string[] = [];
  try {
    // A joined channel hears every message committed after its join's reply: the relay's
    // trigger and listener must be in place first (a devstack just started may still be
    // installing them).
    await hub.relay.ready;
    if (config.bindings.length > 0) {
      await hub.capture.ready;
      bindingErrors = await checkBindings(hub, config.bindings, config.echo);
    }
  } catch (error) {
    reply(conn, frame, 'error', {
      reason: `Realtime was unable to connect to the project database: ${errorReason(error)}`,
    });
    return;
  }
  if (conn.ws.readyState !== WebSocket.OPEN) return;

  // A second join of the same topic on one socket replaces the first, as in Phoenix.
  const previous = conn.channels.get(frame.topic);
  if (previous) hub.channels.leave(previous);

  const session = new ChannelSession(
    conn,
    frame.topic,
    frame.joinRef,
    config,
    { role: verified.role, claims: verified.claims, token },
    policies,
  );
  hub.channels.add(session);
  hub.channels.armExpiry(session);

  reply(conn, frame, 'ok', { postgres_changes: config.echo });
  // The client buffers presence diffs until it has a state, so send one to every session
  // that may read presence (on a private channel without presence read, none comes).
  if (session.readsPresence) {
    sendFrame(conn, {
      joinRef: frame.joinRef,
      ref: null,
      topic: frame.topic,
      event: 'presence_state',
      payload: presenceState(hub.channels, session.stream),
    });
  }
  if (config.bindings.length > 0) announceSubscription(hub, session, bindingErrors);
}
