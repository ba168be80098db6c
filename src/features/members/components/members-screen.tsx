// /lists/:listId/members — who is on a list and what they may do (product.md §2, §6). Everyone
// sees the members and can leave; owners also change roles, remove people and make invite
// links. Roles are written through the repositories (RLS decides again on the server);
// invite links need the create-invite function, so a connection.
import { useId, useState } from 'react';

import { MEMBERS_PER_LIST_MAX, type Role } from '@/data/schema';
import { Avatar } from '@/components/ui/avatar';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { FormError, SelectField } from '@/components/ui/field';
import { useAvatarUrl } from '@/hooks/use-avatar-url';
import { useList } from '@/hooks/use-list';
import { useFirstSyncDone } from '@/hooks/use-first-sync';
import { useListAccess } from '@/hooks/use-list-access';
import { useMembers, type Member } from '@/hooks/use-members';
import { usePendingRows } from '@/hooks/use-pending-rows';
import { Link, useNavigate, useParams } from '@/lib/router';
import { useServices } from '@/lib/services';
import { useSession } from '@/lib/session';
import { showToast } from '@/lib/toasts';
import { attempt } from '@/data/writes';
import { InviteLinkPanel } from './invite-link-panel';
import { NotificationOffer } from './notification-offer';

import '../members.css';

/** From this many members on, the screen mentions the limit of product.md §9. */
const MEMBERS_NOTE_FROM = MEMBERS_PER_LIST_MAX - 5;

export const ROLE_LABELS: Readonly<Record<Role, string>> = {
  owner: 'Owner',
  editor: 'Editor',
  viewer: 'Viewer',
};

function MemberRow({
  member,
  isMe,
  canManage,
  pending,
  onRemove,
}: {
  member: Member;
  isMe: boolean;
  canManage: boolean;
  pending: boolean;
  onRemove: (member: Member) => void;
}) {
  const { sync } = useServices();
  const avatarUrl = useAvatarUrl(member.avatarPath);
  const [error, setError] = useState<string | undefined>();
  // A stand-in (list made offline, not yet on the server) has nothing to change yet.
  const editable = canManage && !member.standIn;

  async function changeRole(role: Role) {
    setError(undefined);
    const result = await attempt(() => sync.repos.memberships.changeRole(member.id, role));
    if (!result.ok) setError(result.errors.role ?? result.errors._ ?? 'Could not change the role.');
  }

  return (
    <li className="members__row">
      <Avatar id={member.userId} name={member.name} src={avatarUrl} size={36} decorative />
      <div className="members__who">
        <span className="members__name">
          {member.name}
          {/* Without a profile here yet, the name already is "You". */}
          {isMe && member.named ? <span className="members__you"> (you)</span> : null}
        </span>
        {pending ? <span className="badge badge--pending">Not synced yet</span> : null}
      </div>
      <div className="members__controls">
        {editable ? (
          <SelectField
            label={`Role of ${member.name}`}
            hideLabel
            value={member.role}
            error={error}
            onChange={(event) => void changeRole(event.target.value as Role)}
          >
            {(Object.keys(ROLE_LABELS) as Role[]).map((role) => (
              <option key={role} value={role}>
                {ROLE_LABELS[role]}
              </option>
            ))}
          </SelectField>
        ) : (
          <span className="members__role">{ROLE_LABELS[member.role]}</span>
        )}
        {editable && !isMe ? (
          <Button
            variant="ghost"
            size="sm"
            className="members__remove"
            onClick={() => onRemove(member)}
          >
            Remove <span className="visually-hidden">{member.name}</span>
          </Button>
        ) : null}
      </div>
    </li>
  );
}

