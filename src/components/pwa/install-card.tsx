// "Install Outpost": offered once the user has created something (not on first sight),
// through Chromium's captured prompt or, on iOS, as Share → Add to Home Screen steps. Hidden
// when already installed, once dismissed, and while an update prompt is showing.
import { Button } from '@/components/ui/button';
import { useInstallPrompt } from '@/lib/pwa/install-prompt';
import { useServiceWorkerState } from '@/lib/pwa/service-worker';

export function InstallCard() {
  const { deferred, standalone, ios, dismissed, createdSomething, install, dismiss } =
    useInstallPrompt();
  const updateReady = useServiceWorkerState((state) => state.updateReady);
  if (standalone || dismissed || !createdSomething || updateReady) return null;
  if (!deferred && !ios) return null;
  return (
    <aside className="install-card" aria-labelledby="install-card-title">
      <h2 id="install-card-title" className="install-card__title">
        Install Outpost
      </h2>
      {deferred ? (
        <p>Open it from your home screen and it starts instantly, even with no signal.</p>
      ) : (
        <p>
          Tap <strong>Share</strong> <span aria-hidden="true">⎋</span>, then{' '}
          <strong>Add to Home Screen</strong>. Installed, Outpost keeps your data safe from
          Safari&apos;s clean-ups and opens with no signal.
        </p>
      )}
      <div className="install-card__actions">
        {deferred ? (
          <Button variant="primary" onClick={() => void install()}>
            Install
          </Button>
        ) : null}
        <Button variant="ghost" onClick={dismiss}>
          Not now
        </Button>
      </div>
    </aside>
  );
}
