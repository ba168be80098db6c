// Settings › Account: who is signed in and signing out, which wipes this device (the sync
// library refuses while changes are unsynced, and this asks first); for local-only use, the
// way to an account and to deleting the device's data; for an ended session, signing in.
// A signed-in person can change their password here (product.md §7). The command palette's
// "Sign out" comes here with `{ signOut: true }` as the navigation's state (never from a link's
// address) and takes the same steps as the button.
import { useLiveQuery } from 'dexie-react-hooks';
import { useEffect, useEffectEvent, useState } from 'react';

import { Button } from '@/components/ui/button';
import { FormError } from '@/components/ui/field';
import { useOnline } from '@/hooks/use-online';
import { forgetDeviceOwnerEmail } from '@/lib/auth';
import { Link, useLocation, useNavigate } from '@/lib/router';
import { useServices } from '@/lib/services';
import { announceSignOut, useSession } from '@/lib/session';

import { DiscardChangesDialog } from './discard-changes-dialog';
import { EmailForm } from './email-form';
import { PasswordForm } from './password-form';
import { SettingsSection } from './settings-section';

export function AccountSection() {
  const { sync } = useServices();
  const { mode, user, setLocalOnly } = useSession();
  const online = useOnline();
  const navigate = useNavigate();
  const [warning, setWarning] = useState<{ pending: number } | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [syncing, setSyncing] = useState(false);
  const livePending = useLiveQuery(() => sync.pendingCount(), [sync]);
  const localOnly = mode === 'local';

  async function signOut(force: boolean) {
    setBusy(true);
    setError(undefined);
    try {
      const result = await sync.signOut({ force });
      if (!result.signedOut) {
        setWarning({ pending: result.pending });
        setBusy(false);
        return;
      }
      setWarning(null);
      setLocalOnly(false);
      forgetDeviceOwnerEmail();
      // The other tabs leave too (local data deleted: nothing else tells them).
      announceSignOut();
      void navigate('/welcome', { replace: true });
    } catch (cause) {
      console.error('[outpost] sign-out failed', cause);
      setError(
        `Couldn't ${localOnly ? 'delete the data' : 'sign out'}: ${cause instanceof Error ? cause.message : String(cause)}`,
      );
      setBusy(false);
    }
  }

  // The palette's "Sign out": once per navigation (the state is dropped, so a reload or Back
  // does not sign out again).
  const location = useLocation();
  const wantsSignOut = (location.state as { signOut?: unknown } | null)?.signOut === true;
  const signOutAsked = useEffectEvent(() => {
    void Promise.resolve(
      navigate(`${location.pathname}${location.search}${location.hash}`, {
        replace: true,
        state: null,
      }),
    ).then(() => (localOnly ? undefined : signOut(false)));
  });
  useEffect(() => {
    if (wantsSignOut) signOutAsked();
  }, [wantsSignOut]);

  async function askToDelete() {
    setWarning({ pending: await sync.pendingCount() });
  }

  function syncNow() {
    sync.engine.requestSync();
    setWarning(null);
    setSyncing(true);
  }

  let body;
  if (localOnly) {
    body = (
      <>
        <p>
          You&apos;re using Outpost without an account. Create an account to sync across devices and
          share lists.
        </p>
        <div className="settings-actions">
          <Link className="btn btn--primary" to="/sign-up">
            Create an account
          </Link>
          <Button variant="danger" onClick={() => void askToDelete()} disabled={busy}>
            Delete data on this device
          </Button>
        </div>
      </>
    );
  } else {
    body = (
      <>
        {mode === 'expired' ? (
          <p>
            Your session on this device has ended. <Link to="/sign-in">Sign in again to sync</Link>.
          </p>
        ) : (
          <p>
            Signed in as <strong>{user?.email ?? 'your account'}</strong>.
          </p>
        )}
        <div className="settings-actions">
          <Button onClick={() => void signOut(false)} disabled={busy}>
            Sign out
          </Button>
        </div>
        {/* On the current session: an ended one has to sign in again first. */}
        {mode === 'signed-in' ? <PasswordForm email={user?.email ?? null} /> : null}
        {mode === 'signed-in' ? <EmailForm email={user?.email ?? null} /> : null}
        {syncing && (livePending ?? 0) > 0 ? (
          <p className="settings-muted" role="status">
            Syncing… Sign out again once every change has synced.
          </p>
        ) : null}
      </>
    );
  }

  return (
    <SettingsSection id="account" title="Account">
      {body}
      <FormError message={error} />
      <DiscardChangesDialog
        open={warning !== null}
        // Live while the dialog is open: a sync in the background may bring it down.
        pending={livePending ?? warning?.pending ?? 0}
        localOnly={localOnly}
        online={online}
        busy={busy}
        onCancel={() => setWarning(null)}
        onSyncNow={syncNow}
        onConfirm={() => void signOut(true)}
      />
    </SettingsSection>
  );
}
