// Presence, hosted's PresenceHandler: the state a joining session is sent, and `track` /
// `untrack` pushes as diffs to every session of the stream that may read presence. A
// channel leaving takes its presence with it (Channels.dropPresence in channel.ts).
import { randomBytes } from 'node:crypto';

import { isPlainObject } from '../json';
import { reply, type Channels, type ChannelSession, type Hub } from './channel';
import { mayWrite, readPolicies } from './channel-policies';
import type { Frame, JsonObject } from './protocol';

/** Every tracked presence of the stream, by key: what a joining session is sent. */
export function presenceState(channels: Channels, stream: string): JsonObject {
  const state: Record<string, { metas: JsonObject[] }> = {};
  for (const member of channels.members(stream)) {
    if (!member.presenceMeta) continue;
    const entry = (state[member.presenceKey] ??= { metas: [] });
    entry.metas.push(member.presenceMeta);
  }
  return state;
}

/** A `presence` push: track or untrack. */
export async function handlePresence(
  hub: Hub,
  session: ChannelSession,
  frame: Frame,
): Promise<void> {
  const { event, payload } = frame.payload;
  const key = session.presenceKey;
  if (event === 'track' && session.isPrivate) {
    if (session.policies.presenceRead === undefined) {
      // Presence was not enabled at join: its read is checked now, as hosted does.
      const reads = await readPolicies(hub.ctx.db, session.authContext(), true);
      session.policies.presenceRead = reads?.presenceRead === true;
    }
    const allowed = await mayWrite(hub.ctx.db, session, 'presence');
    if (!session.joined) return;
    if (!allowed) {
      // Hosted's {:reply, :error, socket}: an error with an empty response, nothing tracked.
      reply(session.conn, frame, 'error', {});
      return;
    }
  }
  const channels = hub.channels;
  const previous = session.presenceMeta;
  if (event === 'track') {
    const meta: JsonObject = {
      ...(isPlainObject(payload) ? payload : {}),
      phx_ref: randomBytes(9).toString('base64url'),
    };
    if (previous) meta.phx_ref_prev = previous.phx_ref ?? null;
    session.presenceMeta = meta;
    reply(session.conn, frame, 'ok', {});
    // Hosted sends one diff with both the join and the leave, but realtime-js's onJoin
    // strips phx_ref from the metas it already holds, so the leave then misses and the
    // old meta lingers. A leave followed by a join leaves every client with one meta.
    if (previous) channels.presenceDiff(session.stream, {}, { [key]: { metas: [previous] } });
    channels.presenceDiff(session.stream, { [key]: { metas: [meta] } }, {});
    return;
  }
  if (event === 'untrack') {
    session.presenceMeta = undefined;
    reply(session.conn, frame, 'ok', {});
    if (previous) channels.presenceDiff(session.stream, {}, { [key]: { metas: [previous] } });
    return;
  }
  reply(session.conn, frame, 'error', { reason: 'unknown presence event' });
}
