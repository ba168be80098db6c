// The task detail's comments: the conversation from the device database (readable and
// writable offline), a composer for every member, and edit/delete for a comment's author
// and for the list's owner (product.md §6). A delete is undone from its toast (product.md §4), as for
// tasks and lists. Non-members get nothing to write with. A quiet section (issue 40): a small
// heading with the count, one line when there is nothing yet, a composer compact until used.
import { useLayoutEffect, useRef, useState } from 'react';

import { SectionHeader } from '@/components/ui/section-header';
import { useDeleteWithUndo } from '@/hooks/use-delete-with-undo';
import { useListAccess } from '@/hooks/use-list-access';
import { useNow } from '@/hooks/use-now';
import { usePendingRows } from '@/hooks/use-pending-rows';
import { displayName, useProfiles } from '@/hooks/use-profiles';
import { useSession } from '@/lib/session';

import '../comments.css';
import { useTaskComments, type Comment } from '../hooks/use-task-comments';
import { CommentComposer } from './comment-composer';
import { CommentItem } from './comment-item';

export function CommentsPanel({ taskId, listId }: { taskId: string; listId: string }) {
  const deleteWithUndo = useDeleteWithUndo();
  const { userId } = useSession();
  const comments = useTaskComments(taskId);
  const profiles = useProfiles();
  const pending = usePendingRows(listId);
  const access = useListAccess(listId);
  const now = useNow();
  const heading = useRef<HTMLHeadingElement>(null);
  const [deletedCount, setDeletedCount] = useState(0);

  // The deleted comment's buttons are gone: put focus on the section's heading rather than
  // losing it to the page (in the commit that removes them: see comment-item.tsx).
  useLayoutEffect(() => {
    if (deletedCount > 0) heading.current?.focus();
  }, [deletedCount]);

  const canModify = (comment: Comment) =>
    access.canComment && (comment.authorId === userId || access.role === 'owner');

  async function remove(comment: Comment) {
    if (await deleteWithUndo('comments', comment.id, '')) setDeletedCount((n) => n + 1);
  }

  const headingId = `comments-${taskId}`;
  return (
    <section className="comments" aria-labelledby={headingId}>
      <SectionHeader
        id={headingId}
        title="Comments"
        count={comments?.length}
        headingRef={heading}
      />

      {comments === undefined ? null : comments.length === 0 ? (
        <p className="comments__empty">No comments yet</p>
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
                onDelete={(chosen) => void remove(chosen)}
              />
            );
          })}
        </ol>
      )}

      {access.canComment ? <CommentComposer taskId={taskId} /> : null}
    </section>
  );
}
