// The task detail's files: every live attachment of the task from the device database
// (viewable offline once here), adding photos and files for those who may edit tasks, and
// removing them with Undo in the toast (product.md §4), as for tasks. Viewers only look. A
// quiet section (issue 40): a small heading with the count and the Add buttons beside it,
// and one line when there is nothing yet.
import { useLayoutEffect, useRef, useState } from 'react';

import { SectionHeader } from '@/components/ui/section-header';
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

  const header = { id: `attachments-${taskId}`, title: 'Files' };
  const files =
    attachments === undefined ? null : attachments.length === 0 ? (
      <p className="attachments__empty">No files</p>
    ) : (
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
    );

  return (
    <section className="attachments" aria-labelledby={header.id}>
      {canEditTasks && attachments !== undefined ? (
        // The picker frames the files, so it keeps its place in the tree (and what it is
        // saying: a refused file, "Added 2 files") when the first file lands.
        <AttachmentPicker
          taskId={taskId}
          count={attachments.length}
          header={header}
          headingRef={heading}
        >
          {files}
        </AttachmentPicker>
      ) : (
        <>
          <SectionHeader {...header} count={attachments?.length} headingRef={heading} />
          {files}
        </>
      )}
    </section>
  );
}
