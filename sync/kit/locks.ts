// One Web Lock in memory, for tests of tabs and a service worker sharing a device database:
// the engine's lock as createSync's `leadership` (a tab) and as syncInBackground's `lock` (the
// worker) see it. Granted in the order asked, as navigator.locks grants an exclusive lock.
import type { BackgroundLock } from '../background';
import type { Leadership } from '../leadership';

export interface MemoryLock {
  /** For a device's `sync.leadership`: the tab leads while it holds the lock. */
  readonly leadership: Leadership;
  /** For syncInBackground's `lock`. */
  readonly background: BackgroundLock;
  /** Whether someone holds it now. */
  held(): boolean;
  /** How many wait for it. */
  waiting(): number;
}

interface Waiter {
  grant: () => void;
}

/** A lock nobody holds yet. */
export function memoryLock(): MemoryLock {
  let holder: object | null = null;
  const queue: Waiter[] = [];

  function release(owner: object): void {
    if (holder !== owner) return;
    holder = null;
    queue.shift()?.grant();
  }

  /** Asks for the lock: `onGranted` runs once it is this asker's; returns give-up. */
  function request(onGranted: (owner: object) => void): () => void {
    const owner = {};
    const waiter: Waiter = {
      grant: () => {
        holder = owner;
        onGranted(owner);
      },
    };
    if (holder === null && queue.length === 0) waiter.grant();
    else queue.push(waiter);
    return () => {
      const at = queue.indexOf(waiter);
      if (at >= 0) queue.splice(at, 1);
      release(owner);
    };
  }

  const background: BackgroundLock = async (work, waitMs, onBusy) => {
    if (holder !== null || queue.length > 0) onBusy();
    let giveUp = (): void => undefined;
    const owner = await new Promise<object | null>((resolve) => {
      // Granted at once (inside request) or later, before the wait is over.
      const wait: { timer?: ReturnType<typeof setTimeout>; granted?: boolean } = {};
      giveUp = request((held) => {
        wait.granted = true;
        clearTimeout(wait.timer);
        resolve(held);
      });
      if (wait.granted) return;
      wait.timer = setTimeout(() => {
        giveUp();
        resolve(null);
      }, waitMs);
    });
    if (!owner) return { ran: false };
    try {
      return { ran: true, value: await work() };
    } finally {
      giveUp();
    }
  };

  return {
    leadership: (onLeader) => request(() => onLeader()),
    background,
    held: () => holder !== null,
    waiting: () => queue.length,
  };
}
