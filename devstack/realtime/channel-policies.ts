// A private channel's permissions as its session caches them, hosted's way: read asked at
// join and on a new access token, write asked on first use; and, the devstack's own rule
// (reauth.ts), asked again for every channel of a list whose membership changed.
import type { SqlEngine } from '../sql-engine';
import {
  readAuthorizations,
  writeAuthorization,
  type AuthContext,
  type Extension,
} from './authorization';
import { errorReason, type Channels, type ChannelSession, type Policies } from './channel';
import { listTopicPrefix } from './reauth';

/** Public channels need no permission for anything. */
export const PUBLIC_POLICIES: Readonly<Policies> = {
  broadcastRead: true,
  presenceRead: true,
  broadcastWrite: true,
  presenceWrite: true,
};

export function unauthorized(subTopic: string): string {
  return `Unauthorized: You do not have permissions to read from this Channel topic: ${subTopic}`;
}

/** Whether a read the session had is gone (`after` undefined: it may read nothing now). */
export function lostRead(before: Policies, after: Policies | undefined): boolean {
  return (
    (before.broadcastRead && after?.broadcastRead !== true) ||
    (before.presenceRead === true && after?.presenceRead !== true)
  );
}

/**
 * A private channel's read permissions, or undefined when it may read neither broadcast nor
 * presence. A policy that fails counts as a refusal, as hosted's RlsPolicyError does.
 */
export async function readPolicies(
  db: SqlEngine,
  auth: AuthContext,
  presenceEnabled: boolean,
): Promise<Policies | undefined> {
  const extensions: Extension[] = presenceEnabled ? ['broadcast', 'presence'] : ['broadcast'];
  let reads: Map<Extension, boolean>;
  try {
    reads = await readAuthorizations(db, auth, extensions);
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
export async function mayWrite(
  db: SqlEngine,
  session: ChannelSession,
  extension: Extension,
): Promise<boolean> {
  const key = extension === 'broadcast' ? 'broadcastWrite' : 'presenceWrite';
  const cached = session.policies[key];
  if (cached !== undefined) return cached;
  const policies = session.policies;
  let allowed: boolean;
  try {
    allowed = await writeAuthorization(db, session.authContext(), extension);
  } catch (error) {
    // Logged and refused this once; the next attempt checks again.
    console.warn(`[realtime] ${extension} write check failed: ${errorReason(error)}`);
    return false;
  }
  // A new token meanwhile reset the cache: this answer was for the old one.
  if (session.policies === policies) policies[key] = allowed;
  return allowed;
}

/**
 * A private session's permissions asked afresh under `auth` (read as at join, writes
 * unknown again), or undefined when it may no longer read anything or no longer track
 * the presence it has tracked.
 */
export async function currentPolicies(
  db: SqlEngine,
  session: ChannelSession,
  auth: AuthContext,
): Promise<Policies | undefined> {
  const presenceEnabled =
    session.config.presenceEnabled || session.policies.presenceRead !== undefined;
  const after = await readPolicies(db, auth, presenceEnabled);
  if (!after || !session.presenceMeta) return after;
  let mayTrack: boolean;
  try {
    mayTrack = await writeAuthorization(db, auth, 'presence');
  } catch (error) {
    console.warn(`[realtime] presence write check failed: ${errorReason(error)}`);
    mayTrack = false;
  }
  if (!mayTrack) return undefined;
  after.presenceWrite = true;
  return after;
}

/**
 * Every private channel joined to a topic of `list` (data at any epoch, presence),
 * authorised again as a new join would be; those no longer allowed are shut down with
 * the refused join's reason (reauth.ts says why the devstack does this and hosted does
 * not). Their tracked presence leaves first, to everyone still on the topic, the refused
 * included: no client's last state of a channel that closes keeps someone who was dropped.
 */
export async function recheckList(channels: Channels, db: SqlEngine, list: string): Promise<void> {
  const sessions = channels.privateSessionsUnder(listTopicPrefix(list));
  const refused: ChannelSession[] = [];
  for (const session of sessions) {
    if (!(await recheck(db, session))) refused.push(session);
  }
  // No await from here on: the verdicts still hold.
  for (const session of refused) if (session.joined) channels.dropPresence(session);
  for (const session of refused) {
    if (session.joined) channels.shutdown(session, unauthorized(session.subTopic));
  }
}

/** Asks again whether `session` may stay; false when it may not (it is left joined). */
async function recheck(db: SqlEngine, session: ChannelSession): Promise<boolean> {
  for (;;) {
    if (!session.joined) return true;
    const token = session.token;
    const before = session.policies;
    const after = await currentPolicies(db, session, session.authContext());
    if (!session.joined) return true;
    // A new token meanwhile: its own check may predate the change, so ask again under it.
    if (session.token !== token) continue;
    if (!after || lostRead(before, after)) return false;
    session.policies = after;
    return true;
  }
}
