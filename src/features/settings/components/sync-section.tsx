// Settings › Sync: the connection state in a sentence (the header's badge, spelled out), how
// many changes wait on this device, "Sync now", and the last error the engine met.
import { useLiveQuery } from 'dexie-react-hooks';
import type { ReactNode } from 'react';

import { Button } from '@/components/ui/button';
import { useNow } from '@/hooks/use-now';
import { useOnline } from '@/hooks/use-online';
import { useSyncStatus } from '@/hooks/use-sync-status';
import { errorMessage } from '@/lib/error-messages';
import { Link } from '@/lib/router';
import { useServices } from '@/lib/services';
import { useSession } from '@/lib/session';
import { relativeTime } from '@/utils/format';

import { SettingsSection } from './settings-section';

function pendingSentence(pending: number): string {
  if (pending === 0) return 'Every change on this device has been saved.';
  return pending === 1
    ? '1 change is waiting to sync.'
    : `${pending.toLocaleString()} changes are waiting to sync.`;
}

export function SyncSection() {
  const { sync } = useServices();
  const status = useSyncStatus();
  const online = useOnline();
  const { mode } = useSession();
  const now = useNow();
  // From the outbox itself: the engine's count is only kept while it runs.
  const pending = useLiveQuery(() => sync.pendingCount(), [sync]) ?? status.pending;

  const local = mode === 'local';
  let state: string;
  let sentence: ReactNode;
  if (local) {
    state = 'local';
    sentence = (
      <>
        Your data is on this device only. <Link to="/sign-up">Create an account</Link> to sync it
        across your devices and share lists.
      </>
    );
  } else if (status.lastError?.code === 'APP_OUTDATED') {
    state = 'outdated';
    sentence = 'A newer version of Outpost is needed to sync. Reload to update.';
  } else if (!online || status.phase === 'offline') {
    state = 'offline';
    sentence = errorMessage('OFFLINE') + '. They sync when you are back online.';
  } else if (status.phase === 'starting') {
    state = 'starting';
    sentence = 'Starting sync…';
  } else if (mode === 'expired' || status.phase === 'signed-out') {
    state = 'sign-in';
    sentence = (
      <>
        Your session has ended. <Link to="/sign-in">Sign in again to sync</Link>; your changes keep
        waiting on this device until then.
      </>
    );
  } else if (status.phase === 'backing-off') {
    state = 'retrying';
    sentence = `Sync paused, retrying: ${errorMessage(status.lastError?.code)}`;
  } else if (status.phase === 'syncing') {
    state = 'syncing';
    sentence = 'Syncing…';
  } else {
    state = 'synced';
    sentence = status.lastSyncedAt
      ? `Synced ${relativeTime(status.lastSyncedAt, now)}.`
      : 'Synced.';
  }

  const error = status.lastError;
  return (
    <SettingsSection id="sync" title="Sync">
      <p className="settings-sync__state" data-state={state}>
        {sentence}
      </p>
      {local ? (
        pending > 0 ? (
          <p>
            {pending === 1 ? '1 change' : `${pending.toLocaleString()} changes`} will upload when
            you create an account.
          </p>
        ) : null
      ) : (
        <>
          <p>{pendingSentence(pending)}</p>
          {error && state !== 'offline' ? (
            <p className="settings-muted">
              Last problem: {errorMessage(error.code)} <code>{error.code}</code>
            </p>
          ) : null}
          <div className="settings-actions">
            <Button onClick={() => sync.engine.requestSync()} disabled={!online}>
              Sync now
            </Button>
            {!online ? <span className="settings-muted">Syncing needs a connection.</span> : null}
          </div>
        </>
      )}
    </SettingsSection>
  );
}
