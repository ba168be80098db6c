// Placeholder until realtime is built: refuses WebSocket upgrades.
import type { Server } from 'node:http';

import type { DevstackContext } from '../context';

export interface RealtimeService {
  close(): Promise<void>;
}

export function attachRealtime(ctx: DevstackContext, server: Server): RealtimeService {
  void ctx;
  const refuse = (_req: unknown, socket: { destroy(): void }) => socket.destroy();
  server.on('upgrade', refuse);
  return {
    close: () => {
      server.off('upgrade', refuse);
      return Promise.resolve();
    },
  };
}
