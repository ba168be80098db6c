// Refresh tokens of sessions signed out on this device, waiting to be revoked on the server.
// Kept where they survive a reload and the sign-out's wipe (localStorage in a browser), away
// from the auth client's storage, so nothing can turn one back into a session; retried while
// online, with the engine's backoff, until the server says each is dead.
import { backoffDelayMs } from './backoff';
import type { Clock, OnlineSignal } from './engine';

/** Where the tokens are kept: localStorage's shape (synchronous, shared by the tabs). */
export interface RevocationStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** localStorage when there is one, else memory (Node tests: gone with the process). */
export function defaultRevocationStorage(): RevocationStorage {
  if (typeof localStorage !== 'undefined') return localStorage;
  const memory = new Map<string, string>();
  return {
    getItem: (key) => memory.get(key) ?? null,
    setItem: (key, value) => void memory.set(key, value),
    removeItem: (key) => void memory.delete(key),
  };
}

export interface RevocationQueue {
  /** Keeps `refreshToken` for revocation (at once, before anything else happens). */
  add(refreshToken: string): void;
  /** The tokens still waiting. */
  pending(): string[];
  /** Tries now (when online), and again on reconnect and after each failure's backoff. */
  start(): void;
  /** Stops retrying; an attempt in flight finishes. */
  stop(): void;
}

export interface RevocationQueueOptions {
  storage: RevocationStorage;
  /** The storage key (one per device database). */
  key: string;
  /** One attempt: true once the server no longer accepts the token. */
  revoke(token: string): Promise<boolean>;
  online: OnlineSignal;
  clock: Clock;
  random: () => number;
}

export function createRevocationQueue(options: RevocationQueueOptions): RevocationQueue {
  const { storage, key, online, clock } = options;
  let running = false;
  let again = false;
  let started = false;
  let attempt = 0;
  let retryTimer: unknown;
  let unsubscribe = (): void => undefined;

  function read(): string[] {
    try {
      const tokens: unknown = JSON.parse(storage.getItem(key) ?? '[]');
      return Array.isArray(tokens) ? tokens.filter((t): t is string => typeof t === 'string') : [];
    } catch {
      return [];
    }
  }

  /** Read fresh each time: another tab may have added or revoked one meanwhile. */
  function write(tokens: string[]): void {
    if (tokens.length > 0) storage.setItem(key, JSON.stringify(tokens));
    else storage.removeItem(key);
  }

  async function run(): Promise<void> {
    if (!started || !online.isOnline()) return;
    if (running) {
      again = true; // a token added meanwhile gets its own attempt
      return;
    }
    running = true;
    again = false;
    clock.clearTimeout(retryTimer);
    let failed = false;
    for (const token of read()) {
      if (await options.revoke(token).catch(() => false)) write(read().filter((t) => t !== token));
      else failed = true;
    }
    running = false;
    if (again) return run();
    if (failed && started) {
      retryTimer = clock.setTimeout(() => void run(), backoffDelayMs(attempt++, options.random));
    } else attempt = 0;
  }

  return {
    add(refreshToken) {
      write([...read().filter((t) => t !== refreshToken), refreshToken]);
      void run();
    },
    pending: read,
    start() {
      if (started) return;
      started = true;
      unsubscribe = online.subscribe((up) => {
        if (up) {
          attempt = 0;
          void run();
        }
      });
      void run();
    },
    stop() {
      started = false;
      clock.clearTimeout(retryTimer);
      unsubscribe();
    },
  };
}
