// One list on the lists screen: name and colour, open/done counts, members, and whether
// its changes have reached the server yet. Editing and deleting follow the role (product.md §6).
// The whole card opens the list (the name's link stretches over it); the buttons sit above.
import { useState } from 'react';

import { Avatar } from '@/components/ui/avatar';
import { Button } from '@/components/ui/button';
import { ColorDot } from '@/components/ui/color-dot';
import { Dialog } from '@/components/ui/dialog';
import { useAvatarUrl } from '@/hooks/use-avatar-url';
import { useDeleteWithUndo } from '@/hooks/use-delete-with-undo';
import { Link } from '@/lib/router';
import type { SessionMode } from '@/lib/session';

import type { ListMemberSummary, ListOverview } from '../hooks/use-lists-overview';
import { EditListDialog } from './edit-list-dialog';

/** Avatars shown per list before "+N". */
const MAX_AVATARS = 4;

function MemberAvatar({ member }: { member: ListMemberSummary }) {
  const src = useAvatarUrl(member.avatarPath);
  return <Avatar id={member.userId} name={member.name} src={src} size={24} />;
}

function SyncBadge({ pending, mode }: { pending: number; mode: SessionMode }) {
  if (pending > 0) {
    return (
      <span className="badge badge--pending">
        {pending === 1 ? '1 change waiting' : `${pending} changes waiting`}
      </span>
    );
  }
  if (mode === 'local') return <span className="badge">On this device</span>;
  return <span className="badge lists-card__synced">Synced</span>;
}

export function ListCard({ list, mode }: { list: ListOverview; mode: SessionMode }) {
  const deleteWithUndo = useDeleteWithUndo();
  const [editing, setEditing] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const canEdit = list.myRole === 'owner' || list.myRole === 'editor';
  const canDelete = list.myRole === 'owner';
  const shown = list.members.slice(0, MAX_AVATARS);
  const more = list.members.length - shown.length;

  async function remove() {
    setConfirmDelete(false);
    await deleteWithUndo('lists', list.id, list.name);
  }

  return (
    <li className="lists-card card">
      <div className="lists-card__main">
        <ColorDot color={list.color} size={14} />
        <h2 className="lists-card__name">
          <Link to={`/lists/${list.id}`}>{list.name}</Link>
        </h2>
      </div>
      <p className="lists-card__counts">
        {list.open} open · {list.done} done
      </p>
      <div className="lists-card__footer">
        <span
          className="lists-card__members"
          role="img"
          aria-label={`Members: ${list.members.map((m) => m.name).join(', ')}`}
        >
          {shown.map((member) => (
            <MemberAvatar key={member.userId} member={member} />
          ))}
          {more > 0 ? <span className="lists-card__more">+{more}</span> : null}
        </span>
        <SyncBadge pending={list.pending} mode={mode} />
        {canEdit ? (
          <span className="lists-card__actions">
            <Button
              size="sm"
              variant="ghost"
              aria-label={`Edit ${list.name}`}
              onClick={() => setEditing(true)}
            >
              Edit
            </Button>
            {canDelete ? (
              <Button
                size="sm"
                variant="ghost"
                className="lists-card__delete"
                aria-label={`Delete ${list.name}`}
                onClick={() => setConfirmDelete(true)}
              >
                Delete
              </Button>
            ) : null}
          </span>
        ) : null}
      </div>
      {editing ? <EditListDialog list={list} onClose={() => setEditing(false)} /> : null}
      <Dialog
        open={confirmDelete}
        title={`Delete “${list.name}”?`}
        onClose={() => setConfirmDelete(false)}
        actions={
          <>
            <Button onClick={() => setConfirmDelete(false)}>Cancel</Button>
            <Button variant="danger" onClick={() => void remove()}>
              Delete list
            </Button>
          </>
        }
      >
        <p>
          Its {list.open + list.done} tasks, their comments and files are deleted for everyone on
          the list. You can undo for a few seconds.
        </p>
      </Dialog>
    </li>
  );
}
