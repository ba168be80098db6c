// One photo or file of a task: thumbnail (or PDF icon), name, size, where its upload is, a
// preview dialog, and Remove for those who may edit the task.
import { useState } from 'react';

import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { formatBytes } from '@/utils/format';

import { downloadName } from '../download-name';
import { useAttachmentUrl, type AttachmentView } from '../hooks/use-attachment-url';
import {
  isImage,
  useUploadState,
  type Attachment,
  type UploadState,
} from '../hooks/use-task-attachments';
import { FileIcon } from './file-icon';

const UPLOAD_LABELS: Partial<
  Record<UploadState, { text: string; tone: 'pending' | 'error' | '' }>
> = {
  queued: { text: 'Waiting to upload', tone: 'pending' },
  uploading: { text: 'Uploading…', tone: '' },
  failed: { text: 'Upload failed — retrying', tone: 'error' },
};

function unavailableText(view: Extract<AttachmentView, { status: 'unavailable' }>): string {
  return view.offline ? 'Available when online' : "Couldn't load this file";
}

export function AttachmentItem({
  attachment,
  pending,
  canRemove,
  onRemove,
}: {
  attachment: Attachment;
  /** The row still has changes queued on this device. */
  pending: boolean;
  canRemove: boolean;
  onRemove: (attachment: Attachment) => void;
}) {
  const { view, retry } = useAttachmentUrl(attachment.id, attachment.mimeType);
  const uploadState = useUploadState(attachment.id);
  const [previewOpen, setPreviewOpen] = useState(false);
  const image = isImage(attachment);
  const upload = uploadState ? UPLOAD_LABELS[uploadState] : undefined;
  const status = upload ?? (pending ? { text: 'Not synced yet', tone: 'pending' as const } : null);
  const dimensions =
    attachment.width && attachment.height ? `${attachment.width} × ${attachment.height}` : null;

  return (
    <li className="attachments__item">
      {image && view.status !== 'ready' ? (
        // Nothing to preview yet: an icon in the thumbnail's place, the reason beside it.
        <span className="attachments__thumb attachments__thumb--empty" aria-hidden="true">
          <FileIcon kind={view.status === 'loading' ? 'loading' : 'image'} />
        </span>
      ) : (
        <button
          type="button"
          className="attachments__thumb"
          aria-label={`Preview ${attachment.fileName}`}
          onClick={() => setPreviewOpen(true)}
        >
          {image && view.status === 'ready' ? (
            <img src={view.url} alt="" loading="lazy" decoding="async" />
          ) : (
            <FileIcon kind="pdf" />
          )}
        </button>
      )}

      <div className="attachments__info">
        <span className="attachments__name">{attachment.fileName}</span>
        <span className="attachments__meta">
          <span>{formatBytes(attachment.sizeBytes)}</span>
          {status ? (
            <span className={`badge${status.tone ? ` badge--${status.tone}` : ''}`}>
              {status.text}
            </span>
          ) : null}
          {view.status === 'unavailable' ? (
            <span className="attachments__unavailable">
              {unavailableText(view)}
              {view.offline ? null : (
                <Button
                  variant="ghost"
                  size="sm"
                  aria-label={`Retry loading ${attachment.fileName}`}
                  onClick={retry}
                >
                  Retry
                </Button>
              )}
            </span>
          ) : null}
        </span>
      </div>

      {canRemove ? (
        <Button
          variant="ghost"
          size="sm"
          className="attachments__remove"
          aria-label={`Remove ${attachment.fileName}`}
          onClick={() => onRemove(attachment)}
        >
          Remove
        </Button>
      ) : null}

      <Dialog
        open={previewOpen}
        title={attachment.fileName}
        onClose={() => setPreviewOpen(false)}
        actions={
          <>
            {view.status === 'ready' && image ? (
              <a
                className="btn btn--secondary"
                href={view.url}
                download={downloadName(attachment.fileName, attachment.mimeType)}
              >
                Download
              </a>
            ) : null}
            <Button variant="primary" onClick={() => setPreviewOpen(false)}>
              Close
            </Button>
          </>
        }
      >
        {view.status === 'ready' ? (
          image ? (
            <img className="attachments__full" src={view.url} alt={attachment.fileName} />
          ) : (
            // A download, never a tab of ours: a document opened from a blob: URL is a page on
            // the app's origin, and the device's own viewer opens the file safely instead.
            <p className="attachments__pdf">
              <FileIcon kind="pdf" />
              <a
                className="btn btn--primary"
                href={view.url}
                download={downloadName(attachment.fileName, attachment.mimeType)}
              >
                Download PDF
              </a>
            </p>
          )
        ) : (
          <p className="attachments__preview-note">
            {view.status === 'loading' ? 'Loading…' : unavailableText(view)}
          </p>
        )}
        <p className="attachments__caption">
          {formatBytes(attachment.sizeBytes)}
          {dimensions ? ` · ${dimensions}` : ''}
        </p>
      </Dialog>
    </li>
  );
}
