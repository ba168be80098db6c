// The task detail's "Photos and files": every live attachment of the task from the device
// database (viewable offline once here), adding photos and files for those who may edit
// tasks, and removing them with Undo in the toast (product.md §4), as for tasks. Viewers only look.
import { useLayoutEffect, useRef, useState } from 'react';

import { UNDO_WINDOW_MS } from '@sync/index';
import { useListAccess } from '@/hooks/use-list-access';
import { usePendingRows } from '@/hooks/use-pending-rows';
import { useServices } from '@/lib/services';
import { showToast } from '@/lib/toasts';
import { attempt } from '@/lib/writes';

import '../attachments.css';
import { useTaskAttachments, type Attachment } from '../hooks/use-task-attachments';
import { AttachmentItem } from './attachment-item';
import { AttachmentPicker } from './attachment-picker';

export function AttachmentsPanel({ taskId, listId }: { taskId: string; listId: string }) {
  const { sync } = useServices();
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
    const result = await attempt(() => sync.repos.attachments.delete(attachment.id));
    if (!result.ok) {
      showToast({
        message: result.errors._ ?? Object.values(result.errors)[0] ?? "Couldn't remove the file.",
        tone: 'error',
      });
      return;
    }
    setRemovedCount((n) => n + 1);
    showToast({
      message: `Removed “${attachment.fileName}”`,
      // As long as the delete is held back on this device; after that it is final.
      durationMs: UNDO_WINDOW_MS,
      action: {
        label: 'Undo',
        run: async () => {
          if (!(await sync.repos.attachments.undoDelete(attachment.id))) {
            showToast({
              message: 'Too late to undo: the file was already removed.',
              tone: 'error',
            });
          }
        },
      },
    });
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
