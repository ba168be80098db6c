// A toast when the server refuses changes while the app is open (product.md §4 "rejected":
// reverted, and the reason shown): one change is explained in the toast; changes refused
// together are one toast ("3 changes were refused and undone: you can't edit these any
// more — See why"), so a burst never pushes an Undo off the screen. The full log is in
// Settings › Rejected changes. Only the watch is in the app shell; the toasting
// (rejection-toasting.ts) loads with the first refusal.
import { useLiveQuery } from 'dexie-react-hooks';
import { useEffect, useRef } from 'react';

import { useServices } from '@/lib/services';

import type { ShownRejections } from './rejection-toasting';

export function RejectionToasts() {
  const { sync } = useServices();
  // The newest logged id, 0 when the log is empty (undefined only while loading: an empty
  // log must not make the first rejection look like old news).
  const newest = useLiveQuery(() => sync.queries.newestRejection(), [sync]);
  const seen = useRef<number | null>(null);
  /** The rejection toast on screen and the codes of the changes it speaks for. */
  const current = useRef<ShownRejections | null>(null);
  /** Bursts are toasted one after another, in the order they were logged. */
  const queue = useRef<Promise<void>>(Promise.resolve());

  useEffect(() => {
    if (newest === undefined) return;
    if (seen.current === null) {
      seen.current = newest; // what was logged before this session is not news
      return;
    }
    if (newest <= seen.current) return;
    const from = seen.current;
    seen.current = newest;
    queue.current = queue.current.then(async () => {
      const { toastRejections } = await import('./rejection-toasting');
      current.current = await toastRejections(sync, from, newest, current.current);
    });
    // A failed read must not stop the toasts of later bursts (the log still has them all).
    queue.current = queue.current.catch((error: unknown) =>
      console.error('[outpost] could not toast a rejection', error),
    );
  }, [newest, sync]);

  return null;
}
