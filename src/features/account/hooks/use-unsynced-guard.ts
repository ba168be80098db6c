// Signing in as a different account than the one this device's data belongs to makes the
// sync engine wipe the store (engine.adopt), queued changes included. This finds out, before
// signing in, how many unsynced changes that would destroy, so the screen can ask first.
import { useCallback } from 'react';

import { LOCAL_USER_ID } from '@sync/index';
import { deviceOwnerEmail } from '@/lib/auth';
import { useServices } from '@/lib/services';
import { useSession } from '@/lib/session';

export interface UnsyncedRisk {
  /** Changes that would be deleted from this device. */
  pending: number;
  /** The account they belong to, when known. */
  ownerEmail: string | null;
}

/** Resolves to the changes at risk if `email` signs in here, or null when nothing is lost. */
export function useUnsyncedGuard(): (email: string) => Promise<UnsyncedRisk | null> {
  const { sync } = useServices();
  const { user } = useSession();
  return useCallback(
    async (email: string) => {
      const owner = await sync.queries.deviceOwner();
      // Local-only rows are claimed by whoever signs in: nothing is lost.
      if (!owner || owner === LOCAL_USER_ID) return null;
      const pending = await sync.pendingCount();
      if (pending === 0) return null;
      // The session's own email counts too (a device signed in before we kept the owner's).
      const ownerEmail = deviceOwnerEmail() ?? (user?.id === owner ? user.email : null);
      if (ownerEmail && ownerEmail.toLowerCase() === email.trim().toLowerCase()) return null;
      return { pending, ownerEmail };
    },
    [sync, user],
  );
}
