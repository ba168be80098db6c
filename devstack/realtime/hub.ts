// The Realtime service's hub, as hosted's tenant holds it: the sockets and their channels,
// change capture for postgres_changes and the relay of broadcasts from the database, put
// together. What each push does is in the handlers beside channel.ts (wire reference §4).
import type WebSocket from 'ws';

import type { DevstackContext } from '../context';
import { verifyToken, type Verified } from './access-token';
import { deliverDatabaseMessage } from './broadcast-handler';
import { Channels, type Hub } from './channel';
import { recheckList } from './channel-policies';
import { ChangeCapture } from './change-capture';
import { MessageRelay, type DbMessage } from './messages';
import type { Vsn } from './protocol';
import { ListRechecks, membershipChangeOf } from './reauth';
import { RealtimeSockets } from './socket';

export class RealtimeHub implements Hub {
  readonly channels: Channels;
  readonly capture: ChangeCapture;
  readonly relay: MessageRelay;
  private readonly sockets: RealtimeSockets;
  /** Membership changes re-authorise the channels of their list (reauth.ts). */
  private readonly rechecks: ListRechecks;

  constructor(readonly ctx: DevstackContext) {
    this.channels = new Channels(ctx.clock);
    this.sockets = new RealtimeSockets(this);
    this.rechecks = new ListRechecks((list) => recheckList(this.channels, ctx.db, list));
    this.capture = new ChangeCapture(ctx.db, () => this.sockets.changeSubscribers());
    this.capture.ready.catch((error: unknown) => {
      console.error('[realtime] change capture failed to start:', error);
    });
    this.relay = new MessageRelay(ctx.db, ctx.clock, (message) => this.fanOut(message));
    this.relay.ready.catch((error: unknown) => {
      console.error('[realtime] broadcast from the database failed to start:', error);
    });
  }

  /** Verifies a token as hosted Realtime does for a join or an access_token update. */
  verify(token: string): Promise<Verified> {
    return verifyToken(this.ctx, token);
  }

  accept(ws: WebSocket, vsn: Vsn, apikey: string, headers: Record<string, string> = {}): void {
    this.sockets.accept(ws, vsn, apikey, headers);
  }

  /** Closes every socket (clients reconnect on their own) and stops change capture. */
  async close(): Promise<void> {
    await this.sockets.close();
    await this.capture.close();
    await this.relay.close();
  }

  /**
   * A committed realtime.messages row to its stream's readers. A membership change then
   * re-authorises its list's channels, and the relay waits for that before the next
   * message, so nothing committed after the change reaches a channel it shut down.
   */
  private fanOut(message: DbMessage): Promise<void> | undefined {
    deliverDatabaseMessage(this.channels, message);
    const change = membershipChangeOf(message.payload);
    return change === undefined ? undefined : this.rechecks.request(change);
  }
}
