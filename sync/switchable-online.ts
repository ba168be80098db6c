// An online signal set by hand, for tests (and apps with their own connectivity checks).
// Its own module, not index.ts: the library's entry is what the app ships and what the
// sync engine's bundle budget measures (scripts/bundle-sync.mjs).
import type { OnlineSignal } from './platform';

/** An online signal set by hand (tests; apps with their own connectivity checks). */
export interface SwitchableOnline extends OnlineSignal {
  /** Goes online or offline, telling the subscribers when that is a change. */
  set(online: boolean): void;
}

/** An online signal set by hand, starting at `initial`. */
export function switchableOnline(initial = true): SwitchableOnline {
  let online = initial;
  const listeners = new Set<(online: boolean) => void>();
  return {
    isOnline: () => online,
    subscribe(onChange) {
      listeners.add(onChange);
      return () => listeners.delete(onChange);
    },
    set(next) {
      if (next === online) return;
      online = next;
      for (const listener of [...listeners]) listener(next);
    },
  };
}
