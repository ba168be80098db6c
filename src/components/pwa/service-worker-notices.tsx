// The two service-worker notices: "Ready to work offline" (once) and "New version ready —
// Reload / Later". Polite live region: they never interrupt typing.
import { applyUpdate, useServiceWorkerState } from '@/lib/pwa/service-worker';

export function ServiceWorkerNotices() {
  const { offlineReady, updateReady, dismissOfflineReady, postponeUpdate } =
    useServiceWorkerState();
  if (!offlineReady && !updateReady) return null;
  return (
    <div className="sw-notice" role="status" aria-live="polite">
      {updateReady ? (
        <>
          <span>New version ready</span>
          <button type="button" onClick={() => void applyUpdate()}>
            Reload
          </button>
          <button type="button" onClick={postponeUpdate}>
            Later
          </button>
        </>
      ) : (
        <>
          <span>Ready to work offline</span>
          <button type="button" onClick={dismissOfflineReady}>
            OK
          </button>
        </>
      )}
    </div>
  );
}
