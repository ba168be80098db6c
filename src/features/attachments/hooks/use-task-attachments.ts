// A task's live attachments from the device database, oldest first, and the upload state of
// one attachment's bytes (product.md §4: queued → uploading → uploaded; failed retries).
import { useLiveQuery } from 'dexie-react-hooks';

import type { FileRecord } from '@sync/db';
import type { LocalRow } from '@sync/index';
import { useServices } from '@/lib/services';

export interface Attachment {
  id: string;
  fileName: string;
  mimeType: string;
  sizeBytes: number;
  width: number | null;
  height: number | null;
  createdAt: string;
}

function toAttachment(row: LocalRow): Attachment {
  return {
    id: row.id,
    fileName: typeof row.file_name === 'string' ? row.file_name : 'file',
    mimeType: typeof row.mime_type === 'string' ? row.mime_type : '',
    sizeBytes: typeof row.size_bytes === 'number' ? row.size_bytes : Number(row.size_bytes ?? 0),
    width: typeof row.width === 'number' ? row.width : null,
    height: typeof row.height === 'number' ? row.height : null,
    createdAt: typeof row.created_at === 'string' ? row.created_at : '',
  };
}

/** undefined while loading. */
export function useTaskAttachments(taskId: string): Attachment[] | undefined {
  const { sync } = useServices();
  return useLiveQuery(async () => {
    const rows = await sync.db.rows('attachments').where('task_id').equals(taskId).toArray();
    return rows
      .filter((row) => !row.deleted_at)
      .map(toAttachment)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  }, [sync, taskId]);
}

export type UploadState = FileRecord['state'];

/** The bytes' state on this device; null when they are not here (made elsewhere). */
export function useUploadState(attachmentId: string): UploadState | null | undefined {
  const { sync } = useServices();
  return useLiveQuery(
    async () => (await sync.db._files.get(attachmentId))?.state ?? null,
    [sync, attachmentId],
  );
}

export function isImage(attachment: Pick<Attachment, 'mimeType'>): boolean {
  return attachment.mimeType.startsWith('image/');
}
