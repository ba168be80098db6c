// A read that follows the device: the app's named queries run inside it and it answers again
// whenever a write (the app's own, a pull's, another tab's) touches what the read read. Dexie's
// liveQuery does the tracking; an app subscribes to what this returns, never to Dexie.
import { liveQuery } from 'dexie';

/** What `liveRead` returns: subscribe for each answer; unsubscribe to stop reading. */
export interface LiveRead<T> {
  subscribe(observer: { next: (value: T) => void; error?: (error: unknown) => void }): {
    unsubscribe(): void;
  };
}

/** Runs `read` now and again after every committed write that changes what it read. */
export function liveRead<T>(read: () => Promise<T>): LiveRead<T> {
  return liveQuery(read);
}
