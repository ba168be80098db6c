// The bare subscribers behind the benches' floor lines (issue 42): a supabase-js channel that
// stores nothing and only notes when each edit's message, found by its title, reached it.
// sync-engine.bench.ts listens to the row messages of a list's topic, rxdb-peer.bench.ts to
// postgres_changes.
import { REALTIME_SUBSCRIBE_STATES, type RealtimeChannel } from '@supabase/supabase-js';

/** A floor's subscriber: when each title arrived, and its way out. */
export interface BareSubscriber {
  /** Resolves with when (performance.now()) a message carrying `title` came. */
  heard(title: string): Promise<number>;
  close(): Promise<void>;
}

/**
 * Joins `channel`, whose listeners `listen` adds and hand each message's title (when it has
 * one) to `arrived`; resolves once the join is accepted. `close` is called by the result's.
 */
export async function bareSubscriber(
  channel: RealtimeChannel,
  listen: (channel: RealtimeChannel, arrived: (title: unknown) => void) => RealtimeChannel,
  close: () => Promise<void>,
): Promise<BareSubscriber> {
  const waiting = new Map<string, (at: number) => void>();
  const arrived = (title: unknown) => {
    const at = performance.now();
    if (typeof title === 'string') waiting.get(title)?.(at);
  };
  await new Promise<void>((resolve, reject) => {
    listen(channel, arrived).subscribe((state, error) => {
      if (state === REALTIME_SUBSCRIBE_STATES.SUBSCRIBED) resolve();
      else if (state !== REALTIME_SUBSCRIBE_STATES.CLOSED) {
        reject(error ?? new Error(`bench: the bare subscriber's join ended ${state}`));
      }
    });
  });
  return { heard: (title) => new Promise((resolve) => waiting.set(title, resolve)), close };
}
