// Tokens as hosted Realtime checks them: the socket's apikey at the upgrade, a join's
// access_token, and the `access_token` push that swaps a joined channel's token (its
// permissions asked again, its shutdown moved to the new exp).
import { decodeJwt } from 'jose';

import type { DevstackClock } from '../clock';
import type { DevstackContext } from '../context';
import type { Claims } from '../keys';
import { isApiRole, type ApiRole } from '../request-db';
import type { ChannelSession, Hub } from './channel';
import { currentPolicies, lostRead, unauthorized } from './channel-policies';
import type { Json } from './protocol';

export type Verified = { ok: true; role: ApiRole; claims: Claims } | { ok: false; reason: string };

/** Seconds since a token's `exp`, read without verifying (it already failed verification). */
function secondsSinceExpiry(token: string, clock: DevstackClock): number {
  try {
    const { exp } = decodeJwt(token);
    return typeof exp === 'number' ? Math.max(0, Math.floor(clock.now() / 1000 - exp)) : 0;
  } catch {
    return 0;
  }
}

/** Verifies a token as hosted Realtime does for a join or an access_token update. */
export async function verifyToken(ctx: DevstackContext, token: string): Promise<Verified> {
  // An API key stands for its role here (the socket's apikey, a join without a user token).
  const verified = await ctx.keys.verifyCredential(token);
  if (!verified.ok) {
    if (verified.reason === 'expired') {
      const ago = secondsSinceExpiry(token, ctx.clock);
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

/** The `access_token` push: a new token for a joined channel. */
export async function handleAccessToken(
  hub: Hub,
  session: ChannelSession,
  token: Json | undefined,
): Promise<void> {
  if (typeof token !== 'string' || token === '' || token === session.token) return;
  const verified = await verifyToken(hub.ctx, token);
  if (!session.joined) return; // left meanwhile
  if (!verified.ok) {
    hub.channels.shutdown(session, verified.reason);
    return;
  }
  if (session.isPrivate) {
    // Read is checked again under the new token; write goes back to unknown, except a
    // presence already tracked, whose track is asked again now: one no longer allowed
    // closes the channel, and leave() takes the presence out of everyone's state.
    const before = session.policies;
    const after = await currentPolicies(hub.ctx.db, session, {
      ...session.authContext(),
      role: verified.role,
      claims: verified.claims,
    });
    if (!session.joined) return;
    const lost = lostRead(before, after) || (session.presenceMeta !== undefined && !after);
    if (lost) {
      hub.channels.shutdown(
        session,
        `You no longer have permission to read from this Channel topic: ${session.subTopic}`,
      );
      return;
    }
    if (!after) {
      hub.channels.shutdown(session, unauthorized(session.subTopic));
      return;
    }
    session.policies = after;
  }
  session.role = verified.role;
  session.claims = verified.claims;
  session.token = token;
  hub.channels.armExpiry(session);
}
