// Settings › Install: always here (the install card comes and goes), saying how to install
// Outpost on this browser, or that it already is.
import { Button } from '@/components/ui/button';
import { useInstallPrompt } from '@/lib/pwa/install-prompt';

import { SettingsSection } from './settings-section';

export function InstallSection() {
  const { deferred, standalone, ios, install } = useInstallPrompt();
  let body;
  if (standalone) {
    body = <p>Outpost is installed on this device.</p>;
  } else if (deferred) {
    body = (
      <>
        <p>
          Installed, Outpost opens from your home screen or dock, starts instantly with no signal,
          and the browser is more likely to keep its data.
        </p>
        <div className="settings-actions">
          <Button variant="primary" onClick={() => void install()}>
            Install Outpost
          </Button>
        </div>
      </>
    );
  } else if (ios) {
    body = (
      <>
        <p>To install Outpost on this iPhone or iPad:</p>
        <ol className="settings-steps">
          <li>
            Tap <strong>Share</strong> <span aria-hidden="true">⎋</span> in Safari&apos;s toolbar.
          </li>
          <li>
            Choose <strong>Add to Home Screen</strong>.
          </li>
          <li>
            Tap <strong>Add</strong>, then open Outpost from your home screen.
          </li>
        </ol>
        <p className="settings-muted">
          Installed, Outpost keeps your data safe from Safari&apos;s clean-ups and opens with no
          signal.
        </p>
      </>
    );
  } else {
    body = <p>Use your browser&apos;s menu to install Outpost.</p>;
  }
  return (
    <SettingsSection id="install" title="Install">
      {body}
    </SettingsSection>
  );
}
