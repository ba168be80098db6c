// The two service-worker notices. "Ready to work offline" is said once, as a toast at the
// bottom that goes away by itself; "New version ready — Reload / Later" stays (in the same
// bottom stack) until answered. Polite live regions: they never interrupt typing.
import { useEffect } from 'react';

import { applyUpdate, useServiceWorkerState } from '@/lib/pwa/service-worker';
import { showToast } from '@/lib/toasts';

/** How long "Ready to work offline" stays (ms): worth reading once, never in the way. */
export const OFFLINE_READY_TOAST_MS = 6_000;

export function ServiceWorkerNotices() {
  const { offlineReady, updateReady, dismissOfflineReady, postponeUpdate } =
    useServiceWorkerState();

  useEffect(() => {
    if (!offlineReady) return;
    showToast({ message: 'Ready to work offline', durationMs: OFFLINE_READY_TOAST_MS });
    dismissOfflineReady();
  }, [offlineReady, dismissOfflineReady]);

  if (!updateReady) return null;
  return (
    <div className="sw-notice" role="status" aria-live="polite">
      <span>New version ready</span>
      <button type="button" onClick={() => void applyUpdate()}>
        Reload
      </button>
      <button type="button" onClick={postponeUpdate}>
        Later
      </button>
    </div>
  );
}
