// Settings › Sync with the app closed (issue 38): what this browser does for Outpost while it
// is closed, in plain words (edits sent, lists refreshed, or why not), what the service
// worker's last background sync did, and the switch for notifications of tasks assigned to
// the person, asked of the browser from the click.
import { useEffect, useId, useState, type ChangeEvent } from 'react';

import { useNow } from '@/hooks/use-now';
import type { BackgroundRun } from '@/lib/pwa/background-state';
import {
  backgroundSyncSupported,
  periodicSyncState,
  type PeriodicSyncState,
} from '@/lib/pwa/background-support';
import { useInstallPrompt } from '@/lib/pwa/install-prompt';
import {
  loadBackgroundState,
  useNotificationChoice,
  type NotificationState,
} from '@/lib/pwa/notification-choice';
import { Link } from '@/lib/router';
import { useSession } from '@/lib/session';
import { relativeTime } from '@/utils/format';

import { SettingsSection } from './settings-section';

/** Why the worker ran, after "Last background sync … ". */
const TRIGGER_WORDS: Readonly<Record<BackgroundRun['trigger'], string>> = {
  sync: 'to send edits made offline',
  periodic: 'to refresh your lists',
};

/** What it did, as a sentence. */
const OUTCOME_WORDS: Readonly<Record<BackgroundRun['outcome'], string>> = {
  synced: 'Everything was sent and your lists are up to date.',
  'tab-leads': 'An open Outpost tab was already syncing, so it was left to that tab.',
  'signed-out': 'Nobody was signed in on this device, so nothing was sent.',
  failed: "The server couldn't be reached; the browser will try again later.",
};

/** The switch's status line, for each state (the live region says it after a change). */
function notificationSentence(state: NotificationState, asked: boolean, ios: boolean): string {
  switch (state) {
    case 'on':
      return "Notifications are on: you'll get one when a task is assigned to you.";
    case 'denied':
      return (
        'Notifications are blocked for Outpost in this browser. To allow them, open the ' +
        "site's settings (the icon at the left of the address bar), set Notifications to " +
        'Allow, then turn this on.'
      );
    case 'unsupported':
      return ios
        ? 'On iPhone and iPad, notifications work once Outpost is installed on the home screen.'
        : "This browser can't show notifications from Outpost.";
    case 'off':
      return asked
        ? "The browser didn't allow notifications. Turn this on again to be asked again."
        : 'Notifications are off.';
  }
}

function EditsSentence() {
  return backgroundSyncSupported() ? (
    <p>Edits you make offline are sent once there is a connection, even if Outpost is closed.</p>
  ) : (
    <p>
      This browser can&apos;t sync with Outpost closed: edits you make offline are sent when Outpost
      is next opened with a connection. Safari and Firefox work this way.
    </p>
  );
}

function RefreshSentence({ periodic }: { periodic: PeriodicSyncState | undefined }) {
  const { standalone } = useInstallPrompt();
  if (periodic === undefined) return <p className="settings-muted">Checking this browser…</p>;
  if (periodic === 'granted') {
    return (
      <p>
        Your lists are refreshed in the background about twice a day, so they are up to date when
        you open Outpost.
      </p>
    );
  }
  if (periodic === 'unsupported') {
    return (
      <p>
        This browser doesn&apos;t refresh lists in the background: they are refreshed when you open
        Outpost.
      </p>
    );
  }
  return standalone ? (
    <p>
      The browser hasn&apos;t allowed background refreshes yet: it allows them for installed apps it
      sees you use often.
    </p>
  ) : (
    <p>
      Lists aren&apos;t refreshed in the background yet:{' '}
      <Link to="/settings#install">install Outpost</Link> and the browser can refresh them while it
      is closed.
    </p>
  );
}

function LastRunSentence({ run }: { run: BackgroundRun | null | undefined }) {
  const now = useNow();
  if (run === undefined) return null;
  if (run === null) {
    return (
      <p className="settings-muted">
        Outpost hasn&apos;t synced in the background on this device yet.
      </p>
    );
  }
  return (
    <p className="settings-background__run" data-outcome={run.outcome}>
      Last background sync {relativeTime(run.at, now)}, {TRIGGER_WORDS[run.trigger]}.{' '}
      {OUTCOME_WORDS[run.outcome]}
    </p>
  );
}

function NotificationsSwitch() {
  const { ios } = useInstallPrompt();
  const choice = useNotificationChoice();
  /** Whether the browser was asked in this visit: a "no" then is said as such. */
  const [asked, setAsked] = useState(false);
  const switchId = useId();
  const hintId = useId();
  const statusId = useId();

  function toggle(event: ChangeEvent<HTMLInputElement>) {
    const on = event.target.checked;
    setAsked(on);
    // Straight from the click: the browser only asks during a user gesture.
    void (on ? choice.turnOn() : choice.turnOff());
  }

  const { state } = choice;
  return (
    <>
      <div className="settings-switch">
        <input
          id={switchId}
          type="checkbox"
          role="switch"
          className="settings-switch__input"
          checked={state === 'on'}
          disabled={state === undefined || state === 'unsupported' || choice.busy}
          aria-describedby={`${hintId} ${statusId}`}
          onChange={toggle}
        />
        <label htmlFor={switchId} className="settings-switch__label">
          Notifications
        </label>
      </div>
      <p id={hintId} className="settings-muted">
        A notification when a task is assigned to you, even with Outpost closed.
      </p>
      <p id={statusId} role="status" className="settings-background__notifications">
        {state === undefined ? '' : notificationSentence(state, asked, ios)}
      </p>
    </>
  );
}

export function BackgroundSection() {
  const { mode } = useSession();
  const [periodic, setPeriodic] = useState<PeriodicSyncState>();
  /** undefined while read; null: the worker never synced in the background here. */
  const [run, setRun] = useState<BackgroundRun | null>();

  useEffect(() => {
    let mounted = true;
    void periodicSyncState().then((next) => {
      if (mounted) setPeriodic(next);
    });
    void loadBackgroundState()
      .then((stored) => stored.lastBackgroundRun())
      .then(
        (next) => {
          if (mounted) setRun(next ?? null);
        },
        () => {
          if (mounted) setRun(null);
        },
      );
    return () => {
      mounted = false;
    };
  }, []);

  return (
    <SettingsSection id="background" title="Sync with the app closed">
      {mode === 'local' ? (
        <p>Without an account your data stays on this device: there is nothing to sync.</p>
      ) : (
        <>
          <EditsSentence />
          <RefreshSentence periodic={periodic} />
          <LastRunSentence run={run} />
          <NotificationsSwitch />
        </>
      )}
    </SettingsSection>
  );
}
