// Attaching files to a task, the one way every screen does it ("Add file", "Take photo", a
// share from another app): each file is checked before anything is queued (product.md §8
// FILE_TOO_LARGE / FILE_TYPE, ≤ 20 per task), the rest go to the repository, which keeps the
// bytes on the device and queues the upload (so it works offline).
import { ATTACHMENT_MAX_BYTES, ATTACHMENTS_PER_TASK_MAX, attachmentInput } from '@/data/schema';
import { validate } from '@sync/index';
import { errorMessage } from '@/lib/error-messages';
import { useServices } from '@/lib/services';
import { attempt } from '@/data/writes';
import { formatBytes } from '@/utils/format';

export interface FileRefusal {
  fileName: string;
  message: string;
}

export interface AddedFiles {
  /** Ids of the attachments made, in the files' order. */
  added: string[];
  refused: FileRefusal[];
}

export const PER_TASK_MESSAGE = `A task can have at most ${ATTACHMENTS_PER_TASK_MAX} photos and files.`;

/** Why a file cannot be attached, or null when it can (same rules as the repository). */
export function refusalFor(file: Pick<File, 'name' | 'type' | 'size'>): string | null {
  const checked = validate(attachmentInput, {
    file_name: file.name,
    mime_type: file.type,
    size_bytes: file.size,
  });
  if (checked.ok) return null;
  if (checked.errors.mime_type) return errorMessage('FILE_TYPE');
  if (checked.errors.size_bytes) {
    return file.size > ATTACHMENT_MAX_BYTES
      ? // Rounded up: a file refused as over "10 MB" never reads "10 MB" itself.
        `${errorMessage('FILE_TOO_LARGE')} (this one is ${formatBytes(file.size, { roundUp: true })})`
      : checked.errors.size_bytes;
  }
  return Object.values(checked.errors)[0] ?? errorMessage('VALIDATION_FAILED');
}

/** An image's pixel size, where the browser can decode it (jsdom and old browsers cannot). */
async function imageSize(file: File): Promise<{ width: number; height: number } | undefined> {
  if (!file.type.startsWith('image/') || typeof createImageBitmap !== 'function') return undefined;
  try {
    const bitmap = await createImageBitmap(file);
    const size = { width: bitmap.width, height: bitmap.height };
    bitmap.close();
    return size;
  } catch {
    return undefined; // undecodable here; the file is still worth keeping
  }
}

/**
 * `add(taskId, files, count)`: attaches what may be attached to a task that has `count`
 * files already, and says why each other file was not.
 */
export function useAddAttachments(): (
  taskId: string,
  files: readonly File[],
  count: number,
) => Promise<AddedFiles> {
  const { sync } = useServices();
  return async (taskId, files, count) => {
    const refused: FileRefusal[] = [];
    const added: string[] = [];
    const refuse = (fileName: string, message: string) => refused.push({ fileName, message });
    let room = ATTACHMENTS_PER_TASK_MAX - count;
    let outOfSpace = false;
    for (const file of files) {
      const refusal = refusalFor(file);
      if (refusal) refuse(file.name, refusal);
      else if (outOfSpace) refuse(file.name, errorMessage('QUOTA_EXCEEDED'));
      else if (room <= 0) refuse(file.name, PER_TASK_MESSAGE);
      else {
        const size = await imageSize(file);
        const result = await attempt(
          () => sync.repos.attachments.add(taskId, file, file.name, size),
          { creates: true },
        );
        if (result.ok) {
          added.push(result.value);
          room -= 1;
        } else if (result.code === 'QUOTA_EXCEEDED') {
          // attempt() has toasted it; say it here too, next to the file it concerns.
          outOfSpace = true;
          refuse(file.name, errorMessage('QUOTA_EXCEEDED'));
        } else if (result.code === 'FILE_TOO_LARGE' || result.code === 'FILE_TYPE') {
          refuse(file.name, errorMessage(result.code));
        } else {
          refuse(
            file.name,
            result.errors._ ?? Object.values(result.errors)[0] ?? errorMessage(result.code),
          );
        }
      }
    }
    return { added, refused };
  };
}
