// Settings › About: which build this is (for bug reports) and the sync contract it speaks.
import { OUTPOST_SCHEMA_VERSION } from '@/data/tables';

import { SettingsSection } from './settings-section';

function buildTimeText(iso: string): string {
  const date = new Date(iso);
  // Short date and time: one line beside its label even on a 320 px phone.
  return Number.isNaN(date.getTime())
    ? iso
    : date.toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' });
}

export function AboutSection() {
  return (
    <SettingsSection id="about" title="About">
      <dl className="settings-facts">
        <div>
          <dt>Version</dt>
          <dd>{__APP_VERSION__}</dd>
        </div>
        {__BUILD_TIME__ ? (
          <div>
            <dt>Built</dt>
            <dd>
              <time dateTime={__BUILD_TIME__}>{buildTimeText(__BUILD_TIME__)}</time>
            </dd>
          </div>
        ) : null}
        <div>
          <dt>Sync protocol</dt>
          <dd>{OUTPOST_SCHEMA_VERSION}</dd>
        </div>
      </dl>
      <p className="settings-muted keyboard-only">
        Press <kbd>?</kbd> for keyboard shortcuts.
      </p>
    </SettingsSection>
  );
}
