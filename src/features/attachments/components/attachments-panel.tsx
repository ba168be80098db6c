// The task detail's "Photos and files": every live attachment of the task from the device
// database (viewable offline once here), adding photos and files for those who may edit
// tasks, and removing them with Undo in the toast (product.md §4), as for tasks. Viewers only look.
import { useLayoutEffect, useRef, useState } from 'react';

import { useDeleteWithUndo } from '@/hooks/use-delete-with-undo';
import { useListAccess } from '@/hooks/use-list-access';
import { usePendingRows } from '@/hooks/use-pending-rows';

import '../attachments.css';
import { useTaskAttachments, type Attachment } from '../hooks/use-task-attachments';
import { AttachmentItem } from './attachment-item';
import { AttachmentPicker } from './attachment-picker';

export function AttachmentsPanel({ taskId, listId }: { taskId: string; listId: string }) {
  const deleteWithUndo = useDeleteWithUndo();
  const attachments = useTaskAttachments(taskId);
  const pending = usePendingRows(listId);
  const { canEditTasks } = useListAccess(listId);
  const heading = useRef<HTMLHeadingElement>(null);
  const [removedCount, setRemovedCount] = useState(0);

  // The removed file's button is gone, so focus lands on the section's heading instead of
  // the page's top, in the commit that removes it (see comment-item.tsx).
  useLayoutEffect(() => {
    if (removedCount > 0) heading.current?.focus();
  }, [removedCount]);

  async function remove(attachment: Attachment) {
    if (await deleteWithUndo('attachments', attachment.id, attachment.fileName)) {
      setRemovedCount((n) => n + 1);
    }
  }

  return (
    <section className="attachments" aria-labelledby={`attachments-${taskId}`}>
      <h2 id={`attachments-${taskId}`} ref={heading} tabIndex={-1} className="attachments__title">
        Photos and files
      </h2>
      {attachments === undefined ? null : (
        // One box whether empty or not, so the pickers keep their place in the tree (and
        // what they are saying: a refused file, "Added 2 files") when the first file lands.
        // Empty, the way to add one sits right in the empty box.
        <div className={attachments.length === 0 ? 'empty-state attachments__empty' : undefined}>
          {attachments.length === 0 ? (
            <>
              <p className="empty-state__title">No photos or files yet</p>
              {canEditTasks ? (
                <p className="attachments__empty-text">
                  Take a photo or add a PDF to keep it with this task.
                </p>
              ) : null}
            </>
          ) : null}
          {attachments.length > 0 ? (
            <ul className="attachments__list">
              {attachments.map((attachment) => (
                <AttachmentItem
                  key={attachment.id}
                  attachment={attachment}
                  pending={pending.has(attachment.id)}
                  canRemove={canEditTasks}
                  onRemove={(chosen) => void remove(chosen)}
                />
              ))}
            </ul>
          ) : null}
          {canEditTasks ? <AttachmentPicker taskId={taskId} count={attachments.length} /> : null}
        </div>
      )}
    </section>
  );
}
