// The task detail's comments: the conversation from the device database (readable and
// writable offline), a composer for every member, and edit/delete for a comment's author
// and for the list's owner (SPEC §6). Non-members get nothing to write with.
import { useEffect, useRef, useState } from 'react';

import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { EmptyState } from '@/components/ui/empty-state';
import { FormError } from '@/components/ui/field';
import { useListAccess } from '@/hooks/use-list-access';
import { useNow } from '@/hooks/use-now';
import { usePendingRows } from '@/hooks/use-pending-rows';
import { displayName, useProfiles } from '@/hooks/use-profiles';
import { useServices } from '@/lib/services';
import { useSession } from '@/lib/session';
import { attempt } from '@/lib/writes';

import '../comments.css';
import { useTaskComments, type Comment } from '../hooks/use-task-comments';
import { CommentComposer } from './comment-composer';
import { CommentItem } from './comment-item';

export function CommentsPanel({ taskId, listId }: { taskId: string; listId: string }) {
  const { sync } = useServices();
  const { userId } = useSession();
  const comments = useTaskComments(taskId);
  const profiles = useProfiles();
  const pending = usePendingRows(listId);
  const access = useListAccess(listId);
  const now = useNow();
  const heading = useRef<HTMLHeadingElement>(null);
  const [deleting, setDeleting] = useState<Comment | null>(null);
  const [deleteError, setDeleteError] = useState<string | undefined>();
  const [deletedCount, setDeletedCount] = useState(0);

  // The deleted comment's buttons are gone: put focus on the section's heading rather than
  // losing it to the page. Runs after the dialog has handed focus back.
  useEffect(() => {
    if (deletedCount > 0) heading.current?.focus();
  }, [deletedCount]);

  const canModify = (comment: Comment) =>
    access.canComment && (comment.authorId === userId || access.role === 'owner');

  async function confirmDelete() {
    if (!deleting) return;
    const result = await attempt(() => sync.repos.comments.delete(deleting.id));
    if (!result.ok) {
      setDeleteError(result.errors._ ?? Object.values(result.errors)[0]);
      return;
    }
    setDeleting(null);
    setDeletedCount((n) => n + 1);
  }

  function closeDelete() {
    setDeleting(null);
    setDeleteError(undefined);
  }

  const headingId = `comments-${taskId}`;
  return (
    <section className="comments" aria-labelledby={headingId}>
      <h2 id={headingId} ref={heading} tabIndex={-1} className="comments__title">
        Comments
        {comments && comments.length > 0 ? (
          <>
            {' '}
            {/* Read as "Comments (2)"; shown as a badge. */}
            <span className="comments__count">
              <span className="visually-hidden">(</span>
              {comments.length}
              <span className="visually-hidden">)</span>
            </span>
          </>
        ) : null}
      </h2>

      {comments === undefined ? null : comments.length === 0 ? (
        <EmptyState title="No comments yet">
          {access.canComment ? <p>Notes for the team about this task go here.</p> : null}
        </EmptyState>
      ) : (
        <ol className="comments__list">
          {comments.map((comment) => {
            const mine = comment.authorId === userId;
            const profile = profiles.get(comment.authorId);
            const name = mine ? 'You' : displayName(profiles, comment.authorId);
            return (
              <CommentItem
                key={comment.id}
                comment={comment}
                authorName={name}
                avatarName={profile?.display_name || name}
                avatarPath={profile?.avatar_path ?? null}
                pending={pending.has(comment.id)}
                canModify={canModify(comment)}
                now={now}
                onDelete={(chosen) => {
                  setDeleteError(undefined);
                  setDeleting(chosen);
                }}
              />
            );
          })}
        </ol>
      )}

      {access.canComment ? <CommentComposer taskId={taskId} /> : null}

      <Dialog
        open={deleting !== null}
        title="Delete this comment?"
        onClose={closeDelete}
        actions={
          <>
            <Button onClick={closeDelete}>Cancel</Button>
            <Button variant="danger" onClick={() => void confirmDelete()}>
              Delete
            </Button>
          </>
        }
      >
        {deleting ? <blockquote className="comments__quote">{deleting.body}</blockquote> : null}
        <p>It will be deleted for everyone on the list.</p>
        <FormError message={deleteError} />
      </Dialog>
    </section>
  );
}
