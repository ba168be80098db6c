// Refresh tokens of sessions signed out on this device, waiting to be revoked on the server.
// Kept where they survive a reload and the sign-out's wipe (localStorage in a browser), away
// from the auth client's storage, so nothing can turn one back into a session; retried while
// online, with the engine's backoff, until the server says each is dead.
import { backoffDelayMs } from './backoff';
import type { Clock, OnlineSignal } from './engine';
import type { RevocationOutcome } from './session-end';

/** Where the tokens are kept: localStorage's shape (synchronous, shared by the tabs). */
export interface RevocationStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** Tokens kept at most: sign-outs with no network in between, oldest dropped first. */
const MAX_PENDING_REVOCATIONS = 20;

/** localStorage when there is one, else memory (Node tests: gone with the process). */
export function defaultRevocationStorage(): RevocationStorage {
  try {
    if (typeof localStorage !== 'undefined') return localStorage;
  } catch {
    // Storage refused (a sandboxed frame): memory below.
  }
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
  /** One attempt for one token; `rotated` swaps the kept token for its successor. */
  revoke(token: string, rotated: (next: string) => void): Promise<RevocationOutcome>;
  online: OnlineSignal;
  clock: Clock;
  random: () => number;
}

export function createRevocationQueue(options: RevocationQueueOptions): RevocationQueue {
  const { storage, key, online, clock } = options;
  let running = false;
  let rerun = false;
  let started = false;
  let attempt = 0;
  let retryTimer: unknown;
  let unsubscribe: (() => void) | undefined;

  function read(): string[] {
    try {
      const parsed: unknown = JSON.parse(storage.getItem(key) ?? '[]');
      return Array.isArray(parsed) ? parsed.filter((t): t is string => typeof t === 'string') : [];
    } catch {
      return [];
    }
  }

  function write(tokens: string[]): void {
    if (tokens.length === 0) storage.removeItem(key);
    else storage.setItem(key, JSON.stringify(tokens.slice(-MAX_PENDING_REVOCATIONS)));
  }

  /** Swaps `from` for `to` (or removes it): read fresh, as another tab may have changed it. */
  function replace(from: string, to: string | null): void {
    const tokens = read().filter((t) => t !== from);
    write(to === null ? tokens : [...tokens, to]);
  }

  async function run(): Promise<void> {
    if (!started || !online.isOnline()) return;
    if (running) {
      rerun = true;
      return;
    }
    running = true;
    clock.clearTimeout(retryTimer);
    let failed = false;
    try {
      for (const token of read()) {
        if (!started) break;
        let current = token;
        const outcome = await options
          .revoke(token, (next) => {
            replace(current, next);
            current = next;
          })
          .catch((): RevocationOutcome => ({ done: false, token: current }));
        if (outcome.done) replace(current, null);
        else failed = true;
      }
    } finally {
      running = false;
    }
    if (rerun) {
      rerun = false;
      return run();
    }
    if (failed && started) {
      retryTimer = clock.setTimeout(() => void run(), backoffDelayMs(attempt, options.random));
      attempt += 1;
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
        if (!up) return;
        attempt = 0;
        void run();
      });
      void run();
    },
    stop() {
      started = false;
      clock.clearTimeout(retryTimer);
      unsubscribe?.();
      unsubscribe = undefined;
    },
  };
}
