// A toast when the server refuses changes while the app is open (product.md §4 "rejected":
// reverted, and the reason shown): one change is explained in the toast; changes refused
// together are one toast ("3 changes were refused and undone: you can't edit these any
// more — See why"), so a burst never pushes an Undo off the screen. The full log is in
// Settings › Rejected changes.
import { useLiveQuery } from 'dexie-react-hooks';
import { useEffect, useRef } from 'react';

import { useServices } from '@/lib/services';
import { showToast, useToasts, type ToastAction } from '@/lib/toasts';

/**
 * How long a rejection toast stays (ms; paused while hovered or focused): long enough to read
 * a sentence and act. It goes by itself: the full log stays in Settings › Rejected changes.
 */
export const REJECTION_TOAST_MS = 8_000;

/**
 * The grouped toast's text for refused changes with these codes: how many, and the reason
 * when they share one (a role taken away refuses every queued edit at once).
 */
export function refusedSummary(codes: readonly string[]): string {
  const many = codes.length !== 1;
  const head = `${codes.length} ${many ? 'changes were' : 'change was'} refused and undone`;
  const shared = codes.every((code) => code === codes[0]) ? codes[0] : undefined;
  switch (shared) {
    case 'PERMISSION_DENIED':
      return `${head}: you can't edit ${many ? 'these' : 'this'} any more.`;
    case 'NOT_FOUND':
      return `${head}: someone else deleted what ${many ? 'they' : 'it'} changed.`;
    case 'VALIDATION_FAILED':
      return `${head}: ${many ? 'they break' : 'it breaks'} the rules for ${many ? 'their' : 'its'} fields.`;
    default:
      return `${head}.`;
  }
}

/** A short name for the row a rejection is about, from what was sent or what is stored. */
export function rejectionLabel(data: Record<string, unknown>, row?: Record<string, unknown>) {
  for (const source of [data, row ?? {}]) {
    for (const key of ['title', 'name', 'file_name', 'body', 'display_name']) {
      const value = source[key];
      if (typeof value === 'string' && value.trim()) {
        const text = value.trim();
        return `“${text.length > 40 ? `${text.slice(0, 39)}…` : text}”`;
      }
    }
  }
  return undefined;
}

export function RejectionToasts() {
  const { sync } = useServices();
  // The newest logged id, 0 when the log is empty (undefined only while loading: an empty
  // log must not make the first rejection look like old news).
  const newest = useLiveQuery(() => sync.queries.newestRejection(), [sync]);
  const seen = useRef<number | null>(null);
  /** The rejection toast on screen and the codes of the changes it speaks for. */
  const current = useRef<{ toastId: number; codes: string[] } | null>(null);
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
    // The log lives in Settings: losing the toast loses nothing, so it never evicts an Undo.
    const details = (label: string): ToastAction => ({
      label,
      alsoElsewhere: true,
      to: '/settings#rejected',
    });
    queue.current = queue.current.then(async () => {
      // Oldest first: the order they were refused in.
      const fresh = (await sync.queries.rejections(from, newest)).reverse();
      if (fresh.length === 0) return;
      const shown = current.current;
      if (shown) {
        // Still on screen: it now counts these too, instead of a toast per change.
        const codes = [...shown.codes, ...fresh.map(({ rejection }) => rejection.code)];
        const updated = useToasts.getState().update(shown.toastId, {
          message: refusedSummary(codes),
          action: details('See why'),
        });
        if (updated) {
          current.current = { toastId: shown.toastId, codes };
          return;
        }
      }
      const codes = fresh.map(({ rejection }) => rejection.code);
      const only = fresh.length === 1 ? fresh[0] : undefined;
      // The rules' sentences load with the first lone rejection (not part of the app shell).
      const message = only
        ? (await import('@/lib/rejection-messages')).describeRejection(
            only.rejection,
            rejectionLabel(only.rejection.data, only.row),
          )
        : refusedSummary(codes);
      const toastId = showToast({
        tone: 'error',
        message,
        durationMs: REJECTION_TOAST_MS,
        action: details(only ? 'Details' : 'See why'),
      });
      current.current = { toastId, codes };
    });
    // A failed read must not stop the toasts of later bursts (the log still has them all).
    queue.current = queue.current.catch((error: unknown) =>
      console.error('[outpost] could not toast a rejection', error),
    );
  }, [newest, sync]);

  return null;
}
