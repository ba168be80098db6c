// The owner's "Invite people" panel on the members screen: pick a role, make a single-use
// link with the create-invite function (so only online), then copy or share it.
import { useId, useState } from 'react';

import { Button } from '@/components/ui/button';
import { FormError, SelectField, TextField } from '@/components/ui/field';
import { useOnline } from '@/hooks/use-online';
import type { ApiFailure, InviteRole } from '@/lib/api';
import { Link } from '@/lib/router';
import { useServices } from '@/lib/services';
import { useSession } from '@/lib/session';
import { showToast } from '@/lib/toasts';

const ROLE_HINTS: Readonly<Record<InviteRole, string>> = {
  editor: 'Editors can add, change and complete tasks, attach files and comment.',
  viewer: 'Viewers can see the list and comment, but not change tasks.',
};

export const NEEDS_CONNECTION = 'Creating an invite link needs a connection.';

/** What the owner reads when the link could not be made. */
function inviteFailureText(failure: ApiFailure): string {
  switch (failure.code) {
    case 'OFFLINE':
      return NEEDS_CONNECTION;
    case 'AUTH_EXPIRED':
      return 'Sign in again to create invite links.';
    case 'PERMISSION_DENIED':
      return 'Only an owner of this list can invite people.';
    case 'NOT_FOUND':
      return "This list hasn't reached the server yet. Try again once it has synced.";
    case 'RATE_LIMITED':
    case 'SERVER_ERROR':
    case 'TIMEOUT':
      return "The server couldn't make a link just now. Try again in a moment.";
    default:
      return "Couldn't create an invite link. Try again.";
  }
}

interface Invite {
  url: string;
  role: InviteRole;
  expiresAt: string;
}

export function InviteLinkPanel({ listId, full }: { listId: string; full: boolean }) {
  const { supabase } = useServices();
  const { mode } = useSession();
  const online = useOnline();
  const [role, setRole] = useState<InviteRole>('editor');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [invite, setInvite] = useState<Invite | null>(null);
  const reasonId = useId();
  const signedIn = mode === 'signed-in';
  const reason = !signedIn
    ? undefined
    : full
      ? 'This list has as many members as a list can have.'
      : !online
        ? NEEDS_CONNECTION
        : undefined;

  async function create() {
    setBusy(true);
    setError(undefined);
    // The call's code (and supabase-js's functions client) loads on the first "Create link".
    const { createInvite } = await import('@/lib/api');
    const result = await createInvite(supabase, listId, role);
    setBusy(false);
    if (!result.ok) {
      setError(inviteFailureText(result));
      return;
    }
    setInvite({ url: result.url, role, expiresAt: result.expiresAt });
  }

  async function copy(url: string) {
    try {
      await navigator.clipboard.writeText(url);
      showToast({ message: 'Link copied' });
    } catch {
      showToast({
        message: "Couldn't copy the link. Select it and copy it yourself.",
        tone: 'error',
      });
    }
  }

  async function share(url: string) {
    try {
      await navigator.share({ title: 'Join my list on Outpost', url });
    } catch {
      // Dismissing the share sheet rejects too; the link is still on screen to copy.
    }
  }

  const canShare = typeof navigator !== 'undefined' && typeof navigator.share === 'function';
  const expires = invite
    ? new Date(invite.expiresAt).toLocaleString(undefined, {
        dateStyle: 'medium',
        timeStyle: 'short',
      })
    : '';

  return (
    <section aria-labelledby="members-invite" className="members__section members__invite">
      <h2 id="members-invite" className="members__heading">
        Invite people
      </h2>
      {!signedIn ? (
        <p>
          Invite links need an account. <Link to="/sign-in">Sign in</Link> to invite people.
        </p>
      ) : (
        <>
          <SelectField
            label="Role for the invited person"
            value={role}
            hint={ROLE_HINTS[role]}
            onChange={(event) => setRole(event.target.value as InviteRole)}
          >
            <option value="editor">Editor</option>
            <option value="viewer">Viewer</option>
          </SelectField>
          <Button
            variant="primary"
            disabled={busy || reason !== undefined}
            aria-describedby={reason ? reasonId : undefined}
            onClick={() => void create()}
          >
            {busy ? 'Creating link…' : 'Create invite link'}
          </Button>
          {reason ? (
            <p id={reasonId} className="members__hint">
              {reason}
            </p>
          ) : null}
          <FormError message={error} />
          {invite ? (
            <div className="members__link">
              <TextField
                label={`Invite link (${invite.role === 'editor' ? 'editor' : 'viewer'})`}
                value={invite.url}
                readOnly
                onFocus={(event) => event.currentTarget.select()}
                hint={`Valid for 7 days, once: until ${expires}.`}
              />
              <div className="members__link-actions">
                <Button onClick={() => void copy(invite.url)}>Copy link</Button>
                {canShare ? <Button onClick={() => void share(invite.url)}>Share…</Button> : null}
              </div>
            </div>
          ) : null}
        </>
      )}
    </section>
  );
}
