// The warning before signing out (or deleting a local-only device's data) would delete
// changes that never reached the server. Cancel is the default: losing work must be a
// deliberate choice.
import { useEffect, useId } from 'react';

import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';

export function unsyncedTitle(pending: number): string {
  return pending === 1
    ? "1 change hasn't synced yet"
    : `${pending.toLocaleString('en-US')} changes haven't synced yet`;
}

export function DiscardChangesDialog({
  open,
  pending,
  localOnly,
  online,
  busy,
  onCancel,
  onSyncNow,
  onConfirm,
}: {
  open: boolean;
  /** Changes on this device that the server does not have. */
  pending: number;
  /** No account: nothing can sync, the data only ever lived here. */
  localOnly: boolean;
  online: boolean;
  busy: boolean;
  onCancel: () => void;
  onSyncNow: () => void;
  onConfirm: () => void;
}) {
  const cancelId = useId();
  useEffect(() => {
    // After the dialog has opened (its own effect runs first), whatever the browser focused.
    if (open) document.getElementById(cancelId)?.focus();
  }, [open, cancelId]);
  const them = pending === 1 ? 'it' : 'them';
  const title =
    pending > 0 ? unsyncedTitle(pending) : localOnly ? 'Delete data on this device?' : 'Sign out?';
  return (
    <Dialog
      open={open}
      title={title}
      onClose={onCancel}
      actions={
        <>
          <Button id={cancelId} onClick={onCancel} disabled={busy}>
            Cancel
          </Button>
          {!localOnly && online && pending > 0 ? (
            <Button onClick={onSyncNow} disabled={busy}>
              Sync now
            </Button>
          ) : null}
          <Button variant="danger" onClick={onConfirm} disabled={busy}>
            {localOnly ? 'Delete anyway' : 'Sign out anyway'}
          </Button>
        </>
      }
    >
      {localOnly ? (
        <p>
          Without an account, your lists and tasks exist only on this device. Deleting removes them
          for good. To keep them, cancel and create an account: everything here is uploaded to it.
        </p>
      ) : (
        <>
          <p>
            Signing out deletes Outpost&apos;s data from this device, and {them}{' '}
            {pending === 1 ? 'has' : 'have'} not reached the server yet, so {them} would be lost.
          </p>
          <p>
            {online
              ? `To keep ${them}, choose Sync now and sign out once everything is synced.`
              : `To keep ${them}, cancel and sign out later while online, once everything is synced.`}
          </p>
        </>
      )}
    </Dialog>
  );
}
