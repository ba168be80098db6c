// A toast for each change the server refuses while the app is open (SPEC §4 "rejected":
// reverted, and the reason shown). The full log is in Settings › Rejected changes.
import { useLiveQuery } from 'dexie-react-hooks';
import { useEffect, useRef } from 'react';
import { useNavigate } from 'react-router';

import { describeRejection } from '@/lib/error-messages';
import { useServices } from '@/lib/services';
import { showToast } from '@/lib/toasts';

/** How long a rejection toast stays (ms): long enough to read a sentence and act. */
const REJECTION_TOAST_MS = 10_000;

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
  const navigate = useNavigate();
  // The newest logged id, 0 when the log is empty (undefined only while loading: an empty
  // log must not make the first rejection look like old news).
  const newest = useLiveQuery(
    async () => (await sync.db._rejections.orderBy('id').last())?.id ?? 0,
    [sync],
  );
  const seen = useRef<number | null>(null);

  useEffect(() => {
    if (newest === undefined) return;
    if (seen.current === null) {
      seen.current = newest; // what was logged before this session is not news
      return;
    }
    if (newest <= seen.current) return;
    const from = seen.current;
    seen.current = newest;
    void sync.db._rejections
      .where('id')
      .above(from)
      .toArray()
      .then(async (fresh) => {
        for (const rejection of fresh) {
          const row = await sync.db.rows(rejection.table).get(rejection.rowId);
          showToast({
            tone: 'error',
            message: describeRejection(rejection, rejectionLabel(rejection.data, row)),
            durationMs: REJECTION_TOAST_MS,
            action: { label: 'Details', run: () => void navigate('/settings#rejected') },
          });
        }
      });
  }, [newest, sync, navigate]);

  return null;
}
