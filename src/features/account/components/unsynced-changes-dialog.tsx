// Asks before a sign-in (or sign-up) that would delete another account's unsynced changes
// from this device. Cancel is the default: losing work must be a deliberate choice.
import { useEffect, useId } from 'react';

import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';

import type { UnsyncedRisk } from '../hooks/use-unsynced-guard';

export function unsyncedTitle(pending: number): string {
  return pending === 1
    ? 'This device has 1 unsynced change'
    : `This device has ${pending.toLocaleString()} unsynced changes`;
}

export function UnsyncedChangesDialog({
  risk,
  email,
  confirmLabel,
  onCancel,
  onConfirm,
}: {
  risk: UnsyncedRisk | null;
  /** The account about to sign in. */
  email: string;
  confirmLabel: string;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  const cancelId = useId();
  const open = risk !== null;
  useEffect(() => {
    // After the dialog has opened (its effect runs first), whatever the browser focused.
    if (open) document.getElementById(cancelId)?.focus();
  }, [open, cancelId]);
  const owner = risk?.ownerEmail ? risk.ownerEmail : 'the account that was signed in here';
  const them = risk?.pending === 1 ? 'it' : 'them';
  return (
    <Dialog
      open={open}
      title={unsyncedTitle(risk?.pending ?? 0)}
      onClose={onCancel}
      actions={
        <>
          <Button id={cancelId} onClick={onCancel}>
            Cancel
          </Button>
          <Button variant="danger" onClick={onConfirm}>
            {confirmLabel}
          </Button>
        </>
      }
    >
      <p>
        Changes made as {owner} haven&apos;t reached the server yet. Continuing as {email} deletes{' '}
        {them} from this device for good.
      </p>
      <p>
        To keep {them}, cancel and sign in as {risk?.ownerEmail ?? 'that account'} while online, so{' '}
        {them} can sync first.
      </p>
    </Dialog>
  );
}
