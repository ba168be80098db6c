// The toasts of refused changes, which rejection-toasts.tsx watches for: one change explained
// in its toast, changes refused together in one toast. Loaded with the first refusal, not with
// the app shell.
import type { OutpostSync } from '@/data/sync';
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

/** The rejection toast on screen and the codes of the changes it speaks for. */
export interface ShownRejections {
  toastId: number;
  codes: string[];
}

/** The log lives in Settings: losing the toast loses nothing, so it never evicts an Undo. */
const details = (label: string): ToastAction => ({
  label,
  alsoElsewhere: true,
  to: '/settings#rejected',
});

/**
 * Toasts the rejections logged after `from` up to `newest`: added to the toast still on
 * screen (`shown`) when there is one, else a new toast. Returns the toast that speaks for them.
 */
export async function toastRejections(
  sync: OutpostSync,
  from: number,
  newest: number,
  shown: ShownRejections | null,
): Promise<ShownRejections | null> {
  // Oldest first: the order they were refused in.
  const fresh = (await sync.queries.rejections(from, newest)).reverse();
  if (fresh.length === 0) return shown;
  if (shown) {
    // Still on screen: it now counts these too, instead of a toast per change.
    const codes = [...shown.codes, ...fresh.map(({ rejection }) => rejection.code)];
    const updated = useToasts.getState().update(shown.toastId, {
      message: refusedSummary(codes),
      action: details('See why'),
    });
    if (updated) return { toastId: shown.toastId, codes };
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
  return { toastId, codes };
}
