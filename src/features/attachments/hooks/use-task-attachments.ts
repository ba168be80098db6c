// A task's live attachments from the device database, oldest first, and the upload state of
// one attachment's bytes (product.md §4: queued → uploading → uploaded; failed retries).
import { useLiveQuery } from 'dexie-react-hooks';

import type { FileState } from '@/data/sync';
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

/** undefined while loading. */
export function useTaskAttachments(taskId: string): Attachment[] | undefined {
  const { sync } = useServices();
  return useLiveQuery(
    async () =>
      (await sync.queries.attachments(taskId)).map((row) => ({
        id: row.id,
        fileName: row.file_name,
        mimeType: row.mime_type,
        sizeBytes: row.size_bytes,
        width: row.width,
        height: row.height,
        createdAt: row.created_at,
      })),
    [sync, taskId],
  );
}

export type UploadState = FileState;

/** The bytes' state on this device; null when they are not here (made elsewhere). */
export function useUploadState(attachmentId: string): UploadState | null | undefined {
  const { sync } = useServices();
  return useLiveQuery(() => sync.queries.fileState(attachmentId), [sync, attachmentId]);
}

export function isImage(attachment: Pick<Attachment, 'mimeType'>): boolean {
  return attachment.mimeType.startsWith('image/');
}
