// One comment: who wrote it and when, whether it was edited or is still on this device only,
// its text (line breaks kept, never parsed as HTML), and Edit / Delete for those allowed to
// (product.md §6: the author; the list's owner for any comment). Editing happens in place.
import { useId, useLayoutEffect, useRef, useState } from 'react';

import { commentInput } from '@/data/schema';
import { validate } from '@sync/index';
import { Avatar } from '@/components/ui/avatar';
import { Button } from '@/components/ui/button';
import { FormError, TextAreaField } from '@/components/ui/field';
import { useAvatarUrl } from '@/hooks/use-avatar-url';
import { useServices } from '@/lib/services';
import { attempt } from '@/data/writes';
import { relativeTime } from '@/utils/format';

import type { Comment } from '../hooks/use-task-comments';
import { CommentHint } from './comment-hint';
import { isSubmitShortcut, submitShortcutLabel } from './comment-keys';

/**
 * How much later than its creation a comment must have been changed to say "edited" (ms).
 * Device and server stamp both times with one clock each, so anything above a second is a
 * real edit, not the distance between two stamps of one write.
 */
export const EDITED_AFTER_MS = 1_000;

export function CommentItem({
  comment,
  authorName,
  avatarName,
  avatarPath,
  pending,
  canModify,
  now,
  onDelete,
}: {
  comment: Comment;
  /** "You" for the current user. */
  authorName: string;
  /** The name the avatar's initials come from (the profile's, even for "You"). */
  avatarName: string;
  avatarPath: string | null;
  pending: boolean;
  canModify: boolean;
  now: number;
  onDelete: (comment: Comment) => void;
}) {
  const { sync } = useServices();
  const avatarUrl = useAvatarUrl(avatarPath);
  const fieldId = useId();
  const editButton = useRef<HTMLButtonElement>(null);
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(comment.body);
  const [error, setError] = useState<string | undefined>();
  const [formError, setFormError] = useState<string | undefined>();
  const [saving, setSaving] = useState(false);
  /** Set by Save or Cancel: focus goes back to Edit as soon as it is on the page. */
  const returnFocus = useRef(false);

  // Back on the Edit button after Save or Cancel, so the keyboard user is where they were:
  // in the commit that shows the button (a layout effect: a passive one runs after paint,
  // and a save ends outside any event, so focus would lag behind what is on screen), and
  // after every render until the button is there.
  useLayoutEffect(() => {
    if (!returnFocus.current || !editButton.current) return;
    returnFocus.current = false;
    editButton.current.focus();
  });

  const created = Date.parse(comment.createdAt);
  const updated = Date.parse(comment.updatedAt);
  const edited = updated - created > EDITED_AFTER_MS;
  const possessive = authorName === 'You' ? 'your' : `${authorName}'s`;

  function startEditing() {
    setDraft(comment.body);
    setError(undefined);
    setFormError(undefined);
    setEditing(true);
  }

  function stopEditing() {
    returnFocus.current = true;
    setEditing(false);
  }

  async function save() {
    if (saving) return;
    const checked = validate(commentInput, { body: draft });
    if (!checked.ok) {
      setError(checked.errors.body);
      return;
    }
    if (checked.value.body === comment.body) {
      stopEditing();
      return;
    }
    setSaving(true);
    const result = await attempt(() => sync.repos.comments.edit(comment.id, draft));
    setSaving(false);
    if (!result.ok) {
      setError(result.errors.body);
      setFormError(result.errors.body ? undefined : result.errors._);
      return;
    }
    stopEditing();
  }

  return (
    <li className="comments__item">
      <Avatar id={comment.authorId} name={avatarName} src={avatarUrl} size={32} decorative />
      <div className="comments__main">
        <div className="comments__header">
          <span className="comments__author">{authorName}</span>
          {Number.isFinite(created) ? (
            <time
              className="comments__time"
              dateTime={comment.createdAt}
              title={new Date(created).toLocaleString()}
            >
              {relativeTime(created, now)}
            </time>
          ) : null}
          {edited ? (
            <span
              className="comments__edited"
              title={
                Number.isFinite(updated)
                  ? `Edited ${new Date(updated).toLocaleString()}`
                  : undefined
              }
            >
              edited
            </span>
          ) : null}
          {pending ? <span className="badge badge--pending">Not synced yet</span> : null}
        </div>

        {editing ? (
          <form
            className="comments__edit"
            noValidate
            onSubmit={(event) => {
              event.preventDefault();
              void save();
            }}
          >
            <TextAreaField
              id={fieldId}
              label={`Edit ${possessive} comment`}
              hideLabel
              rows={3}
              value={draft}
              error={error}
              hint={
                <CommentHint text={draft}>
                  <span>{submitShortcutLabel()} to save, Escape to cancel</span>
                </CommentHint>
              }
              // Editing starts from a button press, so moving focus here is expected.
              autoFocus
              onFocus={(event) => {
                const end = event.currentTarget.value.length;
                event.currentTarget.setSelectionRange(end, end);
              }}
              onChange={(event) => {
                setDraft(event.target.value);
                if (error) setError(undefined);
              }}
              onKeyDown={(event) => {
                if (event.key === 'Escape') {
                  event.preventDefault();
                  event.stopPropagation();
                  stopEditing();
                } else if (isSubmitShortcut(event)) {
                  event.preventDefault();
                  void save();
                }
              }}
            />
            <FormError message={formError} />
            <div className="comments__edit-actions">
              <Button type="submit" variant="primary" size="sm" disabled={saving}>
                Save
              </Button>
              <Button size="sm" onClick={stopEditing}>
                Cancel
              </Button>
            </div>
          </form>
        ) : (
          <p className="comments__body">{comment.body}</p>
        )}

        {canModify && !editing ? (
          <div className="comments__actions">
            <button
              ref={editButton}
              type="button"
              className="btn btn--ghost btn--sm"
              aria-label={`Edit ${possessive} comment`}
              onClick={startEditing}
            >
              Edit
            </button>
            <Button
              variant="ghost"
              size="sm"
              className="comments__delete"
              aria-label={`Delete ${possessive} comment`}
              onClick={() => onDelete(comment)}
            >
              Delete
            </Button>
          </div>
        ) : null}
      </div>
    </li>
  );
}