export function MembersScreen() {
  const { listId = '' } = useParams();
  const { sync } = useServices();
  const session = useSession();
  const navigate = useNavigate();
  const list = useList(listId);
  const members = useMembers(listId);
  const access = useListAccess(listId);
  const pendingRows = usePendingRows(listId);
  const [removing, setRemoving] = useState<Member | null>(null);
  const [removeError, setRemoveError] = useState<string | undefined>();
  const [leaveOpen, setLeaveOpen] = useState(false);
  const [leaveError, setLeaveError] = useState<string | undefined>();
  const leaveErrorId = useId();
  const leaveBlockedId = useId();
  const firstSyncDone = useFirstSyncDone();

  // Not here yet on a device whose first sync is still running: it may be on its way.
  if (list === undefined || (list === null && !firstSyncDone)) {
    // A few ms while the device database answers. Same shape as below, so the heading the
    // layout focuses after navigation stays the same element when the list arrives.
    return (
      <section className="screen members">
        <p className="members__back" />
        <h1>Members</h1>
      </section>
    );
  }
  if (list === null) {
    return (
      <section className="screen screen--narrow members">
        <h1>This list isn't here</h1>
        <p>It may have been deleted, or you are no longer a member of it.</p>
        <p>
          <Link to="/lists" className="btn btn--primary">
            Go to your lists
          </Link>
        </p>
      </section>
    );
  }

  const live = members ?? [];
  const owners = live.filter((member) => member.role === 'owner');
  const me = live.find((member) => member.userId === session.userId);
  const lastOwner = me?.role === 'owner' && owners.length <= 1;

  async function confirmRemove() {
    if (!removing) return;
    const result = await attempt(() => sync.repos.memberships.remove(removing.id));
    if (!result.ok) {
      setRemoveError(result.errors._ ?? result.errors.role ?? 'Could not remove this member.');
      return;
    }
    showToast({ message: `${removing.name} was removed from the list.` });
    setRemoving(null);
  }

  function startLeave() {
    setLeaveError(undefined);
    setLeaveOpen(true);
  }

  async function confirmLeave() {
    if (!list) return;
    const name = list.name;
    const result = await attempt(() => sync.repos.memberships.leave(listId));
    setLeaveOpen(false);
    if (!result.ok) {
      setLeaveError(result.errors._ ?? 'Could not leave the list.');
      return;
    }
    showToast({ message: `You left “${name}”.` });
    void navigate('/lists', { replace: true });
  }

  return (
    <section className="screen members">
      <p className="members__back">
        <Link to={`/lists/${listId}`} className="back-link">
          <span aria-hidden="true">←</span> Back to {list.name}
        </Link>
      </p>
      <h1>Members of {list.name}</h1>

      <section aria-labelledby="members-people" className="members__section">
        <h2 id="members-people" className="members__heading">
          People <span className="members__count">({live.length})</span>
        </h2>
        <ul className="members__list">
          {live.map((member) => (
            <MemberRow
              key={member.id}
              member={member}
              isMe={member.userId === session.userId}
              canManage={access.canManage}
              pending={pendingRows.has(member.id)}
              onRemove={(target) => {
                setRemoveError(undefined);
                setRemoving(target);
              }}
            />
          ))}
        </ul>
        {live.length >= MEMBERS_NOTE_FROM ? (
          <p className="members__note">
            {live.length} of {MEMBERS_PER_LIST_MAX} members: a list can have at most{' '}
            {MEMBERS_PER_LIST_MAX}.
          </p>
        ) : null}
        {/* Shared with someone: tasks may be assigned to this person from now on. */}
        {session.mode === 'signed-in' && live.length > 1 ? <NotificationOffer /> : null}
      </section>

      {access.canManage ? (
        <InviteLinkPanel listId={listId} full={live.length >= MEMBERS_PER_LIST_MAX} />
      ) : null}

      <section aria-labelledby="members-leave" className="members__section">
        <h2 id="members-leave" className="members__heading">
          Leave this list
        </h2>
        {/* The last owner can't leave (product.md §6): said before they try, not after. */}
        {lastOwner ? (
          <p id={leaveBlockedId} className="members__hint">
            A list needs an owner. Make someone else an owner before you leave, or delete the list.
          </p>
        ) : (
          <p className="members__hint">
            The list and its tasks are removed from your devices. You need a new invite to come
            back.
          </p>
        )}
        <div className="members__leave">
          <Button
            variant="danger-outline"
            disabled={lastOwner}
            onClick={startLeave}
            aria-describedby={lastOwner ? leaveBlockedId : leaveError ? leaveErrorId : undefined}
          >
            Leave list
          </Button>
          {leaveError ? (
            <p id={leaveErrorId} className="form-error" role="alert">
              {leaveError}
            </p>
          ) : null}
        </div>
      </section>

      <Dialog
        open={removing !== null}
        title={removing ? `Remove ${removing.name}?` : 'Remove member?'}
        onClose={() => setRemoving(null)}
        actions={
          <>
            <Button onClick={() => setRemoving(null)}>Cancel</Button>
            <Button variant="danger" onClick={() => void confirmRemove()}>
              Remove
            </Button>
          </>
        }
      >
        <p>
          {removing?.name ?? 'They'} will lose access to “{list.name}” on all their devices. You can
          invite them again later.
        </p>
        <FormError message={removeError} />
      </Dialog>

      <Dialog
        open={leaveOpen}
        title={`Leave “${list.name}”?`}
        onClose={() => setLeaveOpen(false)}
        actions={
          <>
            <Button onClick={() => setLeaveOpen(false)}>Cancel</Button>
            <Button variant="danger" onClick={() => void confirmLeave()}>
              Leave list
            </Button>
          </>
        }
      >
        <p>
          The list and its tasks will be removed from this device. To join again you need a new
          invite from an owner.
        </p>
      </Dialog>
    </section>
  );
}
